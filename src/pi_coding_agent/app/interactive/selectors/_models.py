"""``/model`` (Ctrl+L), ``/thinking`` and ``/scoped-models``: choose a model, a thinking level,
and the models Ctrl+P cycles through.

The model picker lists the current model first, then the saved default, then by provider;
typing filters fuzzily (``default`` finds the saved default); Tab switches between all
models and the scoped ones; Enter selects for this session, Ctrl+S also saves it as the
startup default. The scoped-models editor toggles models (Enter), all or none (Ctrl+A,
Ctrl+X), a whole provider (Ctrl+P), reorders (Alt+Up/Down) and saves to settings (Ctrl+S).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pi_ai import Model
from pi_coding_agent.app.interactive.selectors._base import SelectorContext
from pi_tui import (
    Container,
    Input,
    SelectItem,
    SelectList,
    Spacer,
    Text,
    fuzzy_filter,
    matches_key,
)

LEVEL_DESCRIPTIONS = {
    "off": "No reasoning",
    "minimal": "Very brief reasoning (~1k tokens)",
    "low": "Light reasoning (~2k tokens)",
    "medium": "Moderate reasoning (~8k tokens)",
    "high": "Deep reasoning (~16k tokens)",
    "xhigh": "Extra-high reasoning (~32k tokens)",
    "max": "Maximum reasoning",
}
MAX_MODELS_SHOWN = 10


def model_key(model: Model) -> str:
    return f"{model.provider}/{model.id}"


def model_search_text(model: Model) -> str:
    name = f" {model.name}" if model.name else ""
    return f"{model.provider} {model.provider}/{model.id} {model.provider} {model.id}{name}"


class _Searchable(Container):
    def __init__(self, ctx: SelectorContext, initial: str = "") -> None:
        super().__init__()
        self.ctx = ctx
        self.search = Input(initial, keybindings=ctx.keys)

    @property
    def focused(self) -> bool:
        return self.search.focused

    @focused.setter
    def focused(self, value: bool) -> None:
        self.search.focused = value


class ModelSelector(_Searchable):
    def __init__(
        self,
        ctx: SelectorContext,
        models: Sequence[Model],
        current: Model | None,
        scoped: Sequence[Model],
        *,
        on_select: Callable[[Model, bool], None],
        on_cancel: Callable[[], None],
        initial_search: str = "",
        default: tuple[str, str] | None = None,
    ) -> None:
        super().__init__(ctx, initial_search)
        self.current = current
        self.default = default
        self.all = sorted(
            models, key=lambda m: (not self._is(m, current), not self._is_default(m), m.provider)
        )
        self.scoped = list(scoped)
        self.scope = "scoped" if scoped else "all"
        self.on_select = on_select
        self.on_cancel = on_cancel
        self.selected = 0
        self.filtered: list[Model] = []
        self.list = Container()
        theme = ctx.theme
        self.scope_text = Text(self._scope_text(), 0, 0)
        header: list[object] = (
            [
                self.scope_text,
                Text(ctx.hint("tui.input.tab", "scope") + theme.fg("muted", " (all/scoped)"), 0, 0),
            ]
            if scoped
            else [
                Text(
                    theme.fg(
                        "warning",
                        "Only showing models from configured providers. Use /login to add providers.",
                    ),
                    0,
                    0,
                )
            ]
        )
        hint = theme.fg("dim", "  Enter to select · Ctrl+S to set as default · Esc to cancel")
        for child in (ctx.border(), Spacer(1), *header, Spacer(1), self.search, Spacer(1), self.list, Spacer(1),
                      Text(hint, 0, 0), ctx.border()):  # fmt: skip
            self.add_child(child)  # type: ignore[arg-type]
        self._filter(select_current=True)

    @staticmethod
    def _is(model: Model, other: Model | None) -> bool:
        return other is not None and (model.provider, model.id) == (other.provider, other.id)

    def _is_default(self, model: Model) -> bool:
        return self.default == (model.provider, model.id)

    def _scope_text(self) -> str:
        theme = self.ctx.theme
        return (theme.fg("muted", "Scope: ") + theme.fg("accent" if self.scope == "all" else "muted", "all")
                + theme.fg("muted", " | ") + theme.fg("accent" if self.scope == "scoped" else "muted", "scoped"))  # fmt: skip

    def _filter(self, select_current: bool = False) -> None:
        active = self.scoped if self.scope == "scoped" else self.all
        query = self.search.value
        if query:
            found = fuzzy_filter(
                active, query, lambda m: model_search_text(m) + (" default" if self._is_default(m) else "")
            )
            if query.strip() and "default".startswith(query.strip().lower()):
                defaults = [m for m in active if self._is_default(m)]
                found = defaults + [m for m in found if m not in defaults]
            self.filtered = found
            self.selected = 0
        else:
            self.filtered = list(active)
            current = next((i for i, m in enumerate(self.filtered) if self._is(m, self.current)), None)
            if select_current and current is not None:
                self.selected = current
            self.selected = min(self.selected, max(0, len(self.filtered) - 1))
        self._refresh()

    def _refresh(self) -> None:
        theme = self.ctx.theme
        rows: list[object] = []
        count = len(self.filtered)
        start = max(0, min(self.selected - MAX_MODELS_SHOWN // 2, count - MAX_MODELS_SHOWN))
        end = min(start + MAX_MODELS_SHOWN, count)
        for i in range(start, end):
            model = self.filtered[i]
            chosen = i == self.selected
            line = (theme.fg("accent", "→ ") if chosen else "  ") + (
                theme.fg("accent", "✓ ") if self._is(model, self.current) else "  "
            )
            line += (
                (theme.fg("accent", model.id) if chosen else model.id)
                + " "
                + theme.fg("muted", f"[{model.provider}]")
            )
            if self._is_default(model):
                line += theme.fg("muted", " · default")
            rows.append(Text(line, 0, 0))
        if start > 0 or end < count:
            rows.append(Text(theme.fg("muted", f"  ({self.selected + 1}/{count})"), 0, 0))
        if not count:
            rows.append(Text(theme.fg("muted", "  No matching models"), 0, 0))
        else:
            rows += [
                Spacer(1),
                Text(theme.fg("muted", f"  Model Name: {self.filtered[self.selected].name}"), 0, 0),
            ]
        self.list.children = rows  # type: ignore[assignment]

    def handle_input(self, data: str) -> None:
        keys = self.ctx.keys
        count = len(self.filtered)
        if keys.matches(data, "tui.input.tab"):
            if self.scoped:
                self.scope = "all" if self.scope == "scoped" else "scoped"
                self.scope_text.set_text(self._scope_text())
                self._filter(select_current=True)
        elif keys.matches(data, "tui.select.up") and count:
            self.selected = count - 1 if self.selected == 0 else self.selected - 1
            self._refresh()
        elif keys.matches(data, "tui.select.down") and count:
            self.selected = 0 if self.selected == count - 1 else self.selected + 1
            self._refresh()
        elif keys.matches(data, "tui.select.confirm"):
            if count:
                self.on_select(self.filtered[self.selected], False)
        elif keys.matches(data, "tui.select.cancel"):
            self.on_cancel()
        elif matches_key(data, "ctrl+s") or keys.matches(data, "app.models.save"):
            if count:
                self.on_select(self.filtered[self.selected], True)
        else:
            self.search.handle_input(data)
            self._filter()


class ThinkingSelector(_Searchable):
    def __init__(
        self,
        ctx: SelectorContext,
        current: str,
        levels: Sequence[str],
        default: str,
        *,
        on_select: Callable[[str, bool], None],
        on_cancel: Callable[[], None],
    ) -> None:
        super().__init__(ctx)
        self.on_select = on_select
        self.on_cancel = on_cancel
        self.items = [
            SelectItem(level, ("✓ " if level == current else "  ") + level,
                       LEVEL_DESCRIPTIONS.get(level, "") + (" · default" if level == default else ""))
            for level in levels
        ]  # fmt: skip
        theme = ctx.theme
        self.list = self._list(self.items, current)
        self._slot = Container()
        self._slot.add_child(self.list)
        cycle = f"{ctx.display('app.thinking.cycle')} cycles thinking levels in-session"
        hint = theme.fg("dim", "  Enter to select · Ctrl+S to set as default · Esc to cancel")
        for child in (ctx.border(), Spacer(1), Text("Thinking Level", 0, 0), Spacer(1), Text(cycle, 0, 0),
                      Spacer(1), self.search, Spacer(1), self._slot, Spacer(1), Text(hint, 0, 0), ctx.border()):  # fmt: skip
            self.add_child(child)

    def _list(self, items: list[SelectItem], selected: str | None) -> SelectList:
        theme = self.ctx.theme
        chooser = SelectList(items, max(1, len(items)), keybindings=self.ctx.keys,
                             selected_style=lambda s: theme.fg("accent", s),
                             description_style=lambda s: theme.fg("muted", s))  # fmt: skip
        chooser.selected = next((i for i, item in enumerate(items) if item.value == selected), 0)
        chooser.on_select = lambda item: self.on_select(item.value, False)
        chooser.on_cancel = self.on_cancel
        return chooser

    def handle_input(self, data: str) -> None:
        keys = self.ctx.keys
        if matches_key(data, "ctrl+s"):
            items = self.list.visible_items
            if items:
                self.on_select(items[min(self.list.selected, len(items) - 1)].value, True)
            return
        if any(keys.matches(data, action) for action in
               ("tui.select.up", "tui.select.down", "tui.select.confirm", "tui.select.cancel")):  # fmt: skip
            self.list.handle_input(data)
            return
        selected = self.list.visible_items[self.list.selected].value if self.list.visible_items else None
        self.search.handle_input(data)
        query = self.search.value
        found = (
            fuzzy_filter(self.items, query, lambda item: f"{item.value} {item.description}")
            if query
            else self.items
        )
        self.list = self._list(found, selected)
        self._slot.children = [self.list]


def _enabled(enabled: list[str] | None, key: str) -> bool:
    return enabled is None or key in enabled


def _normalized(result: list[str], all_ids: list[str]) -> list[str] | None:
    """An explicit list that covers every model collapses back to ``None`` (all enabled)."""
    return None if len(result) == len(all_ids) and set(result) == set(all_ids) else result


class ScopedModelsSelector(_Searchable):
    """The models Ctrl+P cycles through (``None``: all of them); changes apply to the session
    at once (``on_change``) and reach settings only with Ctrl+S (``on_save``)."""

    MAX_SHOWN = 8

    def __init__(
        self,
        ctx: SelectorContext,
        models: Sequence[Model],
        enabled: list[str] | None,
        *,
        on_change: Callable[[list[str] | None], None],
        on_save: Callable[[list[str] | None], None],
        on_cancel: Callable[[], None],
    ) -> None:
        super().__init__(ctx)
        self.models = {model_key(m): m for m in models}
        self.all_ids = list(self.models)
        self.enabled = None if enabled is None else list(enabled)
        self.on_change, self.on_save, self.on_cancel = on_change, on_save, on_cancel
        self.dirty = False
        self.selected = 0
        self.items: list[str] = []
        self.list = Container()
        theme = ctx.theme
        self.footer = Text("", 0, 0)
        for child in (ctx.border(), Spacer(1), Text(theme.fg("accent", theme.bold("Model Configuration")), 0, 0),
                      Text(theme.fg("muted", f"Session-only. {ctx.keys.text('app.models.save')} to save to settings."), 0, 0),
                      Spacer(1), self.search, Spacer(1), self.list, Spacer(1), self.footer, ctx.border()):  # fmt: skip
            self.add_child(child)
        self._refresh()

    def _ordered(self) -> list[str]:
        if self.enabled is None:
            return list(self.all_ids)
        return [*self.enabled, *(key for key in self.all_ids if key not in self.enabled)]

    def _refresh(self) -> None:
        query = self.search.value
        ordered = self._ordered()
        self.items = (
            fuzzy_filter(ordered, query, lambda k: model_search_text(self.models[k]) if k in self.models else k)
            if query else ordered
        )  # fmt: skip
        self.selected = min(self.selected, max(0, len(self.items) - 1))
        theme = self.ctx.theme
        rows: list[object] = []
        count = len(self.items)
        start = max(0, min(self.selected - self.MAX_SHOWN // 2, count - self.MAX_SHOWN))
        end = min(start + self.MAX_SHOWN, count)
        for i in range(start, end):
            key = self.items[i]
            model = self.models.get(key)
            shown = model.id if model else theme.strikethrough(key)
            line = (theme.fg("accent", "→ ") if i == self.selected else "  ") + (
                theme.fg("accent", "✓ ") if model and _enabled(self.enabled, key) else "  "
            )
            line += (theme.fg("accent", shown) if i == self.selected else shown) + theme.fg(
                "muted", f" [{model.provider}]" if model else " [unavailable]"
            )
            rows.append(Text(line, 0, 0))
        if start > 0 or end < count:
            rows.append(Text(theme.fg("muted", f"  ({self.selected + 1}/{count})"), 0, 0))
        if not count:
            rows.append(Text(theme.fg("muted", "  No matching models"), 0, 0))
        else:
            model = self.models.get(self.items[self.selected])
            rows += [
                Spacer(1),
                Text(
                    theme.fg("muted", f"  Model Name: {model.name}" if model else "  Model unavailable"), 0, 0
                ),
            ]
        self.list.children = rows  # type: ignore[assignment]
        self.footer.set_text(self._footer())

    def _footer(self) -> str:
        theme, keys = self.ctx.theme, self.ctx.keys
        if self.enabled is None:
            count = "all enabled"
        else:
            present = sum(1 for key in self.enabled if key in self.models)
            missing = len(self.enabled) - present
            count = f"{present}/{len(self.all_ids)} enabled" + (
                f" · {missing} unavailable" if missing else ""
            )
        parts = [f"{keys.text('tui.select.confirm')} toggle", f"{keys.text('app.models.enableAll')} all",
                 f"{keys.text('app.models.clearAll')} clear", f"{keys.text('app.models.toggleProvider')} provider",
                 f"{keys.text('app.models.reorderUp')}/{keys.text('app.models.reorderDown')} reorder",
                 f"{keys.text('app.models.save')} save", count]  # fmt: skip
        text = theme.fg("dim", "  " + " · ".join(parts))
        return text + " " + theme.fg("warning", "(unsaved)") if self.dirty else text

    def _changed(self, enabled: list[str] | None) -> None:
        self.enabled = enabled
        self.dirty = True
        self._refresh()
        self.on_change(None if enabled is None else list(enabled))

    def _targets(self) -> list[str] | None:
        return list(self.items) if self.search.value else None

    def handle_input(self, data: str) -> None:
        keys = self.ctx.keys
        count = len(self.items)
        key = self.items[self.selected] if count else None
        if keys.matches(data, "tui.select.up") and count:
            self.selected = count - 1 if self.selected == 0 else self.selected - 1
            self._refresh()
        elif keys.matches(data, "tui.select.down") and count:
            self.selected = 0 if self.selected == count - 1 else self.selected + 1
            self._refresh()
        elif keys.matches(data, "app.models.reorderUp") or keys.matches(data, "app.models.reorderDown"):
            self._move(key, -1 if keys.matches(data, "app.models.reorderUp") else 1)
        elif keys.matches(data, "tui.select.confirm") and key is not None:
            self._changed(self._toggle(key))
        elif keys.matches(data, "app.models.enableAll"):
            self._changed(self._enable(self._targets() or self.all_ids))
        elif keys.matches(data, "app.models.clearAll"):
            self._changed(self._clear(self._targets()))
        elif keys.matches(data, "app.models.toggleProvider") and key in self.models:
            provider = self.models[key].provider
            ids = [k for k in self.all_ids if self.models[k].provider == provider]
            every = all(_enabled(self.enabled, k) for k in ids)
            self._changed(self._clear(ids) if every else self._enable(ids))
        elif keys.matches(data, "app.models.save"):
            self.on_save(None if self.enabled is None else list(self.enabled))
            self.dirty = False
            self.footer.set_text(self._footer())
        elif matches_key(data, "ctrl+c") and self.search.value:
            self.search.set_value("")
            self._refresh()
        elif matches_key(data, "ctrl+c") or matches_key(data, "escape"):
            self.on_cancel()
        else:
            self.search.handle_input(data)
            self._refresh()

    def _toggle(self, key: str) -> list[str] | None:
        if self.enabled is None:
            return [k for k in self.all_ids if k != key]
        if key in self.enabled:
            return [k for k in self.enabled if k != key]
        return _normalized([*self.enabled, key], self.all_ids)

    def _enable(self, targets: list[str]) -> list[str] | None:
        if self.enabled is None:
            return None
        return _normalized([*self.enabled, *(k for k in targets if k not in self.enabled)], self.all_ids)

    def _clear(self, targets: list[str] | None) -> list[str]:
        if self.enabled is None:
            return [k for k in self.all_ids if targets is not None and k not in targets]
        drop = set(targets if targets is not None else self.enabled)
        return [k for k in self.enabled if k not in drop]

    def _move(self, key: str | None, delta: int) -> None:
        if self.enabled is None or key is None or key not in self.enabled:
            return
        index = self.enabled.index(key)
        target = index + delta
        if 0 <= target < len(self.enabled):
            moved = list(self.enabled)
            moved[index], moved[target] = moved[target], moved[index]
            self.selected += delta
            self._changed(moved)
