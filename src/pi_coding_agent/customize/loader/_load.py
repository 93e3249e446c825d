"""Everything a run loads besides settings: skills, prompt templates, theme and extension paths.

Pi 0.85's order: the resources that settings, packages and the conventional folders give
(``packages.Resolver``), each enabled one once; then the ``--skill`` /
``--prompt-template`` / ``--theme`` paths, which also apply with ``--no-skills`` and friends
(those switch off everything else of that kind). A skill folder found by convention or in
a package stands for its ``SKILL.md``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pi_coding_agent.core.paths import resolve_path
from pi_coding_agent.core.settings import Settings
from pi_coding_agent.customize.packages import (
    InstallMissing,
    Layout,
    ResolvedResource,
    ResolvedResources,
    Resolver,
)
from pi_coding_agent.customize.prompt_templates import (
    PromptTemplateSet,
    TemplateCommand,
    expand_prompt_template,
    load_prompt_templates,
    template_commands,
)
from pi_coding_agent.customize.resources import DiagnosticKind, ResourceDiagnostic
from pi_coding_agent.customize.skills import (
    SkillCommand,
    SkillExpansionError,
    SkillSet,
    expand_skill_command,
    load_skills,
    skill_commands,
)

BUILTIN_PREFIX = "builtin:"
"""``-e builtin:<name>``: one of Pi 1.6's built-in extensions (``PI_BUILTIN_EXTENSIONS``)."""
PI_BUILTIN_EXTENSIONS = ("llama.cpp", "codemode", "tool-search", "mcp")
"""The built-in extensions of Pi 1.6; only ``codemode`` is implemented here (as a built-in tool of
the session, docs/codemode.md; the others: ``docs/pi-1.6/settings-and-cli.md``)."""


@dataclass
class ResourceOptions:
    cwd: str
    agent_dir: Path | str
    settings: Settings
    skill_paths: Sequence[str] = ()
    prompt_template_paths: Sequence[str] = ()
    theme_paths: Sequence[str] = ()
    no_skills: bool = False
    no_prompt_templates: bool = False
    no_themes: bool = False
    no_extensions: bool = False
    extension_sources: Sequence[str] = ()
    """``-e`` sources: a local package folder adds its resources for this run (also with
    ``--no-skills`` and friends), a file is one extension."""
    install_missing: InstallMissing | None = None
    """Installs a package named in settings whose folder is missing (Pi does so at start-up)."""
    home: str | None = None


@dataclass
class LoadedResources:
    skills: SkillSet
    prompt_templates: PromptTemplateSet
    theme_paths: list[str]
    extensions: list[ResolvedResource]
    """Enabled extension files (listed for the extension loader; not run by this module)."""
    resolved: ResolvedResources
    diagnostics: list[ResourceDiagnostic] = field(default_factory=list)
    enable_skill_commands: bool = True
    theme_diagnostics: list[ResourceDiagnostic] = field(default_factory=list)
    """``--theme`` paths that do not exist (also in ``diagnostics``)."""
    cli: ResolvedResources = field(default_factory=ResolvedResources)
    """What the ``-e`` sources resolved to (where those skills and templates came from)."""
    builtin_extensions: list[str] = field(default_factory=list)
    """``-e builtin:<name>`` sources, as given (none is loaded; see ``PI_BUILTIN_EXTENSIONS``)."""

    def expand(self, text: str, on_error: Callable[[SkillExpansionError], None] | None = None) -> str:
        """A prompt as the model will get it: ``/skill:name args`` then ``/template args`` expanded."""
        expanded = expand_skill_command(text, self.skills.skills, on_error)
        return expand_prompt_template(expanded, self.prompt_templates.templates)

    def commands(self) -> list[TemplateCommand | SkillCommand]:
        """Slash commands these resources add, for completion: templates, then ``skill:<name>``."""
        return [
            *template_commands(self.prompt_templates.templates),
            *skill_commands(self.skills.skills, enabled=self.enable_skill_commands),
        ]


def _merge(cwd: str, primary: Sequence[str], additional: Sequence[str]) -> list[str]:
    merged: list[str] = []
    seen: set[str] = set()
    for path in [*primary, *additional]:
        resolved = resolve_path(path.strip(), cwd)
        canonical = os.path.realpath(resolved)
        if canonical not in seen:
            seen.add(canonical)
            merged.append(resolved)
    return merged


def _skill_path(resource: ResolvedResource) -> str:
    """A skill folder found by convention or in a package stands for its ``SKILL.md``."""
    if resource.origin.source != "auto" and resource.origin.origin != "package":
        return resource.path
    candidate = os.path.join(resource.path, "SKILL.md")
    return candidate if os.path.isdir(resource.path) and os.path.exists(candidate) else resource.path


def _missing(
    paths: Sequence[str], cwd: str, message: str, known: Sequence[ResourceDiagnostic], kind: DiagnosticKind = "error"
) -> list[ResourceDiagnostic]:
    reported = {d.path for d in known}
    found: list[ResourceDiagnostic] = []
    for raw in paths:
        path = resolve_path(raw.strip(), cwd)
        if not os.path.exists(path) and path not in reported:
            found.append(ResourceDiagnostic(kind, message, path))
    return found


def _extension_sources(
    resolver: Resolver, sources: Sequence[str], install_missing: InstallMissing | None
) -> ResolvedResources:
    """Resources of the ``-e`` sources: local folders and files, and packages (git, index)
    installed for this run into the temporary cache when not there yet (Pi's ``-e npm:...``)."""
    return resolver.resolve_sources(sources, "temporary", install_missing)


def load_resources(options: ResourceOptions) -> LoadedResources:
    settings = options.settings
    resolver = Resolver(
        Layout(os.path.abspath(options.cwd), os.path.abspath(options.agent_dir)),
        settings.global_settings,
        settings.project_settings if settings.project_trusted else {},
        project_trusted=settings.project_trusted,
        home=options.home,
    )
    resolved = resolver.resolve(options.install_missing)
    cwd = options.cwd
    builtins = [source for source in options.extension_sources if source.startswith(BUILTIN_PREFIX)]
    files = [source for source in options.extension_sources if not source.startswith(BUILTIN_PREFIX)]
    cli = _extension_sources(resolver, files, options.install_missing)
    skill_sources = [_skill_path(r) for r in cli.skills if r.enabled]
    skill_sources += [] if options.no_skills else [_skill_path(r) for r in resolved.skills if r.enabled]
    skills = (
        load_skills(_merge(cwd, skill_sources, options.skill_paths), cwd)
        if skill_sources or options.skill_paths
        else SkillSet()
    )
    skills.diagnostics += _missing(options.skill_paths, cwd, "Skill path does not exist", skills.diagnostics)
    prompt_sources = [r.path for r in cli.prompts if r.enabled]
    prompt_sources += [] if options.no_prompt_templates else [r.path for r in resolved.prompts if r.enabled]
    templates = (
        load_prompt_templates(_merge(cwd, prompt_sources, options.prompt_template_paths), cwd)
        if prompt_sources or options.prompt_template_paths
        else PromptTemplateSet()
    )
    templates.diagnostics += _missing(
        options.prompt_template_paths, cwd, "Prompt template path does not exist", templates.diagnostics
    )
    theme_sources = [r.path for r in cli.themes if r.enabled]
    theme_sources += [] if options.no_themes else [r.path for r in resolved.themes if r.enabled]
    themes = _merge(cwd, theme_sources, options.theme_paths)
    theme_problems = _missing(options.theme_paths, cwd, "theme path does not exist", [], "warning")  # Pi's words
    not_installed = [
        ResourceDiagnostic(
            "warning",
            f"package {source} is not installed (run: pi install {source}"
            f"{' -l' if scope == 'project' else ''})",
        )
        for source, scope in resolved.not_installed
    ]
    not_installed += [
        ResourceDiagnostic("warning", f"-e {source}: the package could not be installed for this run")
        for source, _ in cli.not_installed
    ]
    not_installed += [ResourceDiagnostic("warning", problem) for problem in [*resolved.problems, *cli.problems]]
    enable = settings.get("enableSkillCommands")
    return LoadedResources(
        skills=skills,
        prompt_templates=templates,
        theme_paths=[p for p in themes if os.path.exists(p)],
        extensions=[r for r in cli.extensions if r.enabled]
        + ([] if options.no_extensions else [r for r in resolved.extensions if r.enabled]),
        resolved=resolved,
        diagnostics=[*skills.diagnostics, *templates.diagnostics, *theme_problems, *not_installed],
        enable_skill_commands=enable if isinstance(enable, bool) else True,
        theme_diagnostics=theme_problems,
        cli=cli,
        builtin_extensions=builtins,
    )
