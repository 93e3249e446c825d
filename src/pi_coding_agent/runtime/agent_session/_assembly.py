"""One assembly of sessions for every entry point: print, json, rpc, the interactive UI
(through the CLI), batch tasks and the SDK's ``create_agent_session``.

The entry point resolves its settings (``trusted_settings``: the global file, and the
project's when the project is trusted), loads its resources (``load_run_resources``: skills,
prompt templates, themes and extension files as a ``ResourceChoice`` selects them, the
system prompt sources and the context files) and states its options (model, thinking level,
tools, scoped models, ``limit_stream``). ``SessionAssembly`` then builds the first session
and each one that replaces it (``/new``, ``/resume``, ``/fork``, ``/reload``) the same way,
in the new session's directory; ``/reload`` reads settings and resources again for the
sessions built from then on.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pi_ai import Model
from pi_coding_agent.core.model_registry import ScopedModel
from pi_coding_agent.core.session import SessionManager
from pi_coding_agent.core.settings import Settings, TrustAsker
from pi_coding_agent.runtime.agent_session._create import (
    CreateAgentSessionOptions,
    CreateAgentSessionResult,
    build_session,
    resource_commands,
)
from pi_coding_agent.runtime.agent_session._runtime import AgentSessionRuntime
from pi_coding_agent.runtime.agent_session._session import AgentSession

if TYPE_CHECKING:
    from pi_coding_agent.customize.loader import LoadedResources
    from pi_coding_agent.customize.skills import SkillExpansionError
    from pi_coding_agent.customize.system_prompt import ContextFile, PromptSources


def create_agent_session(options: CreateAgentSessionOptions) -> CreateAgentSessionResult:
    """The SDK's entry: one session built from ``options`` (Pi's ``createAgentSession``)."""
    return SessionAssembly(options).build(options.session_manager)


def trusted_settings(
    cwd: str,
    agent_dir: Path,
    *,
    trust_override: bool | None = None,
    inherit: bool = True,
    ask: TrustAsker | None = None,
) -> tuple[Settings, str | None]:
    """The settings for ``cwd``: project settings only when the project is trusted (a
    remembered decision, ``trust_override`` from ``-a``/``-na``, the default trust, or the
    answer to ``ask``, the terminal UI's startup prompt; with ``inherit=False``, as for batch
    tasks, only a decision remembered for ``cwd`` itself). The second value is a warning
    when the trust decisions cannot be read or saved (then untrusted)."""
    from pi_coding_agent.core.settings import ConfigFileError, resolve_project_trust

    global_only = Settings.load(cwd, agent_dir, project_trusted=False)
    try:
        trusted = resolve_project_trust(
            cwd,
            agent_dir,
            override=trust_override,
            default_trust=global_only.default_project_trust,
            inherit=inherit,
            ask=ask,
        )
    except (ConfigFileError, OSError) as error:
        return global_only, f"Cannot read trust decisions ({error}); project settings are ignored"
    return (Settings.load(cwd, agent_dir, project_trusted=True) if trusted else global_only), None


@dataclass(frozen=True)
class ResourceChoice:
    """Which resources a run uses (``--skill``, ``--no-skills``, ``--system-prompt``... or a batch task's)."""

    skill_paths: Sequence[str] | None = None
    prompt_template_paths: Sequence[str] | None = None
    theme_paths: Sequence[str] | None = None
    extension_sources: Sequence[str] | None = None
    no_skills: bool = False
    no_prompt_templates: bool = False
    no_themes: bool = False
    no_extensions: bool = False
    system_prompt: str | None = None
    append_system_prompt: Sequence[str] | None = None
    no_context_files: bool = False


@dataclass
class RunResources:
    """What a run's sessions are built with besides settings and options."""

    loaded: LoadedResources
    prompts: PromptSources
    context_files: list[ContextFile]
    warnings: list[str] = field(default_factory=list)
    """Problems found while loading (one line each)."""

    @property
    def context_paths(self) -> list[str]:
        """The system prompt files, then the context files (the interactive header's ``[Context]``)."""
        return [*self.prompts.paths, *(f.path for f in self.context_files)]


def load_run_resources(
    choice: ResourceChoice, *, cwd: str, session_cwd: str, agent_dir: Path, settings: Settings
) -> RunResources:
    """Skills, templates, themes and extension files, the system prompt sources and the
    context files, as ``choice`` and ``settings`` select them (paths of ``choice`` relative to ``cwd``)."""
    loaded, warnings = load_resource_files(choice, cwd=cwd, session_cwd=session_cwd, agent_dir=agent_dir, settings=settings)
    return with_prompt_sources(loaded, warnings, choice, session_cwd=session_cwd, agent_dir=agent_dir, settings=settings)


def load_resource_files(
    choice: ResourceChoice, *, cwd: str, session_cwd: str, agent_dir: Path, settings: Settings
) -> tuple[LoadedResources, list[str]]:
    """Skills, templates, themes and extension files; the warnings found."""
    from pi_coding_agent.customize.loader import load_startup_resources

    return load_startup_resources(
        cwd=cwd,
        session_cwd=session_cwd,
        agent_dir=agent_dir,
        settings=settings,
        skill_paths=choice.skill_paths,
        prompt_template_paths=choice.prompt_template_paths,
        theme_paths=choice.theme_paths,
        no_skills=choice.no_skills,
        no_prompt_templates=choice.no_prompt_templates,
        no_themes=choice.no_themes,
        no_extensions=choice.no_extensions,
        extension_sources=choice.extension_sources,
    )


def with_prompt_sources(
    loaded: LoadedResources,
    warnings: list[str],
    choice: ResourceChoice,
    *,
    session_cwd: str,
    agent_dir: Path,
    settings: Settings,
) -> RunResources:
    """The run's resources: ``loaded``, the system prompt sources and the context files."""
    from pi_coding_agent.customize.system_prompt import load_project_context_files, resolve_prompt_sources

    prompts = resolve_prompt_sources(
        cwd=session_cwd,
        agent_dir=agent_dir,
        project_trusted=settings.project_trusted,
        system_prompt=choice.system_prompt,
        append_system_prompt=choice.append_system_prompt,
    )
    context_files = [] if choice.no_context_files else load_project_context_files(session_cwd, agent_dir)
    return RunResources(loaded, prompts, context_files, warnings)


def with_resources(
    options: CreateAgentSessionOptions,
    resources: RunResources,
    on_expand_error: Callable[[SkillExpansionError], None] | None = None,
) -> CreateAgentSessionOptions:
    """``options`` with the system prompt sources, context files, skills and templates of ``resources``."""
    loaded = resources.loaded
    return dataclasses.replace(
        options,
        custom_prompt=resources.prompts.custom,
        append_prompts=resources.prompts.append,
        context_files=resources.context_files,
        skills=loaded.skills.skills,
        prompt_templates=loaded.prompt_templates.templates,
        expand_input=lambda text: loaded.expand(text, on_expand_error),
    )


class SessionAssembly:
    """Builds the sessions of one run from one set of options.

    With ``start_in_scope`` (the CLI's rule, not the SDK's), a new session without a model
    starts on the saved default model when it is in the scoped list, else on the first
    scoped model with its thinking level.
    """

    def __init__(
        self, options: CreateAgentSessionOptions, *, start_in_scope: bool = False, resources: RunResources | None = None
    ) -> None:
        self.options = options
        self.resources = resources
        self._start_in_scope = start_in_scope

    def build(self, manager: SessionManager) -> CreateAgentSessionResult:
        """The session for ``manager``, in its directory: the first one, and every replacement."""
        options = dataclasses.replace(self.options, cwd=manager.get_cwd(), session_manager=manager)
        if self._starts_in_scope(options):
            model, thinking = scoped_choice(options.scoped_models, options.settings)
            options = dataclasses.replace(options, model=model, thinking_level=options.thinking_level or thinking)
        return build_session(options)

    def _starts_in_scope(self, options: CreateAgentSessionOptions) -> bool:
        if not self._start_in_scope or options.model is not None or not options.scoped_models:
            return False
        return not options.session_manager.build_session_context().messages

    def runtime(self, session: AgentSession) -> AgentSessionRuntime:
        """The runtime that starts with ``session`` and replaces it with sessions built here."""
        return AgentSessionRuntime(session, lambda manager: self.build(manager).session)

    def reload(self, settings: Settings, resources: RunResources, cwd: str | None = None) -> None:
        """``/reload``, or a move to another project (``cwd``): the sessions built from now on
        use these settings and resources."""
        self.resources = resources
        options = dataclasses.replace(self.options, settings=settings, cwd=cwd or self.options.cwd)
        self.options = with_resources(options, resources)

    def add_discovered(self, found: dict[str, list[str]]) -> None:
        """Skills and prompt templates a ``resources_discover`` handler pointed at join the
        run's (later ones of a name already known are skipped); the bound session's commands
        and system prompt follow. Theme paths are collected only (the interactive UI reads themes)."""
        from pi_coding_agent.customize.prompt_templates import load_prompt_templates
        from pi_coding_agent.customize.skills import load_skills

        options = self.options
        known = {skill.name for skill in options.skills}
        skills = [*options.skills, *(s for s in load_skills(found["skill_paths"], options.cwd).skills if s.name not in known)]
        names = {template.name for template in options.prompt_templates}
        found_templates = load_prompt_templates(found["prompt_paths"], options.cwd).templates
        templates = [*options.prompt_templates, *(t for t in found_templates if t.name not in names)]
        self.options = dataclasses.replace(options, skills=skills, prompt_templates=templates)
        if self.resources is not None:
            # In place: the sessions built from these lists (``with_resources``) read them when
            # they expand ``/skill:name`` and rebuild their system prompt.
            loaded = self.resources.loaded
            loaded.skills.skills[:] = skills
            loaded.prompt_templates.templates[:] = templates
            loaded.theme_paths += [path for path in found["theme_paths"] if path not in loaded.theme_paths]
        runner = options.extensions
        session: object = runner.host if runner is not None else None
        if isinstance(session, AgentSession):
            session.set_commands(resource_commands(self.options))
            session.refresh_tools()


def scoped_choice(scoped: Sequence[ScopedModel], settings: Settings) -> tuple[Model, str | None]:
    """The saved default model when it is in scope, else the first scoped model (with its thinking level)."""
    saved = (settings.default_provider, settings.default_model)
    chosen = next((s for s in scoped if (s.model.provider, s.model.id) == saved), scoped[0])
    return chosen.model, chosen.thinking_level
