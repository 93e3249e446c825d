"""``convert-to-llm``: AgentMessage[] -> Message[] through ``pi_coding_agent.messages``."""

from __future__ import annotations

from typing import Any

from conformance_cmds._common import Rejected
from pi_agent import agent_message_from_dict
from pi_ai import DecodeError, to_builtins
from pi_coding_agent.messages import convert_to_llm

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
    try:
        decoded = [agent_message_from_dict(message) for message in messages]
    except DecodeError as error:
        raise Rejected(f"invalid message: {error}", name="DecodeError") from None
    return to_builtins(convert_to_llm(decoded))
