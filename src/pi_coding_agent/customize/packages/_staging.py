"""Putting a package in place only once it is complete.

Work happens in a temporary folder beside the destination; ``commit`` swaps it in (the old
copy, if any, is kept until the new one is in place), and leaving the ``with`` block
without ``commit`` deletes everything, pruning parent folders that were created for it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from types import TracebackType

from pi_coding_agent.core.paths import make_private_dirs


class Staging:
    def __init__(self, destination: str, install_root: str) -> None:
        self.destination = destination
        self.install_root = install_root
        self.folder = ""
        self._created_parents: list[str] = []
        self._committed = False

    def __enter__(self) -> Staging:
        parent = os.path.dirname(self.destination)
        missing: list[str] = []
        probe = parent
        while not os.path.exists(probe) and probe.startswith(self.install_root):
            missing.append(probe)
            probe = os.path.dirname(probe)
        make_private_dirs(parent)
        self._created_parents = missing
        self.folder = tempfile.mkdtemp(
            prefix=f".{os.path.basename(self.destination)}.installing-", dir=parent
        )
        return self

    def commit(self, content: str | None = None) -> None:
        """Move ``content`` (default: the staging folder itself) to the destination."""
        source = content or self.folder
        backup = None
        if os.path.lexists(self.destination):
            backup = tempfile.mkdtemp(
                prefix=f".{os.path.basename(self.destination)}.old-", dir=os.path.dirname(self.destination)
            )
            os.rmdir(backup)
            os.replace(self.destination, backup)
        try:
            os.replace(source, self.destination)
        except OSError:
            if backup is not None:
                os.replace(backup, self.destination)
            raise
        if backup is not None:
            shutil.rmtree(backup, ignore_errors=True)
        self._committed = True

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if os.path.exists(self.folder):
            shutil.rmtree(self.folder, ignore_errors=True)
        if not self._committed:
            for folder in self._created_parents:
                try:
                    os.rmdir(folder)
                except OSError:
                    break


def remove_tree(path: str, install_root: str) -> None:
    """Delete an installed package and the parent folders it leaves empty (up to ``install_root``)."""
    shutil.rmtree(path, ignore_errors=True)
    root = os.path.abspath(install_root)
    current = os.path.dirname(os.path.abspath(path))
    while current.startswith(root + os.sep) and current != root:
        try:
            os.rmdir(current)
        except OSError:
            break
        current = os.path.dirname(current)
