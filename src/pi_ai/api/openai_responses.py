"""The ``openai-responses`` wire API: OpenAI's Responses endpoint, streamed, stateless.

``stream`` takes ``OpenAIResponsesOptions`` (provider-native: reasoning effort and summary,
service tier, tool choice); ``stream_simple`` maps the unified reasoning level onto them.
Requests go to ``POST {base_url}/responses`` with ``store: false``; prior reasoning is
replayed from the encrypted items kept in thinking signatures. The request body, headers
and the event sequence follow Pi 1.6 (which uses the official OpenAI SDK 7.x).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pi_ai._abort import AbortError
from pi_ai._context import Context
from pi_ai._event_stream import AssistantMessageEventStream, empty_assistant_message, error_text, start_stream
from pi_ai._messages import Usage
from pi_ai._model import Model, clamp_thinking_level, whole_as_int
from pi_ai._options import SimpleStreamOptions, StreamOptions
from pi_ai._registry import ApiImplementation
from pi_ai._simple_options import base_options, merge_sampling_params
from pi_ai._transcript import conversation, declared_request_tools, with_leading_system_message
from pi_ai.api._accumulator import StreamAccumulator
from pi_ai.api._common import (
    check_stream_end,
    clamp_prompt_cache_key,
    client_api_key,
    copilot_dynamic_headers,
    openai_sdk_headers,
    pi_user_agent,
    provider_options,
    resolve_cache_retention,
)
from pi_ai.api._constrained import grammar_input_properties
from pi_ai.api._http import (
    HttpRequest,
    HttpStatusError,
    apply_on_payload,
    join_url,
    open_stream,
    openai_error_text,
    openai_sdk_message,
)
from pi_ai.api._responses_convert import (
    OPENAI_TOOL_CALL_PROVIDERS,
    ConvertOptions,
    ToolOptions,
    convert_responses_messages,
    convert_responses_tools,
    in_place_request_tools,
    responses_tool_support,
    unique_tools,
)
from pi_ai.api._responses_stream import ResponsesStreamReader

API_NAME = "openai-responses"
MIN_OUTPUT_TOKENS = 16
"""The Responses API rejects ``max_output_tokens`` below 16."""


@dataclass(kw_only=True)
class OpenAIResponsesOptions(StreamOptions):
    reasoning_effort: str | None = None
    """Pi level (``minimal`` .. ``max``); mapped through the model's ``thinking_level_map``."""
    reasoning_summary: str | None = None
    """``auto`` | ``detailed`` | ``concise``."""
    service_tier: str | None = None
    tool_choice: Any = None


@dataclass(frozen=True, slots=True)
class ResponsesCompat:
    """Flags of ``model.compat`` the request builder reads (``supportsDeveloperRole`` is read
    by the message conversion itself, as in Pi)."""

    session_affinity_format: str
    supports_long_cache_retention: bool
    supports_strict_mode: bool
    supports_grammar_tools: bool
    supports_additional_tools: bool
    supports_tool_search: bool
    supports_explicit_prompt_cache_mode: bool
    supports_max_output_tokens: bool
    supports_mid_convo_effort: bool


def get_compat(model: Model) -> ResponsesCompat:
    """The model's ``compat`` flags with Pi's defaults for the Responses API."""
    compat = model.compat or {}

    def flag(name: str, default: Any) -> Any:
        value = compat.get(name)
        return default if value is None else value

    openrouter = model.provider == "openrouter" or "openrouter.ai" in model.base_url
    return ResponsesCompat(
        session_affinity_format=flag("sessionAffinityFormat", "openrouter" if openrouter else "openai"),
        supports_long_cache_retention=flag("supportsLongCacheRetention", True),
        supports_strict_mode=flag("supportsStrictMode", False),
        supports_grammar_tools=flag("supportsOpenAIGrammarTools", False),
        supports_additional_tools=flag("supportsAdditionalTools", False),
        supports_tool_search=flag("supportsToolSearch", False),
        supports_explicit_prompt_cache_mode=flag("supportsExplicitPromptCacheMode", False),
        supports_max_output_tokens=flag("supportsMaxOutputTokens", True),
        supports_mid_convo_effort=flag("supportsMidConvoEffort", False),
    )


_UNSET: Any = object()
"""Marks a request field Pi leaves ``undefined``: it keeps its place for later overrides."""


def _chatgpt_sign_in(model: Model, api_key: str | None) -> bool:
    """Pi 1.6: a credential sent to OpenAI itself that is not an API key (``sk-...``) is a Sign in
    with ChatGPT token, whose endpoint rejects the output limit, temperature and cache-retention
    fields, so they are left out."""
    return (
        model.provider == "openai"
        and model.base_url == "https://api.openai.com/v1"
        and api_key is not None
        and not api_key.startswith("sk-")
    )


def configuration_update_effort(
    model: Model, options: OpenAIResponsesOptions, compat: ResponsesCompat
) -> str | None:
    """The effort sent in ``configuration_update`` items instead of ``reasoning.effort`` (Pi 1.6,
    models whose compat says ``supportsMidConvoEffort``; not to a Sign in with ChatGPT token):
    a thinking level changed mid-conversation then keeps the cached prefix. The request's own
    ``reasoning.effort`` is ``medium`` meanwhile."""
    if not compat.supports_mid_convo_effort or not options.reasoning_effort:
        return None
    if _chatgpt_sign_in(model, options.api_key):
        return None
    mapped = (model.thinking_level_map or {}).get(options.reasoning_effort)
    return options.reasoning_effort if mapped is None else str(mapped)


def _cache_retention_field(compat: ResponsesCompat, retention: str) -> Any:
    """``prompt_cache_retention``: ``24h`` for long retention on models without explicit cache mode."""
    if retention == "long" and compat.supports_long_cache_retention and not compat.supports_explicit_prompt_cache_mode:
        return "24h"
    return _UNSET


def _cache_options_field(compat: ResponsesCompat, retention: str) -> Any:
    """``prompt_cache_options`` (Pi 1.6), only for models that accept it (GPT-5.6 and later).

    No caching asks for explicit mode; long retention asks for the 30-minute TTL, which
    replaces ``prompt_cache_retention`` on those models.
    """
    if not compat.supports_explicit_prompt_cache_mode:
        return _UNSET
    if retention == "none":
        return {"mode": "explicit"}
    if retention == "long" and compat.supports_long_cache_retention:
        return {"ttl": "30m"}
    return _UNSET


def build_params(
    model: Model,
    context: Context,
    options: OpenAIResponsesOptions,
    compat: ResponsesCompat,
    grammar_properties: Mapping[str, str],
) -> dict[str, Any]:
    """The request body (before ``on_payload``), keys in Pi's order."""
    tool_options = ToolOptions(
        supports_strict_mode=compat.supports_strict_mode, supports_grammar_tools=compat.supports_grammar_tools
    )
    support = responses_tool_support(model.compat or {})
    in_place = in_place_request_tools(context, support)
    immediate = unique_tools(context) if in_place is None else in_place
    update_effort = configuration_update_effort(model, options, compat)
    items = convert_responses_messages(
        model,
        context,
        OPENAI_TOOL_CALL_PROVIDERS,
        ConvertOptions(
            grammar_input_properties=grammar_properties,
            tool_options=tool_options,
            tool_support=support,
            configuration_update_effort=update_effort,
        ),
    )
    retention = resolve_cache_retention(options.cache_retention, options.env)
    key_off = retention == "none" or (model.compat or {}).get("promptCacheKeyMode") == "disabled"  # Pi 1.6
    cache_key = None if key_off else clamp_prompt_cache_key(options.session_id)
    sign_in = _chatgpt_sign_in(model, options.api_key)
    params: dict[str, Any] = {
        "model": model.id,
        "input": items,
        "stream": True,
        "prompt_cache_key": cache_key if cache_key is not None else _UNSET,
        "prompt_cache_retention": _UNSET if sign_in else _cache_retention_field(compat, retention),
        "prompt_cache_options": _UNSET if sign_in else _cache_options_field(compat, retention),
        "store": False,
    }
    if options.max_tokens and compat.supports_max_output_tokens and not sign_in:
        params["max_output_tokens"] = max(options.max_tokens, MIN_OUTPUT_TOKENS)
    if options.temperature is not None and not sign_in:
        params["temperature"] = options.temperature
    if options.service_tier is not None:
        params["service_tier"] = options.service_tier
    if immediate:
        params["tools"] = convert_responses_tools(immediate, tool_options)
    if options.tool_choice is not None:
        params["tool_choice"] = options.tool_choice
    if model.reasoning:
        if options.reasoning_effort or options.reasoning_summary:
            effort: Any = "medium"
            if options.reasoning_effort and update_effort is None:
                mapped = (model.thinking_level_map or {}).get(options.reasoning_effort)
                effort = mapped if mapped is not None else options.reasoning_effort
            params["reasoning"] = {"effort": effort, "summary": options.reasoning_summary or "auto"}
            params["include"] = ["reasoning.encrypted_content"]
        elif model.provider != "github-copilot" and (
            "off" not in (model.thinking_level_map or {})
            or (model.thinking_level_map or {})["off"] is not None
        ):
            off = (model.thinking_level_map or {}).get("off")
            params["reasoning"] = {"effort": off if off is not None else "none"}
        if model.provider == "xai":
            params["include"] = ["reasoning.encrypted_content"]
    level = options.reasoning_effort or ("medium" if options.reasoning_summary else "off")
    params.update(merge_sampling_params(model, level, options.sampling_params) or {})
    return {key: value for key, value in params.items() if value is not _UNSET}


def build_headers(
    model: Model, context: Context, api_key: str, options: StreamOptions, session_id: str | None
) -> dict[str, str]:
    """Headers in the OpenAI SDK's merge order: its defaults, auth, the client's headers (Pi's,
    then the caller's), the body type. The SDK's ``X-Stainless-*`` telemetry is not sent
    (docs/providers/openai-responses.md)."""
    compat = get_compat(model)
    pi_headers: dict[str, str | None] = {"User-Agent": pi_user_agent(), **(model.headers or {})}
    if model.provider == "github-copilot":
        pi_headers.update(copilot_dynamic_headers(conversation(context)))
    if session_id:
        if compat.session_affinity_format == "openrouter":
            pi_headers["x-session-id"] = session_id
        else:
            if compat.session_affinity_format == "openai":
                pi_headers["session-id"] = session_id  # Pi 1.6 (0.85: session_id)
            pi_headers["x-client-request-id"] = session_id
    if options.headers:
        pi_headers.update(options.headers)
    return openai_sdk_headers(api_key, pi_headers)


def _service_tier_multiplier(model: Model, tier: Any) -> float:
    if tier == "flex":
        return 0.5
    if tier == "priority":
        return 2.5 if model.id == "gpt-5.5" else 2
    return 1


def service_tier_pricing(model: Model) -> Any:
    def apply(usage: Usage, tier: Any) -> None:
        multiplier = _service_tier_multiplier(model, tier)
        if multiplier == 1:
            return
        cost = usage.cost
        cost.input = whole_as_int(cost.input * multiplier)
        cost.output = whole_as_int(cost.output * multiplier)
        cost.cache_read = whole_as_int(cost.cache_read * multiplier)
        cost.cache_write = whole_as_int(cost.cache_write * multiplier)
        cost.total = whole_as_int(cost.input + cost.output + cost.cache_read + cost.cache_write)

    return apply


def format_error(error: BaseException) -> str:
    """Pi's ``formatProviderError(normalizeProviderError(error), "OpenAI API error")``."""
    if isinstance(error, HttpStatusError):
        return openai_error_text(error, "OpenAI API error")
    return error_text(error)


def stream(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AssistantMessageEventStream:
    """Stream one response. Every failure arrives as an ``error`` event."""
    context = with_leading_system_message(model, context)
    opts = provider_options(options, OpenAIResponsesOptions)
    output = empty_assistant_message(model)
    output.provider_thinking_level = configuration_update_effort(model, opts, get_compat(model))

    async def produce(events: AssistantMessageEventStream) -> None:
        acc = StreamAccumulator(events, output)
        signal = opts.signal
        try:
            compat = get_compat(model)
            grammar_properties = grammar_input_properties(declared_request_tools(context), compat.supports_grammar_tools)
            request = await _request(model, context, opts, compat, grammar_properties)
            reader = ResponsesStreamReader(
                acc,
                model,
                service_tier=opts.service_tier,
                grammar_properties=grammar_properties,
                apply_service_tier_pricing=service_tier_pricing(model),
            )
            async with open_stream(request, opts, model, describe_error=openai_sdk_message) as response:
                acc.start()
                # The SDK ends its event iterator quietly when the request is aborted.
                with contextlib.suppress(AbortError):
                    await acc.feed(response.event_batches(flush_partial=True), reader.handle)
            reader.finish()
            check_stream_end(
                output,
                signal,
                "OpenAI Responses stream ended without a stop reason",
                output.error_message or "An unknown error occurred",
            )
            acc.done()
        except Exception as error:
            acc.error(format_error(error), aborted=signal is not None and signal.aborted)

    return start_stream(model, produce, signal=opts.signal)


async def _request(
    model: Model,
    context: Context,
    options: OpenAIResponsesOptions,
    compat: ResponsesCompat,
    grammar_properties: Mapping[str, str],
) -> HttpRequest:
    api_key = client_api_key(model.provider, options.api_key, options.headers)
    retention = resolve_cache_retention(options.cache_retention, options.env)
    session_id = None if retention == "none" else options.session_id
    headers = build_headers(model, context, api_key, options, session_id)
    params = build_params(model, context, options, compat, grammar_properties)
    params = await apply_on_payload(options, params, model)
    return HttpRequest(join_url(model.base_url, "/responses"), headers, params)


def stream_simple(
    model: Model, context: Context, options: SimpleStreamOptions | None = None
) -> AssistantMessageEventStream:
    """Unified options: ``reasoning`` becomes the Responses reasoning effort."""
    simple = options or SimpleStreamOptions()
    client_api_key(model.provider, simple.api_key, simple.headers)  # raises at once, like Pi
    provider = OpenAIResponsesOptions(**base_options(model, context, simple), tool_choice=simple.tool_choice)
    if simple.reasoning:
        level = clamp_thinking_level(model, simple.reasoning)
        provider.reasoning_effort = None if level == "off" else level
    return stream(model, context, provider)


API = ApiImplementation(api=API_NAME, stream=stream, stream_simple=stream_simple)

OPTIONS = OpenAIResponsesOptions

__all__ = ["API", "OPTIONS", "OpenAIResponsesOptions", "stream", "stream_simple"]
