"""What a Codex request is made of: its options, URL, body and headers (Pi 1.6's
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
    unique_tools,
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


MIN_OUTPUT_TOKENS = 16
"""The Responses API refuses a smaller ``max_output_tokens`` (Pi 1.6 raises it to this)."""
CONFIGURATION_UPDATE_REQUEST_EFFORT = "medium"
"""``reasoning.effort`` of a request whose thinking level travels in ``configuration_update`` items."""


def resolve_effort(model: Model, level: str) -> str | None:
    """The effort the backend takes for a Pi level (or ``none``), through the model's
    ``thinking_level_map``; ``None`` for ``none`` when the map's ``off`` is null (the model takes
    no reasoning field then). A null entry for another level keeps the level's name, as in Pi."""
    level_map = model.thinking_level_map or {}
    if level == "none":
        return str(level_map["off"]) if level_map.get("off") is not None else (None if "off" in level_map else "none")
    mapped = level_map.get(level)
    return level if mapped is None else str(mapped)


def configuration_update_effort(model: Model, options: OpenAICodexResponsesOptions) -> str | None:
    """The effort sent as ``configuration_update`` items (Pi 1.6), for a model whose compat says
    ``supportsMidConvoEffort``: changing it mid-conversation then keeps the prompt cache."""
    if not (model.compat or {}).get("supportsMidConvoEffort") or options.reasoning_effort is None:
        return None
    return resolve_effort(model, options.reasoning_effort)


def build_body(
    model: Model,
    context: Context,
    options: OpenAICodexResponsesOptions,
    session_key: str | None,
    grammar_properties: Mapping[str, str],
) -> dict[str, Any]:
    """The request body (before ``on_payload``), keys in Pi 1.6's order. The system prompt is the
    leading ``developer`` item, not ``instructions`` (Pi 1.6: the backend puts ``instructions``
    after the input, which kept the prompt out of the cache)."""
    compat = model.compat or {}
    strict_flag = compat.get("supportsStrictMode")
    tool_options = ToolOptions(
        supports_strict_mode=True if strict_flag is None else bool(strict_flag),
        supports_grammar_tools=bool(compat.get("supportsOpenAIGrammarTools") or False),
        default_strict=None,
    )
    support = responses_tool_support(compat)
    in_place = in_place_request_tools(context, support)
    update_effort = configuration_update_effort(model, options)
    items = convert_responses_messages(
        model,
        context,
        CODEX_TOOL_CALL_PROVIDERS,
        ConvertOptions(
            grammar_input_properties=grammar_properties,
            tool_options=tool_options,
            tool_support=support,
            configuration_update_effort=update_effort,
        ),
    )
    body: dict[str, Any] = {
        "model": model.id,
        "store": False,
        "stream": True,
        "input": items,
        "text": {"verbosity": options.text_verbosity or "low"},
        "include": ["reasoning.encrypted_content"],
    }
    if session_key is not None:
        body["prompt_cache_key"] = session_key
    body["tool_choice"] = options.tool_choice if options.tool_choice is not None else "auto"
    body["parallel_tool_calls"] = True
    if options.max_tokens and compat.get("supportsMaxOutputTokens", True) is not False:
        body["max_output_tokens"] = max(options.max_tokens, MIN_OUTPUT_TOKENS)
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if options.service_tier is not None:
        body["service_tier"] = options.service_tier
    tools = unique_tools(context) if in_place is None else in_place
    if tools:
        body["tools"] = convert_responses_tools(tools, tool_options)
    _add_reasoning(body, model, options, update_effort)
    return body


def _add_reasoning(
    body: dict[str, Any], model: Model, options: OpenAICodexResponsesOptions, update_effort: str | None
) -> None:
    """``reasoning``: the requested effort (``medium`` while ``configuration_update`` items carry
    it), else, for a reasoning model, the effort that turns reasoning off unless the model has none."""
    if options.reasoning_effort is not None:
        effort = (
            resolve_effort(model, options.reasoning_effort)
            if update_effort is None
            else CONFIGURATION_UPDATE_REQUEST_EFFORT
        )
        if effort is not None:
            summary = options.reasoning_summary if options.reasoning_summary is not None else "auto"
            body["reasoning"] = {"effort": effort, "summary": summary}
    elif model.reasoning:
        off = resolve_effort(model, "none")
        if off is not None:
            body["reasoning"] = {"effort": off}


def _base_headers(model: Model, options: StreamOptions, account_id: str, token: str) -> dict[str, str | None]:
    """Pi 1.6's order: its own defaults (``originator``, ``User-Agent``), which the model's and
    the caller's headers may override or remove, then the credential's two headers."""
    defaults = {"originator": "pi", "User-Agent": pi_user_agent()}
    return {
        **merge_headers(defaults, model.headers, options.headers),
        "Authorization": f"Bearer {token}",
        "chatgpt-account-id": account_id,
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
