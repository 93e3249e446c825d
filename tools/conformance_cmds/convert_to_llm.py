"""``convert-to-llm``: AgentMessage[] -> Message[] through ``pi_coding_agent.core.messages``.

Each item is decoded on its own, as Pi reads it (missing fields Pi does not require are
fine): one odd item never makes the whole list fail. An item that still does not decode
(no usable role, fields of the wrong type) is kept as an ``OpaqueMessage``, which
``convert_to_llm`` drops, as Pi drops a role it does not know.
"""

from __future__ import annotations

from typing import Any

from conformance_cmds._common import Rejected
from pi_agent import AgentMessage, OpaqueMessage, agent_message_from_dict
from pi_ai import DecodeError, to_builtins
from pi_coding_agent.core.messages import convert_to_llm

__all__ = ["Rejected", "run"]


def run(request: Any) -> Any:
    messages = (
        request
        if isinstance(request, list)
        else request.get("messages")
        if isinstance(request, dict)
        else None
    )
    if not isinstance(messages, list):
        raise Rejected("input must be an AgentMessage[] (or {messages: [...]})")
    if not all(isinstance(message, dict) for message in messages):
        raise Rejected("every message must be an object", name="TypeError")  # Pi: reading .role of it throws
    return to_builtins(convert_to_llm([_decode(message) for message in messages]))


def _decode(message: dict[str, Any]) -> AgentMessage:
    if not isinstance(message.get("role"), str):
        return OpaqueMessage(message)
    try:
        return agent_message_from_dict(message)
    except DecodeError:
        return OpaqueMessage(message)
