"""Choosing the model and thinking level.

Model changes are recorded as ``model_change`` entries (even when the model stays the
same, as Pi does) and bring the thinking level of the new model: the scoped model's own
level, else the per-model setting, else ``defaultThinkingLevel``, else the current level;
always clamped to what the model supports. Thinking-level changes are recorded (and
announced with ``thinking_level_changed``) only when the level actually changes.
Extensions hear of both (``model_select``, ``thinking_level_select``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from pi_agent import Agent
from pi_ai import Model, ThinkingLevel, models_are_equal
from pi_coding_agent.core.model_registry import ModelCatalog, ScopedModel
from pi_coding_agent.core.session import SessionManager
from pi_coding_agent.core.settings import DEFAULT_THINKING_LEVEL, Settings
from pi_coding_agent.runtime.agent_session._events import AgentSessionEvent, ThinkingLevelChangedEvent
from pi_coding_agent.runtime.agent_session._parts import SessionError

Direction = Literal["forward", "backward"]


@dataclass(frozen=True)
class ModelCycleResult:
    model: Model
    thinking_level: str
    is_scoped: bool
    """The model came from the scoped list (``--models`` / ``enabledModels``)."""


class ModelChangeError(SessionError):
    """The model cannot be used (no credentials for its provider)."""


class SelectionListener(Protocol):
    """Extensions hear of model and thinking-level changes."""

    def model_selected(self, previous: Model | None, model: Model, source: str) -> None:
        """``source``: ``set`` or ``cycle``."""

    def thinking_selected(self, previous: str, level: str) -> None: ...


class ModelControl:
    def __init__(
        self,
        *,
        agent: Agent,
        session_manager: SessionManager,
        settings: Settings,
        catalog: ModelCatalog,
        model: Model | None,
        scoped_models: Sequence[ScopedModel],
        emit: Callable[[AgentSessionEvent], None],
        extensions: SelectionListener,
    ) -> None:
        self._agent = agent
        self._manager = session_manager
        self._settings = settings
        self._catalog = catalog
        self.model = model
        self.scoped_models: list[ScopedModel] = list(scoped_models)
        """Models ``cycle_model`` goes through (``--models`` / ``enabledModels``); empty: all."""
        self._emit = emit
        self._extensions = extensions

    @property
    def thinking_level(self) -> str:
        return self._agent.state.thinking_level

    # ------------------------------------------------------------------ models

    def available_models(self) -> list[Model]:
        """Every model whose provider has credentials, in catalog order."""
        return self._catalog.available()

    async def set_model(self, model: Model, *, persist: bool = False) -> None:
        """Switch to ``model`` (``persist``: also make it the default in settings)."""
        if not self._catalog.has_auth(model.provider):
            raise ModelChangeError(f"No API key for {model.provider}/{model.id}")
        self._apply_model(model, self._thinking_for(model), persist=persist)

    def set_model_from_extension(self, model: Model) -> bool:
        """An extension's ``pi.setModel``: ``False`` when the provider has no credentials."""
        if not self._catalog.has_auth(model.provider):
            return False
        self._apply_model(model, self._thinking_for(model), persist=False)
        return True

    async def cycle_model(
        self, direction: Direction = "forward", *, persist: bool = False
    ) -> ModelCycleResult | None:
        """The next model (of the scoped list when there is one); ``None`` with fewer than two."""
        if self.scoped_models:
            available = {(m.provider, m.id) for m in self.available_models()}
            candidates = [s for s in self.scoped_models if (s.model.provider, s.model.id) in available]
            return self._cycle(candidates, direction, persist=persist, is_scoped=True)
        return self._cycle(
            [ScopedModel(m, None) for m in self.available_models()], direction, persist=persist
        )

    def _cycle(
        self, candidates: list[ScopedModel], direction: Direction, *, persist: bool, is_scoped: bool = False
    ) -> ModelCycleResult | None:
        if len(candidates) <= 1:
            return None
        current = next((i for i, c in enumerate(candidates) if models_are_equal(c.model, self.model)), 0)
        step = 1 if direction == "forward" else -1
        chosen = candidates[(current + step) % len(candidates)]
        self._apply_model(
            chosen.model,
            self._thinking_for(chosen.model, chosen.thinking_level),
            persist=persist,
            source="cycle",
        )
        return ModelCycleResult(chosen.model, self.thinking_level, is_scoped)

    def _apply_model(self, model: Model, thinking_level: str, *, persist: bool, source: str = "set") -> None:
        previous = self.model
        self.model = model
        self._agent.state.model = model
        self._manager.append_model_change(model.provider, model.id)
        if persist:
            self._settings.set_global(("defaultProvider",), model.provider)
            self._settings.set_global(("defaultModel",), model.id)
        self.set_thinking_level(thinking_level)
        if previous is not model:
            self._extensions.model_selected(previous, model, source)

    def _thinking_for(self, model: Model, explicit: str | None = None) -> str:
        if explicit is not None:
            return explicit
        per_model = self._settings.model_thinking_level(model.provider, model.id)
        if per_model is not None:
            return per_model
        return self._settings.default_thinking_level or self.thinking_level or DEFAULT_THINKING_LEVEL

    # ------------------------------------------------------------------ thinking level

    @property
    def supports_thinking(self) -> bool:
        return self.model is not None and self.model.reasoning

    def available_thinking_levels(self) -> list[str]:
        """The levels the model accepts (``["off"]`` without reasoning; all without a model)."""
        from pi_ai import THINKING_LEVELS, get_supported_thinking_levels

        if self.model is None:
            return list(THINKING_LEVELS)
        return list(get_supported_thinking_levels(self.model))

    def set_thinking_level(self, level: str, *, persist: bool = False) -> None:
        """Clamp ``level`` to the model; record and announce it only when it changes."""
        from pi_ai import clamp_thinking_level

        if level in self.available_thinking_levels():
            effective = level
        elif self.model is not None:
            effective = clamp_thinking_level(self.model, _as_level(level))
        else:
            effective = "off"
        previous = self._agent.state.thinking_level
        self._agent.state.thinking_level = _as_level(effective)
        if persist:
            self._settings.set_global(("defaultThinkingLevel",), level)
        if effective != previous:
            self._manager.append_thinking_level_change(effective)
            self._emit(ThinkingLevelChangedEvent(effective))
            self._extensions.thinking_selected(previous, effective)

    def cycle_thinking_level(self, *, persist: bool = False) -> str | None:
        """The next supported level; ``None`` when the model does not reason."""
        if not self.supports_thinking:
            return None
        levels = self.available_thinking_levels()
        current = levels.index(self.thinking_level) if self.thinking_level in levels else -1
        level = levels[(current + 1) % len(levels)]
        self.set_thinking_level(level, persist=persist)
        return level


def _as_level(level: str) -> ThinkingLevel:
    from pi_ai import THINKING_LEVELS

    for known in THINKING_LEVELS:
        if known == level:
            return known
    return "off"
