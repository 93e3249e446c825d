"""Pi 1.6's ``system`` messages: the prompt and the tool loadout, recorded in the transcript.

A session written by Pi 1.6 carries its prompt as ``role: "system"`` messages: the first one
declares every prompt section (``sections``, by name) and tool (``toolsAdded``), later ones
patch sections by name (``null`` removes one), append free ``content`` and add or remove tools.

The role is pi-ai's own ``SystemMessage`` (a built-in role of pi-agent's transcript, so sessions
and RPC payloads decode it without a registration here), and so is the replay: pi-ai's
``current_system_message``, ``current_tools`` and ``system_message_text`` give the prompt and
tools in force. What the coding agent adds is the diff that writes the next system message
(``system_update``). ``convert_to_llm`` leaves the messages out of the model's messages unless
asked to keep them (``system_messages=True``, which the runtime asks for a model that takes
system messages mid-conversation: ``pi_ai.takes_system_messages_in_place``); for other models
the runtime carries the replayed prompt and tools in the request's own system prompt and tool
list, which is what pi-ai's folding gives them too.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from msgspec import UNSET

from pi_agent import AgentMessage
from pi_ai import SystemMessage, current_system_message, current_tools, system_message_text

__all__ = ["SystemMessage", "current_system_message", "current_tools", "system_message_text", "system_update"]


def _tool_name(tool: Any) -> str | None:
    name = tool.get("name") if isinstance(tool, dict) else None
    return name if isinstance(name, str) else None


def _declaration_key(tool: dict[str, Any]) -> str:
    """What the model sees of a tool (pi-ai's ``toToolDeclaration``), comparable as one string."""
    fields = ("name", "description", "parameters", "constrainedSampling")
    return json.dumps({key: tool[key] for key in fields if key in tool}, sort_keys=True)


def system_update(
    messages: Iterable[AgentMessage], sections: dict[str, str], tools: list[dict[str, Any]], timestamp: int
) -> SystemMessage | None:
    """The system message that takes the prompt and tools the messages replay to ``sections``
    and ``tools``, as Pi 1.6 writes it: changed or new sections by name, ``None`` for a section
    that is gone, ``tools_added`` for new or redefined tools and ``tools_removed`` (``{"name"}``)
    for removed or redefined ones; ``None`` when nothing changed."""
    current = current_system_message(messages)
    previous_sections = (current.sections or {}) if current is not None else {}
    patch: dict[str, str | None] = {name: text for name, text in sections.items() if previous_sections.get(name) != text}
    patch.update({name: None for name in previous_sections if name not in sections})
    declared = (current.tools_added or []) if current is not None else []
    previous = {_tool_name(tool): _declaration_key(tool) for tool in declared}
    wanted = {str(tool["name"]): _declaration_key(tool) for tool in tools}
    added = [tool for tool in tools if previous.get(str(tool["name"])) != wanted[str(tool["name"])]]
    removed = [{"name": name} for name, key in previous.items() if name is not None and wanted.get(name) != key]
    if not patch and not added and not removed:
        return None
    return SystemMessage(
        content="",
        sections=patch if patch else UNSET,
        timestamp=timestamp,
        tools_added=added if added else UNSET,
        tools_removed=removed if removed else UNSET,
    )
