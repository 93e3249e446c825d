"""One assistant message built from a provider's stream, and Pi's events for it.

Every wire adapter does the same bookkeeping: content blocks open, grow and close (text,
thinking, tool calls whose JSON arguments arrive in pieces), each step is announced with an
event carrying the live message, and the stream ends with exactly one ``done`` or ``error``.
``StreamAccumulator`` owns that; an adapter only maps its provider's events onto it:

    acc = StreamAccumulator(stream, output)
    acc.start()                                   # the "start" event
    i = acc.open_text()                           # text_start; i is the content index
    acc.text_delta(i, "Hel"); acc.text_delta(i, "lo")
    acc.end(i)                                    # text_end with the block's text
    j = acc.open_tool_call(ToolCall(id="c1", name="read", arguments={}))
    acc.arguments_delta(j, '{"path": "a')         # toolcall_delta; arguments parsed so far
    acc.end(j)                                    # toolcall_end with the parsed arguments
    acc.done()                                    # "done" with output.stop_reason

Streamed text is joined once per network read, not once per delta, which keeps long
responses linear: ``feed`` (the read loop) calls ``flush`` after each read, and ``end``,
``done`` and ``error`` flush first. Consumers only run while the producer awaits a read, so
they always see every block's full text. Code that reads or replaces a block's text in
between calls ``flush`` first.

Tool-call arguments are parsed incrementally (``PartialJson``), so each delta costs time
proportional to its own length, not to the arguments so far (``bench/stream_parse.py``).
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Callable

from pi_ai._event_stream import AssistantMessageEventStream, error_text
from pi_ai._events import (
    DoneEvent,
    ErrorEvent,
    StartEvent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from pi_ai._messages import AssistantMessage, TextContent, ThinkingContent, ToolCall
from pi_ai._partial_json import PartialJson, finished_arguments
from pi_ai.api._sse import SseEvent

__all__ = ["StreamAccumulator", "StreamError"]


class StreamError(Exception):
    """A failure the provider's stream itself reports, or Pi reports about it; ``str()`` is
    the ``errorMessage`` Pi shows."""


class StreamAccumulator:
    """The live ``output`` message, its content blocks, and the events announcing them."""

    __slots__ = ("_parsers", "_pending", "_push", "output", "stream")

    def __init__(self, stream: AssistantMessageEventStream, output: AssistantMessage) -> None:
        self.stream = stream
        self.output = output
        self._push = stream.push
        self._pending: dict[int, list[str]] = {}
        """Content index -> text deltas not yet joined into the block."""
        self._parsers: dict[int, PartialJson] = {}
        """Content index -> the arguments parser of a tool call still streaming."""
        stream.partial = output

    # ------------------------------------------------------------------ opening blocks

    def start(self) -> None:
        """The ``start`` event (once the provider accepted the request)."""
        self._push(StartEvent(partial=self.output))

    def open_text(self, text: str = "", signature: str | None = None) -> int:
        """Append a text block; ``text_start``. Returns its content index."""
        index = self._append(TextContent(text=text, text_signature=signature))
        self._push(TextStartEvent(content_index=index, partial=self.output))
        return index

    def open_thinking(self, thinking: str = "", signature: str | None = None, *, redacted: bool = False) -> int:
        """Append a thinking block; ``thinking_start``. Returns its content index."""
        block = ThinkingContent(thinking=thinking, thinking_signature=signature, redacted=redacted or None)
        index = self._append(block)
        self._push(ThinkingStartEvent(content_index=index, partial=self.output))
        return index

    def open_tool_call(self, call: ToolCall, *, arguments_text: str | None = "") -> int:
        """Append a tool call; ``toolcall_start``. Returns its content index.

        ``arguments_text`` starts the JSON text that ``arguments_delta`` extends (``None``: the
        arguments do not stream as JSON, e.g. a grammar tool's input or a call sent whole).
        """
        index = self._append(call)
        if arguments_text is not None:
            parser = self._parsers[index] = PartialJson()
            if arguments_text:
                parser.feed(arguments_text)
        self._push(ToolCallStartEvent(content_index=index, partial=self.output))
        return index

    def _append(self, block: TextContent | ThinkingContent | ToolCall) -> int:
        content = self.output.content
        content.append(block)
        return len(content) - 1

    # ------------------------------------------------------------------ growing blocks

    def text_delta(self, index: int, delta: str) -> None:
        """Append ``delta`` to the text block at ``index``; ``text_delta``."""
        pending = self._pending.get(index)
        if pending is None:
            self._pending[index] = [delta]
        else:
            pending.append(delta)
        self._push(TextDeltaEvent(content_index=index, delta=delta, partial=self.output))

    def thinking_delta(self, index: int, delta: str) -> None:
        """Append ``delta`` to the thinking block at ``index``; ``thinking_delta``."""
        pending = self._pending.get(index)
        if pending is None:
            self._pending[index] = [delta]
        else:
            pending.append(delta)
        self._push(ThinkingDeltaEvent(content_index=index, delta=delta, partial=self.output))

    def arguments_delta(self, index: int, fragment: str, *, announce: bool = True) -> None:
        """Extend the tool call's argument JSON with ``fragment``; its ``arguments`` become
        the value parsed so far; ``toolcall_delta`` with the fragment (unless not ``announce``)."""
        parser = self._parsers.get(index)
        if parser is None:
            parser = self._parsers[index] = PartialJson()
        call = self.output.content[index]
        call.arguments = parser.feed(fragment)  # type: ignore[union-attr]  # a ToolCall
        if announce:
            self._push(ToolCallDeltaEvent(content_index=index, delta=fragment, partial=self.output))

    def arguments_text(self, index: int) -> str:
        """The argument JSON text received so far for the tool call at ``index``."""
        return self._parser(index).text

    def restart_arguments(self, index: int, text: str) -> None:
        """Replace the argument JSON text (no event): the provider sent a final text that does
        not extend what streamed."""
        call = self.output.content[index]
        assert isinstance(call, ToolCall)
        parser = self._parsers[index] = PartialJson()
        call.arguments = parser.feed(text)

    def streams_arguments(self, index: int) -> bool:
        """Whether the tool call at ``index`` is still taking argument JSON."""
        return index in self._parsers

    def _parser(self, index: int) -> PartialJson:
        parser = self._parsers.get(index)
        if parser is None:
            parser = self._parsers[index] = PartialJson()
        return parser

    def tool_delta(self, index: int, delta: str) -> None:
        """A ``toolcall_delta`` the adapter computed itself (the block is already updated)."""
        self._push(ToolCallDeltaEvent(content_index=index, delta=delta, partial=self.output))

    # ------------------------------------------------------------------ closing blocks

    def end(self, index: int) -> None:
        """Close the block at ``index``: ``text_end`` / ``thinking_end`` with its content, or
        ``toolcall_end`` with the call (arguments finally parsed from the streamed JSON)."""
        self.flush_block(index)
        block = self.output.content[index]
        if isinstance(block, TextContent):
            self._push(TextEndEvent(content_index=index, content=block.text, partial=self.output))
        elif isinstance(block, ThinkingContent):
            self._push(ThinkingEndEvent(content_index=index, content=block.thinking, partial=self.output))
        else:
            parser = self._parsers.pop(index, None)
            if parser is not None:
                # Pi 1.6 parses the finished text once more: malformed arguments become ``{}``
                # and an ``argumentsError`` (0.85 kept what the streaming parser made of them).
                block.arguments, block.arguments_error = finished_arguments(parser.text)
            self._push(ToolCallEndEvent(content_index=index, tool_call=block, partial=self.output))

    def finish_arguments(self, index: int) -> None:
        """Stop taking argument JSON for the tool call at ``index`` (no event)."""
        self._parsers.pop(index, None)

    # ------------------------------------------------------------------ joining text

    def flush(self) -> None:
        """Join every pending text delta into its block."""
        if self._pending:
            content = self.output.content
            for index, parts in self._pending.items():
                _grow(content[index], "".join(parts))
            self._pending.clear()

    def flush_block(self, index: int) -> None:
        """Join the pending text deltas of one block."""
        parts = self._pending.pop(index, None)
        if parts is not None:
            _grow(self.output.content[index], "".join(parts))

    async def feed(self, batches: AsyncIterable[list[SseEvent]], handle: Callable[[SseEvent], bool]) -> None:
        """Give every event of every network read to ``handle``, joining text after each read.

        ``handle`` returns True to stop reading (the provider's end marker)."""
        try:
            async for batch in batches:
                for event in batch:
                    if handle(event):
                        return
                self.flush()
        finally:
            self.flush()

    # ------------------------------------------------------------------ the end

    def done(self) -> None:
        """The ``done`` event with ``output.stop_reason`` (``stop``, ``length`` or ``toolUse``)."""
        self.flush()
        output = self.output
        self._push(DoneEvent(reason=output.stop_reason, message=output))  # type: ignore[arg-type]

    def error(self, message: str, *, aborted: bool = False) -> None:
        """The ``error`` event: ``output`` ends as ``error`` (or ``aborted``) with ``message``."""
        self.flush()
        output = self.output
        output.stop_reason = "aborted" if aborted else "error"
        output.error_message = message
        self._push(ErrorEvent(reason=output.stop_reason, error=output))

    def fail(self, error: BaseException, *, aborted: bool = False) -> None:
        """``error`` with the exception's message (never Python's internal wording)."""
        self.error(error_text(error), aborted=aborted)


def _grow(block: TextContent | ThinkingContent | ToolCall, extra: str) -> None:
    # Detach the string first so CPython can grow it in place instead of copying it.
    if isinstance(block, TextContent):
        text = block.text
        block.text = ""
        text += extra
        block.text = text
    elif isinstance(block, ThinkingContent):
        thinking = block.thinking
        block.thinking = ""
        thinking += extra
        block.thinking = thinking
