"""Splitting the terminal's input stream into keys and pastes.

A read from the terminal may hold several keys, half an escape sequence, or part of a
bracketed paste (``ESC [200~ ... ESC [201~``). ``InputSplitter.feed`` returns complete
events: one string per key or escape sequence, runs of plain text as they are, and each
paste whole as a ``Paste``. A lone ``ESC`` is ambiguous (the Escape key, or the start of
a sequence whose rest has not arrived); ``pending_escape`` says so, and the caller
``flush``es it after a short wait.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"
_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
    r"|\x1b_[^\x07\x1b]*(?:\x07|\x1b\\)"
    r"|\x1bO[@-~]"
    r"|\x1b\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b[\s\S]",
)
_INCOMPLETE = re.compile(r"\x1b(\[[0-?]*[ -/]*|\][^\x07\x1b]*|_[^\x07\x1b]*|O|\x1b\[?[0-?]*)?$")


@dataclass(frozen=True, slots=True)
class Paste:
    text: str


class InputSplitter:
    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._buffer = ""
        self._paste: list[str] | None = None

    @property
    def pending_escape(self) -> bool:
        return bool(self._buffer) and self._paste is None

    def feed(self, data: bytes) -> list[str | Paste]:
        self._buffer += self._decoder.decode(data)
        return self._drain(final=False)

    def flush(self) -> list[str | Paste]:
        """Whatever is held back, as keys (a lone ESC becomes the Escape key)."""
        return self._drain(final=True)

    def _drain(self, final: bool) -> list[str | Paste]:
        events: list[str | Paste] = []
        text = self._buffer
        position = 0
        while position < len(text):
            if self._paste is not None:
                end = text.find(PASTE_END, position)
                if end < 0:
                    keep = _partial_suffix(text, PASTE_END)
                    self._paste.append(text[position : len(text) - keep])
                    position = len(text) - keep
                    break
                self._paste.append(text[position:end])
                events.append(Paste("".join(self._paste)))
                self._paste = None
                position = end + len(PASTE_END)
                continue
            if text.startswith(PASTE_START, position):
                self._paste = []
                position += len(PASTE_START)
                continue
            char = text[position]
            if char == "\x1b":
                if not final and _INCOMPLETE.fullmatch(text, position):
                    break
                match = _SEQUENCE.match(text, position)
                if match is None:
                    events.append(char)
                    position += 1
                    continue
                events.append(match.group())
                position = match.end()
                continue
            end = position
            while end < len(text) and text[end] >= " " and text[end] != "\x7f":
                end += 1
            if end == position:
                events.append(char)
                position += 1
            else:
                events.append(text[position:end])
                position = end
        self._buffer = text[position:]
        return events


def _partial_suffix(text: str, marker: str) -> int:
    """Length of the longest end of ``text`` that begins ``marker`` (a marker cut between reads)."""
    for size in range(min(len(marker) - 1, len(text)), 0, -1):
        if marker.startswith(text[-size:]):
            return size
    return 0
