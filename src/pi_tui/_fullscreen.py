"""Fullscreen rendering: the alternate screen, a scrolling transcript above a fixed dock.

Pi's ``fullscreen`` TUI mode. The document (header and transcript) scrolls inside the rows
the dock (queue, status, widgets, editor, footer) leaves free. ``top`` is the first
document line shown; while ``following``, the view sticks to the end of the document as
it grows, and scrolling back to the end follows again. Scrolled up, the view stays on its
lines while new ones arrive, and the bottom row offers Pi's "Jump to latest message".

The transcript's scrollbar (``scrollbar``, Pi's ``fullscreenScrollbar``) sits in the last
column: ``always`` keeps that column for it, ``auto`` draws it over the text for a second
after each scroll and while the pointer is on it, ``hidden`` never. Each frame rewrites
only the screen rows whose text changed, addressed by absolute cursor positions, inside a
synchronized-output block. Nothing reaches the terminal's scrollback; ``leave`` restores
the main screen. The mouse is reported (SGR) while the alternate screen is on.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from pi_tui._renderer import (
    LINE_RESET,
    SYNC_BEGIN,
    SYNC_END,
    RenderStats,
    extract_cursor,
    fit_line,
)
from pi_tui._text import slice_columns, truncate_to_width, visible_width

ENTER_ALT_SCREEN = "\x1b[?1049h"
LEAVE_ALT_SCREEN = "\x1b[?1049l"
# Button-motion tracking inside multiplexers (every pointer move would lag them), all motion
# elsewhere; focus reports and SGR coordinates either way, as Pi asks.
MOUSE_BUTTON_MOTION = "\x1b[?1000h\x1b[?1002h\x1b[?1004h\x1b[?1006h"
MOUSE_ALL_MOTION = "\x1b[?1000h\x1b[?1002h\x1b[?1003h\x1b[?1004h\x1b[?1006h"
MOUSE_OFF = "\x1b[?1006l\x1b[?1004l\x1b[?1003l\x1b[?1002l\x1b[?1000l"
PAGE_OVERLAP = 4
"""Lines a page scroll keeps in view (Pi's)."""
SCROLLBAR_SHOW_SECONDS = 1.0

Scrollbar = Literal["auto", "always", "hidden"]
OSC133_PROMPT = "\x1b]133;A"
"""The start of a semantic prompt zone: where a user message (or a final answer) begins."""


@dataclass(frozen=True)
class ScrollbarGeometry:
    column: int
    track: int
    thumb_top: int
    thumb_height: int
    max_top: int


def mouse_sequence(environ: dict[str, str] | os._Environ[str] = os.environ) -> str:
    term = environ.get("TERM", "").lower()
    multiplexed = any(name in environ for name in ("TMUX", "ZELLIJ", "STY")) or term.startswith(
        ("tmux", "screen")
    )
    return MOUSE_BUTTON_MOTION if multiplexed else MOUSE_ALL_MOTION


class FullscreenRenderer:
    def __init__(self, write: Callable[[str], None], show_hardware_cursor: bool = False) -> None:
        self._write = write
        self.show_hardware_cursor = show_hardware_cursor
        self.rows: list[str] = []
        self.size = (0, 0)
        self.top = 0
        self.following = True
        self.document: list[str] = []
        """The document as last drawn (what search, selection and prompt jumps read)."""
        self.view_rows = 0
        """Screen rows the document had in the last frame (the rest is the dock)."""
        self.scrollbar: Scrollbar = "auto"
        self.scrollbar_hover = False
        self.scrollbar_until = 0.0
        """``time.monotonic()`` until which the ``auto`` scrollbar shows after a scroll."""
        self.mouse = True
        self.jump_label: Callable[[], str] | None = None
        """The "Jump to latest message" label shown while scrolled up (``None``: none)."""
        self.jump_rect: tuple[int, int, int] | None = None
        """``(row, column, width)`` of that label on screen, for clicks."""
        self.track_style: Callable[[str], str] = lambda s: f"\x1b[90m{s}\x1b[39m"
        self.thumb_style: Callable[[str], str] = lambda s: f"\x1b[37m{s}\x1b[39m"
        self.stats = RenderStats()
        self.active = False

    # ------------------------------------------------------------------ screen

    def enter(self) -> None:
        mouse = mouse_sequence() if self.mouse else ""
        self._write(f"{ENTER_ALT_SCREEN}\x1b[?7l{mouse}\x1b[2J\x1b[H")
        self.active = True
        self.rows = []

    def leave(self) -> None:
        if self.active:
            mouse = MOUSE_OFF if self.mouse else ""
            self._write(f"{mouse}\x1b[?7h\x1b[?25h{LEAVE_ALT_SCREEN}")
            self.active = False

    def reset(self) -> None:
        self.rows = []

    # ------------------------------------------------------------------ scrolling

    @property
    def max_top(self) -> int:
        return max(0, len(self.document) - self.view_rows)

    def scroll(self, delta: int) -> None:
        """Move the view by ``delta`` lines (negative: towards the start of the document)."""
        self.scroll_to_row(self.top + delta)

    def scroll_to_row(self, row: int) -> None:
        before = self.top
        self.top = max(0, min(self.max_top, row))
        self.following = self.top >= self.max_top
        if self.top != before:
            self.scrollbar_until = time.monotonic() + SCROLLBAR_SHOW_SECONDS

    def scroll_to(self, where: str) -> None:
        self.scroll_to_row(0 if where == "top" else self.max_top)

    def page(self) -> int:
        return max(1, self.view_rows - PAGE_OVERLAP)

    def prompt_row(self, direction: int) -> int | None:
        """The next document line, up (-1) or down (1) from the top of the view, where a
        marked message starts (Pi's previous/next prompt jump)."""
        row = self.top + direction
        while 0 <= row < len(self.document):
            if self.document[row].startswith(OSC133_PROMPT):
                return row
            row += direction
        return None

    # ------------------------------------------------------------------ scrollbar

    def document_width(self, width: int) -> int:
        """``always`` keeps the last column for the scrollbar."""
        return width - 1 if self.scrollbar == "always" and width > 1 else width

    def scrollbar_geometry(self, width: int, reveal: bool = False) -> ScrollbarGeometry | None:
        """Where the scrollbar is, or ``None`` when it is not shown (``reveal``: where the
        ``auto`` one would be)."""
        content, track = len(self.document), self.view_rows
        if track <= 0 or width <= 0 or self.scrollbar == "hidden":
            return None
        if self.scrollbar == "auto":
            shown = self.scrollbar_hover or reveal or time.monotonic() < self.scrollbar_until
            if content <= track or not shown:
                return None
        content = max(content, 1)
        thumb = max(min(2, track), min(track, round(track * track / content)))
        max_top = max(0, content - track)
        offset = 0 if max_top == 0 else round(self.top / max_top * (track - thumb))
        return ScrollbarGeometry(width - 1, track, offset, thumb, max_top)

    def scroll_to_pointer(self, geometry: ScrollbarGeometry, row: int, grab: int) -> None:
        """Drag the thumb so that its row ``grab`` is at screen row ``row``."""
        room = geometry.track - geometry.thumb_height
        offset = max(0, min(room, row - grab))
        self.scroll_to_row(0 if room == 0 else round(offset / room * geometry.max_top))

    def _paint_scrollbar(self, screen: list[str], width: int) -> None:
        geometry = self.scrollbar_geometry(width)
        if geometry is None:
            return
        thumb = "█" if self.scrollbar_hover else "┃"
        for row in range(geometry.track):
            on_thumb = geometry.thumb_top <= row < geometry.thumb_top + geometry.thumb_height
            glyph = self.thumb_style(thumb) if on_thumb else self.track_style("│")
            line = slice_columns(screen[row], 0, geometry.column)
            screen[row] = f"{line}{' ' * (geometry.column - visible_width(line))}\x1b[0m{glyph}"

    # ------------------------------------------------------------------ frames

    def compose(self, document: list[str], dock: list[str], width: int, height: int) -> list[str]:
        """The screen for this frame: the document's rows in view above the dock, with the
        scrollbar and the jump label."""
        self.stats.frames += 1
        dock = dock[-height:]
        self.document = document
        self.view_rows = max(0, height - len(dock))
        self.top = self.max_top if self.following else min(self.top, self.max_top)
        view = document[self.top : self.top + self.view_rows]
        view = [*view, *([""] * (self.view_rows - len(view)))]
        self._paint_scrollbar(view, width)
        self._paint_jump_label(view, width)
        return [*view, *dock]

    def _paint_jump_label(self, view: list[str], width: int) -> None:
        self.jump_rect = None
        if self.following or self.jump_label is None or not view:
            return
        geometry = self.scrollbar_geometry(width)
        room = geometry.column if geometry is not None else width
        label = truncate_to_width(self.jump_label(), room, "")
        label_width = visible_width(label)
        if label_width == 0:
            return
        row, column = len(view) - 1, (room - label_width) // 2
        line = view[row]
        left = slice_columns(line, 0, column)
        right = slice_columns(line, column + label_width, width - column - label_width)
        view[row] = f"{left}{' ' * (column - visible_width(left))}\x1b[0m{label}\x1b[0m{right}"
        self.jump_rect = (row, column, label_width)

    def draw(self, screen: list[str], width: int, height: int) -> None:
        screen, cursor = extract_cursor(screen, height)
        full = self.size != (width, height) or not self.rows
        out = [SYNC_BEGIN, "\x1b[?25l"]
        if full:
            out.append("\x1b[2J")
            self.stats.full_redraws += 1
        for row, line in enumerate(screen):
            if not full and row < len(self.rows) and self.rows[row] == line:
                continue
            out.append(f"\x1b[{row + 1};1H\x1b[2K{fit_line(_strip_zone_marks(line), width)}")
            self.stats.lines_written += 1
        out.append(LINE_RESET + SYNC_END)
        data = "".join(out)
        self.stats.bytes_written += len(data)
        self._write(data)
        self.rows = screen
        self.size = (width, height)
        self._place_cursor(cursor)

    def _place_cursor(self, cursor: tuple[int, int] | None) -> None:
        if cursor is None:
            return
        data = f"\x1b[{cursor[0] + 1};{cursor[1] + 1}H"
        if self.show_hardware_cursor:
            data += "\x1b[?25h"
        self._write(data)


def _strip_zone_marks(line: str) -> str:
    """The alternate screen keeps no semantic zones: Pi drops the ``OSC 133`` marks there."""
    while line.startswith("\x1b]133;"):
        end = line.find("\x07")
        if end < 0:
            break
        line = line[end + 1 :]
    return line
