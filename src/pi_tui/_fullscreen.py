"""Fullscreen rendering: the alternate screen, a scrolling transcript above a fixed dock.

Pi's ``fullscreen`` TUI mode. The document (header and transcript) scrolls inside the rows
the dock (queue, status, widgets, editor, footer) leaves free; the view follows the end of
the document until the user scrolls up (``scroll``), and follows again once scrolled back
to the end. Each frame rewrites only the screen rows whose text changed, addressed by
absolute cursor positions, inside a synchronized-output block. Nothing reaches the
terminal's scrollback; ``leave`` restores the main screen.
"""

from __future__ import annotations

from collections.abc import Callable

from pi_tui._renderer import (
    LINE_RESET,
    SYNC_BEGIN,
    SYNC_END,
    RenderStats,
    extract_cursor,
    fit_line,
)

ENTER_ALT_SCREEN = "\x1b[?1049h"
LEAVE_ALT_SCREEN = "\x1b[?1049l"


class FullscreenRenderer:
    def __init__(self, write: Callable[[str], None], show_hardware_cursor: bool = False) -> None:
        self._write = write
        self.show_hardware_cursor = show_hardware_cursor
        self.rows: list[str] = []
        self.size = (0, 0)
        self.offset_from_end = 0
        """How many document lines the view is scrolled up from the end (0: following)."""
        self.document_rows = 0
        self.stats = RenderStats()
        self.active = False

    def enter(self) -> None:
        self._write(ENTER_ALT_SCREEN + "\x1b[2J\x1b[H")
        self.active = True
        self.rows = []

    def leave(self) -> None:
        if self.active:
            self._write("\x1b[?25h" + LEAVE_ALT_SCREEN)
            self.active = False

    def reset(self) -> None:
        self.rows = []

    def scroll(self, delta: int) -> None:
        """Move the view by ``delta`` lines (negative: towards the start of the document)."""
        self.offset_from_end = max(0, self.offset_from_end - delta)

    def scroll_to(self, where: str) -> None:
        self.offset_from_end = 1 << 30 if where == "top" else 0

    def page(self) -> int:
        return max(1, self.document_rows - 1)

    def render(self, document: list[str], dock: list[str], width: int, height: int) -> None:
        self.stats.frames += 1
        dock = dock[-height:]
        room = max(0, height - len(dock))
        self.document_rows = room
        self.offset_from_end = min(self.offset_from_end, max(0, len(document) - room))
        end = len(document) - self.offset_from_end
        view = document[max(0, end - room) : end]
        screen = [*view, *([""] * (room - len(view))), *dock]
        screen, cursor = extract_cursor(screen, height)
        self._draw(screen, width, height)
        self._place_cursor(cursor)

    def _draw(self, screen: list[str], width: int, height: int) -> None:
        full = self.size != (width, height) or not self.rows
        out = [SYNC_BEGIN, "\x1b[?25l"]
        if full:
            out.append("\x1b[2J")
            self.stats.full_redraws += 1
        for row, line in enumerate(screen):
            if not full and row < len(self.rows) and self.rows[row] == line:
                continue
            out.append(f"\x1b[{row + 1};1H\x1b[2K{fit_line(line, width)}")
            self.stats.lines_written += 1
        out.append(LINE_RESET + SYNC_END)
        data = "".join(out)
        self.stats.bytes_written += len(data)
        self._write(data)
        self.rows = screen
        self.size = (width, height)

    def _place_cursor(self, cursor: tuple[int, int] | None) -> None:
        if cursor is None:
            return
        data = f"\x1b[{cursor[0] + 1};{cursor[1] + 1}H"
        if self.show_hardware_cursor:
            data += "\x1b[?25h"
        self._write(data)
