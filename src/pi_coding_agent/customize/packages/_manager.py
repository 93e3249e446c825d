"""Installing, updating, removing and listing packages, and recording them in settings.

Pi 0.85's rules: ``install`` and ``remove`` write the user's settings (``-l``: the project's,
which must be trusted); a source already listed (same package, whatever its version or
ref) is replaced, not added twice; a local path is recorded relative to the settings
file's folder and nothing is copied. Settings change only after the files are in place,
and a failed install leaves neither files nor a settings entry behind.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi_coding_agent.core.paths import CONFIG_DIR_NAME, make_private_dirs
from pi_coding_agent.customize.packages import _git, _index, _npm
from pi_coding_agent.customize.packages._layout import Layout, Scope
from pi_coding_agent.customize.packages._resolve import PackageEntry, Resolver, entry_source
from pi_coding_agent.customize.packages._run import PackageError
from pi_coding_agent.customize.packages._settings_file import (
    SettingsWriteError,
    read_settings,
    update_setting,
)
from pi_coding_agent.customize.packages._sources import (
    GitSource,
    LocalSource,
    NpmSource,
    PypiSource,
    Source,
    SourceError,
    parse_source,
)
from pi_coding_agent.customize.packages._staging import remove_tree


@dataclass(frozen=True)
class ConfiguredPackage:
    source: str
    scope: Scope
    filtered: bool
    installed_path: str | None


class PackageManager:
    def __init__(self, cwd: str, agent_dir: str | Path, *, project_trusted: bool,
                 index_url: str | None = None, progress: Callable[[str], None] | None = None) -> None:
        self.layout = Layout(os.path.abspath(cwd), os.path.abspath(agent_dir))
        self.project_trusted = project_trusted
        self.progress = progress or (lambda _line: None)
        self._index_url = index_url

    # ------------------------------------------------------------------ settings

    def settings_path(self, scope: Scope) -> Path:
        if scope == "project":
            return Path(self.layout.cwd) / CONFIG_DIR_NAME / "settings.json"
        return Path(self.layout.agent_dir) / "settings.json"

    def _settings(self, scope: Scope) -> dict[str, Any]:
        try:
            return read_settings(self.settings_path(scope))
        except SettingsWriteError as error:
            raise PackageError(str(error)) from None

    def _packages(self, scope: Scope) -> list[PackageEntry]:
        value = self._settings(scope).get("packages")
        return list(value) if isinstance(value, list) else []

    def _write_packages(self, scope: Scope, packages: list[PackageEntry]) -> None:
        try:
            update_setting(self.settings_path(scope), "packages", packages)
        except SettingsWriteError as error:
            raise PackageError(str(error)) from None

    def resolver(self) -> Resolver:
        project = self._settings("project") if self.project_trusted else {}
        return Resolver(self.layout, self._settings("user"), project, project_trusted=self.project_trusted)

    def index_url(self) -> str:
        configured = self._index_url or self._settings("user").get("packageIndexUrl")
        if isinstance(configured, str) and configured:
            return configured
        return os.environ.get("PIP_INDEX_URL") or _index.DEFAULT_INDEX_URL

    def _check_scope(self, scope: Scope) -> None:
        if scope == "project" and not self.project_trusted:
            raise PackageError("Project is not trusted. Use --approve to modify local package config.")

    # ------------------------------------------------------------------ keys for matching entries

    def _input_key(self, source: str) -> str:
        parsed = parse_source(source)
        if isinstance(parsed, LocalSource):
            return f"local:{self.layout.resolve_local(parsed.path, 'temporary')}"
        return self.resolver().identity(source)

    def _settings_key(self, source: str, scope: Scope) -> str:
        return self.resolver().identity(source, scope)

    def _for_settings(self, source: str, scope: Scope) -> str:
        parsed = parse_source(source)
        if not isinstance(parsed, LocalSource):
            return source
        resolved = self.layout.resolve_local(parsed.path, "temporary")
        return os.path.relpath(resolved, self.layout.base_dir(scope)) or "."

    # ------------------------------------------------------------------ operations

    def install(self, source: str, *, local: bool = False) -> None:
        """Install ``source`` and record it in the user's (``local``: project's) settings."""
        scope: Scope = "project" if local else "user"
        self._check_scope(scope)
        parsed = self._parse(source)
        self.progress(f"Installing {source}...")
        if isinstance(parsed, LocalSource):
            path = self.layout.resolve_local(parsed.path, "temporary")
            if not os.path.exists(path):
                raise PackageError(f"Path does not exist: {path}")
        else:
            self.install_parsed(source, parsed, scope, reinstall=True)
        self._record(source, scope)

    def _parse(self, source: str) -> Source:
        try:
            parsed = parse_source(source)
        except SourceError as error:
            raise PackageError(str(error)) from None
        return parsed

    def npm_command(self) -> list[str]:
        """``npmCommand`` of the settings (the project's wins when trusted), else ``npm``."""
        project = self._settings("project") if self.project_trusted else {}
        return _npm.npm_command(self._settings("user"), project)

    def install_parsed(self, source: str, parsed: Source, scope: Scope, *, reinstall: bool = False) -> None:
        """Put a git or index package in its folder (already there: move it to the source's ref or version)."""
        path = self.layout.install_path(parsed, scope)
        if path is None:
            return
        root = self.layout.install_root(scope)
        _ignore_in_git(os.path.dirname(path) if isinstance(parsed, PypiSource) else os.path.join(root, "git"))
        if isinstance(parsed, GitSource):
            if os.path.isdir(path):
                _git.update(parsed, path)
            else:
                _git.clone(parsed, path, root)
        elif isinstance(parsed, PypiSource):
            release = _index.best_release(parsed, self.index_url())
            if reinstall or not os.path.isdir(path) or _index.installed_version(path) != str(release.version):
                _index.install_release(release, path, root, self.index_url())
        elif isinstance(parsed, NpmSource) and (reinstall or not os.path.isdir(path)):
            _npm.install(parsed, path, self.npm_command())

    def _record(self, source: str, scope: Scope) -> None:
        packages = self._packages(scope)
        wanted = self._for_settings(source, scope)
        key = self._input_key(source)
        for index, existing in enumerate(packages):
            if self._settings_key(entry_source(existing), scope) == key:
                if entry_source(existing) == wanted:
                    return
                packages[index] = {**existing, "source": wanted} if isinstance(existing, dict) else wanted
                self._write_packages(scope, packages)
                return
        self._write_packages(scope, [*packages, wanted])

    def remove(self, source: str, *, local: bool = False) -> bool:
        """Delete the package's files (not a local folder's) and its settings entry; False if not listed."""
        scope: Scope = "project" if local else "user"
        self._check_scope(scope)
        parsed = parse_source(source)
        key = self._input_key(source)
        packages = self._packages(scope)
        kept = [p for p in packages if self._settings_key(entry_source(p), scope) != key]
        if len(kept) == len(packages):
            return False
        self.progress(f"Removing {source}...")
        path = self.layout.install_path(parsed, scope)
        if path is not None and isinstance(parsed, NpmSource):
            _npm.uninstall(parsed, path, self.npm_command())
        elif path is not None and os.path.exists(path):
            remove_tree(path, self.layout.install_root(scope))
        self._write_packages(scope, kept)
        return True

    def configured(self) -> list[ConfiguredPackage]:
        found: list[ConfiguredPackage] = []
        scopes: tuple[Scope, ...] = ("user", "project") if self.project_trusted else ("user",)
        for scope in scopes:
            for entry in self._packages(scope):
                source = entry_source(entry)
                found.append(ConfiguredPackage(source, scope, isinstance(entry, dict), self._installed_path(source, scope)))
        return found

    def _installed_path(self, source: str, scope: Scope) -> str | None:
        parsed = parse_source(source)
        path = (
            self.layout.resolve_local(parsed.path, scope) if isinstance(parsed, LocalSource)
            else self.layout.install_path(parsed, scope)
        )
        return path if path is not None and os.path.exists(path) else None

    def update(self, source: str | None = None, *, check_only: bool = False) -> list[str]:
        """Bring installed packages up to date (pinned ones to their pin); the sources that changed.
        ``check_only``: only the check that ``source`` is configured (offline)."""
        targets = [p for p in self.configured() if source is None or self._same_package(p, source)]
        if source is not None and not targets:
            raise PackageError(f"No matching package found for {source}")
        changed: list[str] = []
        if check_only:
            return changed
        for package in targets:
            parsed = parse_source(package.source)
            if isinstance(parsed, LocalSource):
                continue
            if isinstance(parsed, (PypiSource, NpmSource)) and parsed.pinned and package.installed_path:
                continue
            if self._update_one(package, parsed):
                changed.append(package.source)
        return changed

    def _same_package(self, package: ConfiguredPackage, source: str) -> bool:
        return self._settings_key(package.source, package.scope) == self._input_key(source)

    def _update_one(self, package: ConfiguredPackage, parsed: Source) -> bool:
        self.progress(f"Updating {package.source}...")
        path = self.layout.install_path(parsed, package.scope)
        if path is None:
            return False
        if not os.path.isdir(path):
            self.install_parsed(package.source, parsed, package.scope)
            return True
        if isinstance(parsed, GitSource):
            return _git.update(parsed, path)
        if isinstance(parsed, NpmSource):
            before = _npm.installed_version(path)
            _npm.update(parsed, path, self.npm_command())
            return _npm.installed_version(path) != before
        assert isinstance(parsed, PypiSource)
        release = _index.best_release(parsed, self.index_url())
        if _index.installed_version(path) == str(release.version):
            return False
        _index.install_release(release, path, self.layout.install_root(package.scope), self.index_url())
        return True


def _ignore_in_git(folder: str) -> None:
    """Keep installed packages out of the repository that holds a project's ``.pi`` (as Pi does)."""
    ignore = os.path.join(folder, ".gitignore")
    if not os.path.exists(ignore):
        make_private_dirs(folder)
        with open(ignore, "w", encoding="utf-8") as handle:
            handle.write("*\n!.gitignore\n")
