"""A task's ``AgentSession``, built the way ``pi -p`` builds one in the task's directory.

Settings are the global and (trusted) project ``settings.json`` with the task's ``settings``
merged on top; the model is resolved like ``--model`` (``provider/id:thinking``); the system
prompt takes the task's ``systemPrompt``/``appendSystemPrompt`` like the flags of the same
names, the context files (``AGENTS.md``...) and the skills of that directory.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pi_coding_agent.app.batch._task import BatchTask
from pi_coding_agent.core.model_registry import ModelCatalog, ModelResolution
from pi_coding_agent.core.session import SessionManager
from pi_coding_agent.core.settings import Settings, deep_merge
from pi_coding_agent.runtime.agent_session import AgentSession, SessionOptions, create_agent_session


class TaskSetupError(Exception):
    """The task cannot start (an unknown model, say); it ends with status ``error``."""


@dataclass
class TaskSession:
    session: AgentSession
    warnings: list[str]


def task_settings(cwd: str, agent_dir: Path, overrides: dict[str, object]) -> Settings:
    from pi_coding_agent.core.settings import ConfigFileError, resolve_project_trust

    global_only = Settings.load(cwd, agent_dir, project_trusted=False)
    try:
        trusted = resolve_project_trust(cwd, agent_dir, override=None, default_trust=global_only.default_project_trust)
    except ConfigFileError:
        trusted = False
    loaded = Settings.load(cwd, agent_dir, project_trusted=True) if trusted else global_only
    if not overrides:
        return loaded
    return Settings(
        loaded.global_settings,
        deep_merge(loaded.project_settings, dict(overrides)),
        global_path=loaded.global_path,
        project_path=loaded.project_path,
        issues=loaded.issues,
        project_trusted=trusted,
    )


class ModelResolver:
    """``--model`` resolution with the answers kept: the catalog is copied whole on each lookup."""

    def __init__(self, catalog: ModelCatalog) -> None:
        self.catalog = catalog
        self._answers: dict[tuple[str, str | None], ModelResolution] = {}

    def resolve(self, pattern: str, thinking: str | None) -> ModelResolution:
        from pi_coding_agent.core.model_registry import resolve_cli_model

        key = (pattern, thinking)
        if key not in self._answers:
            catalog = self.catalog
            self._answers[key] = resolve_cli_model(
                provider=None, model=pattern, thinking=thinking, models=catalog.all_models(), has_auth=catalog.has_auth
            )
        return self._answers[key]


def build_task_session(
    task: BatchTask, *, cwd: str, agent_dir: Path, models: ModelResolver, manager: SessionManager
) -> TaskSession:
    from pi_coding_agent.customize.loader import load_startup_resources
    from pi_coding_agent.customize.system_prompt import load_context_files, resolve_prompt_sources

    warnings: list[str] = []
    settings = task_settings(cwd, agent_dir, dict(task.settings))
    warnings.extend(str(issue) for issue in settings.issues)
    model = None
    thinking = task.thinking
    if task.model:
        resolution = models.resolve(task.model, task.thinking)
        if resolution.error:
            raise TaskSetupError(resolution.error)
        if resolution.warning:
            warnings.append(resolution.warning)
        model = resolution.model
        thinking = thinking or resolution.thinking_level
    sources = resolve_prompt_sources(
        cwd=cwd,
        agent_dir=agent_dir,
        project_trusted=settings.project_trusted,
        system_prompt=task.system_prompt,
        append_system_prompt=list(task.append_system_prompt) or None,
    )
    resources, resource_warnings = load_startup_resources(
        cwd=cwd,
        session_cwd=cwd,
        agent_dir=agent_dir,
        settings=settings,
        skill_paths=None,
        prompt_template_paths=None,
        theme_paths=None,
        no_skills=False,
        no_prompt_templates=False,
        no_themes=True,
        no_extensions=True,
    )
    warnings.extend(resource_warnings)
    created = create_agent_session(
        SessionOptions(
            cwd=cwd,
            agent_dir=agent_dir,
            settings=settings,
            catalog=models.catalog,
            session_manager=manager,
            model=model,
            thinking_level=thinking,
            tools=task.tools,
            custom_prompt=sources.custom,
            append_prompts=sources.append,
            context_files=load_context_files(cwd, agent_dir),
            skills=resources.skills.skills,
            expand_input=lambda text: resources.expand(text, lambda error: warnings.append(str(error))),
        )
    )
    if created.model_fallback_message:
        warnings.append(created.model_fallback_message)
    session = created.session
    if session.model is not None and thinking:
        session.set_thinking_level(session.thinking_level)
    return TaskSession(session, warnings)
