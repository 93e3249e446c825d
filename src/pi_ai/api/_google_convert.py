"""Context -> Gemini ``generateContent`` request, as Pi 0.85 builds it through ``@google/genai``.

Two shapes exist. ``build_params`` returns what Pi hands to the SDK (and to ``on_payload``):
``{"model", "contents", "config"}``. ``wire_request`` then does what the SDK does before
sending: the model goes into the URL path, ``systemInstruction``, ``tools`` and
``toolConfig`` move to the top level, generation settings go into ``generationConfig``, and
every part is rebuilt with the SDK's key order.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pi_ai._context import Context, Tool
from pi_ai._messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    UserMessage,
)
from pi_ai._model import Model, clamp_thinking_level
from pi_ai._text import content_text
from pi_ai._transcript import conversation
from pi_ai._transform_messages import transform_messages
from pi_ai.api._common import sanitize_surrogates
from pi_ai.api._constrained import resolve_strict, tool_parameters
from pi_ai.js_json import js_trim

_GEMINI_MAJOR = re.compile(r"^gemini(?:-live)?-(\d+)")
_BASE64_SIGNATURE = re.compile(r"^[A-Za-z0-9+/]+={0,2}$")
_NOT_ID_CHARS = re.compile(r"[^a-zA-Z0-9_-]")

_JSON_SCHEMA_META_KEYS = frozenset(
    {"$schema", "$id", "$anchor", "$dynamicAnchor", "$vocabulary", "$comment", "$defs", "definitions"}
)


@functools.cache
def gemini_major_version(model_id: str) -> int | None:
    match = _GEMINI_MAJOR.match(model_id.lower())
    return int(match.group(1)) if match else None


def requires_tool_call_id(model_id: str) -> bool:
    """Models behind Google APIs that need ids on function calls and responses."""
    major = gemini_major_version(model_id)
    return model_id.startswith(("claude-", "gpt-oss-")) or (major is not None and major >= 3)


def supports_multimodal_function_response(model_id: str) -> bool:
    """Gemini 3+ (and non-Gemini models) accept images nested in a ``functionResponse``."""
    major = gemini_major_version(model_id)
    return major >= 3 if major is not None else True


def supports_strict_tool_sampling(model_id: str) -> bool:
    major = gemini_major_version(model_id)
    return major is not None and major >= 3


@functools.lru_cache(maxsize=8192)
def _valid_signature(signature: str | None) -> bool:
    """Thought signatures are bytes on Google's side: only well-formed base64 may be replayed.

    Remembered: every request checks the signatures of the whole history again, and the same
    string objects (whose hash Python keeps) come back each time (``bench/request_build.py``)."""
    return (
        bool(signature)
        and len(signature or "") % 4 == 0
        and _BASE64_SIGNATURE.match(signature or "") is not None
    )


def _signature(same_provider_and_model: bool, signature: str | None) -> str | None:
    return signature if same_provider_and_model and _valid_signature(signature) else None


def _inline_data(image: ImageContent) -> dict[str, Any]:
    return {"inlineData": {"mimeType": image.mime_type, "data": image.data}}


def convert_messages(model: Model, context: Context) -> list[dict[str, Any]]:
    """Messages -> Gemini ``contents`` (roles ``user`` and ``model``)."""
    contents: list[dict[str, Any]] = []
    needs_ids = requires_tool_call_id(model.id)

    def normalize_tool_call_id(tool_call_id: str, _target: Model, _source: AssistantMessage) -> str:
        if not needs_ids:
            return tool_call_id
        return _NOT_ID_CHARS.sub("_", tool_call_id)[:64]

    for message in transform_messages(conversation(context), model, normalize_tool_call_id):
        if isinstance(message, UserMessage):
            if isinstance(message.content, str):
                contents.append({"role": "user", "parts": [{"text": sanitize_surrogates(message.content)}]})
                continue
            parts = [
                {"text": sanitize_surrogates(block.text)}
                if isinstance(block, TextContent)
                else _inline_data(block)
                for block in message.content
            ]
            if parts:
                contents.append({"role": "user", "parts": parts})
        elif isinstance(message, AssistantMessage):
            parts = _model_parts(model, message, needs_ids)
            if parts:
                contents.append({"role": "model", "parts": parts})
        else:
            text = content_text(message.content)
            images = (
                [block for block in message.content if isinstance(block, ImageContent)]
                if "image" in model.input
                else []
            )
            nested_images = supports_multimodal_function_response(model.id)
            # Pi 1.6: whitespace-only text counts as no text (0.85 sent it as it was).
            has_text = bool(js_trim(text))
            value = sanitize_surrogates(text) if has_text else ("(see attached image)" if images else "")
            function_response: dict[str, Any] = {
                "name": message.tool_name,
                "response": {"error": value} if message.is_error else {"output": value},
            }
            if images and nested_images:
                function_response["parts"] = [_inline_data(image) for image in images]
            if needs_ids:
                function_response["id"] = message.tool_call_id
            part = {"functionResponse": function_response}
            # All function responses of one turn travel in a single user turn.
            last = contents[-1] if contents else None
            if (
                last is not None
                and last["role"] == "user"
                and any("functionResponse" in p for p in last["parts"])
            ):
                last["parts"].append(part)
            else:
                contents.append({"role": "user", "parts": [part]})
            if images and not nested_images:
                contents.append(
                    {
                        "role": "user",
                        "parts": [{"text": "Tool result image:"}, *(_inline_data(i) for i in images)],
                    }
                )
    return contents


def _model_parts(model: Model, message: AssistantMessage, needs_ids: bool) -> list[dict[str, Any]]:
    same = message.provider == model.provider and message.model == model.id
    parts: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextContent):
            signature = _signature(same, block.text_signature)
            # An empty part that carries a signature must still be echoed back.
            if not js_trim(block.text) and not signature:
                continue
            part: dict[str, Any] = {"text": sanitize_surrogates(block.text)}
            if signature:
                part["thoughtSignature"] = signature
            parts.append(part)
        elif isinstance(block, ThinkingContent):
            if same:
                signature = _signature(same, block.thinking_signature)
                if not js_trim(block.thinking) and not signature:
                    continue
                part = {"thought": True, "text": sanitize_surrogates(block.thinking)}
                if signature:
                    part["thoughtSignature"] = signature
                parts.append(part)
            elif js_trim(block.thinking):
                parts.append({"text": sanitize_surrogates(block.thinking)})
        else:
            parts.append(_function_call_part(block, same, needs_ids))
    return parts


def _function_call_part(block: ToolCall, same: bool, needs_ids: bool) -> dict[str, Any]:
    call: dict[str, Any] = {
        "name": block.name,
        "args": block.arguments if block.arguments is not None else {},
    }
    if needs_ids:
        call["id"] = block.id
    part: dict[str, Any] = {"functionCall": call}
    signature = _signature(same, block.thought_signature)
    if signature:
        part["thoughtSignature"] = signature
    return part


def _strip_schema_meta(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return schema
    return {
        key: _strip_schema_meta(value) for key, value in schema.items() if key not in _JSON_SCHEMA_META_KEYS
    }


def convert_tools(
    tools: list[Tool], *, use_parameters: bool = False, supports_strict_mode: bool = True
) -> list[dict[str, Any]] | None:
    """One tool object holding every function declaration (full JSON Schema by default)."""
    if not tools:
        return None
    declarations: list[dict[str, Any]] = []
    for tool in tools:
        parameters = tool_parameters(tool, resolve_strict(tool, supports_strict_mode))
        declaration: dict[str, Any] = {"name": tool.name, "description": tool.description}
        if use_parameters:
            declaration["parameters"] = _strip_schema_meta(parameters)
        else:
            declaration["parametersJsonSchema"] = parameters
        declarations.append(declaration)
    return [{"functionDeclarations": declarations}]


_TOOL_CHOICE_MODES = {"auto": "AUTO", "none": "NONE", "any": "ANY"}


def function_calling_mode(
    tools: list[Tool], tool_choice: str | None, supports_strict_mode: bool
) -> str | None:
    """``toolConfig.functionCallingConfig.mode``; ``VALIDATED`` when a tool asks for strict sampling."""
    strict = any(resolve_strict(tool, supports_strict_mode) is True for tool in tools)
    if tool_choice in ("none", "any"):
        return _TOOL_CHOICE_MODES[tool_choice]
    if strict:
        return "VALIDATED"
    if tool_choice:
        return _TOOL_CHOICE_MODES.get(tool_choice, "AUTO")
    return None


# --------------------------------------------------------------------------- thinking


def uses_thinking_level(model: Model) -> bool:
    """Whether the model takes Gemini's discrete ``thinkingLevel`` rather than a token budget
    (Pi 1.6: Gemini 3 Pro / Flash with or without a minor version, Gemini 4 and later, the
    ``-latest`` Flash aliases, Gemma 4). Which levels it supports is its ``thinkingLevelMap``'s
    business; this picks the wire form only."""
    model_id = model.id.lower()
    return (
        re.search(r"gemini-3(?:\.\d+)?-(?:pro|flash)", model_id) is not None
        or re.search(r"gemini-(?:[4-9]|[1-9]\d)", model_id) is not None
        or model_id in ("gemini-flash-latest", "gemini-flash-lite-latest")
        or re.search(r"gemma-?4", model_id) is not None
    )


_SDK_THINKING_LEVELS = frozenset({"THINKING_LEVEL_UNSPECIFIED", "MINIMAL", "LOW", "MEDIUM", "HIGH"})
"""The Gemini SDK's ``ThinkingLevel`` values; any other level given to ``stream`` is not sent
(Pi 1.6 looks the level up in the SDK's enum)."""


def disabled_thinking_config(model: Model) -> dict[str, Any]:
    """The closest a model gets to "no thinking" (Pi 1.6): a budget of 0, or, for a model that
    takes levels and whose map says thinking cannot be off, the weakest level it supports."""
    if not uses_thinking_level(model):
        return {"thinkingBudget": 0}
    weakest = clamp_thinking_level(model, "off")
    if weakest == "off":
        return {"thinkingBudget": 0}
    return {"thinkingLevel": thinking_level_for(resolve_google_thinking_level(model, weakest))}


def resolve_google_thinking_level(model: Model, level: str) -> str:
    """A Pi level, through the model's level map, as one of minimal/low/medium/high."""
    mapped = (model.thinking_level_map or {}).get(level)
    resolved = mapped.lower() if isinstance(mapped, str) else level
    if resolved in ("minimal", "low", "medium", "high"):
        return resolved
    shown = (
        "undefined"
        if level not in (model.thinking_level_map or {})
        else ("null" if mapped is None else mapped)
    )
    raise ValueError(
        f"Unsupported Google thinking level mapping for {model.provider}/{model.id}: {level} -> {shown}"
    )


def thinking_level_for(level: str) -> str:
    """A resolved level (minimal/low/medium/high) as Gemini's enum. Pi 1.6 maps it as it is;
    0.85 folded levels for Gemini 3 Pro and Gemma 4, which the models' level maps now say."""
    return level.upper()


_BUDGETS_25_PRO = {"minimal": 128, "low": 2048, "medium": 8192, "high": 32768}
_BUDGETS_25_FLASH_LITE = {"minimal": 512, "low": 2048, "medium": 8192, "high": 24576}
_BUDGETS_25_FLASH = {"minimal": 128, "low": 2048, "medium": 8192, "high": 24576}


def thinking_budget_for(model: Model, level: str, custom: Mapping[str, int | None] | None) -> int:
    """Gemini 2.5 thinking budgets per level; -1 (dynamic) for other models."""
    if custom is not None and custom.get(level) is not None:
        return int(custom[level])  # type: ignore[arg-type]
    if "2.5-pro" in model.id:
        return _BUDGETS_25_PRO[level]
    if "2.5-flash-lite" in model.id:
        return _BUDGETS_25_FLASH_LITE[level]
    if "2.5-flash" in model.id:
        return _BUDGETS_25_FLASH[level]
    return -1


@dataclass(frozen=True, slots=True)
class ThinkingSetting:
    """Pi's Google ``thinking`` option: on/off plus a level (Gemini 3) or a token budget."""

    enabled: bool
    budget_tokens: int | None = None
    level: str | None = None


def build_config_and_params(
    model: Model,
    context: Context,
    *,
    temperature: float | None,
    max_tokens: int | None,
    tool_choice: str | None,
    thinking: ThinkingSetting | None,
) -> dict[str, Any]:
    """The SDK parameters ``{"model", "contents", "config"}`` (what ``on_payload`` receives)."""
    contents = convert_messages(model, context)
    config: dict[str, Any] = {}
    if temperature is not None:
        config["temperature"] = temperature
    if max_tokens is not None:
        config["maxOutputTokens"] = max_tokens
    strict_supported = supports_strict_tool_sampling(model.id)
    tools = context.tools or []
    if context.system_prompt:
        config["systemInstruction"] = sanitize_surrogates(context.system_prompt)
    if tools:
        config["tools"] = convert_tools(tools, supports_strict_mode=strict_supported)
        mode = function_calling_mode(tools, tool_choice, strict_supported)
        if mode is not None:
            config["toolConfig"] = {"functionCallingConfig": {"mode": mode}}
    # Pi 1.6 turns the Gemini SDK's automatic continuation off; the SDK does not send it.
    config["automaticContinuation"] = False
    if thinking is not None and thinking.enabled and model.reasoning:
        thinking_config: dict[str, Any] = {"includeThoughts": True}
        if thinking.level is not None:
            if thinking.level in _SDK_THINKING_LEVELS:
                thinking_config["thinkingLevel"] = thinking.level
        elif thinking.budget_tokens is not None:
            thinking_config["thinkingBudget"] = thinking.budget_tokens
        config["thinkingConfig"] = thinking_config
    elif model.reasoning and thinking is not None and not thinking.enabled:
        config["thinkingConfig"] = disabled_thinking_config(model)
    return {"model": model.id, "contents": contents, "config": config}


# --------------------------------------------------------------------------- SDK wire form

_GENERATION_KEYS = (
    "temperature",
    "topP",
    "topK",
    "candidateCount",
    "maxOutputTokens",
    "stopSequences",
    "responseLogprobs",
    "logprobs",
    "presencePenalty",
    "frequencyPenalty",
    "seed",
    "responseMimeType",
    "responseSchema",
    "responseJsonSchema",
    "responseModalities",
    "mediaResolution",
    "speechConfig",
    "thinkingConfig",
    "imageConfig",
)


class RequestShapeError(ValueError):
    """Parameters the Gemini SDK refuses before sending (Pi reports its message)."""


def model_path(model: Any) -> str:
    if not model or not isinstance(model, str):
        raise RequestShapeError("model is required and must be a string")
    if ".." in model or "?" in model or "&" in model:
        raise RequestShapeError("invalid model parameter")
    return model if model.startswith(("models/", "tunedModels/")) else f"models/{model}"


def _wire_part(part: Any) -> Any:
    if not isinstance(part, dict):
        return part
    out: dict[str, Any] = {}
    for key in ("mediaResolution", "codeExecutionResult", "executableCode", "fileData"):
        if part.get(key) is not None:
            out[key] = part[key]
    call = part.get("functionCall")
    if call is not None:
        out["functionCall"] = {k: call[k] for k in ("id", "args", "name") if call.get(k) is not None}
    if part.get("functionResponse") is not None:
        out["functionResponse"] = part["functionResponse"]
    blob = part.get("inlineData")
    if blob is not None:
        out["inlineData"] = {k: blob[k] for k in ("data", "mimeType") if blob.get(k) is not None}
    for key in (
        "text",
        "thought",
        "thoughtSignature",
        "videoMetadata",
        "toolCall",
        "toolResponse",
        "partMetadata",
    ):
        if part.get(key) is not None:
            out[key] = part[key]
    return out


def _wire_content(content: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    parts = content.get("parts")
    if parts is not None:
        out["parts"] = [_wire_part(part) for part in parts] if isinstance(parts, list) else parts
    if content.get("role") is not None:
        out["role"] = content["role"]
    return out


def _as_content(value: Any) -> dict[str, Any]:
    if isinstance(value, dict) and isinstance(value.get("parts"), list):
        return value
    items = value if isinstance(value, list) else [value]
    if not items:
        raise RequestShapeError("PartListUnion is required")
    return {"role": "user", "parts": [{"text": item} if isinstance(item, str) else item for item in items]}


def wire_request(params: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """(``models/<id>`` path, JSON body) exactly as the Gemini SDK sends ``params``."""
    path = model_path(params.get("model"))
    contents = params.get("contents")
    body: dict[str, Any] = {}
    if contents is not None:
        if isinstance(contents, list) and not contents:
            raise RequestShapeError("contents are required")
        items = contents if isinstance(contents, list) else [contents]
        body["contents"] = [_wire_content(_as_content(item)) for item in items]
    config = params.get("config")
    if config is not None:
        generation: dict[str, Any] = {}
        if config.get("systemInstruction") is not None:
            body["systemInstruction"] = _wire_content(_as_content(config["systemInstruction"]))
        if config.get("safetySettings") is not None:
            body["safetySettings"] = config["safetySettings"]
        if config.get("tools") is not None:
            body["tools"] = list(config["tools"])
        if config.get("toolConfig") is not None:
            tool_config = config["toolConfig"]
            wire_tool_config: dict[str, Any] = {}
            if tool_config.get("retrievalConfig") is not None:
                wire_tool_config["retrievalConfig"] = tool_config["retrievalConfig"]
            calling = tool_config.get("functionCallingConfig")
            if calling is not None:
                wire_tool_config["functionCallingConfig"] = {
                    k: calling[k] for k in ("allowedFunctionNames", "mode") if calling.get(k) is not None
                }
            body["toolConfig"] = wire_tool_config
        for key in _GENERATION_KEYS:
            if config.get(key) is not None:
                generation[key] = config[key]
        if config.get("cachedContent") is not None:
            body["cachedContent"] = config["cachedContent"]
        if config.get("serviceTier") is not None:
            body["serviceTier"] = config["serviceTier"]
        body["generationConfig"] = generation
    return path, body
