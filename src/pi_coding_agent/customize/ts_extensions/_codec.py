"""Our events as Pi's JSON for TypeScript handlers, and their results back as ours.

Events are dataclasses with snake_case fields (``customize.extensions``) or ``pi_agent``
events; a TypeScript handler gets Pi's camelCase object with messages in their wire JSON.
What it returns comes back with snake_case keys and, where our runner expects objects
(``context``'s and ``message_end``'s messages, content blocks), those objects.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import msgspec

from pi_agent import agent_message_from_dict
from pi_ai import to_builtins
from pi_coding_agent.customize.extensions import to_tool_result

_AGENT_EVENTS = frozenset(
    {
        "agent_start",
        "agent_end",
        "message_start",
        "message_update",
        "message_end",
        "tool_execution_start",
        "tool_execution_update",
        "tool_execution_end",
    }
)


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", lambda match: "_" + match.group(1).lower(), name)


def encode(value: Any) -> Any:
    """JSON data of ``value``: structs as their wire JSON, dataclasses with camelCase keys."""
    if isinstance(value, msgspec.Struct):
        return to_builtins(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {camel(f.name): encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, list | tuple):
        return [encode(item) for item in value]
    if isinstance(value, dict):
        return {str(key): encode(item) for key, item in value.items()}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    try:
        return to_builtins(value)
    except (TypeError, msgspec.MsgspecError):
        return str(value)


def encode_event(event: Any) -> dict[str, Any]:
    """The event object a TypeScript handler receives."""
    if event.type in _AGENT_EVENTS and not dataclasses.is_dataclass(event):
        from pi_agent import agent_event_to_json

        return agent_event_to_json(event)
    data = encode(event)
    if not isinstance(data, dict):
        return {"type": event.type}
    if event.type == "tool_result" and data.get("structuredContent") is None:
        data.pop("structuredContent", None)  # Pi 1.6 leaves the key out for tools without one
    return data


def decode_message(value: Any) -> Any:
    return agent_message_from_dict(value) if isinstance(value, dict) else value


def _snake_keys(value: dict[str, Any]) -> dict[str, Any]:
    return {snake(key): item for key, item in value.items()}


def decode_result(event_type: str, result: Any) -> Any:
    """A handler's result in the shape our runner reads."""
    if not isinstance(result, dict):
        return result
    if event_type == "before_provider_request":
        return result
    decoded = _snake_keys(result)
    if event_type == "context" and isinstance(decoded.get("messages"), list):
        decoded["messages"] = [decode_message(message) for message in decoded["messages"]]
    if event_type == "message_end" and "message" in decoded:
        decoded["message"] = decode_message(decoded["message"])
    if event_type == "before_agent_start" and isinstance(decoded.get("message"), dict):
        message = _snake_keys(decoded["message"])
        message["content"] = to_tool_result({"content": message.get("content")}).content
        decoded["message"] = message
    if event_type == "tool_result" and decoded.get("content") is not None:
        decoded["content"] = to_tool_result({"content": decoded["content"]}).content
    return decoded


def apply_mutations(event: Any, payload: dict[str, Any]) -> None:
    """What a handler changed in its event object in place (``context`` messages, ``tool_call``
    input, ``before_provider_headers``) carried over to ours."""
    if event.type == "context" and isinstance(payload.get("messages"), list):
        if payload["messages"] != encode(event.messages):
            event.messages[:] = [decode_message(message) for message in payload["messages"]]
    elif event.type == "tool_call" and isinstance(payload.get("input"), dict):
        event.input.clear()
        event.input.update(payload["input"])
    elif event.type == "before_provider_headers" and isinstance(payload.get("headers"), dict):
        event.headers.clear()
        event.headers.update(payload["headers"])
