"""``/model``, ``/thinking`` and ``/scoped-models`` (Pi's wording)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from pi_ai import Model
from pi_coding_agent.app.interactive.selectors import (
    ModelSelector,
    ScopedModelsSelector,
    ThinkingSelector,
    model_key,
)
from pi_coding_agent.core.settings import DEFAULT_THINKING_LEVEL
from pi_coding_agent.runtime.agent_session import ModelChangeError, SessionError
from pi_tui import Suggestion, fuzzy_filter

if TYPE_CHECKING:
    from pi_coding_agent.app.interactive._parts import Notices, Renderer, Spawn
    from pi_coding_agent.app.interactive._ui import InteractiveUI
    from pi_coding_agent.app.interactive.components import Footer
    from pi_coding_agent.runtime.agent_session import AgentSession


class ModelCommandHost(Protocol):
    """What the model commands use: the session's model and thinking level, the models to
    choose from, the selectors, the footer that shows the choice."""

    @property
    def session(self) -> AgentSession: ...
    @property
    def transcript(self) -> Notices: ...
    @property
    def ui(self) -> InteractiveUI: ...
    @property
    def footer(self) -> Footer: ...
    @property
    def tui(self) -> Renderer: ...
    @property
    def spawn(self) -> Spawn: ...
    def warn_extra_usage(self, model: Model | None = None) -> None: ...
    def model_choices(self) -> list[Model]: ...
    def update_provider_count(self) -> None: ...


def model_completions(host: ModelCommandHost, prefix: str) -> list[Suggestion] | None:
    """What Pi offers after ``/model ``: the scoped models (else the available ones) in their
    order, the id shown with its provider beside it, ``provider/id`` to insert."""
    models = host.model_choices()

    def searched(m: Model) -> str:
        # The bare id leads, unlike the selector's search, so typing an id ranks it first.
        name = f" {m.name}" if m.name else ""
        return f"{m.id} {m.provider} {m.provider}/{m.id} {m.provider} {m.id}{name}"

    found = [Suggestion(model_key(m), m.id, m.provider) for m in fuzzy_filter(models, prefix, searched)]
    return found or None


def thinking_completions(host: ModelCommandHost, prefix: str) -> list[Suggestion] | None:
    """What Pi offers after ``/thinking ``: the levels the model accepts, without descriptions."""
    levels = fuzzy_filter(host.session.available_thinking_levels(), prefix, lambda level: level)
    return [Suggestion(level, level) for level in levels] or None


async def model(host: ModelCommandHost, search: str) -> None:
    from pi_coding_agent.core.model_registry import find_exact_reference

    session = host.session
    _reload_models_json(host)
    if search:
        found = find_exact_reference(search, host.model_choices())
        if found is not None:
            await select_model(host, found, persist=False)
            return
    settings = session.settings
    provider, model_id = settings.default_provider, settings.default_model
    default = (provider, model_id) if provider and model_id else None

    def build(done: Callable[[], None]) -> ModelSelector:
        def chosen(choice: Model, persist: bool) -> None:
            done()
            host.spawn(select_model(host, choice, persist))

        return ModelSelector(
            host.ui.context(), session.available_models(), session.model, [s.model for s in session.scoped_models],
            on_select=chosen, on_cancel=done, initial_search=search, default=default,
        )  # fmt: skip

    host.ui.open(build)


def _reload_models_json(host: ModelCommandHost) -> None:
    """``models.json`` as it is now (Pi re-reads it each time ``/model`` opens); a file that
    became invalid is reported and the built-in models stay offered."""
    catalog = host.session.catalog
    catalog.reload_models_json()
    host.update_provider_count()
    if catalog.error is not None:
        host.transcript.error(catalog.error)


async def select_model(host: ModelCommandHost, chosen: Model, persist: bool) -> None:
    try:
        await host.session.set_model(chosen, persist=persist)
    except (ModelChangeError, SessionError) as error:
        host.transcript.error(str(error))
        return
    host.update_provider_count()
    host.transcript.status(
        f"Default model: {chosen.provider}/{chosen.id}" if persist else f"Model: {chosen.id}"
    )
    host.warn_extra_usage(chosen)


async def thinking(host: ModelCommandHost, level: str) -> None:
    session = host.session
    levels = session.available_thinking_levels()
    if level:
        match = next((candidate for candidate in levels if candidate.lower() == level.strip().lower()), None)
        if match is None:
            host.transcript.error(f'Unknown thinking level "{level}". Available levels: {", ".join(levels)}.')
            return
        _select_level(host, match, persist=False)
        return

    default = session.settings.default_thinking_level or DEFAULT_THINKING_LEVEL

    def build(done: Callable[[], None]) -> ThinkingSelector:
        def chosen(choice: str, persist: bool) -> None:
            _select_level(host, choice, persist)
            done()

        return ThinkingSelector(
            host.ui.context(), session.thinking_level, levels, default, on_select=chosen, on_cancel=done
        )

    host.ui.open(build)


def _select_level(host: ModelCommandHost, level: str, persist: bool) -> None:
    try:
        host.session.set_thinking_level(level, persist=persist)
    except (ValueError, SessionError) as error:
        host.transcript.error(str(error))
        return
    host.footer.invalidate()
    host.transcript.status(f"Default thinking level: {level}" if persist else f"Thinking level: {level}")


async def scoped_models(host: ModelCommandHost, _: str) -> None:
    from pi_coding_agent.core.model_registry import resolve_model_scope

    session = host.session
    available = session.available_models()
    keys = [model_key(m) for m in available]
    if session.scoped_models:
        enabled: list[str] | None = [model_key(s.model) for s in session.scoped_models]
    else:
        patterns = session.settings.enabled_models
        enabled = (
            [model_key(s.model) for s in resolve_model_scope(patterns, available)[0]] if patterns else None
        )

    def changed(ids: list[str] | None) -> None:
        usable = ids is not None and any(i in keys for i in ids) and not all(k in ids for k in keys)
        session.scoped_models[:] = (
            resolve_model_scope(ids, available)[0] if usable and ids is not None else []
        )
        host.update_provider_count()
        host.tui.request_render()

    def saved(ids: list[str] | None) -> None:
        if ids is None or (len(ids) == len(keys) and set(ids) == set(keys)):
            session.settings.unset_global(("enabledModels",))
        else:
            session.settings.set_global(("enabledModels",), ids)
        host.transcript.status("Model selection saved to settings")

    host.ui.open(
        lambda done: ScopedModelsSelector(
            host.ui.context(), available, enabled, on_change=changed, on_save=saved, on_cancel=done
        )
    )


HANDLERS = {"model": model, "thinking": thinking, "scoped-models": scoped_models}
