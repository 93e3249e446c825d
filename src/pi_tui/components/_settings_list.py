"""``SettingsList``: labelled values to change in place (Pi's ``SettingsList``).

Enter (or Space with an empty search) moves a setting to its next value, or opens its
submenu (a component that calls ``done(value)`` or ``done(None)`` to come back). Typing
filters the settings by label; Escape leaves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pi_tui._component import Component
from pi_tui._fuzzy import fuzzy_filter
from pi_tui._keybindings import TUI_DEFAULTS, Keybindings
from pi_tui._text import truncate_to_width, visible_width, wrap_text_with_ansi
from pi_tui.components._input import Input

SubmenuFactory = Callable[[str, Callable[[str | None], None]], Component]


@dataclass
class SettingItem:
    id: str
    label: str
    value: str
    values: Sequence[str] = ()
    description: str = ""
    submenu: SubmenuFactory | None = field(default=None, repr=False)


def _plain(text: str) -> str:
    return text


@dataclass
class SettingsStyle:
    cursor: str = "→ "
    label: Callable[[str, bool], str] = lambda text, selected: text
    value: Callable[[str, bool], str] = lambda text, selected: text
    description: Callable[[str], str] = _plain
    hint: Callable[[str], str] = _plain


class SettingsList:
    def __init__(
        self,
        items: list[SettingItem],
        on_change: Callable[[str, str], None],
        on_cancel: Callable[[], None],
        *,
        max_visible: int = 10,
        keybindings: Keybindings | None = None,
        style: SettingsStyle | None = None,
    ) -> None:
        self.items = items
        self.on_change = on_change
        self.on_cancel = on_cancel
        self.max_visible = max_visible
        self.keybindings = keybindings or Keybindings(TUI_DEFAULTS)
        self.style = style or SettingsStyle()
        self.search = Input(keybindings=self.keybindings)
        self.selected = 0
        self.submenu: Component | None = None
        self._submenu_item: SettingItem | None = None

    @property
    def focused(self) -> bool:
        return self.search.focused

    @focused.setter
    def focused(self, value: bool) -> None:
        self.search.focused = value

    def shown(self) -> list[SettingItem]:
        query = self.search.value
        return fuzzy_filter(self.items, query, lambda item: item.label) if query else self.items

    def update_value(self, item_id: str, value: str) -> None:
        for item in self.items:
            if item.id == item_id:
                item.value = value

    def handle_input(self, data: str) -> None:
        if self.submenu is not None:
            handler = getattr(self.submenu, "handle_input", None)
            if callable(handler):
                handler(data)
            return
        keys = self.keybindings
        items = self.shown()
        if keys.matches(data, "tui.select.up") and items:
            self.selected = len(items) - 1 if self.selected == 0 else self.selected - 1
        elif keys.matches(data, "tui.select.down") and items:
            self.selected = 0 if self.selected >= len(items) - 1 else self.selected + 1
        elif keys.matches(data, "tui.select.confirm") or (data == " " and not self.search.value):
            if items:
                self._activate(items[min(self.selected, len(items) - 1)])
        elif keys.matches(data, "tui.select.cancel"):
            self.on_cancel()
        else:
            self.search.handle_input(data)
            self.selected = 0

    def _activate(self, item: SettingItem) -> None:
        if item.submenu is not None:
            self._submenu_item = item
            self.submenu = item.submenu(item.value, self._close_submenu)
        elif item.values:
            values = list(item.values)
            following = (
                values[(values.index(item.value) + 1) % len(values)] if item.value in values else values[0]
            )
            item.value = following
            self.on_change(item.id, following)

    def _close_submenu(self, value: str | None) -> None:
        item = self._submenu_item
        self.submenu = None
        self._submenu_item = None
        if item is not None and value is not None:
            item.value = value
            self.on_change(item.id, value)

    def render(self, width: int) -> list[str]:
        if self.submenu is not None:
            return self.submenu.render(width)
        style = self.style
        lines = [*self.search.render(width), ""]
        items = self.shown()
        if not items:
            return [*lines, truncate_to_width(style.hint("  No matching settings"), width)]
        self.selected = min(self.selected, len(items) - 1)
        start = max(0, min(self.selected - self.max_visible // 2, len(items) - self.max_visible))
        end = min(start + self.max_visible, len(items))
        label_width = min(36, max(visible_width(item.label) for item in self.items))
        for index in range(start, end):
            item = items[index]
            chosen = index == self.selected
            prefix = style.cursor if chosen else "  "
            label = style.label(item.label + " " * max(0, label_width - visible_width(item.label)), chosen)
            room = width - visible_width(prefix) - label_width - 4
            value = style.value(truncate_to_width(item.value, max(1, room), ""), chosen)
            lines.append(truncate_to_width(f"{prefix}{label}  {value}", width))
        if start > 0 or end < len(items):
            lines.append(style.hint(f"  ({self.selected + 1}/{len(items)})"))
        description = items[self.selected].description
        if description:
            lines.append("")
            lines.extend(
                style.description(f"  {line}") for line in wrap_text_with_ansi(description, max(1, width - 4))
            )
        lines.append("")
        lines.append(
            style.hint(
                truncate_to_width("  Type to search · Enter/Space to change · Esc to cancel", width, "")
            )
        )
        return lines

    def invalidate(self) -> None:
        return
