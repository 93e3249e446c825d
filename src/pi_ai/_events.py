"""The assistant-message event protocol every provider speaks.

A stream starts with ``start``, then for each content block ``*_start``, ``*_delta``\\* and
``*_end``, and ends with exactly one terminal event: ``done`` or ``error``. Every non-terminal
event carries ``partial``, the message so far. Real adapters hand out the same live object in
every event; consumers that keep it must copy it.
"""

from __future__ import annotations

from typing import ClassVar, Literal, TypeAlias

import msgspec

from pi_ai._messages import AssistantMessage, ToolCall


class _Event(msgspec.Struct, kw_only=True, rename="camel", tag_field="type"):
    pass


class StartEvent(_Event, tag="start", kw_only=True):
    type: ClassVar[Literal["start"]] = "start"
    partial: AssistantMessage


class TextStartEvent(_Event, tag="text_start", kw_only=True):
    type: ClassVar[Literal["text_start"]] = "text_start"
    content_index: int
    partial: AssistantMessage


class TextDeltaEvent(_Event, tag="text_delta", kw_only=True):
    type: ClassVar[Literal["text_delta"]] = "text_delta"
    content_index: int
    delta: str
    partial: AssistantMessage


class TextEndEvent(_Event, tag="text_end", kw_only=True):
    type: ClassVar[Literal["text_end"]] = "text_end"
    content_index: int
    content: str
    partial: AssistantMessage


class ThinkingStartEvent(_Event, tag="thinking_start", kw_only=True):
    type: ClassVar[Literal["thinking_start"]] = "thinking_start"
    content_index: int
    partial: AssistantMessage


class ThinkingDeltaEvent(_Event, tag="thinking_delta", kw_only=True):
    type: ClassVar[Literal["thinking_delta"]] = "thinking_delta"
    content_index: int
    delta: str
    partial: AssistantMessage


class ThinkingEndEvent(_Event, tag="thinking_end", kw_only=True):
    type: ClassVar[Literal["thinking_end"]] = "thinking_end"
    content_index: int
    content: str
    partial: AssistantMessage


class ToolCallStartEvent(_Event, tag="toolcall_start", kw_only=True):
    type: ClassVar[Literal["toolcall_start"]] = "toolcall_start"
    content_index: int
    partial: AssistantMessage


class ToolCallDeltaEvent(_Event, tag="toolcall_delta", kw_only=True):
    type: ClassVar[Literal["toolcall_delta"]] = "toolcall_delta"
    content_index: int
    delta: str
    """Raw JSON fragment of the arguments."""
    partial: AssistantMessage


class ToolCallEndEvent(_Event, tag="toolcall_end", kw_only=True):
    type: ClassVar[Literal["toolcall_end"]] = "toolcall_end"
    content_index: int
    tool_call: ToolCall
    partial: AssistantMessage


class DoneEvent(_Event, tag="done", kw_only=True):
    type: ClassVar[Literal["done"]] = "done"
    reason: Literal["stop", "length", "toolUse", "deferred"]
    message: AssistantMessage


class ErrorEvent(_Event, tag="error", kw_only=True):
    type: ClassVar[Literal["error"]] = "error"
    reason: Literal["error", "aborted"]
    error: AssistantMessage
    """The final message: ``stop_reason`` equals ``reason`` and ``error_message`` is set."""


AssistantMessageEvent: TypeAlias = (
    StartEvent
    | TextStartEvent
    | TextDeltaEvent
    | TextEndEvent
    | ThinkingStartEvent
    | ThinkingDeltaEvent
    | ThinkingEndEvent
    | ToolCallStartEvent
    | ToolCallDeltaEvent
    | ToolCallEndEvent
    | DoneEvent
    | ErrorEvent
)

TerminalEvent: TypeAlias = DoneEvent | ErrorEvent
