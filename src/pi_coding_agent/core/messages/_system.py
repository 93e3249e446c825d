"""Pi 1.6's ``system`` messages: the prompt and the tool loadout, recorded in the transcript.

A session written by Pi 1.6 carries its prompt as ``role: "system"`` messages: the first one
declares every prompt section (``sections``, by name) and tool (``toolsAdded``), later ones
patch sections by name (``null`` removes one), append free ``content`` and add or remove tools.
Replaying them in order gives the prompt and tools in force (pi-ai's
``getCurrentSystemMessage``); ``system_message_text`` renders that state as the prompt text a
provider without mid-conversation system messages receives.

The role is registered without a projection: ``convert_to_llm`` leaves it out of the model's
messages unless asked to keep it (``system_messages=True``, which the runtime asks for a model
that takes system messages mid-conversation: ``pi_ai.takes_system_messages_in_place``); for other
models the runtime carries the replayed prompt and tools in the request's own system prompt and
tool list, which is what pi-ai's folding gives them too.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, ClassVar

from msgspec import UNSET, UnsetType

import pi_ai
from pi_agent import AgentMessage, CustomMessage, register_role
from pi_ai import ImageContent, TextContent
from pi_coding_agent.core.messages._roles import OWNER


class SystemMessage(CustomMessage, tag="system", kw_only=True):
    """A prompt and tool declaration (or a patch of them), as Pi 1.6 records it."""

    lenient_decoding: ClassVar[bool] = True

    content: str | list[TextContent | ImageContent]
    """Free prompt text; ``""`` when the prompt lives in ``sections`` (Pi 1.6 writes ``""``)."""
    sections: dict[str, str | None] | UnsetType = UNSET
    """Named prompt sections; a ``None`` value removes that section."""
    timestamp: int
    tools_added: list[dict[str, Any]] | UnsetType = UNSET
    """Tool declarations (``name``, ``description``, ``parameters``, ...) added or redefined."""
    tools_removed: list[dict[str, Any]] | UnsetType = UNSET
    """``{"name": ...}`` of each tool removed."""


register_role(SystemMessage, owner=OWNER)


def _content_text(content: str | list[TextContent | ImageContent]) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(block.text for block in content if isinstance(block, TextContent))


def _tool_name(tool: Any) -> str | None:
    name = tool.get("name") if isinstance(tool, dict) else None
    return name if isinstance(name, str) else None


def current_tools(messages: Iterable[AgentMessage]) -> list[dict[str, Any]]:
    """The tool declarations in force after every system message, in declaration order."""
    tools: dict[str, dict[str, Any]] = {}
    for message in messages:
        if not isinstance(message, SystemMessage):
            continue
        for tool in message.tools_removed or ():
            tools.pop(_tool_name(tool) or "", None)
        for tool in message.tools_added or ():
            name = _tool_name(tool)
            if name is not None:
                tools[name] = tool
    return list(tools.values())


def current_system_message(messages: Iterable[AgentMessage]) -> SystemMessage | None:
    """Every system message replayed into one (pi-ai's ``getCurrentSystemMessage``); ``None``
    when the messages declare neither a prompt nor tools.

    Later ``content`` is appended to the earlier (blank-line separated), ``sections`` are
    patched by name (a patched section keeps its place; a removed then re-added one goes last).
    """
    listed = list(messages)
    texts: list[str] = []
    sections: dict[str, str | None] = {}
    timestamp: int | None = None
    for message in listed:
        if not isinstance(message, SystemMessage):
            continue
        if timestamp is None:
            timestamp = message.timestamp
        text = _content_text(message.content)
        if text:
            texts.append(text)
        for name, value in (message.sections or {}).items():
            if value is None:
                sections.pop(name, None)
            else:
                sections[name] = value
    tools = current_tools(listed)
    if timestamp is None and not tools:
        return None
    return SystemMessage(
        content="\n\n".join(texts),
        sections=sections if sections else UNSET,
        timestamp=timestamp or 0,
        tools_added=tools if tools else UNSET,
    )


def system_message_text(message: SystemMessage) -> str:
    """The prompt a system message states: its content, then its sections, blank-line separated."""
    parts = [_content_text(message.content), *(text for text in (message.sections or {}).values() if text is not None)]
    return "\n\n".join(part for part in parts if part)


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


def to_llm_system_message(message: SystemMessage) -> pi_ai.SystemMessage:
    """The message as pi-ai carries it to a model that takes system messages in place."""
    return pi_ai.SystemMessage(
        content=message.content,
        sections=message.sections,
        tools_added=message.tools_added,
        tools_removed=message.tools_removed,
        timestamp=message.timestamp,
    )
