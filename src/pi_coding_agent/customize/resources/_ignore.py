"""``.gitignore``, ``.ignore`` and ``.fdignore`` files met while walking a resource folder.

As in Pi, each folder's rules are added with the folder's path (relative to the walk's root)
as prefix, a leading ``/`` is dropped, ``!`` negates. Matching is gitignore's (pathspec).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

IGNORE_FILE_NAMES = (".gitignore", ".ignore", ".fdignore")


def _prefixed(line: str, prefix: str) -> str | None:
    trimmed = line.strip()
    if not trimmed or (trimmed.startswith("#") and not trimmed.startswith("\\#")):
        return None
    pattern = line
    negated = False
    if pattern.startswith("!"):
        negated = True
        pattern = pattern[1:]
    elif pattern.startswith("\\!"):
        pattern = pattern[1:]
    if pattern.startswith("/"):
        pattern = pattern[1:]
    prefixed = f"{prefix}{pattern}" if prefix else pattern
    return f"!{prefixed}" if negated else prefixed


class IgnoreRules:
    """The ignore patterns collected so far in one walk (shared by its sub-folders)."""

    def __init__(self) -> None:
        self._patterns: list[str] = []
        self._spec: GitIgnoreSpec | None = None

    def add_folder(self, folder: str, root: str) -> None:
        relative = os.path.relpath(folder, root)
        prefix = "" if relative == "." else relative.replace(os.sep, "/") + "/"
        for name in IGNORE_FILE_NAMES:
            path = os.path.join(folder, name)
            try:
                with open(path, encoding="utf-8", errors="replace") as handle:
                    lines = handle.read().splitlines()
            except OSError:
                continue
            added = [p for p in (_prefixed(line, prefix) for line in lines) if p]
            if added:
                self._patterns.extend(added)
                self._spec = None

    def ignores(self, relative_path: str) -> bool:
        """Whether a path (``/``-separated, relative to the root; folders end in ``/``) is ignored."""
        if not self._patterns:
            return False
        if self._spec is None:
            from pathspec import GitIgnoreSpec

            self._spec = GitIgnoreSpec.from_lines(self._patterns)
        return self._spec.match_file(relative_path)
