"""Starting the TypeScript extension host before the extension list is resolved.

Resolving the list needs the session, settings and trust; Node needs seconds to import Pi's
library. When the command line, the settings or the extension folders name something that
can hold a TypeScript extension (an ``npm:`` or git package, a ``.ts``/``.js`` file, a folder
with ``index.ts``, a local package whose manifest or ``extensions/`` folder names one), the host is spawned right away and imports the
library meanwhile (``customize.ts_extensions.start_host_early``); no extension runs before the
resolved list is sent. When the list has no TypeScript extension after all, the host is
stopped (``stop_unused_early_host``). The checks read a few small files and import nothing
heavy, so a run without TypeScript extensions pays nothing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_coding_agent.app.cli._args import Args

_SCRIPT_SUFFIXES = (".ts", ".mts", ".cts", ".js", ".mjs", ".cjs")
_REMOTE_PREFIXES = ("npm:", "git:", "git@", "https://", "http://", "ssh://")
_STARTED: list[bool] = []


_TERMINAL: list[bool] = []


def host_for_mode(terminal_ui: bool) -> None:
    """The run's mode, for the library its host loads (``apply_host_library``)."""
    _TERMINAL[:] = [terminal_ui]


def apply_host_library() -> None:
    """Pi's published bundle in every mode (host.mjs; the terminal UI too, since the host sets
    the bundle's own pi-tui keys beside ``dist``'s); set only once a host is wanted (the module
    is not imported otherwise)."""
    if not _TERMINAL:
        return
    from pi_coding_agent.customize.ts_extensions import use_bundled_library

    use_bundled_library(True)


def start_early_host_if_likely(parsed: Args, cwd: str, agent_dir: Path) -> None:
    """Spawn the host for ``cwd`` when a TypeScript extension is likely (module docstring)."""
    if not typescript_likely(parsed, cwd, agent_dir):
        return
    from pi_coding_agent.app.cli._extensions import run_async
    from pi_coding_agent.customize.ts_extensions import start_host_early

    apply_host_library()

    if run_async(start_host_early(cwd)):
        _STARTED.append(True)


def stop_unused_early_host() -> None:
    if not _STARTED:
        return
    _STARTED.clear()
    from pi_coding_agent.app.cli._extensions import run_async
    from pi_coding_agent.customize.ts_extensions import stop_early_host

    run_async(stop_early_host())


def typescript_likely(parsed: Args, cwd: str, agent_dir: Path) -> bool:
    if any(_source_likely(source, cwd) for source in parsed.extensions or ()):
        return True
    if parsed.no_extensions:
        return False
    folders = (agent_dir / "extensions", Path(cwd) / ".pi" / "extensions")
    if any(_folder_has_scripts(folder) for folder in folders):
        return True
    for settings_file, base in (
        (agent_dir / "settings.json", agent_dir),
        (Path(cwd) / ".pi" / "settings.json", Path(cwd) / ".pi"),
    ):
        settings = _read_json(settings_file)
        packages = [
            entry.get("source") if isinstance(entry, dict) else entry for entry in _list(settings, "packages")
        ]
        sources = [*packages, *_list(settings, "extensions")]
        if any(isinstance(source, str) and _source_likely(source, str(base)) for source in sources):
            return True
    return False


def _source_likely(source: str, base: str) -> bool:
    source = source.lstrip("+-!")
    if source.startswith(_REMOTE_PREFIXES):
        return True
    if source.startswith(("pypi:", "builtin:")):
        return False
    path = Path(os.path.expanduser(source))
    path = path if path.is_absolute() else Path(base) / path
    if path.is_file():
        return path.suffix in _SCRIPT_SUFFIXES
    return path.is_dir() and _package_has_scripts(path)


def _is_script_folder(folder: Path) -> bool:
    return (folder / "index.ts").is_file() or (folder / "index.js").is_file()


def _package_has_scripts(folder: Path) -> bool:
    """A package's extensions as its ``package.json`` ``pi.extensions`` names them, else its
    ``extensions/`` folder, else the folder itself as an extension."""
    if _is_script_folder(folder):
        return True
    manifest = _read_json(folder / "package.json").get("pi")
    named = manifest.get("extensions") if isinstance(manifest, dict) else None
    if not isinstance(named, list):
        return _folder_has_scripts(folder / "extensions")
    for entry in named:
        target = folder / str(entry)
        if target.is_file() and target.suffix in _SCRIPT_SUFFIXES:
            return True
        if target.is_dir() and (_is_script_folder(target) or _folder_has_scripts(target)):
            return True
    return False


def _folder_has_scripts(folder: Path) -> bool:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return False
    return any(
        entry.name.endswith(_SCRIPT_SUFFIXES)
        if entry.is_file()
        else entry.is_dir() and _is_script_folder(Path(entry.path))
        for entry in entries
    )


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _list(settings: dict[str, Any], key: str) -> Iterable[Any]:
    value = settings.get(key)
    return value if isinstance(value, list) else ()
