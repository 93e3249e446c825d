"""The ``openai-codex-responses`` wire API: ChatGPT's Codex backend, used with a ChatGPT
subscription signed in through ``pi_ai.oauth`` (provider ``openai-codex``).

The protocol is OpenAI's Responses (read by the shared ``ResponsesStreamReader``), with Codex's
own request shape and transport, as Pi 1.6 speaks it:

- ``POST {base}/codex/responses`` (``/codex`` and ``/codex/responses`` bases are kept), the
  system prompt as the leading ``developer`` input item, ``store: false``, ``text.verbosity``
  (default ``low``), encrypted reasoning always included, ``tool_choice: auto``, parallel tool
  calls, ``max_output_tokens``, reasoning effort ``none`` for thinking off, and the thinking
  level in ``configuration_update`` items for models that take it mid-conversation;
- headers: the bearer token, ``chatgpt-account-id`` from the token's claims, ``originator: pi``,
  ``OpenAI-Beta: responses=experimental``, and the session id as ``session-id`` and
  ``x-client-request-id``;
- over SSE the body compressed with zstd (``Content-Encoding: zstd``) when a zstd module is
  there (the ``openai-codex`` extra), as Pi does where Node has zstd; plain JSON otherwise;
- Codex's retry rule (``_codex_http``), its usage-limit message and its event names
  (``response.done``, ``error``; ``_codex_events``);
- ``transport``: ``sse`` (this module's POST) or ``auto`` / ``websocket`` /
  ``websocket-cached``, which try Codex's WebSocket first (``_codex_websocket``, needs the
  ``websockets`` module) and fall back to SSE when it cannot connect, as Pi does.
"""

from __future__ import annotations

from typing import Any

from pi_ai._context import Context
from pi_ai._event_stream import AssistantMessageEventStream, empty_assistant_message, error_text, start_stream
from pi_ai._model import Model, clamp_thinking_level
from pi_ai._options import SimpleStreamOptions, StreamOptions
from pi_ai._registry import ApiImplementation
from pi_ai._simple_options import base_options
from pi_ai._transcript import declared_request_tools, with_leading_system_message
from pi_ai.api._accumulator import StreamAccumulator
from pi_ai.api._codex_events import extract_account_id
from pi_ai.api._codex_request import (
    OpenAICodexResponsesOptions,
    build_body,
    configuration_update_effort,
    sse_headers,
)
from pi_ai.api._common import check_stream_end, clamp_prompt_cache_key, provider_options
from pi_ai.api._constrained import grammar_input_properties
from pi_ai.api._http import apply_on_payload
from pi_ai.api._responses_stream import ResponsesStreamReader
from pi_ai.api.openai_responses import service_tier_pricing

API_NAME = "openai-codex-responses"


def _codex_service_tier(requested: Any, model: Model) -> Any:
    """Priced by the tier the response names, except that ``default`` keeps a requested
    ``flex`` / ``priority`` (Pi's ``resolveCodexServiceTier``)."""
    price = service_tier_pricing(model)

    def apply(usage: Any, tier: Any) -> None:
        price(usage, requested if tier == "default" and requested in ("flex", "priority") else tier)

    return apply


def stream(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AssistantMessageEventStream:
    """Stream one response. Every failure arrives as an ``error`` event."""
    context = with_leading_system_message(model, context)
    opts = provider_options(options, OpenAICodexResponsesOptions)
    output = empty_assistant_message(model)
    output.provider_thinking_level = configuration_update_effort(model, opts)

    async def produce(events: AssistantMessageEventStream) -> None:
        from pi_ai.api import _codex_http, _codex_websocket

        acc = StreamAccumulator(events, output)
        signal = opts.signal
        try:
            if not opts.api_key:
                raise ValueError(f"No API key for provider: {model.provider}")
            account_id = extract_account_id(opts.api_key)
            compat = model.compat or {}
            grammar = grammar_input_properties(
                declared_request_tools(context), bool(compat.get("supportsOpenAIGrammarTools") or False)
            )
            cache_session = None if opts.cache_retention == "none" else opts.session_id
            session_key = clamp_prompt_cache_key(cache_session)
            body = build_body(model, context, opts, session_key, grammar)
            body = await apply_on_payload(opts, body, model)
            reader = ResponsesStreamReader(
                acc,
                model,
                service_tier=opts.service_tier,
                grammar_properties=grammar,
                apply_service_tier_pricing=_codex_service_tier(opts.service_tier, model),
            )
            exchange = _codex_http.Exchange(
                model=model,
                options=opts,
                acc=acc,
                reader=reader,
                account_id=account_id,
                session_key=session_key,
                grammar=grammar,
            )
            transport = opts.transport or opts.extra.get("transport") or "auto"
            if transport == "sse" or not await _codex_websocket.run(exchange, body, transport, cache_session):
                await exchange.over_sse(body, sse_headers(model, opts, account_id, opts.api_key, session_key))
            check_stream_end(
                output,
                signal,
                "Codex stream ended without a stop reason",
                output.error_message or "An unknown error occurred",
            )
            acc.done()
        except Exception as error:
            acc.error(error_text(error), aborted=signal is not None and signal.aborted)

    return start_stream(model, produce, signal=opts.signal)


def stream_simple(
    model: Model, context: Context, options: SimpleStreamOptions | None = None
) -> AssistantMessageEventStream:
    """Unified options: ``reasoning`` becomes the reasoning effort."""
    simple = options or SimpleStreamOptions()
    if not simple.api_key:
        raise ValueError(f"No API key for provider: {model.provider}")
    provider = OpenAICodexResponsesOptions(
        **base_options(model, context, simple),
        tool_choice=simple.tool_choice,
    )
    level = clamp_thinking_level(model, simple.reasoning) if simple.reasoning else "off"
    # Pi 1.6 sends thinking off as effort ``none`` to a reasoning model (so that switching to it
    # with configuration_update items keeps the cache).
    provider.reasoning_effort = level if level != "off" else ("none" if model.reasoning else None)
    return stream(model, context, provider)


API = ApiImplementation(api=API_NAME, stream=stream, stream_simple=stream_simple)

OPTIONS = OpenAICodexResponsesOptions

__all__ = ["API", "OPTIONS", "OpenAICodexResponsesOptions", "stream", "stream_simple"]
