"""The git branch the footer shows after the working directory (Pi's footer data provider).

The repository is found by walking up from the working directory to a ``.git`` folder, or a
``.git`` file (a worktree or submodule: ``gitdir: <path>``, with ``commondir`` naming the
shared folder). The branch is read from ``HEAD``: ``ref: refs/heads/<name>`` gives the name,
anything else is ``detached``; in a reftable repository (``refs/heads/.invalid``) git itself is
asked. ``poll`` notices a branch switch made anywhere (HEAD or the reftable list changed);
Pi watches the same files.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass

_BRANCH_PREFIX = "ref: refs/heads/"


@dataclass(frozen=True)
class _GitPaths:
    repo_dir: str
    head: str
    reftable_list: str


def _find_git_paths(cwd: str) -> _GitPaths | None:
    folder = cwd
    while True:
        dot_git = os.path.join(folder, ".git")
        if os.path.isdir(dot_git):
            return _paths(folder, dot_git, dot_git)
        if os.path.isfile(dot_git):
            try:
                with open(dot_git, encoding="utf-8") as handle:
                    content = handle.read().strip()
            except (OSError, UnicodeDecodeError):
                return None
            if not content.startswith("gitdir: "):
                return None
            git_dir = os.path.normpath(os.path.join(folder, content[len("gitdir: ") :].strip()))
            return _paths(folder, git_dir, _common_dir(git_dir))
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _common_dir(git_dir: str) -> str:
    try:
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as handle:
            return os.path.normpath(os.path.join(git_dir, handle.read().strip()))
    except (OSError, UnicodeDecodeError):
        return git_dir


def _paths(repo_dir: str, git_dir: str, common_dir: str) -> _GitPaths | None:
    head = os.path.join(git_dir, "HEAD")
    if not os.path.exists(head):
        return None
    return _GitPaths(repo_dir, head, os.path.join(common_dir, "reftable", "tables.list"))


def _stamp(path: str) -> tuple[int, int, int] | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_mtime_ns, status.st_ctime_ns, status.st_size


def _ask_git(repo_dir: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "--no-optional-locks", "symbolic-ref", "--quiet", "--short", "HEAD"],
            cwd=repo_dir,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return (done.stdout.strip() or None) if done.returncode == 0 else None


class GitBranch:
    """The branch checked out where ``cwd`` is: a name, ``detached``, or ``None`` outside a repository."""

    def __init__(self, cwd: str) -> None:
        self.name: str | None = None
        self._locate(cwd)

    def _locate(self, cwd: str) -> None:
        self.cwd = cwd
        self._paths = _find_git_paths(cwd)
        self._stamps = self._current_stamps()
        self.name = self._read()

    def _current_stamps(self) -> tuple[object, ...]:
        paths = self._paths
        return () if paths is None else (_stamp(paths.head), _stamp(paths.reftable_list))

    def _read(self) -> str | None:
        if self._paths is None:
            return None
        try:
            with open(self._paths.head, encoding="utf-8") as handle:
                content = handle.read().strip()
        except (OSError, UnicodeDecodeError):
            return None
        if not content.startswith(_BRANCH_PREFIX):
            return "detached"
        branch = content[len(_BRANCH_PREFIX) :]
        return (_ask_git(self._paths.repo_dir) or "detached") if branch == ".invalid" else branch

    def poll(self, cwd: str) -> bool:
        """Read the branch again if ``cwd`` moved or git's files changed; whether it changed."""
        if cwd != self.cwd:
            before = self.name
            self._locate(cwd)
            return self.name != before
        stamps = self._current_stamps()
        if stamps == self._stamps:
            return False
        self._stamps = stamps
        before, self.name = self.name, self._read()
        return self.name != before
