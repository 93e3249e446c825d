"""The ``azure-openai-responses`` wire API: the Responses endpoint of an Azure OpenAI resource.

Azure speaks OpenAI's Responses protocol (the event stream is read by the shared
``ResponsesStreamReader``); what differs is where the request goes and how it is signed, as
Pi 0.85 sets up the OpenAI SDK's ``AzureOpenAI`` client:

- the base URL: ``azure_base_url`` / ``AZURE_OPENAI_BASE_URL``, else
  ``https://{AZURE_OPENAI_RESOURCE_NAME}.openai.azure.com/openai/v1``, else the model's own; an
  Azure host given without a path gets ``/openai/v1``. Requests go to
  ``{base}/responses?api-version={version}`` (``azure_api_version`` /
  ``AZURE_OPENAI_API_VERSION``, default ``v1``);
- the key travels in an ``api-key`` header, not ``Authorization``;
- ``model`` in the body is the deployment: ``azure_deployment_name``, else the model's entry in
  ``AZURE_OPENAI_DEPLOYMENT_NAME_MAP`` (``model=deployment,...``), else the model id.

Scoped ``options.env`` values win over the process environment, as in Pi.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

from pi_ai._abort import AbortError
from pi_ai._context import Context
from pi_ai._event_stream import AssistantMessageEventStream, empty_assistant_message, error_text, start_stream
from pi_ai._model import Model, clamp_thinking_level
from pi_ai._options import SimpleStreamOptions, StreamOptions
from pi_ai._registry import ApiImplementation
from pi_ai._simple_options import base_options, merge_sampling_params
from pi_ai._transcript import declared_request_tools, with_leading_system_message
from pi_ai.api._accumulator import StreamAccumulator
from pi_ai.api._common import (
    check_stream_end,
    clamp_prompt_cache_key,
    env_value,
    openai_sdk_headers,
    pi_user_agent,
    provider_options,
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
    ConvertOptions,
    ToolOptions,
    convert_responses_messages,
    convert_responses_tools,
    in_place_request_tools,
    responses_tool_support,
)
from pi_ai.api._responses_stream import ResponsesStreamReader

API_NAME = "azure-openai-responses"
DEFAULT_API_VERSION = "v1"
MIN_OUTPUT_TOKENS = 16
"""The Responses API rejects ``max_output_tokens`` below 16."""

AZURE_TOOL_CALL_PROVIDERS = frozenset({"openai", "openai-codex", "opencode", "azure"})
"""Target providers for which tool-call ids keep their ``call_id|fc_item`` form on replay (Pi
1.6's list); for any other provider id each id is flattened into one ``call_id``. Models of the
old id ``azure-openai-responses`` are ``azure`` models once resolved (``pi_ai._provider_ids``),
so only a model written out with the old id (as Pi 0.85 defined it) is flattened, as 1.6 does."""

_AZURE_HOST_SUFFIXES = (".openai.azure.com", ".cognitiveservices.azure.com", ".ai.azure.com")


@dataclass(kw_only=True)
class AzureOpenAIResponsesOptions(StreamOptions):
    reasoning_effort: str | None = None
    """Pi level (``minimal`` .. ``max``); mapped through the model's ``thinking_level_map``."""
    reasoning_summary: str | None = None
    tool_choice: Any = None
    azure_api_version: str | None = None
    azure_resource_name: str | None = None
    azure_base_url: str | None = None
    azure_deployment_name: str | None = None


def deployment_name(model: Model, options: AzureOpenAIResponsesOptions) -> str:
    """The deployment the request names as its ``model``."""
    if options.azure_deployment_name:
        return options.azure_deployment_name
    mapping: dict[str, str] = {}
    for entry in (env_value("AZURE_OPENAI_DEPLOYMENT_NAME_MAP", options.env) or "").split(","):
        model_id, _, deployment = entry.strip().partition("=")
        deployment = deployment.partition("=")[0]  # JavaScript's split("=", 2) keeps two parts
        if model_id and deployment:
            mapping[model_id.strip()] = deployment.strip()
    return mapping.get(model.id) or model.id


def normalize_base_url(base_url: str) -> str:
    """An Azure host with no path (or ``/openai``, ``/openai/v1/responses``) gets ``/openai/v1``."""
    trimmed = base_url.strip().rstrip("/")
    parts = urlsplit(trimmed)
    if not parts.scheme or not parts.netloc:
        raise ValueError(f"Invalid Azure OpenAI base URL: {base_url}")
    host = (parts.hostname or "").lower()
    path = parts.path.rstrip("/")
    query = parts.query
    netloc = parts.netloc.rpartition("@")[2].lower()
    if host.endswith(_AZURE_HOST_SUFFIXES) and path in ("", "/openai", "/openai/v1/responses"):
        path, query = "/openai/v1", ""
    return urlunsplit((parts.scheme.lower(), netloc, path or "/", query, "")).rstrip("/")


def resolve_endpoint(model: Model, options: AzureOpenAIResponsesOptions) -> tuple[str, str]:
    """(base URL, api-version)."""
    version = options.azure_api_version or env_value("AZURE_OPENAI_API_VERSION", options.env)
    base = (options.azure_base_url or "").strip() or (
        env_value("AZURE_OPENAI_BASE_URL", options.env) or ""
    ).strip()
    if not base:
        resource = options.azure_resource_name or env_value("AZURE_OPENAI_RESOURCE_NAME", options.env)
        if resource:
            base = f"https://{resource}.openai.azure.com/openai/v1"
    if not base:
        base = model.base_url
    if not base:
        raise ValueError(
            "Azure OpenAI base URL is required. Set AZURE_OPENAI_BASE_URL or AZURE_OPENAI_RESOURCE_NAME, "
            "or pass azureBaseUrl, azureResourceName, or model.baseUrl."
        )
    return normalize_base_url(base), version or DEFAULT_API_VERSION


def build_headers(model: Model, api_key: str, options: StreamOptions) -> dict[str, str]:
    """The ``AzureOpenAI`` client's headers: the OpenAI SDK's, with the key in ``api-key``."""
    client: dict[str, str | None] = {"User-Agent": pi_user_agent(), **(model.headers or {})}
    if options.headers:
        client.update(options.headers)
    return openai_sdk_headers(api_key, client, auth_header="api-key")


_UNSET: Any = object()
"""A request field Pi leaves ``undefined``: it keeps its place in case ``sampling_params`` sets it."""


def build_params(
    model: Model,
    context: Context,
    options: AzureOpenAIResponsesOptions,
    deployment: str,
    grammar_properties: Mapping[str, str],
) -> dict[str, Any]:
    """The request body (before ``on_payload``), keys in Pi's order."""
    compat = model.compat or {}
    supports_grammar = bool(compat.get("supportsOpenAIGrammarTools") or False)
    strict_flag = compat.get("supportsStrictMode")
    support = responses_tool_support(compat)
    items = convert_responses_messages(
        model,
        context,
        AZURE_TOOL_CALL_PROVIDERS,
        ConvertOptions(grammar_input_properties=grammar_properties, tool_support=support),
    )
    in_place = in_place_request_tools(context, support)
    tools = context.tools if in_place is None else in_place
    key_off = (model.compat or {}).get("promptCacheKeyMode") == "disabled"  # Pi 1.6
    cache_key = None if key_off else clamp_prompt_cache_key(options.session_id)
    params: dict[str, Any] = {
        "model": deployment,
        "input": items,
        "stream": True,
        "prompt_cache_key": cache_key if cache_key is not None else _UNSET,
        "store": False,
    }
    if options.max_tokens:
        params["max_output_tokens"] = max(options.max_tokens, MIN_OUTPUT_TOKENS)
    if options.temperature is not None:
        params["temperature"] = options.temperature
    if tools:
        params["tools"] = convert_responses_tools(
            tools,
            ToolOptions(
                supports_strict_mode=True if strict_flag is None else bool(strict_flag),
                supports_grammar_tools=supports_grammar,
            ),
        )
    if options.tool_choice is not None:
        params["tool_choice"] = options.tool_choice
    if model.reasoning:
        level_map = model.thinking_level_map or {}
        if options.reasoning_effort or options.reasoning_summary:
            effort: Any = "medium"
            if options.reasoning_effort:
                mapped = level_map.get(options.reasoning_effort)
                effort = mapped if mapped is not None else options.reasoning_effort
            params["reasoning"] = {"effort": effort, "summary": options.reasoning_summary or "auto"}
            params["include"] = ["reasoning.encrypted_content"]
        elif "off" not in level_map or level_map["off"] is not None:
            off = level_map.get("off")
            params["reasoning"] = {"effort": off if off is not None else "none"}
    level = options.reasoning_effort or ("medium" if options.reasoning_summary else "off")
    params.update(merge_sampling_params(model, level, options.sampling_params) or {})
    return {key: value for key, value in params.items() if value is not _UNSET}


def format_error(error: BaseException) -> str:
    """Pi's ``formatProviderError(normalizeProviderError(error), "Azure OpenAI API error")``."""
    if isinstance(error, HttpStatusError):
        return openai_error_text(error, "Azure OpenAI API error")
    return error_text(error)


async def _request(
    model: Model,
    context: Context,
    options: AzureOpenAIResponsesOptions,
    grammar_properties: Mapping[str, str],
) -> HttpRequest:
    deployment = deployment_name(model, options)
    if not options.api_key:
        raise ValueError(f"No API key for provider: {model.provider}")
    base_url, version = resolve_endpoint(model, options)
    headers = build_headers(model, options.api_key, options)
    params = build_params(model, context, options, deployment, grammar_properties)
    params = await apply_on_payload(options, params, model)
    url = f"{join_url(base_url, '/responses')}?api-version={quote(version, safe='')}"
    return HttpRequest(url, headers, params)


def stream(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AssistantMessageEventStream:
    """Stream one response. Every failure arrives as an ``error`` event."""
    context = with_leading_system_message(model, context)
    opts = provider_options(options, AzureOpenAIResponsesOptions)
    output = empty_assistant_message(model)

    async def produce(events: AssistantMessageEventStream) -> None:
        acc = StreamAccumulator(events, output)
        signal = opts.signal
        try:
            compat = model.compat or {}
            grammar_properties = grammar_input_properties(
                declared_request_tools(context), bool(compat.get("supportsOpenAIGrammarTools") or False)
            )
            request = await _request(model, context, opts, grammar_properties)
            reader = ResponsesStreamReader(acc, model, grammar_properties=grammar_properties)
            async with open_stream(request, opts, model, describe_error=openai_sdk_message) as response:
                acc.start()
                with contextlib.suppress(AbortError):
                    await acc.feed(response.event_batches(flush_partial=True), reader.handle)
            reader.finish()
            check_stream_end(
                output,
                signal,
                "Azure OpenAI Responses stream ended without a stop reason",
                output.error_message or "An unknown error occurred",
            )
            acc.done()
        except Exception as error:
            acc.error(format_error(error), aborted=signal is not None and signal.aborted)

    return start_stream(model, produce, signal=opts.signal)


def stream_simple(
    model: Model, context: Context, options: SimpleStreamOptions | None = None
) -> AssistantMessageEventStream:
    """Unified options: ``reasoning`` becomes the reasoning effort."""
    simple = options or SimpleStreamOptions()
    if not simple.api_key:
        raise ValueError(f"No API key for provider: {model.provider}")
    provider = AzureOpenAIResponsesOptions(
        **base_options(model, context, simple), tool_choice=simple.tool_choice
    )
    if simple.reasoning:
        level = clamp_thinking_level(model, simple.reasoning)
        provider.reasoning_effort = None if level == "off" else level
    return stream(model, context, provider)


API = ApiImplementation(api=API_NAME, stream=stream, stream_simple=stream_simple)

OPTIONS = AzureOpenAIResponsesOptions

__all__ = ["API", "OPTIONS", "AzureOpenAIResponsesOptions", "stream", "stream_simple"]
