"""Choosing the model and thinking level, queue delivery modes, and the automatic behaviours.

Model changes are recorded as ``model_change`` entries (even when the model stays the
same, as Pi does) and bring the thinking level of the new model: the scoped model's own
level, else the per-model setting, else ``defaultThinkingLevel``, else the current level;
always clamped to what the model supports. Thinking-level changes are recorded (and
announced with ``thinking_level_changed``) only when the level actually changes.

The queue modes and the two automatic behaviours (compaction, retry) are settings: changing
them writes the global ``settings.json``, as Pi does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pi_agent import QueueMode
from pi_ai import Model, ThinkingLevel, models_are_equal
from pi_coding_agent.core.model_registry import ScopedModel
from pi_coding_agent.core.settings import DEFAULT_THINKING_LEVEL
from pi_coding_agent.runtime.agent_session._events import ThinkingLevelChangedEvent
from pi_coding_agent.runtime.agent_session._parts import SessionError, SessionParts

Direction = Literal["forward", "backward"]


@dataclass(frozen=True)
class ModelCycleResult:
    model: Model
    thinking_level: str
    is_scoped: bool
    """The model came from the scoped list (``--models`` / ``enabledModels``)."""


class ModelChangeError(SessionError):
    """The model cannot be used (no credentials for its provider)."""


class ModelControl(SessionParts):
    # ------------------------------------------------------------------ models

    def available_models(self) -> list[Model]:
        """Every model whose provider has credentials, in catalog order."""
        return self.catalog.available()

    async def set_model(self, model: Model, *, persist: bool = False) -> None:
        """Switch to ``model`` (``persist``: also make it the default in settings)."""
        if not self.catalog.has_auth(model.provider):
            raise ModelChangeError(f"No API key for {model.provider}/{model.id}")
        self._apply_model(model, self._thinking_for(model), persist=persist)

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
        current = next((i for i, c in enumerate(candidates) if models_are_equal(c.model, self._model)), 0)
        step = 1 if direction == "forward" else -1
        chosen = candidates[(current + step) % len(candidates)]
        self._select_source = "cycle"
        self._apply_model(
            chosen.model, self._thinking_for(chosen.model, chosen.thinking_level), persist=persist
        )
        self._select_source = "set"
        return ModelCycleResult(chosen.model, self.thinking_level, is_scoped)

    def _apply_model(self, model: Model, thinking_level: str, *, persist: bool) -> None:
        previous = self._model
        self._model = model
        self.agent.state.model = model
        self.session_manager.append_model_change(model.provider, model.id)
        if persist:
            self.settings.set_global(("defaultProvider",), model.provider)
            self.settings.set_global(("defaultModel",), model.id)
        self.set_thinking_level(thinking_level)
        self._notify_model_select(previous, model)

    def _thinking_for(self, model: Model, explicit: str | None = None) -> str:
        if explicit is not None:
            return explicit
        per_model = self.settings.model_thinking_level(model.provider, model.id)
        if per_model is not None:
            return per_model
        return self.settings.default_thinking_level or self.thinking_level or DEFAULT_THINKING_LEVEL

    # ------------------------------------------------------------------ thinking level

    @property
    def supports_thinking(self) -> bool:
        return self._model is not None and self._model.reasoning

    def available_thinking_levels(self) -> list[str]:
        """The levels the model accepts (``["off"]`` without reasoning; all without a model)."""
        from pi_ai import THINKING_LEVELS, get_supported_thinking_levels

        if self._model is None:
            return list(THINKING_LEVELS)
        return list(get_supported_thinking_levels(self._model))

    def set_thinking_level(self, level: str, *, persist: bool = False) -> None:
        """Clamp ``level`` to the model; record and announce it only when it changes."""
        from pi_ai import clamp_thinking_level

        if level in self.available_thinking_levels():
            effective = level
        elif self._model is not None:
            effective = clamp_thinking_level(self._model, _as_level(level))
        else:
            effective = "off"
        previous = self.agent.state.thinking_level
        self.agent.state.thinking_level = _as_level(effective)
        if persist:
            self.settings.set_global(("defaultThinkingLevel",), level)
        if effective != previous:
            self.session_manager.append_thinking_level_change(effective)
            self._emit(ThinkingLevelChangedEvent(effective))
            self._notify_thinking_select(previous, effective)

    def cycle_thinking_level(self, *, persist: bool = False) -> str | None:
        """The next supported level; ``None`` when the model does not reason."""
        if not self.supports_thinking:
            return None
        levels = self.available_thinking_levels()
        current = levels.index(self.thinking_level) if self.thinking_level in levels else -1
        level = levels[(current + 1) % len(levels)]
        self.set_thinking_level(level, persist=persist)
        return level

    # ------------------------------------------------------------------ queue modes and switches

    @property
    def steering_mode(self) -> QueueMode:
        return self.agent.steering_mode

    @property
    def follow_up_mode(self) -> QueueMode:
        return self.agent.follow_up_mode

    def set_steering_mode(self, mode: QueueMode) -> None:
        """``"all"``: every queued steering message at once; ``"one-at-a-time"``: one per turn."""
        self.agent.steering_mode = mode
        self.settings.set_global(("steeringMode",), mode)

    def set_follow_up_mode(self, mode: QueueMode) -> None:
        self.agent.follow_up_mode = mode
        self.settings.set_global(("followUpMode",), mode)

    @property
    def auto_compaction_enabled(self) -> bool:
        return self.settings.compaction.enabled

    def set_auto_compaction_enabled(self, enabled: bool) -> None:
        self.settings.set_global(("compaction", "enabled"), enabled)

    @property
    def auto_retry_enabled(self) -> bool:
        return self.settings.retry.enabled

    def set_auto_retry_enabled(self, enabled: bool) -> None:
        self.settings.set_global(("retry", "enabled"), enabled)


def _as_level(level: str) -> ThinkingLevel:
    from pi_ai import THINKING_LEVELS

    for known in THINKING_LEVELS:
        if known == level:
            return known
    return "off"
