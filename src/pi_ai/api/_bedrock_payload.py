"""The ConverseStream request Pi 0.85 builds: messages, system prompt, tools, thinking fields.

``command_input`` is what Pi hands the AWS SDK (and its ``onPayload`` hook): ``modelId``
plus the body members, image bytes as ``bytes``. ``wire_body`` is the JSON the SDK sends:
``modelId`` moves to the URL, members are written in the service model's order, members the
model does not know are dropped, bytes become base64.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping, Sequence
from typing import Any

from pi_ai._context import Context, Tool
from pi_ai._messages import (
    AssistantMessage,
    ImageContent,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi_ai._model import Model
from pi_ai._transcript import conversation
from pi_ai._transform_messages import transform_messages
from pi_ai.api._common import env_value, sanitize_surrogates
from pi_ai.api._constrained import resolve_strict, tool_parameters

__all__ = [
    "command_input",
    "is_claude",
    "supports_adaptive_thinking",
    "wire_body",
]

EMPTY_TEXT = "<empty>"
_IMAGE_FORMATS = {
    "image/jpeg": "jpeg",
    "image/jpg": "jpeg",
    "image/png": "png",
    "image/gif": "gif",
    "image/webp": "webp",
}


# --------------------------------------------------------------------------- model families


def _candidates(model: Model) -> list[str]:
    values = [model.id, model.name] if model.name else [model.id]
    out = []
    for value in values:
        lower = value.lower()
        out += [lower, re.sub(r"[\s_.:]+", "-", lower)]
    return out


def _any(model: Model, *needles: str) -> bool:
    return any(needle in candidate for candidate in _candidates(model) for needle in needles)


def is_claude(model: Model) -> bool:
    """An Anthropic Claude model (by id, or by name for application inference profiles)."""
    model_id, name = model.id.lower(), (model.name or "").lower()
    return "anthropic.claude" in model_id or "anthropic/claude" in model_id or "claude" in name


def supports_adaptive_thinking(model: Model) -> bool:
    return _any(model, "opus-4-6", "opus-4-7", "opus-4-8", "opus-5", "sonnet-4-6", "sonnet-5", "fable-5")


def _native_xhigh(model: Model) -> bool:
    return _any(model, "opus-4-7", "opus-4-8", "opus-5", "sonnet-5", "fable-5")


def _supports_caching(model: Model, env: Mapping[str, str] | None) -> bool:
    if not _any(model, "claude"):
        return env_value("AWS_BEDROCK_FORCE_CACHE", env) == "1"
    return _any(model, "fable-5", "opus-5", "sonnet-5", "-4-", "claude-3-7-sonnet", "claude-3-5-haiku")


def effort_for(model: Model, level: str) -> str:
    if level == "xhigh" and _native_xhigh(model):
        return "xhigh"
    mapped = (model.thinking_level_map or {}).get(level)
    if isinstance(mapped, str):
        return mapped
    return {"minimal": "low", "low": "low", "medium": "medium"}.get(level, "high")


# --------------------------------------------------------------------------- content


def _image(block: ImageContent) -> dict[str, Any]:
    fmt = _IMAGE_FORMATS.get(block.mime_type)
    if fmt is None:
        raise ValueError(f"Unknown image type: {block.mime_type}")
    try:
        data = base64.b64decode(block.data, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("The string to be decoded is not correctly encoded.") from None
    return {"image": {"source": {"bytes": data}, "format": fmt}}


def _text(text: str) -> dict[str, Any] | None:
    clean = sanitize_surrogates(text)
    return None if not clean.strip() else {"text": clean}


def _document(value: Any) -> Any:
    """Tool-call input without empty keys (Bedrock rejects them)."""
    if isinstance(value, list):
        return [_document(item) for item in value]
    if isinstance(value, dict):
        return {key: _document(item) for key, item in value.items() if key}
    return value


def _user(message: UserMessage) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if isinstance(message.content, str):
        content.append(_text(message.content) or {"text": EMPTY_TEXT})
    else:
        for block in message.content:
            if isinstance(block, TextContent):
                item = _text(block.text)
                if item:
                    content.append(item)
            else:
                content.append(_image(block))
        if not content:
            content.append({"text": EMPTY_TEXT})
    return {"role": "user", "content": content}


def _thinking(block: ThinkingContent, model: Model) -> dict[str, Any] | None:
    if block.redacted:
        try:
            data = base64.b64decode(block.thinking_signature or "", validate=True)
        except (binascii.Error, ValueError):
            return None
        return {"reasoningContent": {"redactedContent": data}} if data else None
    thinking = sanitize_surrogates(block.thinking)
    if not thinking.strip():
        return None
    if not is_claude(model):
        return {"reasoningContent": {"reasoningText": {"text": thinking}}}
    signature = block.thinking_signature
    if not signature or not signature.strip():
        return {"text": thinking}
    return {"reasoningContent": {"reasoningText": {"text": thinking, "signature": signature}}}


def _assistant(message: AssistantMessage, model: Model) -> dict[str, Any] | None:
    blocks: list[dict[str, Any]] = []
    for block in message.content:
        item: dict[str, Any] | None
        if isinstance(block, TextContent):
            item = _text(block.text)
        elif isinstance(block, ToolCall):
            item = {
                "toolUse": {"toolUseId": block.id, "name": block.name, "input": _document(block.arguments)}
            }
        else:
            item = _thinking(block, model)
        if item is not None:
            blocks.append(item)
    return {"role": "assistant", "content": blocks} if blocks else None


def _tool_result(message: ToolResultMessage) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, ImageContent):
            content.append(_image(block))
        else:
            item = _text(block.text)
            if item:
                content.append(item)
    if not content:
        content.append({"text": EMPTY_TEXT})
    status = "error" if message.is_error else "success"
    return {"toolResult": {"toolUseId": message.tool_call_id, "content": content, "status": status}}


def _normalize_id(value: str) -> str:
    return re.sub(r"[^a-zA-Z0-9_-]", "_", value)[:64]


def _cache_point(retention: str) -> dict[str, Any]:
    return {"cachePoint": {"type": "default", **({"ttl": "1h"} if retention == "long" else {})}}


def convert_messages(
    messages: Sequence[Message], model: Model, retention: str, env: Mapping[str, str] | None
) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = []
    for message in transform_messages(messages, model, lambda value, *_: _normalize_id(value)):
        if isinstance(message, UserMessage):
            result.append(_user(message))
        elif isinstance(message, AssistantMessage):
            if message.content:
                converted = _assistant(message, model)
                if converted is not None:
                    result.append(converted)
        elif result and result[-1].get("_tool_results"):
            result[-1]["content"].append(_tool_result(message))
        else:
            result.append({"role": "user", "content": [_tool_result(message)], "_tool_results": True})
    for item in result:
        item.pop("_tool_results", None)
    if retention != "none" and _supports_caching(model, env) and result and result[-1]["role"] == "user":
        result[-1]["content"].append(_cache_point(retention))
    return result


def _system(prompt: str | None, model: Model, retention: str, env: Mapping[str, str] | None) -> Any:
    if not prompt:
        return None
    blocks: list[dict[str, Any]] = [{"text": sanitize_surrogates(prompt)}]
    if retention != "none" and _supports_caching(model, env):
        blocks.append(_cache_point(retention))
    return blocks


def _tool_config(tools: Sequence[Tool] | None, choice: Any, supports_strict: bool) -> Any:
    if not tools or choice == "none":
        return None
    specs = []
    for tool in tools:
        strict = resolve_strict(tool, supports_strict)
        spec: dict[str, Any] = {
            "name": tool.name,
            "description": tool.description,
            "inputSchema": {"json": tool_parameters(tool, strict)},
        }
        if strict is True:
            spec["strict"] = True
        specs.append({"toolSpec": spec})
    config: dict[str, Any] = {"tools": specs}
    if choice == "auto":
        config["toolChoice"] = {"auto": {}}
    elif choice == "any":
        config["toolChoice"] = {"any": {}}
    elif isinstance(choice, Mapping) and choice.get("type") == "tool":
        config["toolChoice"] = {"tool": {"name": choice.get("name")}}
    return config


# --------------------------------------------------------------------------- thinking

_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384, "xhigh": 16384, "max": 16384}


def _gov_cloud(model: Model, region: str | None) -> bool:
    if region and region.lower().startswith("us-gov-"):
        return True
    model_id = model.id.lower()
    return model_id.startswith(("us-gov.", "arn:aws-us-gov:"))


def additional_fields(
    model: Model,
    reasoning: str | None,
    *,
    budgets: Mapping[str, int | None] | None,
    display: str | None,
    interleaved: bool | None,
    region: str | None,
) -> dict[str, Any] | None:
    """``additionalModelRequestFields``: Claude's thinking settings (nothing for other models)."""
    if not reasoning or not model.reasoning or not is_claude(model):
        return None
    shown = None if _gov_cloud(model, region) else (display or "summarized")
    display_field = {"display": shown} if shown is not None else {}
    if supports_adaptive_thinking(model):
        return {
            "thinking": {"type": "adaptive", **display_field},
            "output_config": {"effort": effort_for(model, reasoning)},
        }
    level = "high" if reasoning in ("xhigh", "max") else reasoning
    custom = (budgets or {}).get(level)
    budget = custom if custom is not None else _BUDGETS.get(reasoning)
    fields: dict[str, Any] = {"thinking": {"type": "enabled", "budget_tokens": budget, **display_field}}
    if interleaved is None or interleaved:
        fields["anthropic_beta"] = ["interleaved-thinking-2025-05-14"]
    return fields


def command_input(
    model: Model,
    context: Context,
    *,
    max_tokens: int | None,
    temperature: float | None,
    tool_choice: Any,
    retention: str,
    env: Mapping[str, str] | None,
    additional: dict[str, Any] | None,
    request_metadata: Mapping[str, str] | None,
) -> dict[str, Any]:
    """The ``ConverseStreamCommand`` input (``None`` members left out)."""
    inference: dict[str, Any] = {}
    tokens = max_tokens if max_tokens is not None else (model.max_tokens if is_claude(model) else None)
    if tokens is not None:
        inference["maxTokens"] = tokens
    if temperature is not None:
        inference["temperature"] = temperature
    supports_strict = bool((model.compat or {}).get("supportsStrictMode", False))
    members: dict[str, Any] = {
        "modelId": model.id,
        "messages": convert_messages(conversation(context), model, retention, env),
        "system": _system(context.system_prompt, model, retention, env),
        "inferenceConfig": inference,
        "toolConfig": _tool_config(context.tools, tool_choice, supports_strict),
        "additionalModelRequestFields": additional,
        "requestMetadata": dict(request_metadata) if request_metadata is not None else None,
    }
    return {key: value for key, value in members.items() if value is not None}


# --------------------------------------------------------------------------- the wire body

_DOCUMENT = "document"
_BYTES = "bytes"
# structure -> (member, shape) in the service model's order; a shape is another structure's
# name, ("list", shape), _DOCUMENT (sent as is) or _BYTES (base64); None is a plain value.
_SHAPES: dict[str, list[tuple[str, Any]]] = {
    "Request": [
        ("messages", ("list", "Message")),
        ("system", ("list", "SystemBlock")),
        ("inferenceConfig", "Inference"),
        ("toolConfig", "ToolConfig"),
        ("guardrailConfig", _DOCUMENT),
        ("additionalModelRequestFields", _DOCUMENT),
        ("promptVariables", _DOCUMENT),
        ("additionalModelResponseFieldPaths", None),
        ("requestMetadata", _DOCUMENT),
        ("performanceConfig", _DOCUMENT),
        ("serviceTier", _DOCUMENT),
        ("outputConfig", _DOCUMENT),
    ],
    "Message": [("role", None), ("content", ("list", "Block"))],
    "Block": [
        ("text", None),
        ("image", "Image"),
        ("document", _DOCUMENT),
        ("video", _DOCUMENT),
        ("audio", _DOCUMENT),
        ("toolUse", "ToolUse"),
        ("toolResult", "ToolResult"),
        ("guardContent", _DOCUMENT),
        ("cachePoint", "CachePoint"),
        ("reasoningContent", "Reasoning"),
        ("citationsContent", _DOCUMENT),
        ("searchResult", _DOCUMENT),
    ],
    "SystemBlock": [("text", None), ("guardContent", _DOCUMENT), ("cachePoint", "CachePoint")],
    "Image": [("format", None), ("source", "ImageSource"), ("error", _DOCUMENT)],
    "ImageSource": [("bytes", _BYTES), ("s3Location", _DOCUMENT)],
    "ToolUse": [("toolUseId", None), ("name", None), ("input", _DOCUMENT), ("type", None)],
    "ToolResult": [
        ("toolUseId", None),
        ("content", ("list", "ResultBlock")),
        ("status", None),
        ("type", None),
    ],
    "ResultBlock": [
        ("json", _DOCUMENT),
        ("text", None),
        ("image", "Image"),
        ("document", _DOCUMENT),
        ("video", _DOCUMENT),
        ("searchResult", _DOCUMENT),
    ],
    "CachePoint": [("type", None), ("ttl", None)],
    "Reasoning": [("reasoningText", "ReasoningText"), ("redactedContent", _BYTES)],
    "ReasoningText": [("text", None), ("signature", None)],
    "Inference": [("maxTokens", None), ("temperature", None), ("topP", None), ("stopSequences", None)],
    "ToolConfig": [("tools", ("list", "Tool")), ("toolChoice", _DOCUMENT)],
    "Tool": [("toolSpec", "ToolSpec"), ("systemTool", _DOCUMENT), ("cachePoint", "CachePoint")],
    "ToolSpec": [("name", None), ("inputSchema", _DOCUMENT), ("description", None), ("strict", None)],
}


def _shape(value: Any, shape: Any) -> Any:
    if value is None:
        return None
    if shape is _BYTES:
        return base64.b64encode(value).decode() if isinstance(value, bytes | bytearray) else value
    if isinstance(shape, tuple):
        return [_shape(item, shape[1]) for item in value] if isinstance(value, list) else value
    if isinstance(shape, str) and shape in _SHAPES:
        if not isinstance(value, Mapping):
            return value
        out = {}
        for member, member_shape in _SHAPES[shape]:
            if member in value and value[member] is not None:
                out[member] = _shape(value[member], member_shape)
        return out
    return value


def wire_body(command: Mapping[str, Any]) -> dict[str, Any]:
    """The request body the SDK sends for ``command``."""
    body: dict[str, Any] = _shape(command, "Request")
    return body
