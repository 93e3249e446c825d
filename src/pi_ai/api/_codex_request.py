"""What a Codex request is made of: its options, URL, body and headers (Pi 0.85's
``buildRequestBody``, ``buildSSEHeaders``, ``buildWebSocketHeaders``, ``resolveCodexUrl``);
shared by the SSE and WebSocket transports."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pi_ai._context import Context
from pi_ai._model import Model
from pi_ai._options import StreamOptions
from pi_ai.api._common import pi_user_agent
from pi_ai.api._http import merge_headers
from pi_ai.api._responses_convert import (
    ConvertOptions,
    ToolOptions,
    convert_responses_messages,
    convert_responses_tools,
    in_place_request_tools,
    responses_tool_support,
    split_deferred_tools,
)

DEFAULT_BASE_URL = "https://chatgpt.com/backend-api"
CODEX_TOOL_CALL_PROVIDERS = frozenset({"openai", "openai-codex", "opencode"})
"""Providers whose ``call_id|fc_item`` tool-call ids the Codex backend accepts on replay."""


@dataclass(kw_only=True)
class OpenAICodexResponsesOptions(StreamOptions):
    reasoning_effort: str | None = None
    """Pi level, or ``none``; mapped through the model's ``thinking_level_map``."""
    reasoning_summary: str | None = None
    text_verbosity: str | None = None
    """``low`` (default) | ``medium`` | ``high``."""
    service_tier: str | None = None
    tool_choice: Any = None
    transport: str | None = None
    """``sse`` | ``websocket`` | ``websocket-cached`` | ``auto`` (default; ``None`` reads
    ``extra["transport"]`` first, where the agent puts its setting)."""


def codex_url(base_url: str | None) -> str:
    raw = base_url if base_url and base_url.strip() else DEFAULT_BASE_URL
    normalized = raw.rstrip("/")
    if normalized.endswith("/codex/responses"):
        return normalized
    if normalized.endswith("/codex"):
        return f"{normalized}/responses"
    return f"{normalized}/codex/responses"


def build_body(
    model: Model,
    context: Context,
    options: OpenAICodexResponsesOptions,
    session_key: str | None,
    grammar_properties: Mapping[str, str],
) -> dict[str, Any]:
    """The request body (before ``on_payload``), keys in Pi's order."""
    compat = model.compat or {}
    strict_flag = compat.get("supportsStrictMode")
    tool_options = ToolOptions(
        supports_strict_mode=True if strict_flag is None else bool(strict_flag),
        supports_grammar_tools=bool(compat.get("supportsOpenAIGrammarTools") or False),
        default_strict=None,
    )
    deferred_mode = (
        "additional-tools"
        if compat.get("supportsAdditionalTools")
        else ("tool-search" if compat.get("supportsToolSearch") else None)
    )
    immediate, deferred = split_deferred_tools(context, deferred_mode is not None)
    support = responses_tool_support(compat)
    in_place = in_place_request_tools(context, support)
    immediate = immediate if in_place is None else in_place
    items = convert_responses_messages(
        model,
        context,
        CODEX_TOOL_CALL_PROVIDERS,
        ConvertOptions(
            grammar_input_properties=grammar_properties,
            deferred_tools=deferred,
            deferred_tools_mode=deferred_mode,
            tool_options=tool_options,
            include_system_prompt=False,
            tool_support=support,
        ),
    )
    body: dict[str, Any] = {"model": model.id, "store": False, "stream": True}
    if in_place is None:
        # Kept in place, the prompt is the leading developer item instead (Pi 1.6 sends it so always).
        body["instructions"] = context.system_prompt or "You are a helpful assistant."
    body |= {
        "input": items,
        "text": {"verbosity": options.text_verbosity or "low"},
        "include": ["reasoning.encrypted_content"],
    }
    if session_key is not None:
        body["prompt_cache_key"] = session_key
    body["tool_choice"] = options.tool_choice if options.tool_choice is not None else "auto"
    body["parallel_tool_calls"] = True
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if options.service_tier is not None:
        body["service_tier"] = options.service_tier
    if immediate:
        body["tools"] = convert_responses_tools(immediate, tool_options)
    if options.reasoning_effort is not None:
        none = options.reasoning_effort == "none"
        mapped = (model.thinking_level_map or {}).get("off" if none else options.reasoning_effort)
        effort = mapped if mapped is not None else ("none" if none else options.reasoning_effort)
        body["reasoning"] = {"effort": effort, "summary": options.reasoning_summary or "auto"}
    return body


def _base_headers(model: Model, options: StreamOptions, account_id: str, token: str) -> dict[str, str | None]:
    return {
        **merge_headers(model.headers, options.headers),
        "Authorization": f"Bearer {token}",
        "chatgpt-account-id": account_id,
        "originator": "pi",
        "User-Agent": pi_user_agent(),
    }


def sse_headers(
    model: Model, options: StreamOptions, account_id: str, token: str, session_key: str | None
) -> dict[str, str]:
    headers = _base_headers(model, options, account_id, token)
    extra: dict[str, str | None] = {
        "OpenAI-Beta": "responses=experimental",
        "accept": "text/event-stream",
        "content-type": "application/json",
    }
    if session_key:
        extra["session-id"] = session_key
        extra["x-client-request-id"] = session_key
    return merge_headers(headers, extra)


def websocket_headers(
    model: Model, options: StreamOptions, account_id: str, token: str, request_id: str
) -> dict[str, str]:
    headers = merge_headers(
        _base_headers(model, options, account_id, token),
        {"accept": None, "content-type": None, "OpenAI-Beta": None},
    )
    return merge_headers(headers, {"x-client-request-id": request_id, "session-id": request_id})
