"""Keeping our own notes to the model out of what the user reads.

The lines added for a small model (the tool hint in the system prompt, the nudges of a turn written
again, the coding agent's notes after tool results) live in the request only; but the 1.5B
sometimes copies one into its answer ("(The command succeeded after your changes. If the task is
done, reply to the user now.)" as the reply, issue 27). ``NoteFilter`` removes each sentence of
those notes from the answer's text as it streams: text that could be the start of one is held back
until the next piece settles it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

MIN_FRAGMENT = 16
"""Sentences of a note shorter than this are left alone: they could be the model's own words."""
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_EMPTY_PARENS = re.compile(r"\(\s*\)")


def note_fragments(notes: Iterable[str]) -> list[str]:
    """The pieces of ``notes`` removed from an answer: each note whole, each of its sentences, and
    the first and last with the note's parentheses; longest first."""
    fragments: set[str] = set()
    for note in notes:
        text = note.strip()
        if not text:
            continue
        fragments.add(text)
        opened, closed = text.startswith("("), text.endswith(")")
        inner = text[1 if opened else 0 : -1 if closed else None].strip()
        sentences = [part.strip() for part in _SENTENCE_END.split(inner.split("\n", 1)[0]) if part.strip()]
        for index, sentence in enumerate(sentences):
            if len(sentence) < MIN_FRAGMENT:
                continue
            fragments.add(sentence)
            if index == 0 and opened:
                fragments.add("(" + sentence)
            if index == len(sentences) - 1 and closed:
                fragments.add(sentence + ")")
    return sorted(fragments, key=len, reverse=True)


class NoteFilter:
    """``feed`` returns the text that may be shown so far; ``flush`` the rest at the end."""

    def __init__(self, notes: Iterable[str]) -> None:
        self.fragments = note_fragments(notes)
        self._pattern = (
            re.compile("(?:" + "|".join(map(re.escape, self.fragments)) + r")[ \t]*")
            if self.fragments
            else None
        )
        self._buffer = ""
        self._eat_blanks = False
        """A note was just removed at the end of the text: the blanks that follow it go too."""

    def feed(self, text: str) -> str:
        if not self.fragments:
            return text
        if self._eat_blanks:
            text = text.lstrip(" \t")
            self._eat_blanks = not text
        self._buffer = self._strip(self._buffer + text)
        held = self._held_tail(self._buffer)
        shown, self._buffer = (
            self._buffer[: len(self._buffer) - held],
            self._buffer[len(self._buffer) - held :],
        )
        return shown

    def flush(self) -> str:
        rest, self._buffer = self._buffer, ""
        return rest

    def _strip(self, text: str) -> str:
        """``text`` without the fragments (and the blanks after each)."""
        assert self._pattern is not None
        matches = list(self._pattern.finditer(text))
        if not matches:
            return text
        self._eat_blanks = matches[-1].end() == len(text)
        stripped = self._pattern.sub("", text)
        stripped = re.sub(r"\n{3,}", "\n\n", _EMPTY_PARENS.sub("", stripped))
        return stripped

    def _held_tail(self, text: str) -> int:
        """Length of the longest end of ``text`` that begins a fragment (and is not one)."""
        best = 0
        for fragment in self.fragments:
            for size in range(min(len(text), len(fragment) - 1), best, -1):
                if fragment.startswith(text[-size:]):
                    best = size
                    break
        return best
