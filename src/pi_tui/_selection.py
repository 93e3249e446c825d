"""Text selected with the mouse in the fullscreen transcript (Pi's select-to-copy).

Points are in document coordinates (``row`` a line of the rendered transcript, ``col`` a
column), so a selection stays on its text while the view scrolls. ``end`` is inclusive of
its cell unless ``boundary`` (a word or line selection, whose end is the column after).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from pi_tui._text import ESCAPE, slice_columns, strip_ansi, visible_width

_WORD = re.compile(r"[\w/-]+(?:[.'][\w/-]+)*")
"""A word as a double click takes it: letters, digits and ``_``, a ``.`` or ``'`` between
them (Unicode word boundaries), joined by ``/`` and ``-`` (a path or a flag is one word, as
in Pi)."""


@dataclass(frozen=True)
class Point:
    row: int
    col: int
    boundary: bool = False


@dataclass(frozen=True)
class Range:
    start: Point
    end: Point


def ordered(anchor: Point, focus: Point) -> Range | None:
    """The selection from ``anchor`` to ``focus``, start first; ``None`` when empty."""
    if (anchor.row, anchor.col) == (focus.row, focus.col):
        return None
    if (anchor.row, anchor.col) < (focus.row, focus.col):
        return Range(anchor, focus)
    return Range(focus, anchor)


def columns_of(line: str, row: int, selection: Range) -> tuple[int, int]:
    """The columns ``[start, end)`` of ``line`` (document row ``row``) inside ``selection``."""
    width = visible_width(line)
    start = min(selection.start.col, width) if row == selection.start.row else 0
    end = width
    if row == selection.end.row:
        end = min(selection.end.col + (0 if selection.end.boundary else 1), width)
    return start, max(start, end)


def selected_text(lines: list[str], selection: Range) -> str:
    """What the selection covers, without styles, each line's trailing spaces removed."""
    out = []
    for row in range(selection.start.row, selection.end.row + 1):
        line = lines[row] if 0 <= row < len(lines) else ""
        start, end = columns_of(line, row, selection)
        out.append(strip_ansi(slice_columns(line, start, end - start)).rstrip())
    return "\n".join(out)


def word_at(line: str, point: Point) -> Range | None:
    """The word under ``point`` on ``line`` (a double click), or ``None`` between words."""
    plain = strip_ansi(line)
    for match in _WORD.finditer(plain):
        start = visible_width(plain[: match.start()])
        end = start + visible_width(match.group())
        if start <= point.col < end:
            return Range(Point(point.row, start), Point(point.row, end, boundary=True))
    return None


def line_at(line: str, point: Point) -> Range:
    """The whole line under ``point`` (a triple click)."""
    return Range(Point(point.row, 0), Point(point.row, visible_width(line), boundary=True))


def highlight(text: str) -> str:
    """``text`` in reverse video, kept on across the styles inside it (Pi's selection look)."""
    out = ["\x1b[7m"]
    position = 0
    for match in ESCAPE.finditer(text):
        out.append(text[position : match.start()])
        out.append(match.group())
        if match.group().endswith("m"):
            out.append("\x1b[7m")
        position = match.end()
    out.append(text[position:])
    out.append("\x1b[27m")
    return "".join(out)


def restyle_columns(line: str, start: int, end: int, style: Callable[[str], str]) -> str:
    """``line`` with the columns ``[start, end)`` passed through ``style`` (a callable)."""
    width = visible_width(line)
    end = min(end, width)
    if end <= start:
        return line
    before = slice_columns(line, 0, start)
    middle = slice_columns(line, start, end - start)
    after = slice_columns(line, end, width - end)
    return f"{before}{style(middle)}{after}"
