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
from dataclasses import dataclass, field
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

    def update(self, source: str | None = None, *, check_only: bool = False) -> UpdateOutcome:
        """Bring installed packages up to date (pinned npm and index packages stay), in Pi 1.6's
        order: npm packages first (each scope's due ones announced on one line), then git
        clones, then index packages. ``check_only``: only the check that ``source`` is
        configured (offline)."""
        targets = [p for p in self.configured() if source is None or self._same_package(p, source)]
        if source is not None and not targets:
            raise PackageError(f"No matching package found for {source}")
        outcome = UpdateOutcome()
        if check_only:
            return outcome
        due = [(p, parse_source(p.source)) for p in targets]
        due = [
            (package, parsed) for package, parsed in due
            if not isinstance(parsed, LocalSource)
            and not (isinstance(parsed, (PypiSource, NpmSource)) and parsed.pinned and package.installed_path)
        ]
        for scope in ("user", "project"):
            npm = [(p, parsed) for p, parsed in due if p.scope == scope and isinstance(parsed, NpmSource)]
            self._update_npm(scope, npm, outcome)
        for package, parsed in due:
            if isinstance(parsed, GitSource):
                self._update_git(package, parsed, outcome)
        for package, parsed in due:
            if isinstance(parsed, PypiSource):
                self._update_index(package, parsed, outcome)
        return outcome

    def _same_package(self, package: ConfiguredPackage, source: str) -> bool:
        return self._settings_key(package.source, package.scope) == self._input_key(source)

    def _update_npm(self, scope: Scope, packages: list[tuple[ConfiguredPackage, NpmSource]], outcome: UpdateOutcome) -> None:
        """Pi 1.6: ask npm for each package's newest version; install those that are behind (or
        missing) after one line naming them."""
        command = self.npm_command()
        due: list[tuple[ConfiguredPackage, NpmSource, str, str | None, str | None]] = []
        for package, parsed in packages:
            path = self.layout.install_path(parsed, scope)
            if path is None:
                continue
            installed = _npm.installed_version(path)
            latest = _npm.latest_version(parsed, command, cwd=_npm.project_root(path, parsed)) if installed else None
            if installed is None or latest is None or _npm.newer(latest, installed):
                due.append((package, parsed, path, installed, latest))
        if not due:
            return
        self.progress(f"Updating {due[0][0].source}..." if len(due) == 1 else f"Updating {scope} npm packages...")
        for package, parsed, path, installed, latest in due:
            target = parsed.spec if parsed.version else f"{parsed.name}@latest"
            _npm.install(NpmSource(target, parsed.name, parsed.version or "latest"), path, command)
            now = _npm.installed_version(path)
            if now != installed:
                outcome.changed(package, installed, now)
            elif latest is not None:
                outcome.warn(
                    f"{package.source} is still {now} (registry reports {latest}); "
                    "npm registry metadata may be stale, try again in a few minutes",
                    self.progress,
                )

    def _update_git(self, package: ConfiguredPackage, parsed: GitSource, outcome: UpdateOutcome) -> None:
        path = self.layout.install_path(parsed, package.scope)
        if path is None:
            return
        self.progress(f"Updating {package.source}...")
        before = _git.head(path) if os.path.isdir(path) else None
        if before is None:
            self.install_parsed(package.source, parsed, package.scope)
        else:
            _git.update(parsed, path)
        after = _git.head(path)
        if after != before:
            outcome.changed(package, before and before[:7], after[:7])

    def _update_index(self, package: ConfiguredPackage, parsed: PypiSource, outcome: UpdateOutcome) -> None:
        """Ours (Pi has no index packages): like npm, announced only when a newer release is there."""
        path = self.layout.install_path(parsed, package.scope)
        if path is None:
            return
        installed = _index.installed_version(path) if os.path.isdir(path) else None
        release = _index.best_release(parsed, self.index_url())
        if installed == str(release.version):
            return
        self.progress(f"Updating {package.source}...")
        if installed is None:
            self.install_parsed(package.source, parsed, package.scope)
        else:
            _index.install_release(release, path, self.layout.install_root(package.scope), self.index_url())
        outcome.changed(package, installed, _index.installed_version(path))


@dataclass
class UpdateOutcome:
    """What ``update`` did: a line per changed package (Pi 1.6's ``npm:foo 1.2.0 -> 1.3.0``,
    `` (project)`` after a project package's source, ``(none)`` for nothing before) and the
    warnings it gave."""

    updated: list[str] = field(default_factory=list)
    warnings: int = 0

    def changed(self, package: ConfiguredPackage, before: str | None, after: str | None) -> None:
        scope = " (project)" if package.scope == "project" else ""
        self.updated.append(f"{package.source}{scope} {before or '(none)'} -> {after or '(none)'}")

    def warn(self, message: str, progress: Callable[[str], None]) -> None:
        self.warnings += 1
        progress(message)


def _ignore_in_git(folder: str) -> None:
    """Keep installed packages out of the repository that holds a project's ``.pi`` (as Pi does)."""
    ignore = os.path.join(folder, ".gitignore")
    if not os.path.exists(ignore):
        make_private_dirs(folder)
        with open(ignore, "w", encoding="utf-8") as handle:
            handle.write("*\n!.gitignore\n")
