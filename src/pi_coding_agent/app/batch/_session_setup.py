"""A task's ``AgentSession``, built the way ``pi -p`` builds one in the task's directory.

Settings are the global and (trusted: ``task_settings``) project ``settings.json`` with the
task's ``settings`` merged on top; the model is resolved like ``--model``
(``provider/id:thinking``); the system prompt takes the task's ``systemPrompt``/
``appendSystemPrompt`` like the flags of the same names, the context files (``AGENTS.md``...)
and the skills of that directory.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pi_ai import Model
from pi_coding_agent.app.batch._task import BatchTask
from pi_coding_agent.core.model_registry import ModelCatalog, ResolveCliModelResult
from pi_coding_agent.core.session import SessionManager
from pi_coding_agent.core.settings import Settings, deep_merge
from pi_coding_agent.runtime.agent_session import (
    AgentSession,
    CreateAgentSessionOptions,
    SessionAssembly,
    StreamLimit,
)


class TaskSetupError(Exception):
    """The task cannot start (an unknown model, say); it ends with status ``error``."""


@dataclass
class TaskSession:
    session: AgentSession
    warnings: list[str]


UNTRUSTED_NOTICE = (
    "This project is not trusted. Project .pi resources and packages are ignored (a batch task "
    'trusts its folder only with "approve": true, pi batch --approve, or a decision saved for that folder)'
)


def task_settings(cwd: str, agent_dir: Path, task: BatchTask) -> tuple[Settings, list[str]]:
    """The settings ``pi -p`` would use in ``cwd`` if it inherited no trust: the project's
    only when the task approves it or a decision was saved for ``cwd`` itself (a scratch
    checkout must not borrow the trust of the folder the batch runs in), with the task's
    ``settings`` merged on top; and what to warn about."""
    from pi_coding_agent.core.settings import needs_project_trust
    from pi_coding_agent.runtime.agent_session import trusted_settings

    loaded, warning = trusted_settings(cwd, agent_dir, trust_override=task.approve, inherit=False)
    warnings = [warning] if warning is not None else []
    if not loaded.project_trusted and needs_project_trust(cwd):
        warnings.append(UNTRUSTED_NOTICE)
    if not task.settings:
        return loaded, warnings
    merged = Settings(
        loaded.global_settings,
        deep_merge(loaded.project_settings, dict(task.settings)),
        global_path=loaded.global_path,
        project_path=loaded.project_path,
        issues=loaded.issues,
        project_trusted=loaded.project_trusted,
    )
    return merged, warnings


class ModelResolver:
    """``--model`` resolution with the answers kept: the catalog is copied whole on each lookup."""

    def __init__(self, catalog: ModelCatalog) -> None:
        self.catalog = catalog
        self._answers: dict[tuple[str, str | None], ResolveCliModelResult] = {}

    def resolve(self, pattern: str, thinking: str | None) -> ResolveCliModelResult:
        from pi_coding_agent.core.model_registry import resolve_cli_model

        key = (pattern, thinking)
        if key not in self._answers:
            catalog = self.catalog
            self._answers[key] = resolve_cli_model(
                provider=None,
                model=pattern,
                thinking=thinking,
                models=catalog.all_models(),
                has_auth=catalog.has_auth,
            )
        return self._answers[key]


def build_task_session(
    task: BatchTask,
    *,
    cwd: str,
    agent_dir: Path,
    models: ModelResolver,
    manager: SessionManager,
    limit_stream: StreamLimit | None = None,
) -> TaskSession:
    """The task's session; ``limit_stream`` wraps its model calls (the batch's rate limiter)."""
    from pi_coding_agent.runtime.agent_session import ResourceChoice, load_run_resources, with_resources

    settings, warnings = task_settings(cwd, agent_dir, task)
    warnings.extend(str(issue) for issue in settings.issues)
    model, thinking = _task_model(task, models, warnings)
    choice = ResourceChoice(
        no_themes=True,
        no_extensions=True,
        system_prompt=task.system_prompt,
        append_system_prompt=list(task.append_system_prompt) or None,
    )
    resources = load_run_resources(choice, cwd=cwd, session_cwd=cwd, agent_dir=agent_dir, settings=settings)
    warnings.extend(resources.warnings)
    options = CreateAgentSessionOptions(
        cwd=cwd,
        agent_dir=agent_dir,
        settings=settings,
        catalog=models.catalog,
        session_manager=manager,
        model=model,
        thinking_level=thinking,
        tools=task.tools,
        limit_stream=limit_stream,
    )
    assembly = SessionAssembly(with_resources(options, resources, lambda error: warnings.append(str(error))))
    created = assembly.build(manager)
    if created.model_fallback_message:
        warnings.append(created.model_fallback_message)
    return TaskSession(created.session, warnings)


def _task_model(
    task: BatchTask, models: ModelResolver, warnings: list[str]
) -> tuple[Model | None, str | None]:
    """The task's ``model`` resolved like ``--model`` (``provider/id:thinking``), and its thinking level."""
    if not task.model:
        return None, task.thinking
    resolution = models.resolve(task.model, task.thinking)
    if resolution.error:
        raise TaskSetupError(resolution.error)
    if resolution.warning:
        warnings.append(resolution.warning)
    return resolution.model, task.thinking or resolution.thinking_level
