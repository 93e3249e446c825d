"""Session events as ``--mode json`` (and RPC) print them: Pi's ``toJsonEvent``.

Every event is written as it is, except ``message_update``, which is cut down to
``{"type", "usage", "assistantMessageEvent"}``: the usage of the partial message and the
assistant event without its ``partial`` snapshot (``toolcall_start`` gains the call's
``id`` and ``toolName``). The partial is never serialized, so a long answer costs linear
time, not quadratic.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import msgspec

from pi_agent import MessageUpdateEvent
from pi_ai import AssistantMessageEvent, ToolCall, ToolCallStartEvent, to_builtins
from pi_coding_agent.runtime.agent_session import AgentSessionEvent, session_event_to_json


@cache
def _fields(event_type: type) -> tuple[tuple[str, str], ...]:
    """(attribute, JSON key) of an assistant event's fields, ``partial`` left out."""
    return tuple(
        (field.name, field.encode_name)
        for field in msgspec.structs.fields(event_type)
        if field.name != "partial"
    )


def assistant_event_to_json(event: AssistantMessageEvent) -> dict[str, Any]:
    data: dict[str, Any] = {"type": event.type}
    for name, key in _fields(type(event)):
        data[key] = to_builtins(getattr(event, name))
    if isinstance(event, ToolCallStartEvent):
        content = event.partial.content
        block = content[event.content_index] if event.content_index < len(content) else None
        if not isinstance(block, ToolCall):
            raise ValueError(f"toolcall_start content at index {event.content_index} is not a tool call")
        data["id"] = block.id
        data["toolName"] = block.name
    return data


def to_json_event(event: AgentSessionEvent) -> dict[str, Any]:
    if isinstance(event, MessageUpdateEvent):
        message = event.message
        return {
            "type": "message_update",
            "usage": to_builtins(getattr(message, "usage", None)),
            "assistantMessageEvent": assistant_event_to_json(event.assistant_message_event),
        }
    return session_event_to_json(event)
