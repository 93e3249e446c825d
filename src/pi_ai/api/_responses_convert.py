"""Context -> OpenAI Responses ``input`` items and ``tools``, as Pi 0.85 builds them.

The Responses API is stateless here (``store: false``): every turn is replayed in full.
Reasoning items are replayed verbatim from ``ThinkingContent.thinking_signature`` (the JSON
of the item the server sent, encrypted content included), assistant text keeps the message
id it was streamed with (``TextContent.text_signature``), and tool calls carry
``"<call_id>|<item_id>"`` so both halves can be sent back.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pi_ai._context import Context, Tool
from pi_ai._messages import (
    AssistantMessage,
    ImageContent,
    SystemMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi_ai._model import Model
from pi_ai._text import content_text
from pi_ai._transcript import (
    ToolSupport,
    has_system_messages,
    render_system_message_update,
    system_message_text,
    tool_from_declaration,
    transcript_tools,
)
from pi_ai._transform_messages import transform_messages
from pi_ai.api._common import sanitize_surrogates, short_hash
from pi_ai.api._constrained import grammar_tool_input, resolve_grammar, resolve_strict, tool_parameters
from pi_ai.js_json import parse, stringify

OPENAI_TOOL_CALL_PROVIDERS = frozenset({"openai", "openai-codex", "opencode"})
"""Providers whose Responses backends accept ``call_id|fc_item`` pairs on replay."""

_NOT_ID_CHARS = re.compile(r"[^a-zA-Z0-9_-]")
_TRAILING_UNDERSCORES = re.compile(r"_+$")


@dataclass(frozen=True, slots=True)
class ToolOptions:
    supports_strict_mode: bool = True
    supports_grammar_tools: bool = False
    defer_loading: bool = False
    default_strict: bool | None = False
    """``strict`` of a tool that is not constrained; Codex sends ``null``."""


@dataclass(slots=True)
class ConvertOptions:
    grammar_input_properties: Mapping[str, str] = field(default_factory=dict)
    """Tool name -> the argument that carries a grammar tool's free-form input."""
    tool_options: ToolOptions = field(default_factory=ToolOptions)
    include_system_prompt: bool = True
    tool_support: ToolSupport = "none"
    """How system messages kept in place declare their tools (``responses_tool_support``)."""
    configuration_update_effort: str | None = None
    """The request's reasoning effort when the model takes it in ``configuration_update`` items
    (``supportsMidConvoEffort``): one before each replayed answer of the same model that recorded
    its own (``provider_thinking_level``), and one at the end of the input."""


def responses_tool_support(compat: Mapping[str, Any]) -> ToolSupport:
    """Pi 1.6's choice for a Responses model: ``additional_tools`` items for every change when it
    takes system messages and additional tools mid-conversation, client tool-search loads for
    additions when it searches tools, else every tool in the request's list."""
    if compat.get("supportsMidConvoSystemMessages") is True and compat.get("supportsAdditionalTools") is True:
        return "changes"
    return "additions" if compat.get("supportsToolSearch") is True else "none"


# The texts below are wire facts of Pi 1.6's Responses requests (sent to the model as they are,
# so a session sends the same input whichever Pi runs it).
_INCREMENTAL_TOOLS_NOTICE = (
    "This is an incremental tools update. Previously declared tools remain available unless explicitly marked "
    "unavailable. A tool declared again here is available again, and its latest definition replaces the earlier one."
)


def in_place_request_tools(context: Context, support: ToolSupport) -> list[Tool] | None:
    """The request's own tool list when ``context`` keeps its system messages in place (those up
    to the last change the transcript cannot express in place, ``transcript_tools``); ``None``
    for a context without system messages, whose own ``tools`` are the list."""
    if not has_system_messages(context):
        return None
    return [tool_from_declaration(tool) for tool in transcript_tools(context.messages, support)[0]]


def _incremental_notice(unavailable: Mapping[str, None]) -> str:
    if not unavailable:
        return _INCREMENTAL_TOOLS_NOTICE
    return f"{_INCREMENTAL_TOOLS_NOTICE}\nStill unavailable: {', '.join(unavailable)}."


def _removal_notice(names: list[str]) -> str:
    listed = "\n".join(f"- {name}" for name in names)
    return f"The following tools are no longer available. Do not call them:\n{listed}"


@dataclass(slots=True)
class _ToolChanges:
    """What the system messages kept in place declared so far."""

    declared_additional: bool = False
    unavailable: dict[str, None] = field(default_factory=dict)
    """Tools announced as removed and not declared again since, in announcement order."""


def _tool_additions(
    message: SystemMessage, seed: str, role: str, state: _ToolChanges, options: ConvertOptions
) -> list[dict[str, Any]]:
    """The items declaring the tools ``message`` adds: an ``additional_tools`` item (after the
    incremental notice from the second one on), or a client tool-search call and its output."""
    tools = [tool_from_declaration(tool) for tool in message.tools_added or ()]
    for tool in tools:
        state.unavailable.pop(tool.name, None)
    if not tools or options.tool_support == "none":
        return []
    if options.tool_support == "changes":
        items: list[dict[str, Any]] = []
        if state.declared_additional:
            items.append({"role": role, "content": _incremental_notice(state.unavailable)})
        state.declared_additional = True
        converted = convert_responses_tools(tools, options.tool_options)
        return [*items, {"type": "additional_tools", "role": "developer", "tools": converted}]
    names = [tool.name for tool in tools]
    joined = ",".join(names)
    call_id = f"pi_tool_load_{short_hash(f'{seed}:{joined}')}"
    loaded = convert_responses_tools(tools, dataclasses.replace(options.tool_options, defer_loading=True))
    search = {"query": " ".join(names), "limit": len(names)}
    return [
        {"type": "tool_search_call", "call_id": call_id, "execution": "client", "status": "completed", "arguments": search},
        {"type": "tool_search_output", "call_id": call_id, "execution": "client", "status": "completed", "tools": loaded},
    ]


def _system_items(
    message: SystemMessage,
    *,
    leading: bool,
    anchors: bool,
    seed: str,
    role: str,
    state: _ToolChanges,
    options: ConvertOptions,
) -> list[dict[str, Any]]:
    """A system message kept in place: its tool declarations when it anchors tool changes, then
    its text (the prompt when it leads, else an update) with any removal notice."""
    items = _tool_additions(message, seed, role, state, options) if anchors else []
    parts = [system_message_text(message) if leading else render_system_message_update(message)]
    if anchors:
        added = {str(tool.get("name")) for tool in message.tools_added or ()}
        removed = [str(tool.get("name")) for tool in message.tools_removed or () if str(tool.get("name")) not in added]
        if removed:
            parts.append(_removal_notice(removed))
        state.unavailable.update(dict.fromkeys(removed))
    text = "\n\n".join(part for part in parts if part)
    if text:
        items.append({"role": role, "content": sanitize_surrogates(text)})
    return items


def _normalize_id_part(part: str) -> str:
    return _TRAILING_UNDERSCORES.sub("", _NOT_ID_CHARS.sub("_", part)[:64])


def _normalize_call_id(part: str, original: str) -> str:
    """Like ``_normalize_id_part`` but never empty.

    Pi sends an empty ``call_id`` when nothing of the original id survives (e.g. ``|1``), which
    OpenAI rejects; we derive one from a hash of the original instead (docs/providers/openai-responses.md).
    """
    return _normalize_id_part(part) or f"call_{short_hash(original)}"


def _foreign_item_id(item_id: str) -> str:
    return f"fc_{short_hash(item_id)}"[:64]


def _parse_text_signature(signature: str | None) -> tuple[str, str | None] | None:
    """(message id, phase) from a text signature: JSON ``{"v":1,...}`` or a legacy plain id."""
    if not signature:
        return None
    if signature.startswith("{"):
        try:
            parsed = parse(signature)
        except ValueError:
            parsed = None
        version = parsed.get("v") if isinstance(parsed, dict) else None
        if (
            isinstance(parsed, dict)
            and version == 1
            and version is not True
            and isinstance(parsed.get("id"), str)
        ):
            phase = parsed.get("phase")
            return parsed["id"], phase if phase in ("commentary", "final_answer") else None
    return signature, None


def _tool_result_output(
    model: Model, content: list[TextContent | ImageContent]
) -> str | list[dict[str, Any]]:
    text = content_text(content)
    images = [block for block in content if isinstance(block, ImageContent)]
    if not images or "image" not in model.input:
        if text:
            return sanitize_surrogates(text)
        return "(see attached image)" if images else "(no tool output)"
    output: list[dict[str, Any]] = []
    if text:
        output.append({"type": "input_text", "text": sanitize_surrogates(text)})
    for image in images:
        output.append(
            {
                "type": "input_image",
                "detail": "auto",
                "image_url": f"data:{image.mime_type};base64,{image.data}",
            }
        )
    return output


def _parse_reasoning_item(signature: str) -> Any:
    """The stored reasoning item. A signature that is not JSON fails the request, as in Pi."""
    try:
        return parse(signature)
    except ValueError:
        raise ValueError(
            f"Unexpected token in reasoning signature, {signature[:32]!r} is not valid JSON"
        ) from None


def convert_responses_messages(
    model: Model,
    context: Context,
    allowed_tool_call_providers: frozenset[str],
    options: ConvertOptions,
) -> list[dict[str, Any]]:
    """The ``input`` list: system prompt, then every replayable message as Responses items."""
    items: list[dict[str, Any]] = []

    def normalize_tool_call_id(tool_call_id: str, _target: Model, source: AssistantMessage) -> str:
        if model.provider not in allowed_tool_call_providers or "|" not in tool_call_id:
            return _normalize_call_id(tool_call_id, tool_call_id)
        pieces = tool_call_id.split("|")
        call_id = _normalize_call_id(pieces[0], tool_call_id)
        foreign = source.provider != model.provider or source.api != model.api
        item_id = _foreign_item_id(pieces[1]) if foreign else _normalize_id_part(pieces[1])
        if not item_id.startswith("fc_"):
            item_id = _normalize_id_part(f"fc_{item_id}")
        return f"{call_id}|{item_id}"

    messages = transform_messages(context.messages, model, normalize_tool_call_id)
    developer = model.reasoning and (model.compat or {}).get("supportsDeveloperRole") is not False
    role = "developer" if developer else "system"

    if options.include_system_prompt and context.system_prompt:
        items.append({"role": role, "content": sanitize_surrogates(context.system_prompt)})

    folded = transcript_tools(messages, options.tool_support)[1] if has_system_messages(context) else 0
    update_effort = options.configuration_update_effort
    state = _ToolChanges()
    message_index = 0
    system_index = 0
    for position, message in enumerate(messages):
        if isinstance(message, SystemMessage):
            leading = position == 0
            items += _system_items(
                message,
                leading=leading,
                anchors=system_index >= folded,
                seed=f"system:{message_index}",
                role=role,
                state=state,
                options=options,
            )
            system_index += 1
            message_index += 0 if leading else 1
            continue
        if isinstance(message, UserMessage):
            if isinstance(message.content, str):
                items.append(
                    {
                        "role": "user",
                        "content": [{"type": "input_text", "text": sanitize_surrogates(message.content)}],
                    }
                )
            else:
                parts = [_user_part(block) for block in message.content]
                if not parts:
                    continue
                items.append({"role": "user", "content": parts})
        elif isinstance(message, AssistantMessage):
            converted = _assistant_items(model, message, message_index, options)
            if not converted:
                continue
            if update_effort is not None and _same_model(model, message) and message.provider_thinking_level is not None:
                items.append(_configuration_update(message.provider_thinking_level))
            items.extend(converted)
        else:
            _append_tool_result(model, message, items, options)
        message_index += 1
    if update_effort is not None:
        items.append(_configuration_update(update_effort))
    return items


def _same_model(model: Model, message: AssistantMessage) -> bool:
    return message.provider == model.provider and message.api == model.api and message.model == model.id


def _configuration_update(effort: str) -> dict[str, Any]:
    """Pi 1.6's item setting the reasoning effort from this point of the conversation on."""
    return {"type": "configuration_update", "reasoning": {"effort": effort}}


def _user_part(block: TextContent | ImageContent) -> dict[str, Any]:
    if isinstance(block, TextContent):
        return {"type": "input_text", "text": sanitize_surrogates(block.text)}
    return {
        "type": "input_image",
        "detail": "auto",
        "image_url": f"data:{block.mime_type};base64,{block.data}",
    }


def _assistant_items(
    model: Model, message: AssistantMessage, message_index: int, options: ConvertOptions
) -> list[dict[str, Any]]:
    output: list[dict[str, Any]] = []
    same_provider_and_api = message.provider == model.provider and message.api == model.api
    same_model = same_provider_and_api and message.model == model.id
    different_model = same_provider_and_api and message.model != model.id
    text_index = 0
    for block in message.content:
        if isinstance(block, ThinkingContent):
            if block.thinking_signature:
                output.append(_parse_reasoning_item(block.thinking_signature))
        elif isinstance(block, TextContent):
            parsed = _parse_text_signature(block.text_signature)
            fallback = (
                f"msg_pi_{message_index}" if text_index == 0 else f"msg_pi_{message_index}_{text_index}"
            )
            text_index += 1
            message_id = parsed[0] if parsed else ""
            if not message_id:
                message_id = fallback
            elif len(message_id) > 64:
                message_id = f"msg_{short_hash(message_id)}"
            item: dict[str, Any] = {
                "type": "message",
                "role": "assistant",
                "content": [
                    {"type": "output_text", "text": sanitize_surrogates(block.text), "annotations": []}
                ],
                "status": "completed",
                "id": message_id,
            }
            if parsed and parsed[1]:
                item["phase"] = parsed[1]
            output.append(item)
        else:
            output.append(_tool_call_item(block, same_model, different_model, options))
    return output


def _tool_call_item(
    block: ToolCall, same_model: bool, different_model: bool, options: ConvertOptions
) -> dict[str, Any]:
    pieces = block.id.split("|")
    call_id = pieces[0]
    item_id: str | None = pieces[1] if len(pieces) > 1 else None
    input_property = options.grammar_input_properties.get(block.name)
    fc_item = item_id is not None and item_id.startswith("fc_")
    # A different model of the same API must not see item ids it could pair with reasoning
    # items it never produced; custom-tool ids (ctc_*) are invalid on a function_call.
    if (different_model and fc_item) or (input_property is None and not fc_item):
        item_id = None
    item: dict[str, Any]
    if input_property is not None:
        item = {"type": "custom_tool_call"}
        if item_id is not None:
            item["id"] = item_id
        item["call_id"] = call_id
        item["name"] = block.name
        item["input"] = sanitize_surrogates(grammar_tool_input(block.name, block.arguments, input_property))
    else:
        item = {"type": "function_call"}
        if item_id is not None:
            item["id"] = item_id
        item["call_id"] = call_id
        item["name"] = block.name
        item["arguments"] = stringify(block.arguments)
    if same_model and block.namespace is not None:
        item["namespace"] = block.namespace
    return item


def _append_tool_result(
    model: Model, message: ToolResultMessage, items: list[dict[str, Any]], options: ConvertOptions
) -> None:
    """A tool result's output item. Tools a result names in ``added_tool_names`` (Pi 0.85's
    deferred loading) are not loaded here: Pi 1.6 dropped that mechanism and declares every tool
    of the context up front, a replayed tool-search load being the function call it was."""
    call_id = message.tool_call_id.split("|")[0]
    output = _tool_result_output(model, message.content)
    kind = (
        "custom_tool_call_output"
        if message.tool_name in options.grammar_input_properties
        else "function_call_output"
    )
    items.append({"type": kind, "call_id": call_id, "output": output})


def convert_responses_tools(tools: list[Tool], options: ToolOptions) -> list[dict[str, Any]]:
    """Tool definitions: ``function`` tools, or ``custom`` grammar tools when the model supports them."""
    converted: list[dict[str, Any]] = []
    for tool in tools:
        grammar = resolve_grammar(tool, options.supports_grammar_tools)
        if grammar is not None:
            custom: dict[str, Any] = {
                "type": "custom",
                "name": tool.name,
                "description": tool.description,
                "format": {"type": "grammar", "syntax": grammar.format, "definition": grammar.definition},
            }
            if options.defer_loading:
                custom["defer_loading"] = True
            converted.append(custom)
            continue
        constrained = resolve_strict(tool, options.supports_strict_mode)
        strict = constrained if constrained is not None else options.default_strict
        function: dict[str, Any] = {
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": tool_parameters(tool, strict),
        }
        if options.defer_loading:
            function["defer_loading"] = True
        if options.supports_strict_mode:
            function["strict"] = strict
        converted.append(function)
    return converted


def unique_tools(context: Context) -> list[Tool]:
    """The context's tools, one per name: the last definition wins, at the first one's position."""
    unique: dict[str, Tool] = {}
    for tool in context.tools or ():
        unique[tool.name] = tool
    return list(unique.values())
