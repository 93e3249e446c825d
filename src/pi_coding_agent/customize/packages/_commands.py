"""What each package command does once its arguments are understood."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from pi_coding_agent.core.paths import get_agent_dir
from pi_coding_agent.core.settings import (
    ConfigFileError,
    Settings,
    resolve_project_trust,
    stored_trust_decision,
)
from pi_coding_agent.customize.packages._layout import LayoutError
from pi_coding_agent.customize.packages._manager import PackageManager, UpdateOutcome
from pi_coding_agent.customize.packages._parse import PackageCommand
from pi_coding_agent.customize.packages._run import PackageError
from pi_coding_agent.customize.packages._sources import SourceError

SELF_UPDATE_NOTE = (
    "pi itself is not updated by this command: update this installation with the tool that installed it "
    "(git pull, pip install --upgrade, ...)."
)


def _project_trusted(parsed: PackageCommand, cwd: str, home: str | Path) -> bool:
    if parsed.command == "update":
        if parsed.trust_override is not None:
            return parsed.trust_override
        try:
            return stored_trust_decision(home, cwd) is True
        except ConfigFileError:
            return False
    default = Settings.load(cwd, home, project_trusted=False).default_project_trust
    try:
        return resolve_project_trust(cwd, home, override=parsed.trust_override, default_trust=default)
    except ConfigFileError as error:
        print(f"Warning: cannot read trust decisions ({error}); project settings are ignored", file=sys.stderr)
        return False


def execute(parsed: PackageCommand, cwd: str) -> int:
    home = get_agent_dir()
    if parsed.update_models:
        return _refresh_models(Path(home))
    trusted = _project_trusted(parsed, cwd, home)
    if parsed.local and not trusted:
        what = "resource config" if parsed.command == "config" else "package config"
        print(f"Project is not trusted. Use --approve to modify local {what}.", file=sys.stderr)
        return 1
    manager = PackageManager(cwd, home, project_trusted=trusted, progress=print)
    try:
        if parsed.command == "config":
            from pi_coding_agent.customize.packages._config import run_config

            return run_config(manager, parsed.rest, local=parsed.local)
        return _package_command(parsed, manager)
    except (PackageError, LayoutError, SourceError) as error:
        print(f"Error: {error}", file=sys.stderr)
        return 1


def _package_command(parsed: PackageCommand, manager: PackageManager) -> int:
    source = parsed.source
    if parsed.command == "install":
        assert source is not None
        manager.install(source, local=parsed.local)
        print(f"Installed {source}")
    elif parsed.command == "remove":
        assert source is not None
        if not manager.remove(source, local=parsed.local):
            print(f"No matching package found for {source}", file=sys.stderr)
            return 1
        print(f"Removed {source}")
    elif parsed.command == "list":
        _list(manager)
    elif parsed.command == "update":
        if parsed.skipped_note:
            print("Extensions are skipped. Run pi update --extensions to update extensions.")
        if parsed.update_packages and offline():
            manager.update(source, check_only=True)  # an unknown source is still an error
            print("Skipped package updates (offline mode)")
        elif parsed.update_packages:
            _summarize(manager.update(source), source)
        if parsed.update_self:
            print(SELF_UPDATE_NOTE)
    return 0


def _summarize(outcome: UpdateOutcome, source: str | None) -> None:
    """Pi 1.6's closing lines of ``pi update``: what changed, else why nothing did."""
    if outcome.updated:
        count = len(outcome.updated)
        print(f"Updated {count} package{'' if count == 1 else 's'}:")
        for line in outcome.updated:
            print(f"  {line}")
    elif outcome.warnings:
        print(f"{source} was not updated, see the warnings above" if source else "No packages were updated, see the warnings above")
    else:
        print(f"{source} is already up to date" if source else "Packages are already up to date")


def offline() -> bool:
    """``PI_OFFLINE`` as Pi 1.6's package manager reads it: ``1``, ``true`` or ``yes``."""
    return os.environ.get("PI_OFFLINE", "").lower() in ("1", "true", "yes")


def _refresh_models(home: Path) -> int:
    """``pi update --models``: the Radius gateways' catalogs fetched anew (as Pi's, nothing else
    here has a remote catalog)."""
    import asyncio

    from pi_coding_agent.core.auth import AuthStorage
    from pi_coding_agent.core.model_registry import CatalogRefreshError, ModelCatalog

    catalog = ModelCatalog.load(home, AuthStorage.load(home / "auth.json"))
    try:
        asyncio.run(catalog.refresh_gateway_catalogs(home))
    except CatalogRefreshError as error:
        print(f"Error: {error}", file=sys.stderr)
        return 1
    print("Model catalogs refreshed")
    return 0


def _list(manager: PackageManager) -> None:
    packages = manager.configured()
    if not packages:
        print("No packages installed.")
        return
    for index, (scope, title) in enumerate((("user", "User packages:"), ("project", "Project packages:"))):
        chosen = [p for p in packages if p.scope == scope]
        if not chosen:
            continue
        if index and any(p.scope == "user" for p in packages):
            print()
        print(title)
        for package in chosen:
            print(f"  {package.source}{' (filtered)' if package.filtered else ''}")
            if package.installed_path:
                print(f"    {package.installed_path}")
