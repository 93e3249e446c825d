"""OpenAI Responses stream events -> Pi's events and message, read as Pi 0.85's
``processResponsesStream`` (and the OpenAI SDK under it) reads them.

Output items are tracked by ``output_index`` (several may stream at once); each becomes a
thinking, text or tool-call block. Provider failures (``error`` / ``response.failed`` events,
a missing terminal event, an unknown status) raise ``StreamError`` with Pi's text. Fields are
read with JavaScript's rules (``_js``). Shared by every Responses-shaped wire API.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pi_ai._messages import TextContent, ThinkingContent, ToolCall, Usage
from pi_ai._model import Model, calculate_cost
from pi_ai.api._accumulator import StreamAccumulator, StreamError
from pi_ai.api._completions_stream import SKIPPED, sdk_event_data
from pi_ai.api._constrained import GrammarInput
from pi_ai.api._js import UNDEFINED, JsTypeError, as_text, get, iterate, map_key, nullish, opt, text, truthy
from pi_ai.api._sse import SseEvent
from pi_ai.js_json import decoder, parse, stringify

__all__ = ["ResponsesStreamReader", "ServiceTierPricing"]

ServiceTierPricing = Callable[[Usage, Any], None]
_decode = decoder()


def _count(value: Any) -> int:
    """``value || 0`` for a token count; one that is not a whole number reads as 0."""
    if type(value) is int:
        return value
    return int(value) if type(value) is float and value.is_integer() else 0





class _Slot:
    __slots__ = ("custom", "index", "kind", "streams_json")

    def __init__(self, kind: str, index: int, custom: GrammarInput | None = None) -> None:
        self.kind = kind  # "thinking" | "text" | "toolCall"
        self.index = index
        self.custom = custom
        """A grammar tool's input, re-encoded as JSON argument deltas."""
        self.streams_json = kind == "toolCall" and custom is None
        """A function call whose argument JSON is still arriving (Pi's ``partialJson``)."""


def _streaming_json(value: Any) -> str:
    """Pi's ``parseStreamingJson(value)`` accepts text; anything else fails as in V8."""
    if isinstance(value, str) or not truthy(value):
        return value if isinstance(value, str) else ""
    raise JsTypeError("partialJson.trim is not a function")


def _joined(items: Any, key: str, expression: str, separator: str) -> str:
    """``items?.map((x) => x[key]).join(separator) || ""`` (null and undefined join as "")."""
    if nullish(items):
        return ""
    if type(items) is not list:
        raise JsTypeError(f"{expression} is not a function")
    return separator.join("" if nullish(value := get(part, key)) else text(value) for part in items)


class ResponsesStreamReader:
    """Feed each SSE event to ``handle``; ``finish`` after the body ends."""

    def __init__(
        self,
        acc: StreamAccumulator,
        model: Model,
        *,
        service_tier: Any = None,
        grammar_properties: Mapping[str, str] | None = None,
        apply_service_tier_pricing: ServiceTierPricing | None = None,
    ) -> None:
        self._acc = acc
        self._model = model
        self._service_tier = service_tier
        """The tier requested; the response's own ``service_tier`` wins for pricing."""
        self._grammar = grammar_properties or {}
        self._pricing = apply_service_tier_pricing
        self._slots: dict[tuple[str, Any], _Slot] = {}
        self._reasoning_by_id: dict[tuple[str, Any], int] = {}
        self._done = False
        self.saw_terminal = False

    # ------------------------------------------------------------------ the SDK layer

    def handle(self, sse: SseEvent) -> bool:
        """The OpenAI SDK's ``Stream`` (``sdk_event_data``): ``[DONE]`` ends the events."""
        if self._done:
            return False
        if sse.data == "[DONE]":
            self._done = True
            return False
        data = sdk_event_data(sse)
        if data is not SKIPPED:
            self.event(data)
        return False

    def finish(self) -> None:
        if not self.saw_terminal:
            raise StreamError("OpenAI Responses stream ended before a terminal response event")

    # ------------------------------------------------------------------ Pi's event switch

    def event(self, event: Any) -> None:
        kind = get(event, "type")
        if type(event) is not dict:
            return
        if kind in ("response.output_text.delta", "response.refusal.delta"):
            self._text_delta(event)  # by far the most frequent event
        elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            slot = self._slot(event, "thinking")
            if slot is not None:
                self._acc.thinking_delta(slot.index, text(event.get("delta", UNDEFINED)))
        elif kind == "response.reasoning_summary_part.done":
            slot = self._slot(event, "thinking")
            if slot is not None:
                self._acc.thinking_delta(slot.index, "\n\n")
        elif kind == "response.created":
            self._acc.output.response_id = as_text(get(event.get("response", UNDEFINED), "id"), None)
        elif kind == "response.output_item.added":
            self._create_slot(event.get("output_index", UNDEFINED), event.get("item", UNDEFINED))
        elif kind in ("response.function_call_arguments.delta", "response.function_call_arguments.done"):
            self._arguments(event, kind.endswith("done"))
        elif kind in ("response.custom_tool_call_input.delta", "response.custom_tool_call_input.done"):
            self._custom_input(event, kind.endswith("done"))
        elif kind == "response.output_item.done":
            self._item_done(event.get("output_index", UNDEFINED), event.get("item", UNDEFINED))
        elif kind in ("response.completed", "response.incomplete"):
            self._finalize(event.get("response", UNDEFINED))
        elif kind == "error":
            code, message = text(event.get("code", UNDEFINED)), text(event.get("message", UNDEFINED))
            raise StreamError(f"Error Code {code}: {message}")
        elif kind == "response.failed":
            self._failed(event.get("response", UNDEFINED))

    def _slot(self, event: dict[str, Any], kind: str) -> _Slot | None:
        slot = self._slots.get(map_key(event.get("output_index", UNDEFINED)))
        return slot if slot is not None and slot.kind == kind else None

    def _text_delta(self, event: dict[str, Any]) -> None:
        slot = self._slot(event, "text")
        if slot is not None:
            delta = event.get("delta", UNDEFINED)
            self._acc.text_delta(slot.index, delta if type(delta) is str else text(delta))

    def _create_slot(self, output_index: Any, item: Any) -> _Slot | None:
        kind = get(item, "type")
        acc = self._acc
        if kind == "reasoning":
            slot = _Slot("thinking", acc.open_thinking())
        elif kind == "message":
            self._apply_phase(item)
            slot = _Slot("text", acc.open_text())
        elif kind == "function_call":
            initial = get(item, "arguments")
            call = self._tool_call(item, {})
            slot = _Slot("toolCall", acc.open_tool_call(call, arguments_text=text(initial) if truthy(initial) else ""))
        elif kind == "custom_tool_call":
            prop = self._grammar.get(_name(item), "input")
            start = get(item, "input")
            call = self._tool_call(item, {prop: text(start) if truthy(start) else ""})
            slot = _Slot("toolCall", acc.open_tool_call(call, arguments_text=None), GrammarInput(prop))
        else:
            return None
        self._slots[map_key(output_index)] = slot
        return slot

    @staticmethod
    def _tool_call(item: Any, arguments: dict[str, Any]) -> ToolCall:
        namespace = get(item, "namespace")
        return ToolCall(
            id=f"{text(get(item, 'call_id'))}|{text(get(item, 'id'))}",
            name=_name(item),
            arguments=arguments,
            namespace=as_text(namespace, None),
        )

    def _apply_phase(self, item: Any) -> None:
        if get(item, "type") == "message" and get(item, "phase") == "final_answer":
            self._acc.output.stop_reason = "stop"

    # ------------------------------------------------------------------ tool-call input

    def _arguments(self, event: dict[str, Any], done: bool) -> None:
        slot = self._slot(event, "toolCall")
        if slot is None or not slot.streams_json:
            return
        acc = self._acc
        if not done:
            delta = event.get("delta", UNDEFINED)
            acc.arguments_delta(slot.index, text(delta), announce=delta is not UNDEFINED)
            return
        previous = acc.arguments_text(slot.index)
        full = event.get("arguments", UNDEFINED)
        _streaming_json(full)
        if not isinstance(full, str):
            acc.restart_arguments(slot.index, "")  # Pi has parsed the missing text as {}
            if nullish(full):
                raise JsTypeError(
                    f"Cannot read properties of {'null' if full is None else 'undefined'} (reading 'startsWith')"
                )
            raise JsTypeError("event.arguments.startsWith is not a function")
        if full.startswith(previous):
            rest = full[len(previous) :]
            acc.arguments_delta(slot.index, rest, announce=bool(rest))
        else:
            acc.restart_arguments(slot.index, full)

    def _custom_input(self, event: dict[str, Any], done: bool) -> None:
        slot = self._slot(event, "toolCall")
        if slot is None or slot.custom is None:
            return
        if done:
            next_input = event.get("input", UNDEFINED)
        else:
            next_input = self._current_input(slot) + text(event.get("delta", UNDEFINED))
        self._append_input(slot, next_input, done)

    def _current_input(self, slot: _Slot) -> str:
        call = self._acc.output.content[slot.index]
        assert isinstance(call, ToolCall) and slot.custom is not None
        value = call.arguments.get(slot.custom.prop)
        return value if isinstance(value, str) else ""

    def _append_input(self, slot: _Slot, next_input: Any, close: bool) -> None:
        assert slot.custom is not None
        delta = slot.custom.append(next_input, close)
        call = self._acc.output.content[slot.index]
        assert isinstance(call, ToolCall)
        call.arguments = {slot.custom.prop: next_input}
        if delta is not None:
            self._acc.tool_delta(slot.index, delta)

    # ------------------------------------------------------------------ finished items

    def _item_done(self, output_index: Any, item: Any) -> None:
        self._apply_phase(item)
        key = map_key(output_index)
        slot = self._slots.get(key) or self._create_slot(output_index, item)
        if slot is None:
            return
        kind = get(item, "type")
        if kind == "reasoning" and slot.kind == "thinking":
            self._reasoning_done(slot, item)
        elif kind == "message" and slot.kind == "text":
            self._message_done(slot, item)
        elif kind == "function_call" and slot.streams_json:
            arguments = get(item, "arguments")
            streamed = self._acc.arguments_text(slot.index)
            final = _streaming_json(arguments if truthy(arguments) else (streamed or "{}"))
            if final != streamed:
                self._acc.restart_arguments(slot.index, final)
            self._set_namespace(slot, item)
            slot.streams_json = False
        elif kind == "custom_tool_call" and slot.custom is not None:
            final_input = get(item, "input")
            self._append_input(slot, self._current_input(slot) if nullish(final_input) else final_input, True)
            self._set_namespace(slot, item)
            slot.custom = None
            self._acc.finish_arguments(slot.index)
        else:
            return
        self._acc.end(slot.index)
        del self._slots[key]

    def _reasoning_done(self, slot: _Slot, item: Any) -> None:
        acc = self._acc
        acc.flush_block(slot.index)
        block = acc.output.content[slot.index]
        assert isinstance(block, ThinkingContent)
        summary = _joined(opt(item, "summary"), "text", "item.summary?.map", "\n\n")
        content = _joined(opt(item, "content"), "text", "item.content?.map", "\n\n")
        block.thinking = summary or content or block.thinking
        block.thinking_signature = stringify(item)
        self._reasoning_by_id[map_key(get(item, "id"))] = slot.index

    def _message_done(self, slot: _Slot, item: Any) -> None:
        acc = self._acc
        acc.flush_block(slot.index)
        block = acc.output.content[slot.index]
        assert isinstance(block, TextContent)
        parts = opt(item, "content")
        if nullish(parts):
            block.text = ""
        elif type(parts) is not list:
            raise JsTypeError("item.content?.map is not a function")
        else:
            pieces = (get(part, "text") if get(part, "type") == "output_text" else get(part, "refusal") for part in parts)
            block.text = "".join("" if nullish(piece) else text(piece) for piece in pieces)
        signature: dict[str, Any] = {"v": 1}
        item_id, phase = get(item, "id"), get(item, "phase")
        if item_id is not UNDEFINED:
            signature["id"] = item_id
        if truthy(phase):
            signature["phase"] = phase
        block.text_signature = stringify(signature)

    def _set_namespace(self, slot: _Slot, item: Any) -> None:
        namespace = get(item, "namespace")
        if namespace is not UNDEFINED:
            call = self._acc.output.content[slot.index]
            assert isinstance(call, ToolCall)
            call.namespace = as_text(namespace, None)

    # ------------------------------------------------------------------ the terminal events

    def _finalize(self, response: Any) -> None:
        self.saw_terminal = True
        output = self._acc.output
        items = get(response, "output")
        self._backfill_reasoning(iterate([] if nullish(items) else items, "responseOutput"))
        response_id = opt(response, "id")
        if truthy(response_id):
            output.response_id = as_text(response_id)
        usage = opt(response, "usage")
        if truthy(usage):
            output.usage = _usage(usage)
        calculate_cost(self._model, output.usage)
        if self._pricing is not None:
            tier = opt(response, "service_tier")
            self._pricing(output.usage, self._service_tier if nullish(tier) else tier)
        status = opt(response, "status")
        reason = opt(opt(response, "incomplete_details"), "reason")
        reason = reason if isinstance(reason, str) else None
        raw = f"{text(status)}.{reason}" if reason else status
        output.raw_stop_reason = as_text(raw, None)
        stop_reason, error_message = _map_status(status, reason)
        output.stop_reason = stop_reason  # type: ignore[assignment]
        output.error_message = error_message
        if stop_reason == "stop" and any(isinstance(block, ToolCall) for block in output.content):
            output.stop_reason = "toolUse"

    def _backfill_reasoning(self, items: list[Any]) -> None:
        """Some backends (Azure) send ``encrypted_content`` only in the final response."""
        for item in items:
            if get(item, "type") != "reasoning" or not truthy(encrypted := get(item, "encrypted_content")):
                continue
            index = self._reasoning_by_id.get(map_key(get(item, "id")))
            block = self._acc.output.content[index] if index is not None else None
            if not isinstance(block, ThinkingContent) or not block.thinking_signature:
                continue
            stored = parse(block.thinking_signature)
            if truthy(get(stored, "encrypted_content")):
                continue
            block.thinking_signature = stringify({**stored, "encrypted_content": encrypted})

    def _failed(self, response: Any) -> None:
        self.saw_terminal = True
        output = self._acc.output
        status = opt(response, "status")
        output.raw_stop_reason = as_text(status, None)
        error = opt(response, "error")
        reason = opt(opt(response, "incomplete_details"), "reason")
        if truthy(error):
            code, message = get(error, "code"), get(error, "message")
            raise StreamError(
                f"{text(code) if truthy(code) else 'unknown'}: {text(message) if truthy(message) else 'no message'}"
            )
        if truthy(reason):
            raise StreamError(f"incomplete: {text(reason)}")
        raise StreamError("Unknown error (no error details in response)")


def _name(item: Any) -> str:
    return str(as_text(get(item, "name")))


def _usage(usage: Any) -> Usage:
    """OpenAI counts cached and cache-write tokens inside ``input_tokens``: both are taken out."""
    details = get(usage, "input_tokens_details")
    cached = _count(opt(details, "cached_tokens"))
    cache_write = _count(opt(details, "cache_write_tokens"))
    return Usage(
        input=max(0, _count(get(usage, "input_tokens")) - cached - cache_write),
        output=_count(get(usage, "output_tokens")),
        cache_read=cached,
        cache_write=cache_write,
        reasoning=_count(opt(get(usage, "output_tokens_details"), "reasoning_tokens")),
        total_tokens=_count(get(usage, "total_tokens")),
    )


def _map_status(status: Any, incomplete_reason: str | None) -> tuple[str, str | None]:
    if not truthy(status) or status in ("completed", "in_progress", "queued"):
        return "stop", None
    if status == "incomplete":
        if incomplete_reason == "max_output_tokens":
            return "length", None
        if incomplete_reason:
            return "error", f"Response incomplete: {incomplete_reason}"
        return "error", "Response incomplete without a provider reason"
    if status in ("failed", "cancelled"):
        return "error", None
    raise StreamError(f"Unhandled stop reason: {text(status)}")
