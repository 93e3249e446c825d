"""Gemini ``streamGenerateContent`` chunks -> Pi's assistant-message events, as Pi 0.85 maps them.

Each chunk is a whole ``GenerateContentResponse``. Consecutive text parts of the same kind
(thought or not) extend one block; a function call closes the open block and arrives
complete (start, one delta with its JSON, end). ``usageMetadata`` is cumulative: the last
chunk that carries it wins. Thought signatures may come on any part; the last non-empty one
of a block is kept.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Mapping
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
from pi_ai.js_json import js_field, js_text, stringify

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


class GoogleStreamError(Exception):
    """A chunk Pi refuses (unknown finish reason); the message is Pi's text."""


def map_finish_reason(reason: Any) -> str:
    if reason == "STOP":
        return "stop"
    if reason == "MAX_TOKENS":
        return "length"
    if reason in _ERROR_FINISH_REASONS:
        return "error"
    raise GoogleStreamError(f"Unhandled stop reason: {js_text(reason)}")


def _count(value: Any) -> int:
    """``value || 0`` for a token count (an integral float counts as the integer)."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, float):
        return int(value) if value.is_integer() else 0
    return value if isinstance(value, int) else 0


@dataclass(slots=True)
class GoogleStreamProcessor:
    output: AssistantMessage
    stream: AssistantMessageEventStream
    model: Model
    _current: TextContent | ThinkingContent | None = None
    _seen_ids: set[str] = field(default_factory=set)

    def _close_current(self) -> None:
        block = self._current
        if block is None:
            return
        index = len(self.output.content) - 1
        if isinstance(block, TextContent):
            self.stream.push(TextEndEvent(content_index=index, content=block.text, partial=self.output))
        else:
            self.stream.push(
                ThinkingEndEvent(content_index=index, content=block.thinking, partial=self.output)
            )

    def handle(self, chunk: Mapping[str, Any]) -> None:
        output = self.output
        if not output.response_id:
            # ``responseId ||= chunk.responseId``: until an id is non-empty, each chunk's value
            # (even an empty one, or none) replaces it.
            response_id = chunk.get("responseId")
            output.response_id = response_id if isinstance(response_id, str) else None
        candidates = chunk.get("candidates")
        candidate = candidates[0] if isinstance(candidates, list) and candidates else None
        if not isinstance(candidate, dict):
            candidate = None
        content = candidate.get("content") if candidate else None
        parts = content.get("parts") if isinstance(content, dict) else None
        if parts:
            for part in parts:
                if not isinstance(part, dict):
                    continue
                if "text" in part:
                    self._text_part(part)
                if part.get("functionCall"):
                    self._function_call_part(part)
        if candidate and candidate.get("finishReason"):
            reason = candidate["finishReason"]
            output.raw_stop_reason = reason
            output.stop_reason = map_finish_reason(reason)  # type: ignore[assignment]
            if output.stop_reason == "stop" and any(isinstance(b, ToolCall) for b in output.content):
                output.stop_reason = "toolUse"
        metadata = chunk.get("usageMetadata")
        if metadata:
            cached = _count(metadata.get("cachedContentTokenCount"))
            thoughts = _count(metadata.get("thoughtsTokenCount"))
            output.usage = Usage(
                input=_count(metadata.get("promptTokenCount")) - cached,
                output=_count(metadata.get("candidatesTokenCount")) + thoughts,
                cache_read=cached,
                cache_write=0,
                reasoning=thoughts,
                total_tokens=_count(metadata.get("totalTokenCount")),
            )
            calculate_cost(self.model, output.usage)

    def _text_part(self, part: Mapping[str, Any]) -> None:
        thinking = part.get("thought") is True
        text = js_text(part["text"])
        current = self._current
        if current is None or thinking != isinstance(current, ThinkingContent):
            self._close_current()
            current = ThinkingContent(thinking="") if thinking else TextContent(text="")
            self.output.content.append(current)
            self._current = current
            index = len(self.output.content) - 1
            start = ThinkingStartEvent if thinking else TextStartEvent
            self.stream.push(start(content_index=index, partial=self.output))
        index = len(self.output.content) - 1
        signature = part.get("thoughtSignature")
        fresh = signature if isinstance(signature, str) and signature else None
        if isinstance(current, ThinkingContent):
            current.thinking += text
            if fresh is not None:
                current.thinking_signature = fresh
            self.stream.push(ThinkingDeltaEvent(content_index=index, delta=text, partial=self.output))
        else:
            current.text += text
            if fresh is not None:
                current.text_signature = fresh
            self.stream.push(TextDeltaEvent(content_index=index, delta=text, partial=self.output))

    def _function_call_part(self, part: Mapping[str, Any]) -> None:
        self._close_current()
        self._current = None
        call = part["functionCall"]
        provided = call.get("id")
        name = call.get("name")
        if not provided or provided in self._seen_ids:
            tool_call_id = (
                f"{js_field(call, 'name')}_{time.time_ns() // 1_000_000}_{next(_tool_call_counter)}"
            )
        else:
            tool_call_id = provided
        self._seen_ids.add(tool_call_id)
        args = call.get("args")
        signature = part.get("thoughtSignature")
        tool_call = ToolCall(
            id=tool_call_id,
            name=name or "",
            arguments=args if args is not None else {},
            thought_signature=signature if signature else None,
        )
        self.output.content.append(tool_call)
        index = len(self.output.content) - 1
        self.stream.push(ToolCallStartEvent(content_index=index, partial=self.output))
        self.stream.push(
            ToolCallDeltaEvent(
                content_index=index, delta=stringify(tool_call.arguments), partial=self.output
            )
        )
        self.stream.push(ToolCallEndEvent(content_index=index, tool_call=tool_call, partial=self.output))

    def finish(self) -> None:
        """Close the block still open when the stream ended."""
        self._close_current()
