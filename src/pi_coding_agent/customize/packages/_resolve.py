"""Which extensions, skills, prompt templates and themes apply, and whether each is enabled.

Pi 0.85's resolution: packages from project then user settings (one entry per package
identity; the project's wins, or is applied on top of the user's when it says
``autoload: false``); then the ``extensions``/``skills``/``prompts``/``themes`` entries of the
project and user settings; then the folders found automatically (``.pi/skills``,
``.agents/skills`` from the working directory up to the git root, ``~/.pi/agent/skills``,
``~/.agents/skills``, the prompts, themes and extensions folders). A path found twice keeps
its first origin. The result is ordered: project settings entries, project folders, user
settings entries, user folders, packages (names that collide resolve to the first).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pi_coding_agent.customize.packages._layout import Layout, LayoutError, Scope
from pi_coding_agent.customize.packages._sources import (
    LocalSource,
    Source,
    SourceError,
    parse_source,
    source_identity,
)
from pi_coding_agent.customize.resources import (
    RESOURCE_TYPES,
    ResourceType,
    apply_patterns,
    collect_extension_files,
    collect_files,
    collect_skill_files,
    collect_top_files,
    delta_patterns,
    enabled_by_overrides,
    expand_manifest_glob,
    has_glob,
    is_override,
    is_pattern,
    read_manifest,
)

Origin = Literal["top-level", "package"]
PackageEntry = str | Mapping[str, Any]
"""A ``packages`` item of settings: a source string, or ``{"source": ..., <filters>}``."""


@dataclass(frozen=True)
class ResourceOrigin:
    """Where a resource comes from (Pi's ``PathMetadata``)."""

    source: str
    """``local`` (a settings entry), ``auto`` (a folder found by convention), ``cli``, or a package source."""
    scope: Scope
    origin: Origin
    base_dir: str | None = None


@dataclass(frozen=True)
class ResolvedResource:
    path: str
    enabled: bool
    origin: ResourceOrigin


@dataclass
class ResolvedResources:
    extensions: list[ResolvedResource] = field(default_factory=list)
    skills: list[ResolvedResource] = field(default_factory=list)
    prompts: list[ResolvedResource] = field(default_factory=list)
    themes: list[ResolvedResource] = field(default_factory=list)
    not_installed: list[tuple[str, Scope]] = field(default_factory=list)
    """Package sources in settings whose folder is missing (and could not be installed)."""
    problems: list[str] = field(default_factory=list)
    """Package entries that cannot be used at all (one line each)."""

    def of(self, resource_type: ResourceType) -> list[ResolvedResource]:
        return getattr(self, resource_type)  # type: ignore[no-any-return]


Accumulator = dict[ResourceType, dict[str, tuple[ResourceOrigin, bool]]]
InstallMissing = Callable[[str, Source, Scope], bool]
"""Called for a package that is not installed yet: install it, return whether it now is."""

_SUFFIXES: dict[ResourceType, tuple[str, ...]] = {
    "extensions": (".py", ".ts", ".js"),
    "skills": (".md",),
    "prompts": (".md",),
    "themes": (".json",),
}


def collect_resource_files(folder: str, resource_type: ResourceType) -> list[str]:
    """The resources of one type in a package's (or settings entry's) folder."""
    if resource_type == "skills":
        return collect_skill_files(folder, "pi")
    if resource_type == "extensions":
        return collect_extension_files(folder)
    return collect_files(folder, _SUFFIXES[resource_type])


def _add(
    target: dict[str, tuple[ResourceOrigin, bool]], path: str, origin: ResourceOrigin, enabled: bool
) -> None:
    if path and path not in target:
        target[path] = (origin, enabled)


def _files_from_paths(paths: Sequence[str], resource_type: ResourceType) -> list[str]:
    files: list[str] = []
    for path in paths:
        if os.path.isfile(path):
            files.append(path)
        elif os.path.isdir(path):
            files.extend(collect_resource_files(path, resource_type))
    return files


def _manifest_files(entries: Sequence[str], root: str, resource_type: ResourceType) -> list[str]:
    paths: list[str] = []
    for entry in entries:
        if is_override(entry):
            continue
        paths.extend(
            expand_manifest_glob(entry, root)
            if has_glob(entry)
            else [os.path.normpath(os.path.join(root, entry))]
        )
    return _files_from_paths(paths, resource_type)


def _package_files(root: str, resource_type: ResourceType) -> list[str]:
    """All files of one type that the package's manifest (or its conventional folder) offers."""
    manifest = read_manifest(root)
    entries = manifest.get(resource_type) if manifest else None
    if entries:
        files = _manifest_files(entries, root, resource_type)
        overrides = [e for e in entries if is_override(e)]
        if overrides:
            enabled = apply_patterns(files, overrides, root)
            return [f for f in files if f in enabled]
        return files
    folder = os.path.join(root, resource_type)
    return collect_resource_files(folder, resource_type) if os.path.exists(folder) else []


class Resolver:
    def __init__(
        self,
        layout: Layout,
        global_settings: Mapping[str, Any],
        project_settings: Mapping[str, Any],
        *,
        project_trusted: bool,
        home: str | None = None,
    ) -> None:
        self.layout = layout
        self.global_settings = global_settings
        self.project_settings = project_settings
        self.project_trusted = project_trusted
        self.home = home if home is not None else str(Path.home())

    # ------------------------------------------------------------------ packages

    def package_entries(self, problems: list[str] | None = None) -> list[tuple[PackageEntry, Scope]]:
        """Packages of both settings files after Pi's de-duplication (project entries first).

        An entry whose source names no package is left out (and described in ``problems``).
        """
        candidates: list[tuple[PackageEntry, Scope]] = [(p, "project") for p in _packages(self.project_settings)]
        candidates += [(p, "user") for p in _packages(self.global_settings)]
        listed: list[tuple[PackageEntry, Scope]] = []
        for entry, scope in candidates:
            try:
                parse_source(entry_source(entry))
            except SourceError as error:
                if problems is not None:
                    problems.append(f"package entry ignored: {error}")
                continue
            listed.append((entry, scope))
        result: list[tuple[PackageEntry, Scope]] = []
        seen: dict[str, int] = {}
        for entry, scope in listed:
            identity = self.identity(entry_source(entry), scope)
            index = seen.get(identity)
            if index is None:
                seen[identity] = len(result)
                result.append((entry, scope))
                continue
            existing, existing_scope = result[index]
            if existing_scope == "project" and scope == "user":
                if isinstance(existing, Mapping) and existing.get("autoload") is False:
                    result.append((entry, scope))
            elif scope == "project":
                result[index] = (entry, scope)
        return result

    def identity(self, source: str, scope: Scope | None = None) -> str:
        parsed = parse_source(source)
        if isinstance(parsed, LocalSource):
            path = (
                self.layout.resolve_local(parsed.path, scope)
                if scope
                else self.layout.resolve_local(parsed.path, "temporary")
            )
            return source_identity(parsed, path)
        return source_identity(parsed)

    def resolve(self, install_missing: InstallMissing | None = None) -> ResolvedResources:
        accumulator: Accumulator = {kind: {} for kind in RESOURCE_TYPES}
        result = ResolvedResources()
        entries = self.package_entries(result.problems)
        for entry, scope in entries:
            self._resolve_package(
                entry, scope, entries, accumulator=accumulator, result=result, install_missing=install_missing
            )
        for resource_type in RESOURCE_TYPES:
            self._local_entries(resource_type, "project", accumulator[resource_type])
            self._local_entries(resource_type, "user", accumulator[resource_type])
        self._auto_discovered(accumulator)
        return self._ordered(accumulator, result)

    def resolve_sources(
        self, sources: Sequence[str], scope: Scope, install_missing: InstallMissing | None = None
    ) -> ResolvedResources:
        """Resources of packages named directly (``-e`` sources), outside of settings."""
        accumulator: Accumulator = {kind: {} for kind in RESOURCE_TYPES}
        result = ResolvedResources()
        entries: list[tuple[PackageEntry, Scope]] = [(source, scope) for source in sources]
        for entry, entry_scope in entries:
            self._resolve_package(
                entry,
                entry_scope,
                entries,
                accumulator=accumulator,
                result=result,
                install_missing=install_missing,
            )
        return self._ordered(accumulator, result)

    def _resolve_package(
        self,
        entry: PackageEntry,
        scope: Scope,
        entries: Sequence[tuple[PackageEntry, Scope]],
        *,
        accumulator: Accumulator,
        result: ResolvedResources,
        install_missing: InstallMissing | None,
    ) -> None:
        source = entry_source(entry)
        filters = entry if isinstance(entry, Mapping) else None
        base_source, base_scope = self._delta_base(entry, scope, entries) or (source, scope)
        parsed = parse_source(base_source)
        origin = ResourceOrigin(source, scope, "package")
        if isinstance(parsed, LocalSource):
            self._local_package(
                self.layout.resolve_local(parsed.path, base_scope), filters, origin, accumulator
            )
            return
        try:
            path = self.layout.install_path(parsed, base_scope)
        except LayoutError as error:
            result.problems.append(f"package {base_source} is ignored: {error}")
            return
        if path is None:
            return
        if not os.path.isdir(path):
            installable = install_missing is not None
            if not (installable and install_missing and install_missing(base_source, parsed, base_scope)):
                result.not_installed.append((base_source, base_scope))
                return
        self.collect_package(path, filters, ResourceOrigin(source, scope, "package", path), accumulator)

    def _delta_base(
        self, entry: PackageEntry, scope: Scope, entries: Sequence[tuple[PackageEntry, Scope]]
    ) -> tuple[str, Scope] | None:
        if scope != "project" or not isinstance(entry, Mapping) or entry.get("autoload") is not False:
            return None
        identity = self.identity(entry_source(entry), scope)
        for other, other_scope in entries:
            if other_scope == "user" and self.identity(entry_source(other), "user") == identity:
                return entry_source(other), "user"
        return None

    def _local_package(
        self, path: str, filters: Mapping[str, Any] | None, origin: ResourceOrigin, accumulator: Accumulator
    ) -> None:
        if os.path.isfile(path):
            located = ResourceOrigin(origin.source, origin.scope, origin.origin, os.path.dirname(path))
            _add(accumulator["extensions"], path, located, True)
        elif os.path.isdir(path):
            located = ResourceOrigin(origin.source, origin.scope, origin.origin, path)
            if not self.collect_package(path, filters, located, accumulator):
                _add(accumulator["extensions"], path, located, True)

    def collect_package(
        self, root: str, filters: Mapping[str, Any] | None, origin: ResourceOrigin, accumulator: Accumulator
    ) -> bool:
        """Add one installed package's resources; False when it offers nothing at all."""
        if filters is not None:
            for resource_type in RESOURCE_TYPES:
                self._filtered(root, resource_type, filters, origin=origin, target=accumulator[resource_type])
            return True
        manifest = read_manifest(root)
        if manifest is not None:
            for resource_type in RESOURCE_TYPES:
                entries = manifest.get(resource_type)
                if entries is None:
                    continue
                files = _manifest_files(entries, root, resource_type)
                enabled = apply_patterns(files, [e for e in entries if is_override(e)], root)
                for path in files:
                    if path in enabled:
                        _add(accumulator[resource_type], path, origin, True)
            return True
        found = False
        for resource_type in RESOURCE_TYPES:
            folder = os.path.join(root, resource_type)
            if os.path.exists(folder):
                found = True
                for path in collect_resource_files(folder, resource_type):
                    _add(accumulator[resource_type], path, origin, True)
        return found

    def _filtered(
        self,
        root: str,
        resource_type: ResourceType,
        filters: Mapping[str, Any],
        *,
        origin: ResourceOrigin,
        target: dict[str, tuple[ResourceOrigin, bool]],
    ) -> None:
        patterns = _strings(filters.get(resource_type)) if resource_type in filters else None
        if filters.get("autoload") is False:
            if patterns:
                for path, enabled in delta_patterns(
                    _package_files(root, resource_type), patterns, root
                ).items():
                    _add(target, path, origin, enabled)
            return
        if patterns is None:
            for path in _package_files(root, resource_type):
                _add(target, path, origin, True)
            return
        files = _package_files(root, resource_type)
        enabled_paths = apply_patterns(files, patterns, root) if patterns else set()
        for path in files:
            _add(target, path, origin, path in enabled_paths)

    # ------------------------------------------------------------------ settings entries and folders

    def _settings(self, scope: Scope) -> Mapping[str, Any]:
        return self.project_settings if scope == "project" else self.global_settings

    def _local_entries(
        self,
        resource_type: ResourceType,
        scope: Literal["user", "project"],
        target: dict[str, tuple[ResourceOrigin, bool]],
    ) -> None:
        entries = _strings(self._settings(scope).get(resource_type))
        if not entries:
            return
        base = self.layout.base_dir(scope)
        plain = [self.layout.resolve_local(e, scope) for e in entries if not is_pattern(e)]
        patterns = [e for e in entries if is_pattern(e)]
        files = _files_from_paths(plain, resource_type)
        enabled = apply_patterns(files, patterns, base)
        origin = ResourceOrigin("local", scope, "top-level")
        for path in files:
            _add(target, path, origin, path in enabled)

    def _auto_discovered(self, accumulator: Accumulator) -> None:
        user_base = self.layout.base_dir("user")
        project_base = self.layout.base_dir("project")
        user_agents = os.path.join(self.home, ".agents", "skills")

        def add(
            resource_type: ResourceType, paths: Sequence[str], scope: Literal["user", "project"], base: str
        ) -> None:
            overrides = _strings(self._settings(scope).get(resource_type))
            origin = ResourceOrigin("auto", scope, "top-level", base)
            for path in paths:
                _add(accumulator[resource_type], path, origin, enabled_by_overrides(path, overrides, base))

        if self.project_trusted:
            add(
                "extensions",
                collect_extension_files(os.path.join(project_base, "extensions")),
                "project",
                project_base,
            )
            add(
                "skills",
                collect_skill_files(os.path.join(project_base, "skills"), "pi"),
                "project",
                project_base,
            )
            for folder in ancestor_agents_skill_dirs(self.layout.cwd):
                if os.path.abspath(folder) != os.path.abspath(user_agents):
                    add("skills", collect_skill_files(folder, "agents"), "project", os.path.dirname(folder))
            add(
                "prompts",
                collect_top_files(os.path.join(project_base, "prompts"), ".md"),
                "project",
                project_base,
            )
            add(
                "themes",
                collect_top_files(os.path.join(project_base, "themes"), ".json"),
                "project",
                project_base,
            )
        add("extensions", collect_extension_files(os.path.join(user_base, "extensions")), "user", user_base)
        add("skills", collect_skill_files(os.path.join(user_base, "skills"), "pi"), "user", user_base)
        add("skills", collect_skill_files(user_agents, "agents"), "user", os.path.dirname(user_agents))
        add("prompts", collect_top_files(os.path.join(user_base, "prompts"), ".md"), "user", user_base)
        add("themes", collect_top_files(os.path.join(user_base, "themes"), ".json"), "user", user_base)

    @staticmethod
    def _ordered(accumulator: Accumulator, result: ResolvedResources) -> ResolvedResources:
        for resource_type in RESOURCE_TYPES:
            items = [
                ResolvedResource(path, enabled, origin)
                for path, (origin, enabled) in accumulator[resource_type].items()
            ]
            items.sort(key=lambda item: _precedence(item.origin))
            seen: set[str] = set()
            kept = result.of(resource_type)
            for item in items:
                canonical = os.path.realpath(item.path)
                if canonical not in seen:
                    seen.add(canonical)
                    kept.append(item)
        return result


def _precedence(origin: ResourceOrigin) -> int:
    if origin.origin == "package":
        return 4
    return (0 if origin.scope == "project" else 2) + (0 if origin.source == "local" else 1)


def entry_source(entry: PackageEntry) -> str:
    if isinstance(entry, Mapping):
        source = entry.get("source")
        return source if isinstance(source, str) else ""
    return entry


def _packages(settings: Mapping[str, Any]) -> list[PackageEntry]:
    value = settings.get("packages")
    if not isinstance(value, list):
        return []
    return [
        item
        for item in value
        if isinstance(item, str) or (isinstance(item, Mapping) and isinstance(item.get("source"), str))
    ]


def _strings(value: object) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def ancestor_agents_skill_dirs(cwd: str) -> list[str]:
    """``.agents/skills`` of ``cwd`` and each parent up to the git root (or the filesystem root)."""
    start = os.path.abspath(cwd)
    git_root: str | None = None
    probe = start
    while True:
        if os.path.exists(os.path.join(probe, ".git")):
            git_root = probe
            break
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    folders: list[str] = []
    current = start
    while True:
        folders.append(os.path.join(current, ".agents", "skills"))
        if git_root is not None and current == git_root:
            break
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    return folders
