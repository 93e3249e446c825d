"""One row of Pi's select lists (``SelectList`` and the editor's completion): ``→`` on the
chosen row, the label in a column, the description beside it when there is room."""

from __future__ import annotations

from collections.abc import Callable

from pi_tui._text import truncate_to_width, visible_width

COLUMN_GAP = 2


def label_column(labels: list[str], least: int, most: int) -> int:
    """The label column's width (gap included): the widest label plus the gap, within bounds."""
    widest = max((visible_width(label) for label in labels), default=0) + COLUMN_GAP
    return max(least, min(widest, most))


def select_row(
    label: str,
    description: str,
    chosen: bool,
    width: int,
    column: int,
    *,
    selected_style: Callable[[str], str],
    description_style: Callable[[str], str],
) -> str:
    """Pi's row: the description goes on the same line when more than ten cells are left."""
    prefix = "→ " if chosen else "  "
    description = " ".join(description.split())
    if description and width > 40:
        column = max(1, min(column, width - 2 - 4))
        shown = truncate_to_width(label, max(1, column - COLUMN_GAP), "")
        spacing = " " * max(1, column - visible_width(shown))
        room = width - (2 + visible_width(shown) + len(spacing)) - 2
        if room > 10:
            description = truncate_to_width(description, room, "")
            if chosen:
                return selected_style(prefix + shown + spacing + description)
            return prefix + shown + description_style(spacing + description)
    shown = truncate_to_width(label, width - 2 - 2, "")
    return selected_style(prefix + shown) if chosen else prefix + shown
