"""Gemini ``streamGenerateContent``: the body split as ``@google/genai`` splits it, and each
chunk read as Pi 0.85 reads it.

Each chunk is a whole ``GenerateContentResponse``. Consecutive text parts of the same kind
(thought or not) extend one block; a function call closes the open block and arrives
complete (start, one delta with its JSON, end). ``usageMetadata`` is cumulative: the last
chunk that carries it wins (an empty object resets the counts, as in Pi). Thought signatures
may come on any part; the last non-empty one of a block is kept. Fields are read with
JavaScript's rules (``_js``); the SDK only drops ``null`` fields of the response and of each
candidate, which JavaScript's ``?.`` and truthiness tests cannot tell from absent ones.
"""

from __future__ import annotations

import codecs
import itertools
import math
import time
from typing import Any

from pi_ai._messages import TextContent, ThinkingContent, ToolCall, Usage
from pi_ai._model import Model, calculate_cost
from pi_ai.api._accumulator import StreamAccumulator, StreamError
from pi_ai.api._js import UNDEFINED, as_text, get, item, iterate, nullish, opt, strict_equal, text, truthy
from pi_ai.js_json import JsonParseError, js_text, js_trim, parse, stringify

__all__ = ["GoogleApiError", "GoogleStreamReader", "GoogleStreamSplitter", "map_finish_reason", "raise_for_error_document"]

_tool_call_counter = itertools.count(1)
"""Process-wide, like Pi's module counter: ids stay unique across responses in one process."""

_ERROR_FINISH_REASONS = frozenset(
    {
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "SAFETY",
        "IMAGE_SAFETY",
        "IMAGE_PROHIBITED_CONTENT",
        "IMAGE_RECITATION",
        "IMAGE_OTHER",
        "RECITATION",
        "FINISH_REASON_UNSPECIFIED",
        "OTHER",
        "LANGUAGE",
        "MALFORMED_FUNCTION_CALL",
        "UNEXPECTED_TOOL_CALL",
        "NO_IMAGE",
    }
)


def map_finish_reason(reason: Any) -> str:
    if reason == "STOP":
        return "stop"
    if reason == "MAX_TOKENS":
        return "length"
    if reason in _ERROR_FINISH_REASONS:
        return "error"
    raise StreamError(f"Unhandled stop reason: {text(reason)}")


def _count(value: Any) -> int:
    """``value || 0`` for a token count; one that is not a whole number reads as 0."""
    if type(value) is int:
        return value
    return int(value) if type(value) is float and value.is_integer() else 0


class GoogleApiError(Exception):
    """The SDK's ``ApiError``: an HTTP (or in-stream) error status with the body as JSON text."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status




def _raise_for_error_chunk(text_: str) -> None:
    """The SDK's check of each network chunk: a JSON object with an ``error`` whose ``code``
    compares (as JavaScript compares) between 400 and 600 fails the stream."""
    if not js_trim(text_).startswith("{"):
        return  # cannot be a JSON object (the usual case: a chunk of "data: ..." lines)
    try:
        parsed = parse(text_)
    except JsonParseError:
        return
    raise_for_error_document(parsed)


def raise_for_error_document(parsed: Any) -> None:
    """The same check on one event's parsed data: Pi 1.6's SDK (``@google/genai`` 2.x) also
    checks each event, so an error event in the middle of a stream fails it there."""
    if type(parsed) is not dict or "error" not in parsed:
        return
    error = parsed["error"]
    if type(error) is not dict:
        return  # reading ``status`` fails or finds nothing: the SDK carries on
    code = _to_number(error.get("code"))
    if 400 <= code < 600:
        status = js_text(error["status"]) if "status" in error else "undefined"
        raise GoogleApiError(f"got status: {status}. {stringify(parsed)}", int(code))


def _to_number(value: Any) -> float:
    """JavaScript's ``ToNumber`` for a JSON value (``NaN`` when it reads as no number)."""
    if type(value) is bool:
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return float(value)
    if value is None:
        return 0.0
    if isinstance(value, list):
        return _to_number(js_text(value))
    if isinstance(value, str):
        trimmed = js_trim(value)
        if not trimmed:
            return 0.0
        if trimmed[:2] in ("0x", "0X", "0o", "0O", "0b", "0B"):
            try:
                return float(int(trimmed, 0))
            except ValueError:
                return math.nan
        if trimmed in ("Infinity", "+Infinity", "-Infinity"):
            return -math.inf if trimmed[0] == "-" else math.inf
        if "_" in trimmed or trimmed.lower().lstrip("+-") in ("inf", "infinity", "nan"):
            return math.nan  # spellings Python's float() takes and JavaScript does not
        try:
            return float(trimmed)
        except ValueError:
            return math.nan
    return math.nan


class GoogleStreamSplitter:
    """The SDK's reading of the body: events end at a blank line, only ``data:`` counts.

    Work is linear in the body: a chunk is only scanned for a delimiter together with the few
    characters before it, and buffered text is joined once, when its event is complete.
    """

    __slots__ = ("_decoder", "_parts", "_tail")

    _DELIMITERS = ("\n\n", "\r\r", "\r\n\r\n")
    _OVERLAP = 3
    """A delimiter can start this many characters before a chunk (``\\r\\n\\r`` + ``\\n``)."""

    def __init__(self) -> None:
        # TextDecoder semantics: a leading byte-order mark is dropped, bad bytes become U+FFFD.
        self._decoder = codecs.getincrementaldecoder("utf-8-sig")("replace")
        self._parts: list[str] = []
        self._tail = ""

    def feed(self, chunk: bytes) -> list[str]:
        """Take one network chunk; return the ``data`` payloads of the events it completed.

        The SDK first tries each chunk as a whole JSON document: an ``error`` object in it with
        an HTTP error ``code`` fails the stream (the API can answer 200 and then report an
        error that way)."""
        text_ = self._decoder.decode(chunk)
        _raise_for_error_chunk(text_)
        window = self._tail + text_
        if all(delimiter not in window for delimiter in self._DELIMITERS):
            self._parts.append(text_)
            self._tail = window[-self._OVERLAP :]
            return []
        buffer = "".join(self._parts) + text_
        payloads: list[str] = []
        start = 0
        # Next position of each delimiter at or after ``start`` (-1: none in this buffer), so
        # a delimiter the body never uses is looked for once, not once per event.
        found = [buffer.find(delimiter) for delimiter in self._DELIMITERS]
        while True:
            cut, width = -1, 0
            for position, delimiter in zip(found, self._DELIMITERS, strict=True):
                if position != -1 and (cut == -1 or position < cut):
                    cut, width = position, len(delimiter)
            if cut == -1:
                break
            event = js_trim(buffer[start:cut])
            start = cut + width
            if event.startswith("data:"):
                payloads.append(js_trim(event[5:]))
            for index, delimiter in enumerate(self._DELIMITERS):
                if found[index] != -1 and found[index] < start:
                    found[index] = buffer.find(delimiter, start)
        rest = buffer[start:]
        self._parts = [rest] if rest else []
        self._tail = rest[-self._OVERLAP :]
        return payloads

    def finish(self) -> None:
        rest = "".join(self._parts) + self._decoder.decode(b"", final=True)
        if js_trim(rest):
            raise StreamError("Incomplete JSON segment at the end")


class GoogleStreamReader:
    """Feed each parsed chunk to ``chunk``; ``finish`` closes the block still open."""

    __slots__ = ("_acc", "_current", "_has_response_id", "_model", "_seen_ids")

    def __init__(self, acc: StreamAccumulator, model: Model) -> None:
        self._acc = acc
        self._model = model
        self._current: int | None = None
        """Content index of the open text or thinking block."""
        self._seen_ids: list[Any] = []
        self._has_response_id = False
        """Whether the response id so far is truthy (``responseId ||= chunk.responseId``)."""

    def chunk(self, chunk: Any) -> None:
        if type(chunk) is not dict:
            return  # the SDK makes an empty response of anything but an object
        output = self._acc.output
        if not self._has_response_id:
            # ``responseId ||= chunk.responseId``: until an id is truthy, each chunk's value
            # (even an empty one, or none) replaces it.
            response_id = chunk.get("responseId", UNDEFINED)
            output.response_id = as_text(response_id, None)
            self._has_response_id = truthy(response_id)
        candidates = chunk.get("candidates", UNDEFINED)
        candidate = UNDEFINED if nullish(candidates) else item(candidates, 0)
        parts = opt(opt(candidate, "content"), "parts")
        if truthy(parts):
            for part in iterate(parts, "candidate.content.parts"):
                self._part(part)
        reason = opt(candidate, "finishReason")
        if truthy(reason):
            output.raw_stop_reason = text(reason)
            output.stop_reason = map_finish_reason(reason)  # type: ignore[assignment]
            if output.stop_reason == "stop" and any(isinstance(b, ToolCall) for b in output.content):
                output.stop_reason = "toolUse"
        metadata = chunk.get("usageMetadata", UNDEFINED)
        if truthy(metadata):
            self._usage(metadata)

    def _usage(self, metadata: Any) -> None:
        output = self._acc.output
        cached = _count(get(metadata, "cachedContentTokenCount"))
        thoughts = _count(get(metadata, "thoughtsTokenCount"))
        output.usage = Usage(
            input=_count(get(metadata, "promptTokenCount")) - cached,
            output=_count(get(metadata, "candidatesTokenCount")) + thoughts,
            cache_read=cached,
            cache_write=0,
            reasoning=thoughts,
            total_tokens=_count(get(metadata, "totalTokenCount")),
        )
        calculate_cost(self._model, output.usage)

    def _part(self, part: Any) -> None:
        value = get(part, "text")
        if value is not UNDEFINED:
            self._text_part(part, text(value))
        call = get(part, "functionCall")
        if truthy(call):
            self._function_call(part, call)

    def _text_part(self, part: Any, value: str) -> None:
        acc = self._acc
        thinking = get(part, "thought") is True
        index = self._current
        if index is None or thinking != isinstance(acc.output.content[index], ThinkingContent):
            self.finish()
            index = self._current = acc.open_thinking() if thinking else acc.open_text()
        block = acc.output.content[index]
        signature = get(part, "thoughtSignature")
        fresh = signature if isinstance(signature, str) and signature else None
        if isinstance(block, ThinkingContent):
            if fresh is not None:
                block.thinking_signature = fresh
            acc.thinking_delta(index, value)
        else:
            assert isinstance(block, TextContent)
            if fresh is not None:
                block.text_signature = fresh
            acc.text_delta(index, value)

    def _function_call(self, part: Any, call: Any) -> None:
        self.finish()
        acc = self._acc
        provided = get(call, "id")
        name = get(call, "name")
        if not truthy(provided) or any(strict_equal(seen, provided) for seen in self._seen_ids):
            assigned: Any = f"{text(name)}_{time.time_ns() // 1_000_000}_{next(_tool_call_counter)}"
        else:
            assigned = provided
        self._seen_ids.append(assigned)
        tool_call_id = text(assigned)
        args = get(call, "args")
        signature = get(part, "thoughtSignature")
        tool_call = ToolCall(
            id=tool_call_id,
            name=text(name) if truthy(name) else "",
            arguments=args if type(args) is dict else {},
            thought_signature=as_text(signature, None) if truthy(signature) else None,
        )
        index = acc.open_tool_call(tool_call, arguments_text=None)
        acc.tool_delta(index, stringify({} if nullish(args) else args))
        acc.end(index)

    def finish(self) -> None:
        """Close the open text or thinking block (a function call, or the end of the body)."""
        if self._current is not None:
            self._acc.end(self._current)
            self._current = None
