"""Differential rendering onto the terminal's main screen, keeping its scrollback.

The whole UI is a list of lines (the document). Each frame is compared with the previous
one and only the lines from the first to the last changed one are rewritten, inside a
synchronized-output block (``CSI ? 2026 h/l``) so terminals that know it show no
intermediate state. Lines that scroll off the top go into the terminal's own scrollback
and stay there; nothing is ever drawn on the alternate screen. A full redraw (which also
clears the scrollback, since the old lines no longer match what the document says) is
only needed when the width or height changes, or when a line that already scrolled out
of view changes.

Rows are counted in document coordinates: ``viewport_top`` is the document row shown on
the first screen row, ``cursor_row`` the row the terminal's cursor is on.
"""

from __future__ import annotations

from dataclasses import dataclass

from pi_tui._component import CURSOR_MARKER
from pi_tui._text import truncate_to_width, visible_width

SYNC_BEGIN = "\x1b[?2026h"
SYNC_END = "\x1b[?2026l"
LINE_RESET = "\x1b[0m"
LINK_RESET = "\x1b]8;;\x07"
"""Closes an ``OSC 8`` hyperlink left open at a line's end, as Pi resets links on every line."""


@dataclass
class RenderStats:
    frames: int = 0
    full_redraws: int = 0
    lines_written: int = 0
    bytes_written: int = 0


class ScreenRenderer:
    def __init__(self, write: object, show_hardware_cursor: bool = False) -> None:
        self._write = write
        self.show_hardware_cursor = show_hardware_cursor
        self.clear_on_shrink = False
        """Pi's ``clearOnShrink``: when the document becomes shorter than the most rows drawn
        since the last full redraw (and no overlay is shown), draw it all anew, so no empty
        rows stay below it; off, the rows it left are only blanked."""
        self.rows_in_use = 0
        self.previous: list[str] = []
        self.width = 0
        self.height = 0
        self.viewport_top = 0
        self.cursor_row = 0
        self.stats = RenderStats()

    def reset(self) -> None:
        """Forget the screen (the next frame is drawn in full, as on a clean screen)."""
        self.previous = []
        self.width = 0
        self.height = 0
        self.viewport_top = 0
        self.cursor_row = 0
        self.rows_in_use = 0

    def emit(self, data: str) -> None:
        self.stats.bytes_written += len(data)
        self._write(data)  # type: ignore[operator]

    def render(self, lines: list[str], width: int, height: int, *, overlays: bool = False) -> None:
        self.stats.frames += 1
        lines, cursor = extract_cursor(lines, height)
        if not self.previous and self.width == 0:
            self._full(lines, width, height, clear=False)
        elif width != self.width or height != self.height or self._shrunk(lines, overlays):
            self._full(lines, width, height, clear=True)
        else:
            self._diff(lines, width, height)
            self.rows_in_use = max(self.rows_in_use, len(lines))
        self._place_cursor(cursor, len(lines))

    def _shrunk(self, lines: list[str], overlays: bool) -> bool:
        return self.clear_on_shrink and len(lines) < self.rows_in_use and not overlays

    # ------------------------------------------------------------------ frames

    def _full(self, lines: list[str], width: int, height: int, clear: bool) -> None:
        self.stats.full_redraws += 1
        parts = [SYNC_BEGIN, "\x1b[?25l"]
        if clear:
            parts.append("\x1b[2J\x1b[H\x1b[3J")
        parts.append("\r\n".join(fit_line(line, width) for line in lines))
        parts.append(SYNC_END)
        self.stats.lines_written += len(lines)
        self.emit("".join(parts))
        self.previous = lines
        self.width, self.height = width, height
        self.cursor_row = max(0, len(lines) - 1)
        self.viewport_top = max(0, len(lines) - height)
        self.rows_in_use = len(lines) if clear else max(self.rows_in_use, len(lines))

    def _diff(self, lines: list[str], width: int, height: int) -> None:
        previous = self.previous
        first = _first_difference(previous, lines)
        if first is None:
            return
        last = max(len(lines), len(previous)) - 1
        while last > first and last < len(lines) and last < len(previous) and lines[last] == previous[last]:
            last -= 1
        if first < self.viewport_top or (first >= len(lines) and len(lines) - 1 < self.viewport_top):
            self._full(lines, width, height, clear=True)
            return
        out = [SYNC_BEGIN]
        if first < len(lines):
            self._move_to(first, out, height)
            end = min(last, len(lines) - 1)
            for row in range(first, end + 1):
                if row > first:
                    self._newline(out, height)
                out.append("\r\x1b[2K")
                out.append(fit_line(lines[row], width))
            self.stats.lines_written += end - first + 1
        if len(previous) > len(lines):
            target = max(0, len(lines) - 1)
            self._move_to(target, out, height)
            extra = len(previous) - len(lines)
            if not lines:
                out.append("\r\x1b[2K")
                extra -= 1
            for _ in range(extra):
                out.append("\x1b[1B\r\x1b[2K")
            if extra > 0:
                out.append(f"\x1b[{extra}A")
        out.append(SYNC_END)
        self.emit("".join(out))
        self.previous = lines

    def _move_to(self, row: int, out: list[str], height: int) -> None:
        bottom = self.viewport_top + height - 1
        if row > bottom:
            self._move_rows(bottom - self.cursor_row, out)
            self.cursor_row = bottom
            while self.cursor_row < row:
                self._newline(out, height)
            return
        self._move_rows(row - self.cursor_row, out)
        self.cursor_row = row

    def _move_rows(self, delta: int, out: list[str]) -> None:
        if delta > 0:
            out.append(f"\x1b[{delta}B")
        elif delta < 0:
            out.append(f"\x1b[{-delta}A")

    def _newline(self, out: list[str], height: int) -> None:
        """Down one row; at the bottom of the screen this scrolls a line into the scrollback."""
        out.append("\r\n")
        self.cursor_row += 1
        if self.cursor_row > self.viewport_top + height - 1:
            self.viewport_top = self.cursor_row - height + 1

    def _place_cursor(self, cursor: tuple[int, int] | None, total: int) -> None:
        if cursor is None or total == 0:
            if self.show_hardware_cursor:
                self.emit("\x1b[?25l")
            return
        row = min(max(cursor[0], self.viewport_top), total - 1)
        out: list[str] = []
        self._move_rows(row - self.cursor_row, out)
        self.cursor_row = row
        out.append(f"\x1b[{cursor[1] + 1}G")
        if self.show_hardware_cursor:
            out.append("\x1b[?25h")
        self.emit("".join(out))

    def finish(self) -> None:
        """Leave the cursor on a fresh line below the document (before the program exits); with
        nothing drawn (a dialog wiped off the screen) the cursor stays where the document began."""
        if not self.previous:
            self.emit("\x1b[?25h")
            return
        out: list[str] = []
        self._move_rows(max(0, len(self.previous) - 1) - self.cursor_row, out)
        out.append("\r\n\x1b[?25h")
        self.emit("".join(out))
        self.cursor_row = len(self.previous)


def _first_difference(old: list[str], new: list[str]) -> int | None:
    shorter = min(len(old), len(new))
    for index in range(shorter):
        if old[index] is not new[index] and old[index] != new[index]:
            return index
    if len(old) != len(new):
        return shorter
    return None


def fit_line(line: str, width: int) -> str:
    """The line as written: cut if a component overran the width, styles (and a hyperlink)
    closed at its end."""
    if "\x1b" in line:
        if visible_width(line) > width:
            line = truncate_to_width(line, width, "")
        return line + LINE_RESET + (LINK_RESET if "\x1b]8;" in line else "")
    if len(line) > width and visible_width(line) > width:
        return truncate_to_width(line, width, "")
    return line


def extract_cursor(lines: list[str], height: int) -> tuple[list[str], tuple[int, int] | None]:
    """Find and remove the cursor marker among the visible lines; (row, column) where it was."""
    start = max(0, len(lines) - height)
    for row in range(len(lines) - 1, start - 1, -1):
        line = lines[row]
        index = line.find(CURSOR_MARKER)
        if index >= 0:
            column = visible_width(line[:index])
            lines = list(lines)
            lines[row] = line[:index] + line[index + len(CURSOR_MARKER) :]
            return lines, (row, column)
    return lines, None
