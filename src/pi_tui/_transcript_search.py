"""Searching the rendered fullscreen transcript (Pi's ``tui.altScreen.search``).

The transcript's lines, styles removed, are read as one text in which every run of
blanks (and every line break) is one space; the query, its blanks collapsed the same way,
is found in it case-insensitively, so a match may run across wrapped lines. Each match
is a list of ``(row, start column, end column)`` segments to highlight.
``SearchBox`` is the panel in the top-right corner: the query, ``n/total`` (or
``No matches``) and the previous/next keys.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from pi_tui._keybindings import TUI_DEFAULTS, Keybindings, capitalize_keys
from pi_tui._text import char_width, strip_ansi, truncate_to_width, visible_width
from pi_tui.components import Input

Segment = tuple[int, int, int]
"""``(row, start column, end column)`` of one line's part of a match."""


@dataclass(frozen=True)
class _Span:
    text_start: int
    row: int
    col: int


def _corpus(lines: list[str]) -> tuple[str, list[_Span]]:
    """The searchable text and, for each of its characters, where it is on screen."""
    chars: list[str] = []
    spans: list[_Span] = []
    pending_space = False
    for row, line in enumerate(lines):
        column = 0
        for char in strip_ansi(line):
            width = char_width(char)
            if char.isspace():
                pending_space = bool(chars)
                column += width
                continue
            if pending_space:
                chars.append(" ")
                spans.append(_Span(len(chars) - 1, -1, -1))
                pending_space = False
            chars.append(char)
            spans.append(_Span(len(chars) - 1, row, column))
            column += width
        pending_space = bool(chars)
    return "".join(chars), spans


def find_matches(lines: list[str], query: str) -> list[list[Segment]]:
    """Every match of ``query`` in ``lines``, in order."""
    wanted = " ".join(query.split())
    if not wanted:
        return []
    text, spans = _corpus(lines)
    matches = []
    for found in re.finditer(re.escape(wanted), text, re.IGNORECASE):
        segments: list[Segment] = []
        for index in range(found.start(), found.end()):
            span = spans[index]
            if span.row < 0:
                continue
            end = span.col + max(1, char_width(text[index]))
            if segments and segments[-1][0] == span.row and span.col <= segments[-1][2] + 1:
                row, start, _ = segments[-1]
                segments[-1] = (row, start, end)
            else:
                segments.append((span.row, span.col, end))
        if segments:
            matches.append(segments)
    return matches


class SearchBox:
    """The search panel: an input line in a box whose bottom edge shows the navigation keys."""

    def __init__(self, on_query: Callable[[str], None], keybindings: Keybindings | None = None) -> None:
        self.keybindings = keybindings or Keybindings(TUI_DEFAULTS)
        self.input = Input(
            prompt=" ",
            placeholder="Find in transcript",
            keybindings=self.keybindings,
            placeholder_style=lambda text: f"\x1b[2m{text}\x1b[22m",
        )
        self._on_query = on_query
        self.index = -1
        self.count = 0
        self._focused = False

    @property
    def focused(self) -> bool:
        return self._focused

    @focused.setter
    def focused(self, value: bool) -> None:
        self._focused = value
        self.input.focused = value

    def handle_input(self, data: str) -> None:
        before = self.input.value
        self.input.handle_input(data)
        if self.input.value != before:
            self._on_query(self.input.value)

    def invalidate(self) -> None:
        return

    def render(self, width: int) -> list[str]:
        width = max(1, width)
        if width == 1:
            return ["┌", "│", "└"]
        inner = width - 2
        query = self.input.value
        result = "" if not query else "No matches" if self.count == 0 else f"{self.index + 1}/{self.count}"
        result = truncate_to_width(result, max(0, inner - 3), "")
        result_text = f"\x1b[2m {result} \x1b[22m" if result else ""
        input_width = max(0, inner - visible_width(result_text))
        line = truncate_to_width(self.input.render(max(1, input_width))[0], input_width, "", pad=True)
        previous = f"↑ {self._key('tui.altScreen.searchPrevious')}"
        following = f"↓ {self._key('tui.altScreen.searchNext')}"
        separator = " · "
        room = max(0, inner - 3)
        if visible_width(previous + separator + following) > room:
            previous, following, separator = "↑", "↓", " "
        buttons = previous + separator + following
        if visible_width(buttons) > room:
            buttons = ""
        right_rule = 1 if buttons and inner > visible_width(buttons) + 2 else 0
        left_rule = max(0, inner - (visible_width(buttons) + 2 if buttons else 0) - right_rule)
        bottom = "─" * left_rule + (f" {buttons} " if buttons else "") + "─" * right_rule
        return [f"┌{'─' * inner}┐", f"│{line}{result_text}│", f"└{bottom}┘"]

    def _key(self, action: str) -> str:
        keys = self.keybindings.keys(action)
        return capitalize_keys(keys[0]) if keys else "Unbound"
