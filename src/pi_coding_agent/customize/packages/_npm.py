"""npm packages (``npm:name[@version]``) installed with npm into Pi's layout, as Pi 1.6 does.

A scope's npm packages share one npm project: ``<agent dir>/npm`` (user), ``.pi/npm``
(project), ``<agent dir>/tmp/extensions/npm/<hash>`` (``-e`` for a run); each package is then
``node_modules/<name>`` in it, its dependencies beside it. The project gets Pi's
``package.json`` (``pi-extensions``) and a ``.gitignore``. Pi's flags: no peer dependencies
(``--legacy-peer-deps``: the Pi libraries extensions import come from the host), no audit, no
fund. ``npmCommand`` in settings replaces ``npm`` (``["pnpm"]``, ``["mise", "exec", "--", "npm"]``).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from typing import Any

from pi_coding_agent.customize.packages._run import PackageError, run
from pi_coding_agent.customize.packages._sources import NpmSource

_QUIET = ("--legacy-peer-deps", "--no-audit", "--no-fund")


def npm_command(*settings: dict[str, Any]) -> list[str]:
    """The last ``npmCommand`` the settings give (a non-empty list of strings), else ``npm``."""
    chosen = ["npm"]
    for layer in settings:
        value = layer.get("npmCommand")
        if isinstance(value, list) and value and all(isinstance(part, str) for part in value) and value[0]:
            chosen = list(value)
    return chosen


def project_root(package_path: str, source: NpmSource) -> str:
    """The npm project holding ``node_modules/<name>``."""
    suffix = os.path.join("node_modules", *source.name.split("/"))
    if not package_path.endswith(suffix):
        raise PackageError(f"unexpected install folder for {source.spec}: {package_path}")
    return package_path[: -len(suffix)].rstrip(os.sep)


def _ensure_project(root: str) -> str:
    os.makedirs(root, exist_ok=True)
    ignore = os.path.join(root, ".gitignore")
    if not os.path.exists(ignore):
        with open(ignore, "w", encoding="utf-8") as handle:
            handle.write("*\n!.gitignore\n")
    manifest = os.path.join(root, "package.json")
    if not os.path.exists(manifest):
        with open(manifest, "w", encoding="utf-8") as handle:
            json.dump({"name": "pi-extensions", "private": True}, handle, indent=2)
    return os.path.realpath(root)  # npm writes broken lock paths through a symlinked prefix


def install(source: NpmSource, package_path: str, command: Sequence[str]) -> None:
    """``npm install <spec>`` into the scope's npm project; a project this call created is
    removed again when the install fails (a failed install leaves nothing behind)."""
    folder = project_root(package_path, source)
    created = not os.path.exists(folder)
    root = _ensure_project(folder)
    try:
        run([*command, "install", source.spec, "--prefix", root, *_QUIET], cwd=root, what=f"npm install {source.spec}")
        if not os.path.isfile(os.path.join(package_path, "package.json")):
            raise PackageError(f"npm install {source.spec}: the package is not in {package_path}")
    except PackageError:
        if created:
            shutil.rmtree(folder, ignore_errors=True)
        raise


def latest_version(source: NpmSource, command: Sequence[str], *, cwd: str) -> str | None:
    """The newest published version (within the configured range), or ``None`` when npm
    cannot say."""
    query = source.spec if source.version else source.name
    try:
        answer = json.loads(run([*command, "view", query, "version", "--json"], cwd=cwd, what=f"npm view {query}"))
    except (PackageError, ValueError):
        return None
    if isinstance(answer, str) and answer:
        return answer
    versions = [value for value in answer if isinstance(value, str) and value] if isinstance(answer, list) else []
    return max(versions, key=_version_key) if versions else None


def newer(candidate: str, installed: str) -> bool:
    return _version_key(candidate) > _version_key(installed)


def _version_key(version: str) -> tuple[int, int, int, int]:
    """``1.2.3`` as numbers; a pre-release (``1.2.3-beta.1``) sorts before its release."""
    core, _, pre = version.lstrip("v").partition("-")
    parts = [int(part) if part.isdigit() else 0 for part in core.split("+")[0].split(".")[:3]]
    major, minor, patch = (*parts, 0, 0, 0)[:3]
    return major, minor, patch, 0 if pre else 1


def uninstall(source: NpmSource, package_path: str, command: Sequence[str]) -> None:
    root = project_root(package_path, source)
    if not os.path.isdir(root):
        return
    real = os.path.realpath(root)
    run([*command, "uninstall", source.name, "--prefix", real, *_QUIET], cwd=real, what=f"npm uninstall {source.name}")


def installed_version(package_path: str) -> str | None:
    try:
        with open(os.path.join(package_path, "package.json"), encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    version = data.get("version") if isinstance(data, dict) else None
    return version if isinstance(version, str) else None
