"""Finding the ``AGENTS.md`` / ``CLAUDE.md`` files that go into the system prompt.

Same discovery as Pi: first the agent dir's file, then one file per directory from the
filesystem root down to the working directory (outermost first). In each directory the
first existing regular file among ``AGENTS.override.md``, ``AGENTS.md``, ``AGENTS.MD``,
``CLAUDE.md``, ``CLAUDE.MD`` is used. Inside a linked git worktree nested in its main
checkout, the main checkout's file is skipped when the worktree has its own (both describe
the same repository).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

CONTEXT_FILE_NAMES = ("AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD")


@dataclass(frozen=True)
class ContextFile:
    path: str
    content: str


def _read_text(path: str) -> str:
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        return handle.read()


def context_file_in(directory: str) -> ContextFile | None:
    """The context file of one directory, or ``None``."""
    for name in CONTEXT_FILE_NAMES:
        path = os.path.join(directory, name)
        if not os.path.exists(path):
            continue
        if not os.path.isfile(path):
            continue
        try:
            return ContextFile(path, _read_text(path))
        except OSError as error:
            print(f"Warning: Could not read {path}: {error}", file=sys.stderr)
    return None


def _git_paths(cwd: str) -> tuple[str, str] | None:
    """``(worktree root, common git dir)`` of the repository containing ``cwd``."""
    directory = cwd
    while True:
        git_path = os.path.join(directory, ".git")
        if os.path.exists(git_path):
            try:
                if os.path.isfile(git_path):
                    content = _read_text(git_path).strip()
                    if not content.startswith("gitdir: "):
                        return None
                    git_dir = os.path.normpath(os.path.join(directory, content[8:].strip()))
                    if not os.path.exists(os.path.join(git_dir, "HEAD")):
                        return None
                    common_file = os.path.join(git_dir, "commondir")
                    common = (
                        os.path.normpath(os.path.join(git_dir, _read_text(common_file).strip()))
                        if os.path.exists(common_file)
                        else git_dir
                    )
                    return directory, common
                if os.path.isdir(git_path):
                    if not os.path.exists(os.path.join(git_path, "HEAD")):
                        return None
                    return directory, git_path
            except OSError:
                return None
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _shadowed_main_checkout_file(cwd: str) -> str | None:
    found = _git_paths(cwd)
    if found is None:
        return None
    worktree_root = os.path.realpath(found[0])
    common_git_dir = os.path.realpath(found[1])
    main_root = os.path.dirname(common_git_dir)
    if not worktree_root.startswith(main_root + os.sep):
        return None
    if os.path.realpath(os.path.join(main_root, ".git")) != common_git_dir:
        return None
    own = context_file_in(worktree_root)
    return os.path.join(main_root, os.path.basename(own.path)) if own else None


def load_project_context_files(cwd: str | Path, agent_dir: str | Path) -> list[ContextFile]:
    """Every context file that applies to ``cwd``, in prompt order."""
    files: list[ContextFile] = []
    seen: set[str] = set()
    global_file = context_file_in(os.path.abspath(agent_dir))
    if global_file:
        files.append(global_file)
        seen.add(global_file.path)
    shadowed = _shadowed_main_checkout_file(os.path.abspath(cwd))
    ancestors: list[ContextFile] = []
    directory = os.path.abspath(cwd)
    while True:
        found = context_file_in(directory)
        is_shadowed = found is not None and shadowed is not None and os.path.realpath(found.path) == shadowed
        if found and not is_shadowed and found.path not in seen:
            ancestors.insert(0, found)
            seen.add(found.path)
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    files.extend(ancestors)
    return files
