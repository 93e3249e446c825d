"""Measuring and cutting terminal text that carries ANSI escape sequences.

Widths are terminal columns: escape sequences take none, East Asian wide and full-width
characters take two, combining marks and zero-width characters none. Everything else is
one column. ASCII text without escapes takes a fast path (``str.isascii``), which is what
nearly every line of a transcript is.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import ClassVar

ESCAPE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI (colours, cursor moves)
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC (hyperlinks, titles)
    r"|\x1b_[^\x07\x1b]*(?:\x07|\x1b\\)"  # APC (the cursor marker, kitty images)
    r"|\x1b[@-Z\\-_]"  # other two-byte escapes
)
RESET = "\x1b[0m"


def strip_ansi(text: str) -> str:
    return ESCAPE.sub("", text) if "\x1b" in text else text


@lru_cache(maxsize=4096)
def char_width(char: str) -> int:
    code = ord(char)
    if code < 0x300:
        return 0 if code < 32 or 0x7F <= code < 0xA0 else 1
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0
    if 0xFE00 <= code <= 0xFE0F:  # variation selectors
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def visible_width(text: str) -> int:
    """Columns ``text`` takes on screen."""
    if "\x1b" in text:
        text = ESCAPE.sub("", text)
    if text.isascii():
        return len(text) if text.isprintable() else sum(1 for c in text if " " <= c < "\x7f")
    return sum(char_width(c) for c in text)


def tokens(text: str) -> list[tuple[bool, str]]:
    """``text`` split into (is_escape, piece) runs, in order."""
    if "\x1b" not in text:
        return [(False, text)] if text else []
    out: list[tuple[bool, str]] = []
    position = 0
    for match in ESCAPE.finditer(text):
        if match.start() > position:
            out.append((False, text[position : match.start()]))
        out.append((True, match.group()))
        position = match.end()
    if position < len(text):
        out.append((False, text[position:]))
    return out


def truncate_to_width(text: str, width: int, ellipsis: str = "...", pad: bool = False) -> str:
    """``text`` cut to at most ``width`` columns, ending in ``ellipsis`` when something was cut.

    Escape sequences are kept (so colours stay balanced); a reset closes a cut line.
    ``pad`` fills a shorter result with spaces up to ``width``.
    """
    total = visible_width(text)
    if total <= width:
        return text + " " * (width - total) if pad else text
    ellipsis_width = visible_width(ellipsis)
    if ellipsis_width >= width:
        ellipsis, ellipsis_width = "", 0
    budget = width - ellipsis_width
    out: list[str] = []
    used = 0
    for is_escape, piece in tokens(text):
        if is_escape:
            out.append(piece)
            continue
        if used >= budget:
            continue
        if piece.isascii() and used + len(piece) <= budget:
            out.append(piece)
            used += len(piece)
            continue
        for char in piece:
            w = char_width(char)
            if used + w > budget:
                used = budget
                break
            out.append(char)
            used += w
    result = "".join(out)
    if "\x1b" in result:
        result += RESET
    result += ellipsis
    if pad:
        result += " " * max(0, width - visible_width(result))
    return result


def slice_columns(text: str, start: int, width: int) -> str:
    """The part of ``text`` from column ``start`` for ``width`` columns, with the escapes active there.

    A wide character cut in half becomes a space. Used to lay overlays over lines.
    """
    out: list[str] = []
    column = 0
    end = start + width
    for is_escape, piece in tokens(text):
        if is_escape:
            out.append(piece)
            continue
        for char in piece:
            w = char_width(char)
            if column >= end:
                break
            if column >= start:
                if column + w > end:
                    out.append(" ")
                else:
                    out.append(char)
            elif column + w > start:
                out.append(" ")
            column += w
    return "".join(out)


class _SgrState:
    """The SGR attributes in effect while walking a line, to carry them across a wrap."""

    __slots__ = ("attributes",)

    _OFF: ClassVar[dict[int, tuple[str, ...]]] = {
        22: ("bold", "dim"),
        23: ("italic",),
        24: ("underline",),
        27: ("inverse",),
        29: ("strike",),
        39: ("fg",),
        49: ("bg",),
    }
    _ON: ClassVar[dict[int, str]] = {
        1: "bold",
        2: "dim",
        3: "italic",
        4: "underline",
        7: "inverse",
        9: "strike",
    }

    def __init__(self) -> None:
        self.attributes: dict[str, str] = {}

    def apply(self, sequence: str) -> None:
        if not sequence.endswith("m") or not sequence.startswith("\x1b["):
            return
        params = sequence[2:-1].split(";") if len(sequence) > 3 else ["0"]
        index = 0
        while index < len(params):
            try:
                code = int(params[index] or 0)
            except ValueError:
                return
            if code == 0:
                self.attributes.clear()
            elif code in self._ON:
                self.attributes[self._ON[code]] = str(code)
            elif code in self._OFF:
                for name in self._OFF[code]:
                    self.attributes.pop(name, None)
            elif code in (38, 48):
                size = 3 if index + 1 < len(params) and params[index + 1] == "5" else 5
                self.attributes["fg" if code == 38 else "bg"] = ";".join(params[index : index + size])
                index += size - 1
            elif 30 <= code <= 37 or 90 <= code <= 97:
                self.attributes["fg"] = str(code)
            elif 40 <= code <= 47 or 100 <= code <= 107:
                self.attributes["bg"] = str(code)
            index += 1

    @property
    def active(self) -> bool:
        return bool(self.attributes)

    def prefix(self) -> str:
        return f"\x1b[{';'.join(self.attributes.values())}m" if self.attributes else ""


def wrap_text_with_ansi(text: str, width: int) -> list[str]:
    """``text`` word-wrapped to ``width`` columns, one entry per screen line.

    Newlines start new lines. Styles active at a break are closed at the end of the line
    and reopened at the start of the next, so each line stands alone. Words longer than
    the width are broken. Trailing spaces at a break are dropped.
    """
    if width <= 0:
        return [""]
    lines: list[str] = []
    state = _SgrState()
    for source_line in text.split("\n"):
        if not state.active and "\x1b" not in source_line and visible_width(source_line) <= width:
            lines.append(source_line)
            continue
        lines.extend(_wrap_line(source_line, width, state))
    return lines


def _wrap_line(line: str, width: int, state: _SgrState) -> list[str]:
    out: list[str] = []
    current: list[str] = [state.prefix()]
    used = 0
    word: list[str] = []  # pending characters and escapes of the word being built
    word_width = 0

    def flush_line() -> None:
        nonlocal current, used
        text = "".join(current).rstrip(" ")
        if state.active:
            text += RESET
        out.append(text)
        current = [state.prefix()]
        used = 0

    def place_word() -> None:
        nonlocal used, word, word_width
        if not word:
            return
        if used + word_width > width and used > 0:
            flush_line()
        if word_width > width:
            for item in word:
                if item.startswith("\x1b"):
                    current.append(item)
                    state.apply(item)
                    continue
                w = char_width(item)
                if used + w > width:
                    flush_line()
                current.append(item)
                used += w
        else:
            for item in word:
                if item.startswith("\x1b"):
                    state.apply(item)
            current.extend(word)
            used += word_width
        word = []
        word_width = 0

    for is_escape, piece in tokens(line):
        if is_escape:
            word.append(piece)
            continue
        for char in piece:
            if char == " ":
                place_word()
                if used < width:
                    current.append(" ")
                    used += 1
                else:
                    flush_line()
                continue
            word.append(char)
            word_width += char_width(char)
    place_word()
    text = "".join(current).rstrip(" ") if used else "".join(current)
    if state.active:
        text += RESET
    out.append(text)
    return out
