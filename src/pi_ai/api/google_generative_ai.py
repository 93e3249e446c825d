"""The ``google-generative-ai`` wire API: Gemini's ``streamGenerateContent`` over SSE.

``stream`` takes ``GoogleOptions`` (tool choice, and ``thinking``: on/off with a level for
Gemini 3 or a token budget for Gemini 2.5); ``stream_simple`` maps the unified reasoning
level onto it. Pi 0.85 talks to Gemini through ``@google/genai`` 1.52: the request body, URL
and headers here are what that SDK sends, the stream is split the way it splits it, and the
error texts are its texts.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import sys
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any

from pi_ai._abort import AbortError, AbortSignal
from pi_ai._context import Context
from pi_ai._event_stream import AssistantMessageEventStream, empty_assistant_message, error_text, start_stream
from pi_ai._model import Model, clamp_thinking_level
from pi_ai._options import SimpleStreamOptions, StreamOptions
from pi_ai._registry import ApiImplementation
from pi_ai._simple_options import base_options
from pi_ai.api._accumulator import StreamAccumulator
from pi_ai.api._common import check_stream_end, pi_user_agent, provider_options
from pi_ai.api._google_convert import (
    ThinkingSetting,
    build_config_and_params,
    resolve_google_thinking_level,
    thinking_budget_for,
    thinking_level_for,
    uses_thinking_level,
    wire_request,
)
from pi_ai.api._google_stream import GoogleStreamReader, GoogleStreamSplitter, raise_for_error_document
from pi_ai.api._http import (
    HttpRequest,
    HttpStatusError,
    StreamResponse,
    TransportError,
    apply_on_payload,
    join_url,
    merge_headers,
    open_stream,
)
from pi_ai.js_json import JsonParseError, parse, stringify

API_NAME = "google-generative-ai"
SDK_LABEL = "google-genai-sdk/1.52.0"
"""The SDK Pi 0.85 speaks through; its label leads the ``x-goog-api-client`` header."""


@dataclass(kw_only=True)
class GoogleThinkingOptions:
    enabled: bool
    budget_tokens: int | None = None
    """-1 = dynamic, 0 = off (Gemini 2.5)."""
    level: str | None = None
    """``THINKING_LEVEL_UNSPECIFIED`` | ``MINIMAL`` | ``LOW`` | ``MEDIUM`` | ``HIGH`` (Gemini 3)."""


@dataclass(kw_only=True)
class GoogleOptions(StreamOptions):
    tool_choice: str | None = None
    """``auto`` | ``none`` | ``any``."""
    thinking: GoogleThinkingOptions | Mapping[str, Any] | None = None
    """A ``GoogleThinkingOptions``, or Pi's object form ``{"enabled", "budgetTokens", "level"}``."""


def _thinking_setting(thinking: GoogleThinkingOptions | Mapping[str, Any] | None) -> ThinkingSetting | None:
    if thinking is None:
        return None
    if isinstance(thinking, GoogleThinkingOptions):
        return ThinkingSetting(thinking.enabled, thinking.budget_tokens, thinking.level)
    return ThinkingSetting(bool(thinking.get("enabled")), thinking.get("budgetTokens"), thinking.get("level"))


# --------------------------------------------------------------------------- request


def _python_label() -> str:
    return f"gl-python/{sys.version.split()[0]}"


def build_headers(model: Model, api_key: str, options: StreamOptions) -> dict[str, str]:
    """``sdk_headers``, then the API key if unset."""
    headers = sdk_headers(model, options)
    if not any(name.lower() == "x-goog-api-key" for name in headers):
        headers["x-goog-api-key"] = api_key
    return headers


def sdk_headers(model: Model, options: StreamOptions) -> dict[str, str]:
    """The SDK's defaults, then Pi's headers (``None`` values dropped); shared with Vertex."""
    sdk_label = f"{SDK_LABEL} {_python_label()}"
    pi_headers = {
        key: value
        for key, value in {
            "User-Agent": pi_user_agent(),
            **(model.headers or {}),
            **(options.headers or {}),
        }.items()
        if value is not None
    }
    return merge_headers(
        {"User-Agent": sdk_label, "x-goog-api-client": sdk_label, "Content-Type": "application/json"},
        pi_headers,
    )


def _google_error_message(status: int, reason: str, headers: Mapping[str, str], text: str) -> str:
    """``JSON.stringify`` of the error body, as the SDK's ``ApiError`` message."""
    if "application/json" in headers.get("content-type", ""):
        try:
            body: Any = parse(text)
        except JsonParseError as error:
            return str(error)
    else:
        body = {"error": {"message": text, "code": status, "status": reason}}
    return stringify(body)


def _retryable_status(status: int) -> bool:
    return status in (408, 409, 429) or status >= 500


async def _sleep(delay_ms: float, signal: AbortSignal | None) -> None:
    if signal is None:
        await asyncio.sleep(delay_ms / 1000)
        return
    if signal.aborted:
        raise AbortError("Request aborted")
    waiter = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({waiter}, timeout=delay_ms / 1000)
    finally:
        waiter.cancel()
    if signal.aborted:
        raise AbortError("Request aborted")


async def _open(
    stack: AsyncExitStack, request: HttpRequest, options: GoogleOptions, model: Model
) -> StreamResponse:
    """Send the request, retrying like Pi's Google wrapper.

    The SDK's errors carry no response headers, so ``Retry-After`` is not consulted: only
    the status decides (408, 409, 429, 5xx), with exponential backoff. Connection failures
    are not retried.
    """
    single = dataclasses.replace(options, max_retries=0)
    retries = options.max_retries or 0
    attempt = 0
    while True:
        try:
            return await stack.enter_async_context(
                open_stream(
                    request,
                    single,
                    model,
                    describe_error=_google_error_message,
                    call_on_response=False,
                    request_timeout=False,  # Pi passes the Google SDK no timeout
                )
            )
        except HttpStatusError as error:
            if options.signal is not None and options.signal.aborted:
                raise AbortError("Request aborted") from None
            if attempt >= retries or not (400 <= error.status < 600) or not _retryable_status(error.status):
                raise
            delay = min(0.5 * 2**attempt, 8) * 1000 * (1 - random.random() * 0.25)
            attempt += 1
            await _sleep(delay, options.signal)


async def _read_chunks(response: StreamResponse, reader: GoogleStreamReader, acc: StreamAccumulator) -> None:
    """The body split into chunks, each parsed (``JSON.parse``'s error text ends the stream)."""
    splitter = GoogleStreamSplitter()
    try:
        async for data in response.chunks():
            for payload in splitter.feed(data):
                parsed = parse(payload)
                raise_for_error_document(parsed)
                reader.chunk(parsed)
            acc.flush()
        splitter.finish()
    finally:
        acc.flush()


def format_error(error: BaseException) -> str:
    """The text Pi shows: the SDK's message (it already carries the body)."""
    if isinstance(error, TransportError):
        text = str(error)
        if text.startswith("Connection error.") or text == "Request timed out.":
            return "fetch failed"  # undici's connect and headers timeouts fail the fetch itself
        if text.startswith("terminated: no data received"):
            return "terminated"
        return text  # a cut body: Pi 1.6 names undici's reason (docs/pi-1.6/streams.md)
    return error_text(error)


def stream_request(
    model: Model,
    options: GoogleOptions,
    build: Callable[[], Awaitable[HttpRequest]],
    *,
    api: str,
    no_finish_reason: str,
) -> AssistantMessageEventStream:
    """One ``streamGenerateContent`` call as Pi's Google adapters make it (shared with
    ``google_vertex``): ``build`` makes the request (``on_payload`` included), then the SDK's
    retries, the stream read onto the accumulator and Pi's end checks; every failure arrives as
    an ``error`` event."""
    output = empty_assistant_message(model)
    output.api = api

    async def produce(events: AssistantMessageEventStream) -> None:
        acc = StreamAccumulator(events, output)
        signal = options.signal
        try:
            request = await build()
            reader = GoogleStreamReader(acc, model)
            async with AsyncExitStack() as stack:
                response = await _open(stack, request, options, model)
                acc.start()
                await _read_chunks(response, reader, acc)
            reader.finish()
            check_stream_end(
                output,
                signal,
                no_finish_reason,
                f"Provider stopped with: {output.raw_stop_reason}"
                if output.raw_stop_reason
                else "An unknown error occurred",
            )
            acc.done()
        except Exception as error:
            acc.error(format_error(error), aborted=signal is not None and signal.aborted)

    return start_stream(model, produce, signal=options.signal)


def stream(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AssistantMessageEventStream:
    """Stream one response. Every failure arrives as an ``error`` event."""
    opts = provider_options(options, GoogleOptions)

    async def build() -> HttpRequest:
        if not opts.api_key:
            raise ValueError(f"No API key for provider: {model.provider}")
        headers = build_headers(model, opts.api_key, opts)
        params = build_config_and_params(
            model,
            context,
            temperature=opts.temperature,
            max_tokens=opts.max_tokens,
            tool_choice=opts.tool_choice,
            thinking=_thinking_setting(opts.thinking),
        )
        if opts.signal is not None and opts.signal.aborted:
            raise AbortError("Request aborted")
        params = await apply_on_payload(opts, params, model)
        path, body = wire_request(params)
        return HttpRequest(join_url(model.base_url, f"/{path}:streamGenerateContent?alt=sse"), headers, body)

    return stream_request(
        model, opts, build, api=API_NAME, no_finish_reason="Google stream ended without a finish reason"
    )


def stream_simple(
    model: Model, context: Context, options: SimpleStreamOptions | None = None
) -> AssistantMessageEventStream:
    """Unified options: ``reasoning`` becomes a thinking level (Gemini 3, Gemma 4) or budget."""
    simple = options or SimpleStreamOptions()
    if not simple.api_key:
        raise ValueError(f"No API key for provider: {model.provider}")
    provider = GoogleOptions(**base_options(model, context, simple), tool_choice=simple.tool_choice)
    if not simple.reasoning:
        provider.thinking = GoogleThinkingOptions(enabled=False)
        return stream(model, context, provider)
    clamped = clamp_thinking_level(model, simple.reasoning)
    if clamped == "off":
        provider.thinking = GoogleThinkingOptions(enabled=False)
        return stream(model, context, provider)
    level = resolve_google_thinking_level(model, clamped)
    if uses_thinking_level(model):
        provider.thinking = GoogleThinkingOptions(enabled=True, level=thinking_level_for(level))
    else:
        budgets = simple.thinking_budgets
        custom = dataclasses.asdict(budgets) if budgets is not None else None
        provider.thinking = GoogleThinkingOptions(
            enabled=True, budget_tokens=thinking_budget_for(model, level, custom)
        )
    return stream(model, context, provider)


API = ApiImplementation(api=API_NAME, stream=stream, stream_simple=stream_simple)
OPTIONS = GoogleOptions
