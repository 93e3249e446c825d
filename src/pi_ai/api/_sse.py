"""Incremental server-sent-events decoder.

Bytes go in as they arrive from the socket, split anywhere (inside a UTF-8 character, inside
a line, between ``\\r`` and ``\\n``); complete events come out. The decoder follows the SSE
rules the provider SDKs use: a UTF-8 byte order mark at the very start is dropped (as
``TextDecoder`` does); lines end with ``\\r\\n``, ``\\n`` or ``\\r``; ``event:`` and ``data:``
fields (one optional space after the colon is dropped); several ``data:`` lines are joined
with ``\\n``; lines starting with ``:`` are comments; other fields (``id:``, ``retry:``) are
ignored, as Pi's decoders ignore them; a blank line dispatches the event if it has an event
name or data.

The cost is linear in the bytes received, whatever the chunk sizes: each chunk is scanned
once when it arrives and the text of an event is joined once when its blank line arrives
(``tests/pi_ai/api/test_sse.py`` counts the work; ``bench/sse_decode.py`` measures it).

What happens to an event the body ends in the middle of differs between Pi's adapters:
Anthropic's decoder and Pi 1.6's OpenAI SDK dispatch it (0.85's SDK dropped it).
``finish(flush_partial=...)`` chooses.
"""

from __future__ import annotations

import codecs
import io
import re

_EVENT_DATA_RUN = re.compile(r"(?:event: [^\n]*\ndata: [^\n]*\n\n)*")
_EVENT_DATA = re.compile(r"event: ([^\n]*)\ndata: ([^\n]*)\n\n")
_DATA_RUN = re.compile(r"(?:data: [^\n]*\n\n)*")
_DATA = re.compile(r"data: ([^\n]*)\n\n")


class SseEvent:
    """One dispatched event: its ``event`` name (``None`` when absent) and ``data`` text."""

    __slots__ = ("_lines", "data", "event")

    def __init__(self, event: str | None, data: str, lines: str | None = None) -> None:
        self.event = event
        self.data = data
        self._lines = lines
        """The event's lines joined by ``\\n``; None for the two standard shapes (rebuilt on demand)."""

    @property
    def raw(self) -> list[str]:
        """Every line of the event as received (fields and comments), for error messages."""
        if self._lines is None:
            return ([f"event: {self.event}"] if self.event is not None else []) + [f"data: {self.data}"]
        return self._lines.split("\n") if self._lines else []

    def __repr__(self) -> str:
        return f"SseEvent(event={self.event!r}, data={self.data!r})"


class SseDecoder:
    """Feed bytes with ``feed``; call ``finish`` once at end of body."""

    __slots__ = ("_at_start", "_cr", "_data", "_event", "_raw", "_tail", "_tail_io", "_tail_newline", "_utf8")

    def __init__(self) -> None:
        # TextDecoder semantics: invalid bytes become U+FFFD; a leading BOM is dropped (by hand:
        # the "utf-8-sig" decoder costs a third more per call, measured by bench/sse_decode.py).
        self._utf8 = codecs.getincrementaldecoder("utf-8")("replace")
        self._at_start = True
        """Whether no text was decoded yet (a byte order mark may still come)."""
        self._tail = ""
        """Text after the last blank line when it arrived in one piece (line breaks as ``\\n``)."""
        self._tail_io: io.StringIO | None = None
        """The same text once a second piece arrived: appending to it costs only the new piece,
        and the incomplete text is never a ``str`` that a later chunk could rescan."""
        self._tail_newline = False
        """Whether the buffered text ends with a line break (a blank line may span two chunks)."""
        self._cr = False
        """Whether the last line break seen was a ``\\r`` that a ``\\n`` may still complete."""
        self._event: str | None = None
        self._data: list[str] = []
        self._raw: list[str] = []

    def feed(self, chunk: bytes) -> list[SseEvent]:
        """Decode ``chunk`` and return the events it completed (often none or several)."""
        text = self._utf8.decode(chunk)
        if self._at_start and text:
            self._at_start = False
            if text[0] == "\ufeff":
                text = text[1:]
        if self._cr or "\r" in text:
            text = self._normalized(text)
        if not text:
            return []
        end = text.rfind("\n\n") + 2
        if end < 2:
            if not (self._tail_newline and text[0] == "\n"):
                # No blank line: keep the text (inlined: the common case for small chunks).
                self._tail_newline = text[-1] == "\n"
                if self._tail_io is not None:
                    self._tail_io.write(text)
                else:
                    self._buffer(text)
                return []
            end = 1  # the blank line is this chunk's first character after the previous one's
        complete = self._take_tail() + text[:end]
        rest = text[end:]
        self._tail = rest
        self._tail_newline = rest[-1:] == "\n"
        # Whole runs of standard events are decoded by two regular expressions in C.
        if _EVENT_DATA_RUN.fullmatch(complete):
            return [SseEvent(name, data) for name, data in _EVENT_DATA.findall(complete)]
        if _DATA_RUN.fullmatch(complete):
            return [SseEvent(None, data) for data in _DATA.findall(complete)]
        blocks = complete.split("\n\n")
        blocks.pop()
        return self._blocks(blocks)

    def finish(self, *, flush_partial: bool) -> list[SseEvent]:
        """End of body: decode what is left; with ``flush_partial`` dispatch an unterminated event."""
        leftover = self._utf8.decode(b"", final=True)  # only U+FFFD can be left: no BOM to drop
        text = self._take_tail() + self._normalized(leftover)
        self._tail = ""
        self._tail_newline = False
        blocks = text.split("\n\n")
        rest = blocks.pop()
        events = self._blocks(blocks)
        if flush_partial:
            if rest:
                events.extend(self._lines(rest.split("\n")))
            if self._event is not None or self._data:
                events.append(self._dispatch())
        return events

    def _normalized(self, text: str) -> str:
        """``text`` with its line breaks as ``\\n``; a ``\\r\\n`` split between chunks counts once."""
        if self._cr and text:
            self._cr = False
            if text[0] == "\n":
                text = text[1:]
                if not text:
                    return text
        if "\r" in text:
            self._cr = text[-1] == "\r"
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        return text

    def _buffer(self, text: str) -> None:
        """Keep ``text`` (no blank line in it) after the one piece or nothing buffered so far."""
        if self._tail:
            self._tail_io = io.StringIO()  # empty, so it accumulates (no 4-byte-per-char buffer)
            self._tail_io.write(self._tail)
            self._tail_io.write(text)
            self._tail = ""
        else:
            self._tail = text

    def _take_tail(self) -> str:
        """The buffered text, once, leaving the buffer empty."""
        if self._tail_io is None:
            tail = self._tail
        else:
            tail = self._tail_io.getvalue()
            self._tail_io = None
        self._tail = ""
        return tail

    def _blocks(self, blocks: list[str]) -> list[SseEvent]:
        """Events of complete blocks (each ended by a blank line)."""
        events: list[SseEvent] = []
        for block in blocks:
            # The common shapes first: "event: <name>\ndata: <json>" and "data: <json>".
            if block.startswith("event: "):
                newline = block.find("\n")
                if (
                    newline > 0
                    and block.startswith("data: ", newline + 1)
                    and block.find("\n", newline + 1) < 0
                ):
                    events.append(SseEvent(block[7:newline], block[newline + 7 :]))
                    continue
            elif block.startswith("data: ") and "\n" not in block:
                events.append(SseEvent(None, block[6:]))
                continue
            lines = block.split("\n")
            lines.append("")
            events.extend(self._lines(lines))
        return events

    def _dispatch(self) -> SseEvent:
        data = self._data
        event = SseEvent(self._event, data[0] if len(data) == 1 else "\n".join(data), "\n".join(self._raw))
        self._event = None
        self._data = []
        self._raw = []
        return event

    def _lines(self, lines: list[str]) -> list[SseEvent]:
        """The general line-by-line decoder for anything but the common block shapes."""
        events: list[SseEvent] = []
        name = self._event
        data = self._data
        raw = self._raw
        for line in lines:
            if not line:
                if name is not None or data:
                    events.append(
                        SseEvent(name, data[0] if len(data) == 1 else "\n".join(data), "\n".join(raw))
                    )
                    name = None
                    data = []
                    raw = []
                continue
            raw.append(line)
            first = line[0]
            if first == "d" and line.startswith("data:"):
                data.append(line[6:] if line[5:6] == " " else line[5:])
            elif first == "e" and line.startswith("event:"):
                name = line[7:] if line[6:7] == " " else line[6:]
            elif first != ":":
                field, colon, value = line.partition(":")
                if colon and value[:1] == " ":
                    value = value[1:]
                if field == "event":
                    name = value
                elif field == "data":
                    data.append(value)
        self._event = name
        self._data = data
        self._raw = raw
        return events
