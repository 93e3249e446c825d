"""Anthropic Messages SSE events -> Pi's events and message, read as Pi 0.85 reads them.

Blocks are found as Pi finds them: the first content block whose SSE ``index`` equals the
event's (``===``), where a closed block has lost its index (so an event without one lands on
the first closed block, as in Pi). Fields are read with JavaScript's rules (``_js``): a
wrong-typed field makes the event a no-op or ends the stream with V8's ``TypeError`` text,
whichever Pi does.
"""

from __future__ import annotations

from typing import Any, NoReturn

import msgspec

from pi_ai._context import Context
from pi_ai._messages import TextContent, ThinkingContent, ToolCall
from pi_ai._model import Model, ModelCost, calculate_cost
from pi_ai._partial_json import repair_json
from pi_ai._transcript import request_tools
from pi_ai.api._accumulator import StreamAccumulator, StreamError
from pi_ai.api._anthropic_payload import anthropic_compat, from_claude_code_name
from pi_ai.api._js import UNDEFINED, as_text, get, nullish, opt, strict_equal, text, truthy
from pi_ai.api._openrouter_cost import apply_openrouter_cost, is_openrouter_model
from pi_ai.api._sse import SseEvent
from pi_ai.js_json import JsonParseError, decoder, parse

__all__ = ["AnthropicStreamReader"]

_MESSAGE_EVENTS = frozenset(
    {
        "message_start",
        "message_delta",
        "message_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
    }
)
_DELTA_KINDS = frozenset({"text_delta", "input_json_delta", "thinking_delta", "signature_delta"})
_decode = decoder()
_CLOSED: Any = UNDEFINED
"""The SSE index of a block once ``content_block_stop`` removed it (Pi deletes the field)."""


def _count(value: Any) -> int:
    """``value || 0`` for a token count; a count that is not a whole number reads as 0."""
    if type(value) is int:
        return value
    return int(value) if type(value) is float and value.is_integer() else 0


def map_stop_reason(reason: Any, details: Any) -> tuple[str, str | None]:
    if reason in ("end_turn", "pause_turn", "stop_sequence"):
        return "stop", None
    if reason == "max_tokens":
        return "length", None
    if reason == "tool_use":
        return "toolUse", None
    if reason == "refusal":
        explanation = opt(details, "explanation")
        return "error", text(explanation) if truthy(explanation) else "The model refused to complete the request"
    if reason == "sensitive":
        return "error", "Provider stopped with: sensitive"
    raise StreamError(f"Unhandled stop reason: {text(reason)}")


class AnthropicStreamReader:
    """Feed each SSE event to ``handle``; ``finish`` after the body ends."""

    __slots__ = (
        "_acc",
        "_by_int_index",
        "_context",
        "_index",
        "_model",
        "_oauth",
        "_saw_start",
        "_saw_stop",
        "_usage_model",
        "transformations",
    )

    def __init__(self, acc: StreamAccumulator, model: Model, context: Context, *, oauth: bool) -> None:
        self._acc = acc
        self._model = model
        self._usage_model = model
        self._context = context
        self._oauth = oauth
        self._index: list[Any] = []
        """The SSE ``index`` of each content block (``_CLOSED`` once stopped)."""
        self._by_int_index: dict[int, list[int]] = {}
        """Integer SSE index -> positions of the open blocks carrying it (the common case)."""
        self._saw_start = False
        self._saw_stop = False
        self.transformations: list[Any] | None = None
        """Anthropic's ``input_transformations``, when it reported any."""

    # ------------------------------------------------------------------ the SSE layer

    def handle(self, sse: SseEvent) -> bool:
        name = sse.event
        if name not in _MESSAGE_EVENTS:
            if name == "error":
                raise StreamError(sse.data)
            return False
        try:
            event = _decode(sse.data)
        except (ValueError, RecursionError):  # JSON.parse's verdict and Pi's repair decide
            event = self._parsed_slowly(sse)
        if type(event) is not dict:
            if event is None:  # reading ``event.type`` fails inside Pi's parsing step
                self._unparsable(sse, "Cannot read properties of null (reading 'type')")
            return False  # a JSON value without properties: every ``event.type ===`` test fails
        kind = event.get("type")
        if kind == "content_block_delta":
            # Text and argument deltas of an open block, inline: most events are these
            # (bench/stream_parse.py); anything unusual takes ``_block_delta``.
            delta, index = event.get("delta"), event.get("index")
            if type(delta) is dict and type(index) is int and (positions := self._by_int_index.get(index)):
                position = positions[0]
                block_type = type(self._acc.output.content[position])
                kind = delta.get("type")
                if kind == "text_delta" and block_type is TextContent and type(value := delta.get("text")) is str:
                    self._acc.text_delta(position, value)
                    return False
                if (
                    kind == "input_json_delta"
                    and block_type is ToolCall
                    and type(value := delta.get("partial_json")) is str
                ):
                    self._acc.arguments_delta(position, value)
                    return False
            self._block_delta(event)
        elif kind == "message_start":
            self._saw_start = True
            self._message_start(event)
        elif kind == "content_block_start":
            self._block_start(event)
        elif kind == "content_block_stop":
            self._block_stop(event)
        elif kind == "message_delta":
            self._message_delta(event)
        elif kind == "message_stop":
            self._saw_stop = True
        return False

    def _parsed_slowly(self, sse: SseEvent) -> Any:
        """Pi's ``parseJsonWithRepair``: ``JSON.parse``, then the text again with raw control
        characters escaped."""
        try:
            return parse(sse.data)
        except JsonParseError as failure:
            error = failure
        repaired = repair_json(sse.data)
        if repaired == sse.data:
            self._unparsable(sse, str(error))
        try:
            return parse(repaired)
        except JsonParseError as again:
            self._unparsable(sse, str(again))

    @staticmethod
    def _unparsable(sse: SseEvent, reason: str) -> NoReturn:
        raw = "\\n".join(sse.raw)
        raise StreamError(f"Could not parse Anthropic SSE event {sse.event}: {reason}; data={sse.data}; raw={raw}")

    def finish(self) -> None:
        if self._saw_start and not self._saw_stop:
            raise StreamError("Anthropic stream ended before message_stop")

    # ------------------------------------------------------------------ blocks by SSE index

    def _find(self, index: Any) -> int:
        """``blocks.findIndex((b) => b.index === index)``."""
        if type(index) is int:
            positions = self._by_int_index.get(index)
            return positions[0] if positions else -1
        for position, candidate in enumerate(self._index):
            if strict_equal(candidate, index):
                return position
        return -1

    def _opened(self, position: int, index: Any) -> None:
        self._index.append(index)
        if type(index) is int:
            self._by_int_index.setdefault(index, []).append(position)

    def _closed(self, position: int) -> None:
        index = self._index[position]
        if type(index) is int:
            self._by_int_index[index].remove(position)
        self._index[position] = _CLOSED

    # ------------------------------------------------------------------ events

    def _block_delta(self, event: dict[str, Any]) -> None:
        delta = event.get("delta", UNDEFINED)
        if type(delta) is not dict:
            get(delta, "type")  # null and undefined fail as in Pi; other values have no ``type``
            return
        kind = delta.get("type")
        if kind not in _DELTA_KINDS:
            return
        index = event.get("index", UNDEFINED)
        positions = self._by_int_index.get(index) if type(index) is int else None  # the usual case
        position = positions[0] if positions else self._find(index)
        if position < 0:
            return
        acc = self._acc
        block = acc.output.content[position]
        if kind == "text_delta":
            if type(block) is TextContent:
                value = delta.get("text", UNDEFINED)
                acc.text_delta(position, value if type(value) is str else text(value))
        elif kind == "input_json_delta":
            if type(block) is ToolCall:
                value = delta.get("partial_json", UNDEFINED)
                acc.arguments_delta(position, value if type(value) is str else text(value))
        elif type(block) is ThinkingContent:
            if kind == "thinking_delta":
                acc.thinking_delta(position, text(delta.get("thinking", UNDEFINED)))
            else:  # signature_delta
                block.thinking_signature = (block.thinking_signature or "") + text(delta.get("signature", UNDEFINED))

    def _message_start(self, event: dict[str, Any]) -> None:
        output = self._acc.output
        message = event.get("message", UNDEFINED)
        output.response_id = as_text(get(message, "id"), None)
        transformations = get(message, "input_transformations")
        if type(transformations) is list:
            self.transformations = transformations
        # Pi 1.6 keeps the requested id in ``model`` and records the model that answered, when
        # another one did (an allowed fallback), as ``responseModel`` (0.85 overwrote ``model``).
        answered = as_text(get(message, "model"), None)
        if answered is not None and answered != self._model.id:
            output.response_model = answered
        self._usage_model = self._fallback_model(answered if answered is not None else self._model.id)
        usage = get(message, "usage")
        counts = output.usage
        counts.input = _count(get(usage, "input_tokens"))
        counts.output = _count(get(usage, "output_tokens"))
        counts.cache_read = _count(get(usage, "cache_read_input_tokens"))
        counts.cache_write = _count(get(usage, "cache_creation_input_tokens"))
        counts.cache_write_1h = _count(opt(get(usage, "cache_creation"), "ephemeral_1h_input_tokens"))
        self._total()

    def _fallback_model(self, response_model: str) -> Model:
        """The model to price usage with: an allowed fallback's own cost when Anthropic
        answered with another model."""
        model = self._model
        if response_model == model.id:
            return model
        for fallback in anthropic_compat(model).allowed_fallback_models:
            if fallback.get("provider") == model.provider and fallback.get("model") == response_model:
                cost = fallback.get("cost")
                if cost:
                    return msgspec.structs.replace(model, id=response_model, cost=msgspec.convert(cost, ModelCost))
                break
        return model

    def _total(self) -> None:
        usage = self._acc.output.usage
        usage.total_tokens = usage.input + usage.output + usage.cache_read + usage.cache_write
        calculate_cost(self._usage_model, usage)

    def _block_start(self, event: dict[str, Any]) -> None:
        block = event.get("content_block", UNDEFINED)
        kind = get(block, "type")
        acc = self._acc
        if kind == "fallback":
            if acc.output.content:
                raise StreamError("Anthropic performed an unsupported mid-output model fallback")
            return
        if kind == "text":
            position = acc.open_text(_text_or_empty(get(block, "text")))
        elif kind == "thinking":
            signature = get(block, "signature")
            position = acc.open_thinking(
                _text_or_empty(get(block, "thinking")), "" if nullish(signature) else text(signature)
            )
        elif kind == "redacted_thinking":
            position = acc.open_thinking("[Reasoning redacted]", as_text(get(block, "data"), None), redacted=True)
        elif kind == "tool_use":
            position = acc.open_tool_call(self._tool_call(block))
        else:
            return
        self._opened(position, event.get("index", UNDEFINED))

    def _tool_call(self, block: Any) -> ToolCall:
        name = as_text(get(block, "name"))
        arguments = get(block, "input")
        return ToolCall(
            id=as_text(get(block, "id")),
            name=from_claude_code_name(name, request_tools(self._context)) if self._oauth else name,
            arguments=arguments if type(arguments) is dict else {},
        )

    def _block_stop(self, event: dict[str, Any]) -> None:
        position = self._find(event.get("index", UNDEFINED))
        if position < 0:
            return
        self._closed(position)
        self._acc.end(position)

    def _message_delta(self, event: dict[str, Any]) -> None:
        output = self._acc.output
        transformations = event.get("input_transformations")
        if type(transformations) is list:
            self.transformations = transformations
        delta = event.get("delta", UNDEFINED)
        reason = get(delta, "stop_reason")
        if truthy(reason):
            output.raw_stop_reason = text(reason)
            stop_reason, message = map_stop_reason(reason, get(delta, "stop_details"))
            output.stop_reason = stop_reason  # type: ignore[assignment]
            if message:
                output.error_message = message
        usage = event.get("usage", UNDEFINED)
        if truthy(usage):
            self._update_usage(usage)
        self._total()
        if truthy(usage) and is_openrouter_model(self._model):
            apply_openrouter_cost(output.usage, usage)  # OpenRouter bills in message_delta's usage

    def _update_usage(self, usage: Any) -> None:
        """Only the counts present (not null): proxies may leave out the input count."""
        counts = self._acc.output.usage
        for key, attribute in (
            ("input_tokens", "input"),
            ("output_tokens", "output"),
            ("cache_read_input_tokens", "cache_read"),
            ("cache_creation_input_tokens", "cache_write"),
        ):
            value = get(usage, key)
            if not nullish(value):
                setattr(counts, attribute, _count(value))
        thinking = opt(get(usage, "output_tokens_details"), "thinking_tokens")
        if not nullish(thinking):
            counts.reasoning = _count(thinking)


def _text_or_empty(value: Any) -> str:
    """``value ?? ""`` for a text field."""
    return "" if nullish(value) else text(value)
