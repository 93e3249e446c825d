"""ConverseStream events onto the shared accumulator, as Pi 0.85 reads them.

Bedrock numbers content blocks itself (``contentBlockIndex``); a block is found by that
number until its ``contentBlockStop``. Text and reasoning blocks have no start event: their
first delta opens them. Redacted reasoning arrives as opaque bytes, kept base64-encoded in
``thinkingSignature`` (the text reads ``[Reasoning redacted]``) so it can be sent back.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from pi_ai._messages import TextContent, ThinkingContent, ToolCall
from pi_ai._model import Model, calculate_cost
from pi_ai.api._accumulator import StreamAccumulator, StreamError

__all__ = ["BedrockServiceError", "BedrockStreamReader"]

REDACTED_PLACEHOLDER = "[Reasoning redacted]"
_STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "toolUse",
}
ERROR_PREFIXES = {
    "InternalServerException": "Internal server error",
    "ModelStreamErrorException": "Model stream error",
    "ValidationException": "Validation error",
    "ThrottlingException": "Throttling error",
    "ServiceUnavailableException": "Service unavailable",
}
_STREAM_EXCEPTIONS = {
    "internalServerException",
    "modelStreamErrorException",
    "validationException",
    "throttlingException",
    "serviceUnavailableException",
}


class BedrockServiceError(Exception):
    """A Bedrock exception (``name`` is its type, e.g. ``ThrottlingException``); ``modeled``
    says whether the SDK knows it as a service exception (those get Pi's readable prefix)."""

    def __init__(
        self,
        name: str,
        message: str,
        *,
        modeled: bool,
        status: int | None = None,
        request_id: str | None = None,
    ) -> None:
        super().__init__(message)
        self.name = name
        self.modeled = modeled
        self.status = status
        self.request_id = request_id


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


class BedrockStreamReader:
    """Feed it each decoded event (``handle(event_type, payload)``)."""

    def __init__(self, acc: StreamAccumulator, model: Model) -> None:
        self._acc = acc
        self._model = model
        self._open: dict[Any, int] = {}
        """Bedrock's block number -> our content index, until the block stops."""
        self._redacted: dict[int, list[bytes]] = {}

    def handle(self, event_type: str, payload: Any) -> None:
        data = payload if isinstance(payload, dict) else {}
        if event_type == "messageStart":
            if data.get("role") != "assistant":
                raise StreamError("Unexpected assistant message start but got user message start instead")
            self._acc.start()
        elif event_type == "contentBlockStart":
            self._block_start(data)
        elif event_type == "contentBlockDelta":
            self._block_delta(data)
        elif event_type == "contentBlockStop":
            self._block_stop(data)
        elif event_type == "messageStop":
            self._message_stop(data)
        elif event_type == "metadata":
            self._metadata(data)

    def exception(self, exception_type: str, payload: Any) -> None:
        """A ``:message-type: exception`` message: the modeled ones end the stream."""
        if exception_type not in _STREAM_EXCEPTIONS:
            return
        message = payload.get("message") if isinstance(payload, dict) else None
        name = exception_type[0].upper() + exception_type[1:]
        raise BedrockServiceError(name, str(message) if message is not None else name, modeled=True)

    # ------------------------------------------------------------------ blocks

    def _block_start(self, data: dict[str, Any]) -> None:
        start = data.get("start")
        tool = start.get("toolUse") if isinstance(start, dict) else None
        if not tool:
            return
        call = ToolCall(id=str(tool.get("toolUseId") or ""), name=str(tool.get("name") or ""), arguments={})
        index = self._acc.open_tool_call(call)
        self._open.setdefault(data.get("contentBlockIndex"), index)

    def _block_delta(self, data: dict[str, Any]) -> None:
        number = data.get("contentBlockIndex")
        delta = data.get("delta")
        if not isinstance(delta, dict):
            return
        acc = self._acc
        index = self._open.get(number)
        block = acc.output.content[index] if index is not None else None
        if "text" in delta and delta["text"] is not None:
            if block is None:
                index = self._open[number] = acc.open_text()
                block = acc.output.content[index]
            if isinstance(block, TextContent) and index is not None:
                acc.text_delta(index, str(delta["text"]))
        elif delta.get("toolUse") and isinstance(block, ToolCall) and index is not None:
            fragment = delta["toolUse"].get("input") if isinstance(delta["toolUse"], dict) else None
            acc.arguments_delta(index, str(fragment or ""))
        elif delta.get("reasoningContent"):
            if block is None:
                index = self._open[number] = acc.open_thinking("", "")
                block = acc.output.content[index]
            if isinstance(block, ThinkingContent) and index is not None:
                self._reasoning(index, block, delta["reasoningContent"])

    def _reasoning(self, index: int, block: ThinkingContent, reasoning: Any) -> None:
        if not isinstance(reasoning, dict):
            return
        acc = self._acc
        if reasoning.get("text"):
            acc.thinking_delta(index, str(reasoning["text"]))
        if reasoning.get("signature") and not block.redacted:
            block.thinking_signature = (block.thinking_signature or "") + str(reasoning["signature"])
        redacted = reasoning.get("redactedContent")
        if isinstance(redacted, str) and redacted:
            try:
                chunk = base64.b64decode(redacted)
            except (binascii.Error, ValueError):
                return
            if not chunk:
                return
            if not block.redacted:
                block.redacted = True
                block.thinking_signature = ""
                acc.thinking_delta(index, REDACTED_PLACEHOLDER)
            self._redacted.setdefault(index, []).append(chunk)

    def _block_stop(self, data: dict[str, Any]) -> None:
        index = self._open.pop(data.get("contentBlockIndex"), None)
        if index is None:
            return
        self._flush_redacted(index)
        self._acc.end(index)

    def _flush_redacted(self, index: int) -> None:
        chunks = self._redacted.pop(index, None)
        if chunks is not None:
            block = self._acc.output.content[index]
            assert isinstance(block, ThinkingContent)
            block.thinking_signature = base64.b64encode(b"".join(chunks)).decode()

    def finish(self) -> None:
        """The stream settled: blocks never stopped keep what they have, without end events."""
        for index in list(self._open.values()):
            self._flush_redacted(index)
            self._acc.finish_arguments(index)
        self._open.clear()

    # ------------------------------------------------------------------ the message

    def _message_stop(self, data: dict[str, Any]) -> None:
        output = self._acc.output
        reason = data.get("stopReason")
        output.raw_stop_reason = None if reason is None else str(reason)
        mapped = _STOP_REASONS.get(str(reason)) if reason is not None else None
        if mapped is not None:
            output.stop_reason = mapped  # type: ignore[assignment]
            return
        output.stop_reason = "error"
        if reason:
            output.error_message = f"Provider stopped with: {reason}"

    def _metadata(self, data: dict[str, Any]) -> None:
        usage = data.get("usage")
        if not isinstance(usage, dict):
            return
        counts = self._acc.output.usage
        counts.input = _int(usage.get("inputTokens"))
        counts.output = _int(usage.get("outputTokens"))
        counts.cache_read = _int(usage.get("cacheReadInputTokens"))
        counts.cache_write = _int(usage.get("cacheWriteInputTokens"))
        counts.total_tokens = _int(usage.get("totalTokens")) or counts.input + counts.output
        calculate_cost(self._model, counts)
