"""OpenAI Responses stream events -> Pi's assistant-message events, as Pi 0.85 maps them.

``ResponsesStreamProcessor.handle`` takes each parsed SSE event (a dict) in order and
updates the live output message; ``finish`` checks that a terminal ``response.*`` event was
seen. Provider failures (``error`` / ``response.failed`` events, a missing terminal event,
an unknown status) raise ``ResponsesStreamError`` for the caller to turn into an ``error``
event. Output items are tracked by ``output_index``: several may stream at once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pi_ai._event_stream import AssistantMessageEventStream
from pi_ai._events import (
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
from pi_ai._messages import AssistantMessage, TextContent, ThinkingContent, ToolCall, Usage
from pi_ai._model import Model, calculate_cost
from pi_ai._partial_json import PartialJson, parse_streaming_json
from pi_ai.api._constrained import GrammarInput
from pi_ai.js_json import js_field, js_text, stringify


class ResponsesStreamError(Exception):
    """The provider reported a failure inside the stream; the message is Pi's text for it."""


@dataclass(slots=True)
class _Slot:
    kind: str  # "thinking" | "text" | "toolCall"
    block: TextContent | ThinkingContent | ToolCall
    content_index: int
    arguments: PartialJson | None = None
    """Argument JSON of a function call while it streams, parsed incrementally."""
    custom_property: str | None = None
    custom_buffer: GrammarInput | None = None
    """Input of a grammar (custom) tool call, re-encoded as JSON argument deltas."""


def _js_text(value: Any) -> str:
    """What ``Array.prototype.join`` writes for one element (null and undefined are empty)."""
    return "" if value is None else js_text(value)


def _count(value: Any) -> int:
    """``value || 0`` for a token count (an integral float counts as the integer)."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, float):
        return int(value) if value.is_integer() else 0
    return value if isinstance(value, int) else 0


ServiceTierPricing = Callable[[Usage, Any], None]


@dataclass(slots=True)
class ResponsesStreamProcessor:
    output: AssistantMessage
    stream: AssistantMessageEventStream
    model: Model
    service_tier: Any = None
    """The tier requested; the response's own ``service_tier`` wins for pricing."""
    grammar_input_properties: Mapping[str, str] = field(default_factory=dict)
    apply_service_tier_pricing: ServiceTierPricing | None = None
    saw_terminal: bool = False
    _slots: dict[Any, _Slot] = field(default_factory=dict)
    _reasoning_by_id: dict[Any, ThinkingContent] = field(default_factory=dict)

    # ------------------------------------------------------------------ helpers

    def _slot(self, output_index: Any, kind: str) -> _Slot | None:
        slot = self._slots.get(output_index)
        return slot if slot is not None and slot.kind == kind else None

    def _apply_phase(self, item: Mapping[str, Any]) -> None:
        if item.get("type") == "message" and item.get("phase") == "final_answer":
            self.output.stop_reason = "stop"

    def _push_tool_delta(self, slot: _Slot, delta: str | None) -> None:
        if delta is not None:
            self.stream.push(
                ToolCallDeltaEvent(content_index=slot.content_index, delta=delta, partial=self.output)
            )

    def _create_slot(self, output_index: Any, item: Mapping[str, Any]) -> _Slot | None:
        content = self.output.content
        kind = item.get("type")
        slot: _Slot
        if kind == "reasoning":
            block: TextContent | ThinkingContent | ToolCall = ThinkingContent(thinking="")
            content.append(block)
            slot = _Slot("thinking", block, len(content) - 1)
            self._slots[output_index] = slot
            self.stream.push(ThinkingStartEvent(content_index=slot.content_index, partial=self.output))
            return slot
        if kind == "message":
            self._apply_phase(item)
            block = TextContent(text="")
            content.append(block)
            slot = _Slot("text", block, len(content) - 1)
            self._slots[output_index] = slot
            self.stream.push(TextStartEvent(content_index=slot.content_index, partial=self.output))
            return slot
        if kind == "function_call":
            call = ToolCall(
                id=f"{js_field(item, 'call_id')}|{js_field(item, 'id')}",
                name=item.get("name") or "",
                arguments={},
                namespace=item.get("namespace"),
            )
            content.append(call)
            arguments = PartialJson()
            initial = item.get("arguments")
            if initial:
                arguments.feed(js_text(initial))
            slot = _Slot("toolCall", call, len(content) - 1, arguments=arguments)
            self._slots[output_index] = slot
            self.stream.push(ToolCallStartEvent(content_index=slot.content_index, partial=self.output))
            return slot
        if kind == "custom_tool_call":
            name = item.get("name") or ""
            prop = self.grammar_input_properties.get(name, "input")
            call = ToolCall(
                id=f"{js_field(item, 'call_id')}|{js_field(item, 'id')}",
                name=name,
                arguments={prop: item.get("input") or ""},
                namespace=item.get("namespace"),
            )
            content.append(call)
            slot = _Slot(
                "toolCall", call, len(content) - 1, custom_property=prop, custom_buffer=GrammarInput(prop)
            )
            self._slots[output_index] = slot
            self.stream.push(ToolCallStartEvent(content_index=slot.content_index, partial=self.output))
            return slot
        return None

    def _custom_input(self, slot: _Slot) -> str:
        assert isinstance(slot.block, ToolCall) and slot.custom_property is not None
        value = slot.block.arguments.get(slot.custom_property)
        return value if isinstance(value, str) else ""

    def _append_custom_input(self, slot: _Slot, next_input: str, close: bool) -> str | None:
        assert isinstance(slot.block, ToolCall)
        if slot.custom_buffer is None or slot.custom_property is None:
            return None
        delta = slot.custom_buffer.append(next_input, close)
        slot.block.arguments = {slot.custom_property: next_input}
        return delta

    # ------------------------------------------------------------------ events

    def handle(self, event: Mapping[str, Any]) -> None:
        kind = event.get("type")
        output = self.output
        # Text deltas are by far the most frequent event: test them first.
        if kind in ("response.output_text.delta", "response.refusal.delta"):
            slot = self._slot(event.get("output_index"), "text")
            if slot is not None:
                delta = js_field(event, "delta")
                assert isinstance(slot.block, TextContent)
                slot.block.text += delta
                self.stream.push(
                    TextDeltaEvent(content_index=slot.content_index, delta=delta, partial=output)
                )
        elif kind == "response.created":
            output.response_id = (event.get("response") or {}).get("id")
        elif kind == "response.output_item.added":
            self._create_slot(event.get("output_index"), event.get("item") or {})
        elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            slot = self._slot(event.get("output_index"), "thinking")
            if slot is not None:
                delta = js_field(event, "delta")
                assert isinstance(slot.block, ThinkingContent)
                slot.block.thinking += delta
                self.stream.push(
                    ThinkingDeltaEvent(content_index=slot.content_index, delta=delta, partial=output)
                )
        elif kind == "response.reasoning_summary_part.done":
            slot = self._slot(event.get("output_index"), "thinking")
            if slot is not None:
                assert isinstance(slot.block, ThinkingContent)
                slot.block.thinking += "\n\n"
                self.stream.push(
                    ThinkingDeltaEvent(content_index=slot.content_index, delta="\n\n", partial=output)
                )
        elif kind == "response.function_call_arguments.delta":
            slot = self._slot(event.get("output_index"), "toolCall")
            if slot is not None and slot.arguments is not None:
                assert isinstance(slot.block, ToolCall)
                delta = js_field(event, "delta")
                slot.block.arguments = slot.arguments.feed(delta)
                self._push_tool_delta(slot, delta)
        elif kind == "response.function_call_arguments.done":
            slot = self._slot(event.get("output_index"), "toolCall")
            if slot is not None and slot.arguments is not None:
                assert isinstance(slot.block, ToolCall)
                previous = slot.arguments.text
                full = _js_text(event.get("arguments"))
                if full.startswith(previous):
                    slot.block.arguments = slot.arguments.feed(full[len(previous) :])
                    if len(full) > len(previous):
                        self._push_tool_delta(slot, full[len(previous) :])
                else:
                    slot.arguments = PartialJson()
                    slot.block.arguments = slot.arguments.feed(full)
        elif kind == "response.custom_tool_call_input.delta":
            slot = self._slot(event.get("output_index"), "toolCall")
            if slot is not None and slot.custom_buffer is not None:
                next_input = self._custom_input(slot) + _js_text(event.get("delta"))
                self._push_tool_delta(slot, self._append_custom_input(slot, next_input, False))
        elif kind == "response.custom_tool_call_input.done":
            slot = self._slot(event.get("output_index"), "toolCall")
            if slot is not None and slot.custom_buffer is not None:
                self._push_tool_delta(
                    slot, self._append_custom_input(slot, _js_text(event.get("input")), True)
                )
        elif kind == "response.output_item.done":
            self._item_done(event.get("output_index"), event.get("item") or {})
        elif kind in ("response.completed", "response.incomplete"):
            self._finalize(event.get("response") or {})
        elif kind == "error":
            raise ResponsesStreamError(f"Error Code {js_field(event, 'code')}: {js_field(event, 'message')}")
        elif kind == "response.failed":
            self.saw_terminal = True
            response = event.get("response") or {}
            output.raw_stop_reason = response.get("status")
            error = response.get("error")
            details = response.get("incomplete_details") or {}
            if error:
                message = f"{js_text(error.get('code') or 'unknown')}: {js_text(error.get('message') or 'no message')}"
            elif details.get("reason"):
                message = f"incomplete: {js_text(details['reason'])}"
            else:
                message = "Unknown error (no error details in response)"
            raise ResponsesStreamError(message)

    def _item_done(self, output_index: Any, item: Mapping[str, Any]) -> None:
        self._apply_phase(item)
        slot = self._slots.get(output_index) or self._create_slot(output_index, item)
        kind = item.get("type")
        output = self.output
        if slot is None:
            return
        if kind == "reasoning" and slot.kind == "thinking":
            assert isinstance(slot.block, ThinkingContent)
            summary = "\n\n".join(_js_text(part.get("text")) for part in item.get("summary") or [])
            content = "\n\n".join(_js_text(part.get("text")) for part in item.get("content") or [])
            slot.block.thinking = summary or content or slot.block.thinking
            slot.block.thinking_signature = stringify(item)
            self._reasoning_by_id[item.get("id")] = slot.block
            self.stream.push(
                ThinkingEndEvent(
                    content_index=slot.content_index, content=slot.block.thinking, partial=output
                )
            )
            del self._slots[output_index]
        elif kind == "message" and slot.kind == "text":
            assert isinstance(slot.block, TextContent)
            slot.block.text = "".join(
                _js_text(part.get("text") if part.get("type") == "output_text" else part.get("refusal"))
                for part in item.get("content") or []
            )
            signature: dict[str, Any] = {"v": 1}
            if item.get("id") is not None:
                signature["id"] = item["id"]
            if item.get("phase"):
                signature["phase"] = item["phase"]
            slot.block.text_signature = stringify(signature)
            self.stream.push(
                TextEndEvent(content_index=slot.content_index, content=slot.block.text, partial=output)
            )
            del self._slots[output_index]
        elif kind == "function_call" and slot.kind == "toolCall" and slot.arguments is not None:
            assert isinstance(slot.block, ToolCall)
            final_text = _js_text(item.get("arguments")) or slot.arguments.text or "{}"
            slot.block.arguments = parse_streaming_json(final_text)
            if item.get("namespace") is not None:
                slot.block.namespace = item["namespace"]
            slot.arguments = None
            self.stream.push(
                ToolCallEndEvent(content_index=slot.content_index, tool_call=slot.block, partial=output)
            )
            del self._slots[output_index]
        elif kind == "custom_tool_call" and slot.kind == "toolCall" and slot.custom_buffer is not None:
            assert isinstance(slot.block, ToolCall)
            final_input = item.get("input")
            self._push_tool_delta(
                slot,
                self._append_custom_input(
                    slot, _js_text(final_input) if final_input is not None else self._custom_input(slot), True
                ),
            )
            if item.get("namespace") is not None:
                slot.block.namespace = item["namespace"]
            slot.custom_buffer = None
            self.stream.push(
                ToolCallEndEvent(content_index=slot.content_index, tool_call=slot.block, partial=output)
            )
            del self._slots[output_index]

    def _backfill_reasoning(self, items: list[Any]) -> None:
        """Some backends (Azure) send ``encrypted_content`` only in the final response."""
        for item in items:
            if (
                not isinstance(item, dict)
                or item.get("type") != "reasoning"
                or not item.get("encrypted_content")
            ):
                continue
            block = self._reasoning_by_id.get(item.get("id"))
            if block is None or not block.thinking_signature:
                continue
            stored = json.loads(block.thinking_signature)
            if not isinstance(stored, dict) or stored.get("encrypted_content"):
                continue
            stored["encrypted_content"] = item["encrypted_content"]
            block.thinking_signature = stringify(stored)

    def _finalize(self, response: Mapping[str, Any]) -> None:
        self.saw_terminal = True
        output = self.output
        self._backfill_reasoning(response.get("output") or [])
        if response.get("id"):
            output.response_id = response["id"]
        usage = response.get("usage")
        if usage:
            details = usage.get("input_tokens_details") or {}
            cached = _count(details.get("cached_tokens"))
            cache_write = _count(details.get("cache_write_tokens"))
            output.usage = Usage(
                input=max(0, _count(usage.get("input_tokens")) - cached - cache_write),
                output=_count(usage.get("output_tokens")),
                cache_read=cached,
                cache_write=cache_write,
                reasoning=_count((usage.get("output_tokens_details") or {}).get("reasoning_tokens")),
                total_tokens=_count(usage.get("total_tokens")),
            )
        calculate_cost(self.model, output.usage)
        if self.apply_service_tier_pricing is not None:
            tier = response.get("service_tier")
            self.apply_service_tier_pricing(output.usage, tier if tier is not None else self.service_tier)
        status = response.get("status")
        details = response.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, dict) else None
        reason = reason if isinstance(reason, str) else None
        output.raw_stop_reason = f"{status}.{reason}" if reason else status
        stop_reason, error_message = _map_status(status, reason)
        output.stop_reason = stop_reason  # type: ignore[assignment]
        output.error_message = error_message
        if stop_reason == "stop" and any(isinstance(block, ToolCall) for block in output.content):
            output.stop_reason = "toolUse"

    def finish(self) -> None:
        if not self.saw_terminal:
            raise ResponsesStreamError("OpenAI Responses stream ended before a terminal response event")


def _map_status(status: Any, incomplete_reason: str | None) -> tuple[str, str | None]:
    if not status:
        return "stop", None
    if status == "completed":
        return "stop", None
    if status == "incomplete":
        if incomplete_reason == "max_output_tokens":
            return "length", None
        if incomplete_reason:
            return "error", f"Response incomplete: {incomplete_reason}"
        return "error", "Response incomplete without a provider reason"
    if status in ("failed", "cancelled"):
        return "error", None
    if status in ("in_progress", "queued"):
        return "stop", None
    raise ResponsesStreamError(f"Unhandled stop reason: {js_text(status)}")
