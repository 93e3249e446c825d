"""``pi config``: which resources of packages and local folders are enabled, and switching them.

Pi opens a full-screen selector; here ``pi config`` prints the list (numbered, ``[x]`` for
enabled) and ``pi config enable|disable <number or path>`` changes one entry, writing the
same settings Pi's selector writes: a ``+path``/``-path`` pattern in the ``skills`` /
``prompts`` / ``themes`` / ``extensions`` array of the settings that list the resource, or
in the filter of the package entry (a string entry becomes an object). With ``-l`` the
change is a project override in ``.pi/settings.json`` (a package only the user's settings
list gets a project entry with ``autoload: false``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

from pi_coding_agent.customize.packages._layout import Scope
from pi_coding_agent.customize.packages._manager import PackageManager
from pi_coding_agent.customize.packages._resolve import PackageEntry, ResolvedResource, entry_source
from pi_coding_agent.customize.packages._run import PackageError
from pi_coding_agent.customize.packages._settings_file import (
    SettingsWriteError,
    read_settings,
    update_setting,
)
from pi_coding_agent.customize.packages._sources import is_local_path
from pi_coding_agent.customize.resources import RESOURCE_TYPES, ResourceType, strip_override

_TITLES: dict[ResourceType, str] = {
    "extensions": "Extensions",
    "skills": "Skills",
    "prompts": "Prompt templates",
    "themes": "Themes",
}


def listed_resources(manager: PackageManager) -> list[tuple[ResourceType, ResolvedResource]]:
    resolved = manager.resolver().resolve()
    return [(kind, item) for kind in RESOURCE_TYPES for item in resolved.of(kind)]


def _label(item: ResolvedResource) -> str:
    origin = item.origin
    where = (
        f"package {origin.source}"
        if origin.origin == "package"
        else ("settings" if origin.source == "local" else "folder")
    )
    return f"{origin.scope}, {where}"


def _print(items: Sequence[tuple[ResourceType, ResolvedResource]]) -> None:
    if not items:
        print("No resources found.")
        return
    current: ResourceType | None = None
    for number, (kind, item) in enumerate(items, start=1):
        if kind != current:
            if current is not None:
                print()
            print(_TITLES[kind])
            current = kind
        print(f"  [{'x' if item.enabled else ' '}] {number:>3}  {item.path}  ({_label(item)})")


def _find(
    items: Sequence[tuple[ResourceType, ResolvedResource]], wanted: str
) -> tuple[ResourceType, ResolvedResource]:
    if wanted.isdigit() and 1 <= int(wanted) <= len(items):
        return items[int(wanted) - 1]
    path = os.path.realpath(os.path.abspath(wanted))
    for kind, item in items:
        if os.path.realpath(item.path) == path:
            return kind, item
    raise PackageError(f"no resource {wanted} in the list (run pi config to see the numbers and paths)")


def _without(entries: list[str], pattern: str) -> list[str]:
    return [e for e in entries if not (e[:1] in "!+-" and strip_override(e) == pattern)]


def _write(manager: PackageManager, scope: Scope, key: str, value: Any) -> None:
    try:
        update_setting(manager.settings_path(scope), key, value)
    except SettingsWriteError as error:
        raise PackageError(str(error)) from None


def _settings(manager: PackageManager, scope: Scope) -> dict[str, Any]:
    try:
        return read_settings(manager.settings_path(scope))
    except SettingsWriteError as error:
        raise PackageError(str(error)) from None


def _top_level(
    manager: PackageManager, kind: ResourceType, item: ResolvedResource, enabled: bool, scope: Scope
) -> None:
    inherited = scope != item.origin.scope
    base = item.origin.base_dir or manager.layout.base_dir(item.origin.scope)
    pattern = item.path if inherited else os.path.relpath(item.path, base)
    current = _settings(manager, scope).get(kind)
    entries = _without(
        [e for e in current if isinstance(e, str)] if isinstance(current, list) else [], pattern
    )
    _write(manager, scope, kind, [*entries, f"{'+' if enabled else '-'}{pattern}"])


def _package(
    manager: PackageManager, kind: ResourceType, item: ResolvedResource, enabled: bool, scope: Scope
) -> None:
    packages: list[PackageEntry] = list(_settings(manager, scope).get("packages") or [])
    source = item.origin.source
    index = next(
        (
            i
            for i, p in enumerate(packages)
            if _same_source(manager, entry_source(p), scope, source, item.origin.scope)
        ),
        None,
    )
    if index is None:
        if scope == item.origin.scope:
            raise PackageError(f"package {source} is not in the {scope} settings any more")
        packages.append({"source": _project_source(manager, source, item.origin.scope), "autoload": False})
        index = len(packages) - 1
    entry = packages[index]
    pkg: dict[str, Any] = dict(entry) if isinstance(entry, dict) else {"source": entry}
    pattern = os.path.relpath(item.path, item.origin.base_dir or os.path.dirname(item.path))
    current = pkg.get(kind)
    entries = _without(
        [e for e in current if isinstance(e, str)] if isinstance(current, list) else [], pattern
    )
    pkg[kind] = [*entries, f"{'+' if enabled else '-'}{pattern}"]
    packages[index] = pkg
    _write(manager, scope, "packages", packages)


def _same_source(
    manager: PackageManager, left: str, left_scope: Scope, right: str, right_scope: Scope
) -> bool:
    if left == right:
        return True
    if not (is_local_path(left) and is_local_path(right)):
        return False
    return manager.layout.resolve_local(left, left_scope) == manager.layout.resolve_local(right, right_scope)


def _project_source(manager: PackageManager, source: str, scope: Scope) -> str:
    if not is_local_path(source):
        return source
    path = manager.layout.resolve_local(source, scope)
    return os.path.relpath(path, manager.layout.base_dir("project")) or "."


def run_config(manager: PackageManager, args: Sequence[str], *, local: bool) -> int:
    items = listed_resources(manager)
    if not args:
        _print(items)
        return 0
    if args[0] not in ("enable", "disable") or len(args) != 2:
        print("Usage: pi config [-l] [enable|disable <number or path>]", file=sys.stderr)
        return 1
    kind, item = _find(items, args[1])
    enabled = args[0] == "enable"
    if item.origin.scope == "project" and not local:
        raise PackageError(f"{item.path} comes from the project's settings; use pi config -l to change it")
    scope: Scope = "project" if local else "user"
    if item.origin.origin == "top-level":
        _top_level(manager, kind, item, enabled, scope)
    else:
        _package(manager, kind, item, enabled, scope)
    print(f"{'Enabled' if enabled else 'Disabled'} {item.path}")
    return 0
