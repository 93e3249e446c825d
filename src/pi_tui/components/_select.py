"""A scrolling list to pick one item from (Pi's ``SelectList``), with type-to-filter."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pi_tui._keybindings import TUI_DEFAULTS, Keybindings
from pi_tui._keys import is_printable
from pi_tui._select_row import label_column, select_row
from pi_tui._text import truncate_to_width


@dataclass(frozen=True)
class SelectItem:
    value: str
    label: str
    description: str = ""


def _plain(text: str) -> str:
    return text


class SelectList:
    def __init__(
        self,
        items: list[SelectItem],
        max_visible: int = 10,
        *,
        keybindings: Keybindings | None = None,
        selected_style: Callable[[str], str] = _plain,
        description_style: Callable[[str], str] = _plain,
        filterable: bool = False,
        min_column: int = 12,
        max_column: int = 32,
    ) -> None:
        """``min_column``/``max_column`` bound the label column (Pi's selectors all use 12 and 32)."""
        self.items = items
        self.max_visible = max_visible
        self.keybindings = keybindings or Keybindings(TUI_DEFAULTS)
        self.selected_style = selected_style
        self.description_style = description_style
        self.filterable = filterable
        self.min_column, self.max_column = min_column, max_column
        self.query = ""
        self.selected = 0
        self.on_select: Callable[[SelectItem], None] | None = None
        self.on_cancel: Callable[[], None] | None = None

    @property
    def visible_items(self) -> list[SelectItem]:
        if not self.query:
            return self.items
        query = self.query.lower()
        return [item for item in self.items if query in item.label.lower() or query in item.value.lower()]

    def handle_input(self, data: str) -> None:
        keys = self.keybindings
        items = self.visible_items
        if keys.matches(data, "tui.select.up") and items:
            self.selected = (self.selected - 1) % len(items)
        elif keys.matches(data, "tui.select.down") and items:
            self.selected = (self.selected + 1) % len(items)
        elif keys.matches(data, "tui.select.pageUp"):
            self.selected = max(0, self.selected - self.max_visible)
        elif keys.matches(data, "tui.select.pageDown") and items:
            self.selected = min(len(items) - 1, self.selected + self.max_visible)
        elif keys.matches(data, "tui.select.confirm"):
            if items and self.on_select is not None:
                self.on_select(items[min(self.selected, len(items) - 1)])
        elif keys.matches(data, "tui.select.cancel"):
            if self.on_cancel is not None:
                self.on_cancel()
        elif self.filterable and data in ("\x7f", "\x08"):
            self.query = self.query[:-1]
            self.selected = 0
        elif self.filterable and is_printable(data):
            self.query += data
            self.selected = 0

    def render(self, width: int) -> list[str]:
        items = self.visible_items
        if not items:
            return [self.description_style("  No matching items")]
        count = min(self.max_visible, len(items))
        start = min(max(0, self.selected - count // 2), len(items) - count)
        column = label_column([item.label or item.value for item in items], self.min_column, self.max_column)
        lines = [
            select_row(
                item.label or item.value,
                item.description,
                index == self.selected,
                width,
                column,
                selected_style=self.selected_style,
                description_style=self.description_style,
            )
            for index, item in enumerate(items)
            if start <= index < start + count
        ]
        if len(items) > count:
            lines.append(
                self.description_style(
                    truncate_to_width(f"  ({self.selected + 1}/{len(items)})", width - 2, "")
                )
            )
        return lines

    def invalidate(self) -> None:
        return
