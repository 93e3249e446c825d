"""A directory walk that honours ignore files the way ripgrep and fd do.

Used by ``grep`` and ``find`` when ``rg`` / ``fd`` are not installed. Rules, strongest first:
the tool's own ignore file (``.rgignore`` / ``.fdignore``), then ``.ignore``, then
``.gitignore``, then ``.git/info/exclude``, then git's global excludes file. Within one kind,
a deeper directory's file wins over a shallower one's, and within a file the last matching
line wins (``!`` re-includes). An ignored directory is not entered. Ignore files of the
directories above the search root count too (git files only up to the repository root).
A directory with its own ``.git`` starts a new repository: git rules from above stop there.
Hidden files are included, as with ``--hidden``. Symlinks are reported, never followed.

Entries come out depth first in code-point order of names, which makes results
deterministic (the external tools search in parallel and return files in any order).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pathspec

_CUSTOM, _DOT_IGNORE, _GITIGNORE, _EXCLUDE, _GLOBAL = range(5)
_KINDS = 5


@dataclass(slots=True, frozen=True)
class _Rules:
    base: str
    """Absolute directory the patterns are relative to."""
    spec: pathspec.GitIgnoreSpec


RuleStacks = list[list[_Rules]]
"""Per kind of ignore file, the rule sets in force, outermost directory first."""


@dataclass(slots=True)
class WalkEntry:
    path: str
    """Absolute path."""
    relative: str
    """Path relative to the walk root, ``/``-separated."""
    is_dir: bool
    is_symlink: bool


def _load(path: str) -> pathspec.GitIgnoreSpec | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    import pathspec  # only once an ignore file is found (it costs ~20 ms to import)

    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    return spec if len(spec) else None


def _global_excludes() -> str | None:
    home = os.path.expanduser("~")
    for config in (os.path.join(home, ".gitconfig"), os.path.join(_xdg_config(), "git", "config")):
        try:
            with open(config, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
        except OSError:
            continue
        match = re.search(r"(?im)^\s*excludesfile\s*=\s*(.+?)\s*$", text)
        if match:
            return os.path.expanduser(match.group(1).strip('"'))
    return os.path.join(_xdg_config(), "git", "ignore")


def _xdg_config() -> str:
    return os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")


def _is_repo_root(directory: str) -> bool:
    return os.path.exists(os.path.join(directory, ".git"))


class IgnoreWalker:
    """Walks one root. ``tool_ignore_file`` is ``.rgignore`` or ``.fdignore``.

    ``require_git``: apply git rules only inside a repository (ripgrep's default); fd is run
    by Pi with ``--no-require-git`` outside repositories, so git rules always apply for it.
    """

    def __init__(self, root: str, *, tool_ignore_file: str, require_git: bool) -> None:
        self.root = root
        self.tool_ignore_file = tool_ignore_file
        self.require_git = require_git
        self._global: pathspec.GitIgnoreSpec | None = None
        global_path = _global_excludes()
        if global_path:
            self._global = _load(global_path)

    def _dir_rules(self, directory: str, in_repo: bool, git: bool) -> list[tuple[int, _Rules]]:
        found: list[tuple[int, _Rules]] = []
        for kind, name in ((_CUSTOM, self.tool_ignore_file), (_DOT_IGNORE, ".ignore")):
            spec = _load(os.path.join(directory, name))
            if spec is not None:
                found.append((kind, _Rules(directory, spec)))
        if git and (in_repo or not self.require_git):
            spec = _load(os.path.join(directory, ".gitignore"))
            if spec is not None:
                found.append((_GITIGNORE, _Rules(directory, spec)))
        if _is_repo_root(directory) and (in_repo or not self.require_git):
            spec = _load(os.path.join(directory, ".git", "info", "exclude"))
            if spec is not None:
                found.append((_EXCLUDE, _Rules(directory, spec)))
        return found

    def initial_state(self) -> tuple[list[list[_Rules]], bool]:
        """Rules from the root and its ancestors (outermost first within each kind)."""
        ancestors: list[str] = []
        current = self.root
        while True:
            ancestors.append(current)
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
        repo_index = next((i for i, d in enumerate(ancestors) if _is_repo_root(d)), None)
        in_repo = repo_index is not None
        stacks: list[list[_Rules]] = [[] for _ in range(_KINDS)]
        for index in range(len(ancestors) - 1, -1, -1):
            directory = ancestors[index]
            git = repo_index is None or index <= repo_index
            for kind, rules in self._dir_rules(directory, in_repo, git):
                if kind == _EXCLUDE and repo_index is not None and index != repo_index:
                    continue
                stacks[kind].append(rules)
        return stacks, in_repo

    def ignored(self, stacks: list[list[_Rules]], path: str, is_dir: bool, in_repo: bool) -> bool:
        for kind in range(_KINDS):
            if kind == _GLOBAL:
                if self._global is None or not (in_repo or not self.require_git):
                    continue
                rel = _relative(path, self.root)
                if rel is None:
                    continue
                result = self._global.check_file(rel + "/" if is_dir else rel).include
                if result is not None:
                    return result
                continue
            for rules in reversed(stacks[kind]):
                rel = _relative(path, rules.base)
                if rel is None:
                    continue
                result = rules.spec.check_file(rel + "/" if is_dir else rel).include
                if result is not None:
                    return result
        return False

    def walk(self) -> Iterator[WalkEntry]:
        stacks, in_repo = self.initial_state()
        yield from self._walk_dir(self.root, "", stacks, in_repo)

    def _walk_dir(
        self, directory: str, relative: str, stacks: list[list[_Rules]], in_repo: bool
    ) -> Iterator[WalkEntry]:
        for entry in sorted_entries(directory):
            try:
                is_symlink = entry.is_symlink()
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if self.ignored(stacks, entry.path, is_dir, in_repo):
                continue
            rel = f"{relative}{entry.name}"
            yield WalkEntry(entry.path, rel, is_dir, is_symlink)
            if is_dir:
                child, child_in_repo = self.descend(entry.path, stacks, in_repo)
                yield from self._walk_dir(entry.path, rel + "/", child, child_in_repo)

    def descend(
        self, directory: str, stacks: list[list[_Rules]], in_repo: bool
    ) -> tuple[list[list[_Rules]], bool]:
        """The rules in force inside ``directory``, a child of a directory with ``stacks``."""
        nested_repo = _is_repo_root(directory)
        child_in_repo = in_repo or nested_repo
        found = self._dir_rules(directory, child_in_repo, True)
        if not found and not nested_repo:
            return stacks, child_in_repo
        child = [list(stack) for stack in stacks]
        if nested_repo:
            child[_GITIGNORE] = []
            child[_EXCLUDE] = []
        for kind, rules in found:
            child[kind].append(rules)
        return child, child_in_repo


def sorted_entries(directory: str) -> list[os.DirEntry[str]]:
    """The directory's entries in code-point order of names (none when it cannot be read)."""
    try:
        with os.scandir(directory) as scan:
            return sorted(scan, key=lambda e: e.name)
    except OSError:
        return []


def _relative(path: str, base: str) -> str | None:
    prefix = base if base.endswith("/") else base + "/"
    return path[len(prefix) :] if path.startswith(prefix) else None


def is_regular_file(path: str) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False
