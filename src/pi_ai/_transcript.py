"""System messages inside a context: replayed, rendered, folded or kept in place (Pi 1.6).

A context may carry ``SystemMessage`` items among its messages (the coding agent's transcript
records its prompt and tools that way). For most models they are folded: the request's system
prompt is the replayed prompt and its tools the replayed tools, as if the context had said so
in ``system_prompt`` and ``tools``. A model whose ``compat`` sets
``supportsMidConvoSystemMessages``, reached through an API that can send them
(``IN_PLACE_APIS``), gets the first one as its prompt and later ones where they stand, rendered
as an update. ``prepare_context`` makes that choice once, before the adapter runs, so adapters
without in-place support never see a system message.

When the messages carry system messages they are the prompt and tools: the context's own
``system_prompt`` and ``tools`` are then not used (the coding agent sends both, and they agree).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal

from msgspec import UNSET

from pi_ai._context import Context, Tool
from pi_ai._messages import ImageContent, Message, SystemMessage, TextContent
from pi_ai._model import Model

IN_PLACE_APIS = frozenset(
    {
        "openai-completions",
        "anthropic-messages",
        "openai-responses",
        "openai-codex-responses",
        "azure-openai-responses",
        "mistral-conversations",
    }
)
"""APIs whose adapter sends later system messages in place (Pi 1.6's ``resolveTranscript``
callers); the others (Bedrock, Google) always fold them, as 1.6 does."""

ToolSupport = Literal["none", "additions", "changes"]
"""How far the request may declare tools mid-conversation: not at all, new ones only, or every
change (each system message declares its own tools in place, the request's list stays empty)."""


def content_text(content: str | list[TextContent | ImageContent]) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(block.text for block in content if isinstance(block, TextContent))


def system_message_text(message: SystemMessage) -> str:
    """The prompt a system message states: its content, then its sections, blank-line separated."""
    parts = [content_text(message.content), *(text for text in (message.sections or {}).values() if text is not None)]
    return "\n\n".join(part for part in parts if part)


def render_system_message_update(message: SystemMessage) -> str:
    """A later system message as the model reads it in place: its content, then one paragraph
    per patched section saying what changed (the wording is a wire fact of Pi 1.6)."""
    parts = [text] if (text := content_text(message.content)) else []
    for name, value in (message.sections or {}).items():
        if value is None:
            parts.append(f'Removed system prompt section "{name}".')
        else:
            parts.append(f'Updated system prompt section "{name}":\n\n{value}')
    return "\n\n".join(parts)


def _name(tool: Any) -> str | None:
    name = tool.get("name") if isinstance(tool, dict) else None
    return name if isinstance(name, str) else None


def current_tools(messages: Iterable[Any]) -> list[dict[str, Any]]:
    """The tool declarations in force after every system message, in declaration order."""
    tools: dict[str, dict[str, Any]] = {}
    for message in messages:
        if isinstance(message, SystemMessage):
            for tool in message.tools_removed or ():
                tools.pop(_name(tool) or "", None)
            for tool in message.tools_added or ():
                if (name := _name(tool)) is not None:
                    tools[name] = tool
    return list(tools.values())


def declared_tools(messages: Iterable[Any]) -> list[dict[str, Any]]:
    """Every tool any system message declared (the latest declaration of each name), removed or not."""
    tools: dict[str, dict[str, Any]] = {}
    for message in messages:
        if isinstance(message, SystemMessage):
            for tool in message.tools_added or ():
                if (name := _name(tool)) is not None:
                    tools[name] = tool
    return list(tools.values())


def current_system_message(messages: Iterable[Any]) -> SystemMessage | None:
    """Every system message replayed into one (pi-ai 1.6's ``getCurrentSystemMessage``); ``None``
    when they declare neither prompt nor tools.

    Later ``content`` is appended to the earlier (blank-line separated), ``sections`` are
    patched by name (a patched section keeps its place; a removed then re-added one goes last).
    """
    messages = list(messages)
    texts: list[str] = []
    sections: dict[str, str | None] = {}
    timestamp: int | None = None
    for message in messages:
        if not isinstance(message, SystemMessage):
            continue
        timestamp = message.timestamp if timestamp is None else timestamp
        if text := content_text(message.content):
            texts.append(text)
        for name, value in (message.sections or {}).items():
            if value is None:
                sections.pop(name, None)
            else:
                sections[name] = value
    tools = current_tools(messages)
    if timestamp is None and not tools:
        return None
    return SystemMessage(
        content="\n\n".join(texts),
        sections=sections or UNSET,
        tools_added=tools or UNSET,
        timestamp=timestamp or 0,
    )


def tool_from_declaration(declaration: dict[str, Any]) -> Tool:
    return Tool(
        name=str(declaration.get("name", "")),
        description=str(declaration.get("description", "")),
        parameters=declaration.get("parameters") or {},
        constrained_sampling=declaration.get("constrainedSampling"),
    )


def transcript_tools(messages: Sequence[Any], support: ToolSupport) -> tuple[list[dict[str, Any]], int]:
    """The request's own tool list, and how many leading system messages it stands for.

    With ``none`` every tool goes in the request's list. With ``additions`` the list holds the
    tools in force up to the last system message that removed or redefined a tool (or the first
    one), and later system messages declare their additions where they stand. With ``changes``
    the list is empty and every system message declares its tools where it stands.
    """
    system = [message for message in messages if isinstance(message, SystemMessage)]
    if support == "none":
        return current_tools(system), len(system)
    if support == "changes":
        return [], 0
    declared: set[str] = set()
    last = -1
    for index, message in enumerate(system):
        if message.tools_removed:
            last = index
        for tool in message.tools_added or ():
            name = _name(tool) or ""
            if name in declared:
                last = index
            declared.add(name)
    leading = 1 if messages and isinstance(messages[0], SystemMessage) else 0
    folded = max(leading, last + 1)
    return current_tools(system[:folded]), folded


def takes_system_messages_in_place(model: Model) -> bool:
    """Whether ``model`` gets later system messages where they stand (its compat says so and its
    API's adapter can send them)."""
    return model.api in IN_PLACE_APIS and (model.compat or {}).get("supportsMidConvoSystemMessages") is True


def prepare_context(model: Model, context: Context) -> Context:
    """The context an adapter gets: unchanged without system messages; with them, their prompt and
    tools replace ``system_prompt`` and ``tools``, kept in place for a model that takes them there
    and folded into those two fields for every other."""
    if not any(isinstance(message, SystemMessage) for message in context.messages):
        return context
    if takes_system_messages_in_place(model):
        return Context(system_prompt=None, messages=list(context.messages), tools=None)
    head = current_system_message(context.messages)
    rest: list[Message] = [message for message in context.messages if not isinstance(message, SystemMessage)]
    prompt = system_message_text(head) if head is not None else ""
    tools = [tool_from_declaration(tool) for tool in (head.tools_added or [])] if head is not None else []
    return Context(system_prompt=prompt or None, messages=list(rest), tools=tools or None)


def with_leading_system_message(model: Model, context: Context) -> Context:
    """For a model that takes system messages in place, a context without any as Pi 1.6 sends it
    (its ``normalizeContext``): ``system_prompt`` and ``tools`` become a leading system message,
    so the Responses APIs declare the tools where that message stands (``additional_tools``)
    when the model can. Any other context is returned as it is."""
    if not takes_system_messages_in_place(model) or has_system_messages(context):
        return context
    if not context.system_prompt and not context.tools:
        return context
    declarations = [
        {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
            **({} if tool.constrained_sampling is None else {"constrainedSampling": tool.constrained_sampling}),
        }
        for tool in context.tools or ()
    ]
    head = SystemMessage(content=context.system_prompt or "", tools_added=declarations or UNSET, timestamp=0)
    return Context(system_prompt=None, messages=[head, *context.messages], tools=None)


def has_system_messages(context: Context) -> bool:
    return any(isinstance(message, SystemMessage) for message in context.messages)


def leading_system_message(messages: Sequence[Any]) -> SystemMessage | None:
    """The system message a transcript starts with (its prompt and first tools), if any."""
    first = messages[0] if messages else None
    return first if isinstance(first, SystemMessage) else None


def request_tools(context: Context) -> list[Tool] | None:
    """The tools in force for ``context``: replayed from its system messages when it carries
    them (kept in place), else its own ``tools``."""
    if not has_system_messages(context):
        return context.tools
    return [tool_from_declaration(tool) for tool in current_tools(context.messages)] or None


def declared_request_tools(context: Context) -> list[Tool] | None:
    """Every tool ``context`` ever declared (its system messages' latest declaration of each name,
    removed ones included), else its own ``tools``: what a tool call in its history may name."""
    declared = [tool_from_declaration(tool) for tool in declared_tools(context.messages)]
    return declared or context.tools


def conversation(context: Context) -> list[Message]:
    """The context's messages without system messages: what an adapter that does not send them in
    place works from (``prepare_context`` has folded them into ``system_prompt`` and ``tools``)."""
    return [message for message in context.messages if not isinstance(message, SystemMessage)]
