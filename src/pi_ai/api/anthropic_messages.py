"""``anthropic-messages``: Anthropic's Messages API (``POST {baseUrl}/v1/messages?beta=true``).

``stream`` takes ``AnthropicOptions`` (thinking switch, budget, adaptive effort, display,
interleaving, tool choice); ``stream_simple`` maps the unified reasoning level onto them like
Pi: budget thinking (the budget added to ``max_tokens``) or, for models marked
``forceAdaptiveThinking``, adaptive thinking with an effort. The request body is built in
``_anthropic_payload``, the SSE events are read in ``_anthropic_stream``; this module runs
the request.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any, Literal

from pi_ai._context import Context
from pi_ai._event_stream import AssistantMessageEventStream, now_ms, start_stream
from pi_ai._messages import AssistantMessage, Diagnostic, DiagnosticError
from pi_ai._model import Model
from pi_ai._options import SimpleStreamOptions, StreamOptions
from pi_ai._registry import ApiImplementation
from pi_ai._simple_options import (
    adjust_max_tokens_for_thinking,
    base_options,
    clamp_max_tokens_to_context,
)
from pi_ai.api import _anthropic_threads as threads
from pi_ai.api._accumulator import StreamAccumulator
from pi_ai.api._anthropic_payload import (
    anthropic_compat,
    assert_request_auth,
    build_params,
    managed_effort,
    reply_as_sent,
    request_headers,
)
from pi_ai.api._anthropic_stream import AnthropicStreamReader
from pi_ai.api._common import check_stream_end, provider_options, resolve_cache_retention
from pi_ai.api._http import (
    HttpRequest,
    StreamResponse,
    anthropic_sdk_message,
    apply_on_payload,
    join_url,
    open_stream,
)

__all__ = ["API", "OPTIONS", "AnthropicOptions", "stream", "stream_simple"]

AnthropicEffort = Literal["low", "medium", "high", "xhigh", "max"]


@dataclass(kw_only=True)
class AnthropicOptions(StreamOptions):
    thinking_enabled: bool | None = None
    thinking_budget_tokens: int | None = None
    """Budget for budget-based thinking (default 1024 when enabled)."""
    effort: str | None = None
    """Adaptive-thinking effort: ``low``, ``medium``, ``high``, ``xhigh`` or ``max``."""
    thinking_display: Literal["summarized", "omitted"] | None = None
    interleaved_thinking: bool | None = None
    """Think between tool calls (a beta header); on by default when thinking is enabled."""
    tool_choice: str | Mapping[str, Any] | None = None
    """``auto``, ``any``, ``none`` or ``{"type": "tool", "name": ...}``."""


OPTIONS = AnthropicOptions


async def _run(
    stream: AssistantMessageEventStream, model: Model, context: Context, options: AnthropicOptions
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
    try:
        prepared = await _prepare(model, context, options, output)
        async with AsyncExitStack() as stack:
            response, thread = await _send(stack, prepared, output, options, model)
            acc.start()
            reader = AnthropicStreamReader(acc, model, context, oauth=prepared.oauth)
            batches = response.event_batches(flush_partial=True, aborted_between_reads="Request was aborted")
            await acc.feed(batches, reader.handle)
            reader.finish()
        check_stream_end(
            output,
            signal,
            "Anthropic stream ended without a stop reason",
            output.error_message or "An unknown error occurred",
        )
        # A reply a fallback model gave is not stored by the server, so it cannot be continued.
        if thread is not None and output.response_id is not None and output.response_model is None:
            reply = reply_as_sent(model, output, prepared.oauth)
            threads.record_reply(model, thread, prepared.params, reply, output.response_id)
        if reader.transformations:
            _add_transformations_diagnostic(output, reader.transformations)
        acc.done()
    except Exception as error:
        acc.fail(error, aborted=signal is not None and signal.aborted)


@dataclass(frozen=True, slots=True)
class _Prepared:
    """The request body (after ``on_payload``), its headers, and the session whose requests may
    use message threads (``None`` when threads do not apply)."""

    params: dict[str, Any]
    headers: dict[str, str]
    oauth: bool
    url: str
    thread_session: str | None

    def request(self, params: dict[str, Any]) -> HttpRequest:
        body = {key: value for key, value in params.items() if key not in ("betas", "user_profile_id")}
        return HttpRequest(self.url, self.headers, body)


async def _prepare(
    model: Model, context: Context, options: AnthropicOptions, output: AssistantMessage
) -> _Prepared:
    assert_request_auth(model.provider, options.api_key, options.headers)
    retention = resolve_cache_retention(options.cache_retention, options.env)
    session_id = None if retention == "none" else options.session_id
    # A session whose endpoint refused threads still announces the beta, which the resend
    # that turned them off was accepted with; it just sends no ``thread``.
    thread_session = session_id if anthropic_compat(model).supports_message_threads else None
    _, oauth = request_headers(
        model,
        context,
        api_key=options.api_key,
        options_headers=options.headers,
        cache_session_id=session_id,
        betas=None,
    )
    params = build_params(model, context, oauth, options, message_threads=thread_session is not None)
    # Known once the body is built (as in Pi 1.6): a request that fails before has no level.
    output.provider_thinking_level = managed_effort(model, options)
    replaced = await apply_on_payload(options, params, model)
    if replaced is not params:
        params = {**replaced, "stream": True}
    betas = params.get("betas")
    headers, _ = request_headers(
        model,
        context,
        api_key=options.api_key,
        options_headers=options.headers,
        cache_session_id=session_id,
        betas=list(betas) if betas is not None else None,
    )
    return _Prepared(
        params, headers, oauth, join_url(model.base_url, "/v1/messages?beta=true"), thread_session
    )


async def _send(
    stack: AsyncExitStack,
    prepared: _Prepared,
    output: AssistantMessage,
    options: AnthropicOptions,
    model: Model,
) -> tuple[StreamResponse, threads.ThreadRequest | None]:
    """Open the response stream; a thread request the server rejects for its thread is resent
    once in full (see ``_anthropic_threads``). Returns the thread request that was answered."""

    async def opened(params: dict[str, Any]) -> StreamResponse:
        return await stack.enter_async_context(
            open_stream(prepared.request(params), options, model, describe_error=anthropic_sdk_message)
        )

    thread = (
        threads.prepare(model, prepared.thread_session, prepared.params) if prepared.thread_session else None
    )
    if thread is None:
        return await opened(prepared.params), None
    try:
        return await opened(thread.body), thread
    except Exception as error:
        fallback = (
            None if options.signal is not None and options.signal.aborted else threads.fallback_for(error)
        )
        if fallback is None:
            raise
        kind, reason = fallback
        # Recorded before the resend, so a failed resend keeps it.
        diagnostic = Diagnostic(
            type="anthropic_thread_fallback",
            timestamp=now_ms(),
            error=DiagnosticError(message=str(error)),
            details={"reason": reason},
        )
        output.diagnostics = [*(output.diagnostics or []), diagnostic]
    if kind == "new_thread":
        created = threads.recreate(thread, prepared.params)
        return await opened(created.body), created
    response = await opened(prepared.params)
    threads.turn_off(thread.session_id)
    return response, None


def _add_transformations_diagnostic(output: AssistantMessage, transformations: list[Any]) -> None:
    details = [
        {key: item.get(key) for key in ("type", "path", "reason") if item.get(key) is not None}
        if isinstance(item, dict)
        else {}
        for item in transformations
    ]
    diagnostic = Diagnostic(
        type="anthropic_input_transformations",
        timestamp=now_ms(),
        details={"transformations": details},
    )
    output.diagnostics = [*(output.diagnostics or []), diagnostic]


def stream(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AssistantMessageEventStream:
    resolved = provider_options(options, AnthropicOptions)
    return start_stream(model, lambda s: _run(s, model, context, resolved), signal=resolved.signal)


def _effort_for(model: Model, level: str) -> str:
    mapped = (model.thinking_level_map or {}).get(level)
    if isinstance(mapped, str):
        return mapped
    return {"minimal": "low", "low": "low", "medium": "medium"}.get(level, "high")


def stream_simple(
    model: Model, context: Context, options: SimpleStreamOptions | None = None
) -> AssistantMessageEventStream:
    """Unified options -> Anthropic's. Raises ``ValueError`` at once without credentials."""
    options = options or SimpleStreamOptions()
    assert_request_auth(model.provider, options.api_key, options.headers)
    base = base_options(model, context, options)
    base["tool_choice"] = options.tool_choice
    if not options.reasoning:
        return stream(model, context, AnthropicOptions(**base, thinking_enabled=False))
    if (model.compat or {}).get("forceAdaptiveThinking") is True:
        effort = _effort_for(model, options.reasoning)
        return stream(model, context, AnthropicOptions(**base, thinking_enabled=True, effort=effort))
    max_tokens, budget = adjust_max_tokens_for_thinking(
        base["max_tokens"], model.max_tokens, options.reasoning, options.thinking_budgets
    )
    base["max_tokens"] = clamp_max_tokens_to_context(model, context, max_tokens)
    return stream(
        model,
        context,
        AnthropicOptions(
            **base,
            thinking_enabled=True,
            thinking_budget_tokens=min(budget, max(0, base["max_tokens"] - 1024)),
        ),
    )


API = ApiImplementation(api="anthropic-messages", stream=stream, stream_simple=stream_simple)
