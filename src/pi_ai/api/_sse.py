"""Incremental server-sent-events decoder.

Bytes go in as they arrive from the socket, split anywhere (inside a UTF-8 character, inside
a line, between ``\\r`` and ``\\n``); complete events come out. The decoder follows the SSE
rules the provider SDKs use: lines end with ``\\r\\n``, ``\\n`` or ``\\r``; ``event:`` and
``data:`` fields (one optional space after the colon is dropped); several ``data:`` lines
are joined with ``\\n``; lines starting with ``:`` are comments; other fields are ignored; a
blank line dispatches the event if it has an event name or data.

What happens to an event the body ends in the middle of differs between Pi's adapters:
Anthropic's decoder dispatches it, the OpenAI SDK drops it. ``finish(flush_partial=...)``
chooses.
"""

from __future__ import annotations

import codecs


class SseEvent:
    """One dispatched event: its ``event`` name (``None`` when absent) and ``data`` text."""

    __slots__ = ("data", "event", "raw")

    def __init__(self, event: str | None, data: str, raw: list[str]) -> None:
        self.event = event
        self.data = data
        self.raw = raw
        """Every line of the event as received (fields and comments), for error messages."""

    def __repr__(self) -> str:
        return f"SseEvent(event={self.event!r}, data={self.data!r})"


class SseDecoder:
    """Feed bytes with ``feed``; call ``finish`` once at end of body."""

    __slots__ = ("_data", "_event", "_pending", "_raw", "_text", "_utf8")

    def __init__(self) -> None:
        # TextDecoder semantics: invalid bytes become U+FFFD instead of failing the stream.
        self._utf8 = codecs.getincrementaldecoder("utf-8")("replace")
        self._text = ""
        """Text of the current, unterminated line (possibly ending in a lone ``\\r``)."""
        self._pending = False
        """Whether the last line break seen was a ``\\r`` that a ``\\n`` may still complete."""
        self._event: str | None = None
        self._data: list[str] = []
        self._raw: list[str] = []

    def feed(self, chunk: bytes) -> list[SseEvent]:
        """Decode ``chunk`` and return the events it completed (often none or several)."""
        text = self._utf8.decode(chunk)
        if not text:
            return []
        if self._pending:
            self._pending = False
            if text[0] == "\n":
                text = text[1:]
        if "\r" in text:
            if text[-1] == "\r":
                self._pending = True
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        buffered = self._text + text
        if "\n" not in text:
            self._text = buffered
            return []
        lines = buffered.split("\n")
        self._text = lines.pop()
        return self._lines(lines)

    def finish(self, *, flush_partial: bool) -> list[SseEvent]:
        """End of body: decode what is left; with ``flush_partial`` dispatch an unterminated event."""
        tail = self._utf8.decode(b"", final=True)
        lines: list[str] = []
        if tail:
            lines = (self._text + tail.replace("\r\n", "\n").replace("\r", "\n")).split("\n")
            self._text = lines.pop()
        events = self._lines(lines)
        if not flush_partial:
            return events
        if self._text:
            events.extend(self._lines([self._text]))
            self._text = ""
        if self._event is not None or self._data:
            events.append(self._dispatch())
        return events

    def _dispatch(self) -> SseEvent:
        event = SseEvent(self._event, "\n".join(self._data), self._raw)
        self._event = None
        self._data = []
        self._raw = []
        return event

    def _lines(self, lines: list[str]) -> list[SseEvent]:
        events: list[SseEvent] = []
        data = self._data
        raw = self._raw
        for line in lines:
            if not line:
                if self._event is not None or data:
                    events.append(self._dispatch())
                    data = self._data
                    raw = self._raw
                continue
            raw.append(line)
            if line[0] == ":":
                continue
            # The common shapes first: "data: ..." and "event: ...".
            if line.startswith("data:"):
                value = line[5:]
                data.append(value[1:] if value[:1] == " " else value)
                continue
            colon = line.find(":")
            if colon < 0:
                name, value = line, ""
            else:
                name, value = line[:colon], line[colon + 1 :]
                if value[:1] == " ":
                    value = value[1:]
            if name == "event":
                self._event = value
            elif name == "data":
                data.append(value)
        return events
