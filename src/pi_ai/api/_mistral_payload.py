"""The chat request Pi 0.85's Mistral adapter builds, and the wire form it sends.

``chat_payload`` is what ``on_payload`` receives (the Mistral SDK's camelCase names:
``maxTokens``, ``toolCalls``, ``imageUrl``); ``wire_payload`` renames them to the API's
snake_case the way Pi does, a renamed key moving to the end of its object.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pi_ai._context import Context, Tool
from pi_ai._messages import (
    AssistantMessage,
    ContextMessage,
    ImageContent,
    SystemMessage,
    TextContent,
    ThinkingContent,
    UserMessage,
)
from pi_ai._model import Model
from pi_ai._transcript import render_system_message_update, request_tools, system_message_text
from pi_ai._transform_messages import transform_messages
from pi_ai.api._common import sanitize_surrogates, short_hash
from pi_ai.api._constrained import resolve_strict, tool_parameters
from pi_ai.js_json import stringify

__all__ = ["chat_payload", "derive_tool_call_id", "wire_payload"]

TOOL_CALL_ID_LENGTH = 9
_IMAGE_OMITTED = "(image omitted: model does not support images)"
_TOP_LEVEL_RENAMES = (
    ("topP", "top_p"),
    ("maxTokens", "max_tokens"),
    ("randomSeed", "random_seed"),
    ("responseFormat", "response_format"),
    ("toolChoice", "tool_choice"),
    ("presencePenalty", "presence_penalty"),
    ("frequencyPenalty", "frequency_penalty"),
    ("parallelToolCalls", "parallel_tool_calls"),
    ("reasoningEffort", "reasoning_effort"),
    ("promptMode", "prompt_mode"),
    ("promptCacheKey", "prompt_cache_key"),
    ("safePrompt", "safe_prompt"),
)
_CHUNK_RENAMES = (
    ("imageUrl", "image_url"),
    ("documentUrl", "document_url"),
    ("documentName", "document_name"),
    ("fileId", "file_id"),
    ("referenceIds", "reference_ids"),
    ("inputAudio", "input_audio"),
)


_NOT_ALPHANUMERIC = re.compile(r"[^a-zA-Z0-9]")


def derive_tool_call_id(value: str, attempt: int) -> str:
    """Mistral wants nine alphanumerics: the id itself when it is that, else a hash of it."""
    normalized = _NOT_ALPHANUMERIC.sub("", value)
    if attempt == 0 and len(normalized) == TOOL_CALL_ID_LENGTH:
        return normalized
    seed_base = normalized or value
    seed = seed_base if attempt == 0 else f"{seed_base}:{attempt}"
    return _NOT_ALPHANUMERIC.sub("", short_hash(seed))[:TOOL_CALL_ID_LENGTH]


def _id_normalizer() -> Callable[[str], str]:
    """Distinct ids stay distinct: a collision takes the next attempt's hash."""
    forward: dict[str, str] = {}
    owners: dict[str, str] = {}

    def normalize(value: str) -> str:
        if value in forward:
            return forward[value]
        attempt = 0
        while True:
            candidate = derive_tool_call_id(value, attempt)
            owner = owners.get(candidate)
            if owner is None or owner == value:
                forward[value] = candidate
                owners[candidate] = value
                return candidate
            attempt += 1

    return normalize


def _image_url(block: ImageContent) -> dict[str, Any]:
    return {"type": "image_url", "imageUrl": f"data:{block.mime_type};base64,{block.data}"}


def _user(message: UserMessage, images: bool) -> dict[str, Any] | None:
    if isinstance(message.content, str):
        return {"role": "user", "content": sanitize_surrogates(message.content)}
    content = [
        {"type": "text", "text": sanitize_surrogates(block.text)}
        if isinstance(block, TextContent)
        else _image_url(block)
        for block in message.content
        if isinstance(block, TextContent) or images
    ]
    if content:
        return {"role": "user", "content": content}
    if any(isinstance(block, ImageContent) for block in message.content) and not images:
        return {"role": "user", "content": _IMAGE_OMITTED}
    return None


def _assistant(message: AssistantMessage) -> dict[str, Any] | None:
    parts: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextContent):
            if block.text.strip():
                parts.append({"type": "text", "text": sanitize_surrogates(block.text)})
        elif isinstance(block, ThinkingContent):
            if block.thinking.strip():
                parts.append(
                    {
                        "type": "thinking",
                        "thinking": [{"type": "text", "text": sanitize_surrogates(block.thinking)}],
                    }
                )
        else:
            arguments = stringify(block.arguments or {})
            calls.append(
                {
                    "id": block.id,
                    "type": "function",
                    "function": {"name": block.name, "arguments": arguments},
                    "index": 0,
                }
            )
    out: dict[str, Any] = {"role": "assistant", "prefix": False}
    if parts:
        out["content"] = parts
    if calls:
        out["toolCalls"] = calls
    return out if parts or calls else None


def _tool_text(text: str, has_images: bool, images: bool, is_error: bool) -> str:
    prefix = "[tool error] " if is_error else ""
    trimmed = text.strip()
    if trimmed:
        suffix = "\n[tool image omitted: model does not support images]" if has_images and not images else ""
        return f"{prefix}{trimmed}{suffix}"
    if has_images:
        return f"{prefix}(see attached image)" if images else f"{prefix}{_IMAGE_OMITTED}"
    return f"{prefix}(no tool output)"


def _messages(messages: Sequence[ContextMessage], images: bool) -> list[dict[str, Any]]:
    """The chat messages; a system message (kept in place for a model that takes them, Pi 1.6)
    is the prompt when it leads and an update anywhere else."""
    result: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        converted: dict[str, Any] | None
        if isinstance(message, SystemMessage):
            text = system_message_text(message) if index == 0 else render_system_message_update(message)
            converted = {"role": "system", "content": sanitize_surrogates(text)} if text else None
        elif isinstance(message, UserMessage):
            converted = _user(message, images)
        elif isinstance(message, AssistantMessage):
            converted = _assistant(message)
        else:
            text = "\n".join(
                sanitize_surrogates(b.text) for b in message.content if isinstance(b, TextContent)
            )
            has_images = any(isinstance(b, ImageContent) for b in message.content)
            content: list[dict[str, Any]] = [
                {"type": "text", "text": _tool_text(text, has_images, images, message.is_error)}
            ]
            if images:
                content += [_image_url(b) for b in message.content if isinstance(b, ImageContent)]
            converted = {
                "role": "tool",
                "toolCallId": message.tool_call_id,
                "name": message.tool_name,
                "content": content,
            }
        if converted is not None:
            result.append(converted)
    return result


def _tools(tools: Sequence[Tool], supports_strict_mode: bool) -> list[dict[str, Any]]:
    """Function tools; strict schemas only where the model's compat sets ``supportsStrictMode``
    (Pi 1.6: opt-in for Mistral, whose large model can stall before a strict call)."""
    out = []
    for tool in tools:
        strict = resolve_strict(tool, supports_strict_mode)
        function = {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool_parameters(tool, strict),
            "strict": strict if strict is not None else False,
        }
        out.append({"type": "function", "function": function})
    return out


def _tool_choice(choice: Any) -> Any:
    if not choice:
        return None
    if choice in ("auto", "none", "any", "required"):
        return choice
    function = choice.get("function") if isinstance(choice, Mapping) else None
    name = function.get("name") if isinstance(function, Mapping) else None
    return {"type": "function", "function": {"name": name}}


def chat_payload(
    model: Model,
    context: Context,
    *,
    temperature: float | None,
    max_tokens: int | None,
    tool_choice: Any,
    prompt_mode: str | None,
    reasoning_effort: str | None,
    cache_key: str | None,
) -> dict[str, Any]:
    normalize = _id_normalizer()
    messages = transform_messages(context.messages, model, lambda value, *_: normalize(value))
    payload: dict[str, Any] = {
        "model": model.id,
        "stream": True,
        "messages": _messages(messages, "image" in model.input),
    }
    if tools := request_tools(context):
        payload["tools"] = _tools(tools, bool((model.compat or {}).get("supportsStrictMode") or False))
    if temperature is not None:
        payload["temperature"] = temperature
    if max_tokens is not None:
        payload["maxTokens"] = max_tokens
    choice = _tool_choice(tool_choice)
    if choice is not None:
        payload["toolChoice"] = choice
    if prompt_mode:
        payload["promptMode"] = prompt_mode
    if reasoning_effort:
        payload["reasoningEffort"] = reasoning_effort
    if cache_key:
        payload["promptCacheKey"] = cache_key
    if context.system_prompt:
        payload["messages"].insert(
            0, {"role": "system", "content": sanitize_surrogates(context.system_prompt)}
        )
    return payload


def _rename(record: dict[str, Any], source: str, target: str) -> None:
    if source in record:
        record[target] = record.pop(source)


def _wire_message(message: Any) -> Any:
    if not isinstance(message, dict):
        return message
    out = dict(message)
    _rename(out, "toolCalls", "tool_calls")
    _rename(out, "toolCallId", "tool_call_id")
    if isinstance(message.get("content"), list):
        chunks = []
        for chunk in message["content"]:
            wire = dict(chunk) if isinstance(chunk, dict) else chunk
            if isinstance(wire, dict):
                for source, target in _CHUNK_RENAMES:
                    _rename(wire, source, target)
            chunks.append(wire)
        out["content"] = chunks
    return out


def wire_payload(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The body Pi sends for ``payload``."""
    out = dict(payload)
    for source, target in _TOP_LEVEL_RENAMES:
        _rename(out, source, target)
    out["messages"] = [_wire_message(message) for message in payload.get("messages") or []]
    response_format = out.get("response_format")
    if isinstance(response_format, dict):
        wire_format = dict(response_format)
        _rename(wire_format, "jsonSchema", "json_schema")
        schema = wire_format.get("json_schema")
        if isinstance(schema, dict):
            wire_schema = dict(schema)
            _rename(wire_schema, "schemaDefinition", "schema")
            wire_format["json_schema"] = wire_schema
        out["response_format"] = wire_format
    return out
