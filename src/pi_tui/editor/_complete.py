"""What the editor offers to complete: slash commands, ``@`` files, paths on Tab."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass

from pi_tui._fuzzy import fuzzy_filter

FILE_LIST_LIMIT = 20000
_SKIPPED_DIRS = {".git", "node_modules", "__pycache__", ".venv", ".mypy_cache", ".pytest_cache"}


@dataclass(frozen=True)
class Suggestion:
    value: str
    """Text that replaces the token being completed."""
    label: str
    description: str = ""


@dataclass(frozen=True)
class Completion:
    items: list[Suggestion]
    start: int
    """Column on the cursor's line where the replaced token starts."""
    selected: int = 0
    """The item highlighted first."""
    on_accept: Callable[[Suggestion, list[str], int, int], None] | None = None
    """Told of the item chosen, with the lines, line and column before it was put in (a
    provider that applies its items itself: TypeScript extensions' ``applyCompletion``)."""


def fuzzy_score(query: str, candidate: str) -> int | None:
    """How well ``query`` matches ``candidate`` as a subsequence (lower is better); None if not at all."""
    if not query:
        return 0
    query, lowered = query.lower(), candidate.lower()
    if lowered.startswith(query):
        return 0
    index = lowered.find(query)
    if index >= 0:
        return 10 + index
    position = 0
    gaps = 0
    for char in query:
        found = lowered.find(char, position)
        if found < 0:
            return None
        gaps += found - position
        position = found + 1
    return 100 + gaps + len(candidate) // 10


def list_project_files(cwd: str) -> list[str]:
    """Files under ``cwd`` (relative, posix): git's list when it is a repository, else a walk."""
    try:
        result = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
            cwd=cwd, capture_output=True, text=True, timeout=3, check=False,
        )  # fmt: skip
        if result.returncode == 0:
            return result.stdout.splitlines()[:FILE_LIST_LIMIT]
    except (OSError, subprocess.SubprocessError):
        pass
    files: list[str] = []
    for root, dirs, names in os.walk(cwd):
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_DIRS and not d.startswith("."))
        relative = os.path.relpath(root, cwd)
        for name in sorted(names):
            files.append(name if relative == "." else f"{relative}/{name}".replace(os.sep, "/"))
            if len(files) >= FILE_LIST_LIMIT:
                return files
    return files


def _best_match(items: list[Suggestion], prefix: str) -> int:
    """Pi's first highlight for arguments: the item that is ``prefix`` exactly, else the first
    that starts with it (case-sensitive), else the first."""
    if not prefix:
        return 0
    exact = next((i for i, item in enumerate(items) if item.value == prefix), None)
    if exact is not None:
        return exact
    return next((i for i, item in enumerate(items) if item.value.startswith(prefix)), 0)


CompletionSource = Callable[[list[str], int, int, bool], tuple[bool, "Completion | None"]]
"""``(lines, line, col, force) -> (answered, completion)``: see ``Completer.override``."""


class Completer:
    def __init__(
        self,
        cwd: str,
        commands: Callable[[], list[tuple[str, str]]] = list,
        max_items: int = 20,
        arguments: Callable[[str, str], list[Suggestion] | None] | None = None,
    ) -> None:
        self.cwd = cwd
        self.commands = commands
        self.arguments = arguments
        """``arguments(command, prefix)``: suggestions for what follows ``/command `` (extension commands)."""
        self.max_items = max_items
        self._files: list[str] | None = None
        self.override: CompletionSource | None = None
        """Asked first (extensions' autocomplete providers): ``(True, completion)`` is the
        answer, even ``None``; ``(False, None)`` leaves it to the built-in completions."""

    def reset_files(self) -> None:
        self._files = None

    def complete(self, lines: list[str], line: int, col: int, force: bool) -> Completion | None:
        if self.override is not None:
            answered, completion = self.override(lines, line, col, force)
            if answered:
                return completion
        return self.builtin(lines, line, col, force)

    def builtin(self, lines: list[str], line: int, col: int, force: bool) -> Completion | None:
        """Slash commands and their arguments, ``@`` files, paths on Tab."""
        before = lines[line][:col]
        if line == 0 and before.startswith("/") and " " not in before:
            return self._commands(before[1:])
        if line == 0 and before.startswith("/") and self.arguments is not None:
            name, _, prefix = before[1:].partition(" ")
            found = self.arguments(name, prefix)
            if found:  # all of them, as Pi lists them (the list scrolls)
                return Completion(found, len(name) + 2, _best_match(found, prefix))
        token_start = max(before.rfind(" "), before.rfind("\t")) + 1
        token = before[token_start:]
        if token.startswith("@"):
            return self._files_matching(token[1:], token_start)
        if force:
            return self._paths(token, token_start)
        return None

    def _commands(self, query: str) -> Completion | None:
        """Every command matching ``query``, best first; all of them in their own order for a
        bare ``/`` (Pi lists them all; the list scrolls)."""
        found = fuzzy_filter(self.commands(), query, lambda command: command[0])
        items = [Suggestion(f"/{name} ", name, description) for name, description in found]
        return Completion(items, 0) if items else None

    def _files_matching(self, query: str, start: int) -> Completion | None:
        if self._files is None:
            self._files = list_project_files(self.cwd)
        scored = []
        for path in self._files:
            score = fuzzy_score(query, path)
            if score is None:
                base = fuzzy_score(query, os.path.basename(path))
                score = None if base is None else base + 5
            if score is not None:
                scored.append((score, len(path), path))
        scored.sort()
        items = [
            Suggestion(f"@{path} ", os.path.basename(path), path) for _, _, path in scored[: self.max_items]
        ]
        return Completion(items, start) if items else None

    def _paths(self, token: str, start: int) -> Completion | None:
        expanded = os.path.expanduser(token)
        directory, prefix = os.path.split(expanded)
        base = os.path.join(self.cwd, directory) if not os.path.isabs(directory) else directory
        try:
            names = sorted(os.listdir(base or "."))
        except OSError:
            return None
        shown_dir = token[: len(token) - len(prefix)]
        items = []
        for name in names:
            if not name.startswith(prefix) or (name.startswith(".") and not prefix.startswith(".")):
                continue
            is_dir = os.path.isdir(os.path.join(base, name))
            value = shown_dir + name + ("/" if is_dir else " ")
            items.append(Suggestion(value, name + ("/" if is_dir else "")))
        return Completion(items[: self.max_items], start) if items else None
