"""Where an overlay sits on the screen (``TUI.show_overlay``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class OverlayOptions:
    """Where an overlay sits: sizes are columns/rows or percentages ("50%") of the screen."""

    width: int | str | None = None
    min_width: int | None = None
    max_height: int | str | None = None
    anchor: str = "center"
    offset_x: int = 0
    offset_y: int = 0
    row: int | str | None = None
    col: int | str | None = None
    margin: int = 0
    visible: Callable[[int, int], bool] | None = None
