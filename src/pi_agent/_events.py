"""The ten agent events, the whole vocabulary a UI, a logger or a session writer listens to.

A run is ``agent_start``, then turns (``turn_start`` ... ``turn_end``), then ``agent_end``.
Inside a turn every message has a ``message_start`` and a ``message_end``; the assistant
message also streams ``message_update``\\ s; each tool call has ``tool_execution_start``,
zero or more ``tool_execution_update`` and (when it reached a result) ``tool_execution_end``.

``agent_event_to_json`` renders an event with Pi's JSON keys (what Pi's JSON and RPC modes
print for it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeAlias

from pi_agent._roles import AgentMessage
from pi_agent._tools import AgentToolResult
from pi_ai import AssistantMessage, AssistantMessageEvent, ToolResultMessage, to_builtins


@dataclass(slots=True)
class AgentStartEvent:
    type: ClassVar[Literal["agent_start"]] = "agent_start"


@dataclass(slots=True)
class AgentEndEvent:
    """The last event of a run. ``messages`` are the messages this run added."""

    type: ClassVar[Literal["agent_end"]] = "agent_end"
    messages: list[AgentMessage]


@dataclass(slots=True)
class TurnStartEvent:
    type: ClassVar[Literal["turn_start"]] = "turn_start"


@dataclass(slots=True)
class TurnEndEvent:
    """After the assistant message and all of its tool results (in call order)."""

    type: ClassVar[Literal["turn_end"]] = "turn_end"
    message: AgentMessage
    tool_results: list[ToolResultMessage]


@dataclass(slots=True)
class MessageStartEvent:
    type: ClassVar[Literal["message_start"]] = "message_start"
    message: AgentMessage


@dataclass(slots=True)
class MessageUpdateEvent:
    """One streamed change of the assistant message; ``message`` is a copy of the partial."""

    type: ClassVar[Literal["message_update"]] = "message_update"
    message: AssistantMessage
    assistant_message_event: AssistantMessageEvent


@dataclass(slots=True)
class MessageEndEvent:
    """The settled message: this object is what goes into the transcript."""

    type: ClassVar[Literal["message_end"]] = "message_end"
    message: AgentMessage


@dataclass(slots=True)
class ToolExecutionStartEvent:
    """A tool call is about to be prepared. ``args`` are the model's raw arguments."""

    type: ClassVar[Literal["tool_execution_start"]] = "tool_execution_start"
    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    parent_tool_call_id: str | None = None
    """Set for a call another tool made (``NestedToolRunner``): the calling tool's call id."""


@dataclass(slots=True)
class ToolExecutionUpdateEvent:
    type: ClassVar[Literal["tool_execution_update"]] = "tool_execution_update"
    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    partial_result: AgentToolResult[Any]
    parent_tool_call_id: str | None = None


@dataclass(slots=True)
class ToolExecutionEndEvent:
    """The call's final result (after ``after_tool_call``). Arrives in completion order."""

    type: ClassVar[Literal["tool_execution_end"]] = "tool_execution_end"
    tool_call_id: str
    tool_name: str
    result: AgentToolResult[Any]
    is_error: bool
    duration_ms: int | None = None
    """How long the tool's ``execute`` took, in whole milliseconds of a monotonic clock (Pi
    1.6); ``None`` when the tool did not run (unknown, invalid arguments, blocked, aborted)."""
    parent_tool_call_id: str | None = None


AgentEvent: TypeAlias = (
    AgentStartEvent
    | AgentEndEvent
    | TurnStartEvent
    | TurnEndEvent
    | MessageStartEvent
    | MessageUpdateEvent
    | MessageEndEvent
    | ToolExecutionStartEvent
    | ToolExecutionUpdateEvent
    | ToolExecutionEndEvent
)


def tool_result_to_json(result: AgentToolResult[Any]) -> dict[str, Any]:
    """An ``AgentToolResult`` with Pi's keys; absent (``None``) fields are left out."""
    out: dict[str, Any] = {"content": to_builtins(result.content)}
    if result.details is not None:
        out["details"] = to_builtins(result.details)
    if result.structured_content is not None:
        out["structuredContent"] = to_builtins(result.structured_content)
    if result.is_error:
        out["isError"] = True
    if result.usage is not None:
        out["usage"] = to_builtins(result.usage)
    if result.added_tool_names is not None:
        out["addedToolNames"] = list(result.added_tool_names)
    if result.terminate is not None:
        out["terminate"] = result.terminate
    return out


def agent_event_to_json(event: AgentEvent) -> dict[str, Any]:
    """The event as Pi serializes it (camelCase keys, messages as their wire JSON)."""
    if isinstance(event, AgentStartEvent | TurnStartEvent):
        return {"type": event.type}
    if isinstance(event, AgentEndEvent):
        return {"type": event.type, "messages": to_builtins(event.messages)}
    if isinstance(event, TurnEndEvent):
        return {"type": event.type, "message": to_builtins(event.message),
                "toolResults": to_builtins(event.tool_results)}
    if isinstance(event, MessageUpdateEvent):
        return {"type": event.type, "assistantMessageEvent": to_builtins(event.assistant_message_event),
                "message": to_builtins(event.message)}
    if isinstance(event, MessageStartEvent | MessageEndEvent):
        return {"type": event.type, "message": to_builtins(event.message)}
    data: dict[str, Any]
    if isinstance(event, ToolExecutionStartEvent):
        data = {"type": event.type, "toolCallId": event.tool_call_id, "toolName": event.tool_name,
                "args": event.args}
    elif isinstance(event, ToolExecutionUpdateEvent):
        data = {"type": event.type, "toolCallId": event.tool_call_id, "toolName": event.tool_name,
                "args": event.args, "partialResult": tool_result_to_json(event.partial_result)}
    else:
        data = {"type": event.type, "toolCallId": event.tool_call_id, "toolName": event.tool_name,
                "result": tool_result_to_json(event.result), "isError": event.is_error}
        if event.duration_ms is not None:
            data["durationMs"] = event.duration_ms
    if event.parent_tool_call_id is not None:
        data["parentToolCallId"] = event.parent_tool_call_id
    return data
