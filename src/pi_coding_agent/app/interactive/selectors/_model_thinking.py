"""``/settings`` → Default thinking level per model: Pi's two-step submenu. Step 1 picks a
model (type to filter), step 2 its level (``✓`` the override it has, ``(clear override)`` to
drop it); a choice is saved under ``modelThinkingLevels`` and the list comes back to step 1.
Escape goes back a step, and from step 1 closes with the new summary (``none``, ``N configured``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pi_coding_agent.app.interactive.selectors._base import SelectorContext
from pi_tui import Container, Input, SelectItem, SelectList, Spacer, Text, fuzzy_filter

CLEAR_OVERRIDE = "__clear__"
NO_MODELS = "__none__"


@dataclass(frozen=True)
class ThinkingModel:
    """A model the submenu offers: its ``provider/id`` key and the levels it accepts."""

    provider: str
    id: str
    levels: tuple[str, ...]

    @property
    def key(self) -> str:
        return f"{self.provider}/{self.id}"


def overrides_summary(overrides: dict[str, str]) -> str:
    return f"{len(overrides)} configured" if overrides else "none"


class _Step(Container):
    """Title, ``Step n/2 · description``, an optional filter, the list and Pi's hint."""

    def __init__(
        self,
        ctx: SelectorContext,
        title: str,
        description: str,
        items: list[SelectItem],
        *,
        preselect: str | None,
        on_select: Callable[[str], None],
        on_cancel: Callable[[], None],
        searchable: bool = False,
    ) -> None:
        super().__init__()
        self.ctx, self.items, self.on_select, self.on_cancel = ctx, items, on_select, on_cancel
        theme = ctx.theme
        self.search = Input("", keybindings=ctx.keys) if searchable else None
        children: list[object] = [Text(theme.bold(theme.fg("accent", title)), 0, 0), Spacer(1),
                                  Text(theme.fg("muted", description), 0, 0)]  # fmt: skip
        if self.search is not None:
            children += [Spacer(1), self.search]
        self.list = self._list(items, preselect)
        self._slot = Container()
        self._slot.add_child(self.list)
        filtering = "Type to filter · " if searchable else ""
        hint = theme.fg("dim", f"  {filtering}Enter to select · Esc to go back")
        children += [Spacer(1), self._slot, Spacer(1), Text(hint, 0, 0)]
        for child in children:
            self.add_child(child)  # type: ignore[arg-type]

    def _list(self, items: list[SelectItem], preselect: str | None) -> SelectList:
        theme = self.ctx.theme
        shown = SelectList(items, min(len(items), 10), keybindings=self.ctx.keys,
                           selected_style=lambda s: theme.fg("accent", s),
                           description_style=lambda s: theme.fg("muted", s), min_column=12, max_column=46)  # fmt: skip
        shown.selected = next((i for i, item in enumerate(items) if item.value == preselect), 0)
        shown.on_select = lambda item: self.on_select(item.value)
        shown.on_cancel = self.on_cancel
        return shown

    def handle_input(self, data: str) -> None:
        keys = self.ctx.keys
        navigation = any(keys.matches(data, action) for action in
                         ("tui.select.up", "tui.select.down", "tui.select.confirm", "tui.select.cancel"))  # fmt: skip
        if self.search is None or navigation:
            self.list.handle_input(data)
            return
        self.search.handle_input(data)
        query = self.search.value
        items = fuzzy_filter(self.items, query, lambda item: f"{item.label} {item.description or ''}")
        self.list = self._list(items if query else self.items, None)
        self._slot.children = [self.list]


class ModelThinkingMenu(Container):
    def __init__(
        self,
        ctx: SelectorContext,
        models: Sequence[ThinkingModel],
        overrides: dict[str, str],
        *,
        first: Sequence[str],
        global_default: str,
        on_change: Callable[[ThinkingModel, str | None], None],
        done: Callable[[str | None], None],
    ) -> None:
        """``first``: the keys listed first (the session's model, then the default one);
        ``on_change(model, level)`` saves an override, ``level`` ``None`` drops it."""
        super().__init__()
        self.ctx, self.overrides, self.global_default = ctx, overrides, global_default
        self.on_change, self.done = on_change, done
        order: dict[str, int] = {}
        for key in first:
            order.setdefault(key, len(order))
        # Pi's order (the session's model, the default, then by provider); the embedded local
        # models after the configured ones, as /model lists them.
        self.models = sorted(models, key=lambda m: (order.get(m.key, len(order)), m.provider == "local", m.provider))
        self.first = first[0] if first else None
        self._show(self._model_step())

    def _show(self, step: _Step) -> None:
        self.step = step
        self.children = [step]

    def _model_step(self) -> _Step:
        muted = self.ctx.theme.fg
        items = [SelectItem(m.key, f"{m.id} {muted('muted', f'[{m.provider}]')}", self.overrides.get(m.key, ""))
                 for m in self.models]  # fmt: skip
        if not items:
            items = [SelectItem(NO_MODELS, "No models available", "Log in to a provider or configure an API key first")]
        return _Step(self.ctx, "Per-Model Thinking Level", "Step 1/2 · Select a model to configure", items,
                     preselect=self.first, on_select=self._model_chosen,
                     on_cancel=lambda: self.done(overrides_summary(self.overrides)), searchable=True)  # fmt: skip

    def _model_chosen(self, key: str) -> None:
        model = next((m for m in self.models if m.key == key), None)
        if model is None:
            return
        active = self.overrides.get(key)
        items = [SelectItem(level, ("✓ " if level == active else "  ") + level, _DESCRIPTIONS.get(level, ""))
                 for level in model.levels]  # fmt: skip
        if active is not None:
            items.append(SelectItem(CLEAR_OVERRIDE, "  (clear override)",
                                    f"Revert to global default ({self.global_default})"))  # fmt: skip
        self._show(_Step(self.ctx, f"Thinking Level for {model.id} [{model.provider}]",
                         "Step 2/2 · Select default thinking level for this model", items, preselect=active,
                         on_select=lambda level: self._level_chosen(model, level),
                         on_cancel=lambda: self._show(self._model_step())))  # fmt: skip

    def _level_chosen(self, model: ThinkingModel, level: str) -> None:
        if level == CLEAR_OVERRIDE:
            self.overrides.pop(model.key, None)
            self.on_change(model, None)
        else:
            self.overrides[model.key] = level
            self.on_change(model, level)
        self._show(self._model_step())  # as Pi's: back to the models for the next one

    def handle_input(self, data: str) -> None:
        self.step.handle_input(data)


_DESCRIPTIONS = {
    "off": "No reasoning",
    "minimal": "Very brief reasoning (~1k tokens)",
    "low": "Light reasoning (~2k tokens)",
    "medium": "Moderate reasoning (~8k tokens)",
    "high": "Deep reasoning (~16k tokens)",
    "xhigh": "Extra-high reasoning (~32k tokens)",
    "max": "Maximum reasoning",
}
