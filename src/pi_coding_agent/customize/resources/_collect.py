"""Walking resource folders the way Pi's package manager does.

Entries of a folder are visited in byte order of their names (Node's ``readdirSync`` order),
symbolic links are followed (broken ones skipped), names starting with ``.`` and
``node_modules`` folders are skipped, and ignore files apply (``_ignore``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from pi_coding_agent.customize.resources._ignore import IgnoreRules
from pi_coding_agent.customize.resources._manifest import read_manifest

SkillWalkMode = Literal["pi", "agents"]
"""``pi``: ``.md`` files directly in the root are skills too; ``agents``: only nested ones."""

EXTENSION_SUFFIXES = (".py", ".ts", ".js")
"""Python modules (ours) and Pi's TypeScript/JavaScript extensions (run by ``ts_extensions``)."""
INDEX_FILES = ("__init__.py", "index.ts", "index.js")
"""A folder's entry point when its manifest names none: ours, then Pi's."""


@dataclass(frozen=True)
class Entry:
    name: str
    path: str
    is_dir: bool
    is_file: bool


def list_folder(folder: str) -> list[Entry]:
    """The folder's entries in name order, links resolved; ``[]`` when it cannot be read."""
    try:
        with os.scandir(folder) as scan:
            raw = sorted(scan, key=lambda item: item.name)
    except OSError:
        return []
    entries: list[Entry] = []
    for item in raw:
        try:
            is_dir = item.is_dir()
            is_file = item.is_file()
            if item.is_symlink() and not (is_dir or is_file):
                os.stat(item.path)  # broken link: raises, skipped
        except OSError:
            continue
        entries.append(Entry(item.name, item.path, is_dir, is_file))
    return entries


def _relative(path: str, root: str) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")


def collect_skill_files(folder: str, mode: SkillWalkMode = "pi") -> list[str]:
    """Candidate skill files under ``folder``: each ``SKILL.md`` (a folder holding one is not
    searched further) and the ``.md`` files the mode allows."""
    if not os.path.exists(folder):
        return []
    return list(_skill_files(folder, folder, mode, IgnoreRules()))


def _skill_files(folder: str, root: str, mode: SkillWalkMode, rules: IgnoreRules) -> Iterator[str]:
    rules.add_folder(folder, root)
    entries = list_folder(folder)
    for entry in entries:
        if entry.name == "SKILL.md" and entry.is_file and not rules.ignores(_relative(entry.path, root)):
            yield entry.path
            return
    for entry in entries:
        if entry.name.startswith(".") or entry.name == "node_modules":
            continue
        relative = _relative(entry.path, root)
        at_root = folder == root
        if (
            entry.is_file
            and entry.name.endswith(".md")
            and not rules.ignores(relative)
            and ((mode == "pi" and at_root) or (mode == "agents" and not at_root))
        ):
            yield entry.path
            continue
        if entry.is_dir and not rules.ignores(relative + "/"):
            yield from _skill_files(entry.path, root, mode, rules)


def collect_files(folder: str, suffixes: tuple[str, ...]) -> list[str]:
    """Every file with one of ``suffixes`` under ``folder``, recursively."""
    if not os.path.exists(folder):
        return []
    return list(_files(folder, folder, suffixes, IgnoreRules()))


def _files(folder: str, root: str, suffixes: tuple[str, ...], rules: IgnoreRules) -> Iterator[str]:
    rules.add_folder(folder, root)
    for entry in list_folder(folder):
        if entry.name.startswith(".") or entry.name == "node_modules":
            continue
        relative = _relative(entry.path, root)
        if rules.ignores(relative + "/" if entry.is_dir else relative):
            continue
        if entry.is_dir:
            yield from _files(entry.path, root, suffixes, rules)
        elif entry.is_file and entry.name.endswith(suffixes):
            yield entry.path


def collect_top_files(folder: str, suffix: str) -> list[str]:
    """Files with ``suffix`` directly in ``folder`` (prompt and theme folders are not recursive)."""
    if not os.path.exists(folder):
        return []
    rules = IgnoreRules()
    rules.add_folder(folder, folder)
    return [
        entry.path
        for entry in list_folder(folder)
        if not entry.name.startswith(".")
        and entry.name != "node_modules"
        and not rules.ignores(entry.name)
        and entry.is_file
        and entry.name.endswith(suffix)
    ]


def extension_entry_points(folder: str) -> list[str] | None:
    """The extension files a folder declares: its manifest's ``extensions``, else its
    ``__init__.py`` (or Pi's ``index.ts`` / ``index.js``); ``None`` when it declares none."""
    manifest = read_manifest(folder)
    if manifest is not None and manifest.extensions:
        declared = [os.path.normpath(os.path.join(folder, p)) for p in manifest.extensions]
        existing = [p for p in declared if os.path.exists(p)]
        if existing:
            return existing
    for name in INDEX_FILES:
        index = os.path.join(folder, name)
        if os.path.exists(index):
            return [index]
    return None


def collect_extension_files(folder: str) -> list[str]:
    """Extensions in a folder: the folder's own entry points, else its ``*.py`` files and the
    entry points of its sub-folders (one level, as Pi does)."""
    if not os.path.exists(folder):
        return []
    own = extension_entry_points(folder)
    if own is not None:
        return own
    rules = IgnoreRules()
    rules.add_folder(folder, folder)
    found: list[str] = []
    for entry in list_folder(folder):
        if entry.name.startswith(".") or entry.name == "node_modules" or entry.name == "__pycache__":
            continue
        if rules.ignores(entry.name + "/" if entry.is_dir else entry.name):
            continue
        if entry.is_file and entry.name.endswith(EXTENSION_SUFFIXES):
            found.append(entry.path)
        elif entry.is_dir:
            found.extend(extension_entry_points(entry.path) or [])
    return found


def expand_manifest_glob(pattern: str, root: str) -> list[str]:
    """A manifest glob's matches under ``root``, in byte order, without dot-named segments."""
    import glob

    matches = glob.glob(pattern, root_dir=root, recursive=True)
    resolved = [os.path.normpath(os.path.join(root, match)) for match in matches]
    visible = [
        path
        for path in resolved
        if all(
            segment == ".." or not segment.startswith(".")
            for segment in os.path.relpath(path, root).split(os.sep)
        )
    ]
    return sorted(set(visible))
