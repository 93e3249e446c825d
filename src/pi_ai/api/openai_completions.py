"""``openai-completions``: OpenAI Chat Completions (``POST {baseUrl}/chat/completions``) and
the many servers that speak it (DeepSeek, OpenRouter, Groq, Together, Ollama, llama.cpp,
vLLM, LM Studio, ...), shaped by ``model.compat`` (``_completions_payload``).

The request is built in ``_completions_payload``, the chunks are read in
``_completions_stream``; this module runs the request.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pi_ai._abort import AbortError, AbortSignal
from pi_ai._context import Context
from pi_ai._event_stream import AssistantMessageEventStream, error_text, now_ms, start_stream
from pi_ai._messages import AssistantMessage, ToolCall
from pi_ai._model import Model, ThinkingLevel, clamp_thinking_level
from pi_ai._options import SimpleStreamOptions, StreamOptions, ThinkingBudgets
from pi_ai._registry import ApiImplementation
from pi_ai._simple_options import base_options
from pi_ai.api._accumulator import StreamAccumulator, StreamError
from pi_ai.api._common import client_api_key, provider_options, resolve_cache_retention
from pi_ai.api._completions_payload import (
    CompletionsCompat,
    build_params,
    completions_compat,
    request_headers,
)
from pi_ai.api._completions_stream import CompletionsStreamReader, SdkStreamError
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
from pi_ai.api._local_servers import (
    LocalServerCompat,
    adapt_local_request,
    local_server_compat,
    promote_text_tool_calls,
)

__all__ = ["API", "OPTIONS", "OpenAICompletionsOptions", "stream", "stream_simple"]


@dataclass(kw_only=True)
class OpenAICompletionsOptions(StreamOptions):
    tool_choice: str | Mapping[str, Any] | None = None
    """Sent as ``tool_choice`` unchanged (``auto``, ``none``, ``required`` or an object)."""
    reasoning_effort: str | None = None
    """``minimal`` .. ``max``; mapped through the model's ``thinkingLevelMap``."""
    thinking_budgets: ThinkingBudgets | None = None


OPTIONS = OpenAICompletionsOptions


def _format_error(error: BaseException) -> str:
    """Pi's ``formatProviderError(normalizeProviderError(error))`` plus OpenRouter's
    ``metadata.raw`` when the message does not already carry it."""
    if isinstance(error, HttpStatusError):
        text = openai_error_text(error)
        body = _safe_json(error.text)
        inner = body.get("error") if isinstance(body, dict) else None
        raw = (inner.get("metadata") or {}).get("raw") if isinstance(inner, dict) else None
        if raw and str(raw) not in text:
            text += f"\n{raw}"
        return text
    text = error_text(error)
    if isinstance(error, SdkStreamError) and error.raw and error.raw not in text:
        text += f"\n{error.raw}"
    return text


def _safe_json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


async def _run(
    stream: AssistantMessageEventStream, model: Model, context: Context, options: OpenAICompletionsOptions
) -> None:
    output = AssistantMessage(
        content=[],
        api=model.api,
        provider=model.provider,
        model=model.id,
        stop_reason="pending",
        timestamp=now_ms(),
    )
    acc = StreamAccumulator(stream, output)
    signal = options.signal
    reader: CompletionsStreamReader | None = None
    try:
        compat = completions_compat(model)
        local = local_server_compat(model)
        request = await _request(model, context, options, compat, local)
        reader = CompletionsStreamReader(
            acc, model, grammar_input_properties(context.tools, compat.supports_openai_grammar_tools)
        )
        async with open_stream(request, options, model, describe_error=openai_sdk_message) as response:
            acc.start()
            # The SDK ends its iterator quietly on abort; the check below reports it.
            with contextlib.suppress(AbortError):
                await acc.feed(response.event_batches(flush_partial=True), reader.handle)
        promoted = local.parse_tool_calls_from_text and promote_text_tool_calls(stream, output, context.tools)
        reader.finish_blocks()
        if promoted and output.stop_reason == "stop":
            output.stop_reason = "toolUse"
        _check_end(output, signal, compat.supports_finish_reason, reader.has_finish_reason)
        acc.done()
    except Exception as error:
        if reader is not None:
            reader.apply_reasoning_details()
        acc.error(_format_error(error), aborted=signal is not None and signal.aborted)


async def _request(
    model: Model,
    context: Context,
    options: OpenAICompletionsOptions,
    compat: CompletionsCompat,
    local: LocalServerCompat,
) -> HttpRequest:
    api_key = client_api_key(model.provider, options.api_key, options.headers)
    retention = resolve_cache_retention(options.cache_retention, options.env)
    session_id = None if retention == "none" else options.session_id
    headers = request_headers(
        model,
        context,
        api_key=api_key,
        options_headers=options.headers,
        session_id=session_id,
        compat=compat,
    )
    params = adapt_local_request(build_params(model, context, options, compat, retention), local)
    params = await apply_on_payload(options, params, model)
    return HttpRequest(join_url(model.base_url, "/chat/completions"), headers, params)


def _check_end(
    output: AssistantMessage, signal: AbortSignal | None, supports_finish_reason: bool, has_finish_reason: bool
) -> None:
    """Pi's checks once every block is closed."""
    if (signal is not None and signal.aborted) or output.stop_reason == "aborted":
        raise AbortError("Request was aborted")
    if not has_finish_reason and not supports_finish_reason:
        output.stop_reason = "toolUse" if any(isinstance(b, ToolCall) for b in output.content) else "stop"
    if output.stop_reason == "error":
        raise StreamError(output.error_message or "Provider returned an error stop reason")
    if (supports_finish_reason and not has_finish_reason) or output.stop_reason == "pending":
        raise StreamError("Stream ended without finish_reason")


def stream(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AssistantMessageEventStream:
    resolved = provider_options(options, OpenAICompletionsOptions)
    return start_stream(model, lambda s: _run(s, model, context, resolved), signal=resolved.signal)


def stream_simple(
    model: Model, context: Context, options: SimpleStreamOptions | None = None
) -> AssistantMessageEventStream:
    """Unified options -> Chat Completions ones. Raises ``ValueError`` at once without credentials."""
    options = options or SimpleStreamOptions()
    client_api_key(model.provider, options.api_key, options.headers)
    base = base_options(model, context, options)
    level: ThinkingLevel | None = (
        clamp_thinking_level(model, options.reasoning) if options.reasoning else None
    )
    return stream(
        model,
        context,
        OpenAICompletionsOptions(
            **base,
            tool_choice=options.tool_choice,
            reasoning_effort=None if level == "off" else level,
            thinking_budgets=options.thinking_budgets,
        ),
    )


API = ApiImplementation(api="openai-completions", stream=stream, stream_simple=stream_simple)
