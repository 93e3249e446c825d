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
from dataclasses import dataclass
from typing import Any, Literal

from pi_ai._context import Context
from pi_ai._event_stream import AssistantMessageEventStream, now_ms, start_stream
from pi_ai._messages import AssistantMessage, Diagnostic
from pi_ai._model import Model
from pi_ai._options import SimpleStreamOptions, StreamOptions
from pi_ai._registry import ApiImplementation
from pi_ai._simple_options import (
    adjust_max_tokens_for_thinking,
    base_options,
    clamp_max_tokens_to_context,
)
from pi_ai.api._accumulator import StreamAccumulator
from pi_ai.api._anthropic_payload import (
    anthropic_compat,
    assert_request_auth,
    build_params,
    request_headers,
)
from pi_ai.api._anthropic_stream import AnthropicStreamReader
from pi_ai.api._common import check_stream_end, provider_options, resolve_cache_retention
from pi_ai.api._http import (
    HttpRequest,
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
    compat = anthropic_compat(model)
    output = AssistantMessage(
        content=[],
        api=model.api,
        provider=model.provider,
        model=model.id,
        provider_thinking_level=(options.effort or "high") if compat.supports_mid_convo_effort else None,
        stop_reason="pending",
        timestamp=now_ms(),
    )
    acc = StreamAccumulator(stream, output)
    signal = options.signal
    try:
        request, oauth = await _request(model, context, options)
        async with open_stream(request, options, model, describe_error=anthropic_sdk_message) as response:
            acc.start()
            reader = AnthropicStreamReader(acc, model, context, oauth=oauth)
            batches = response.event_batches(flush_partial=True, aborted_between_reads="Request was aborted")
            await acc.feed(batches, reader.handle)
            reader.finish()
        check_stream_end(
            output,
            signal,
            "Anthropic stream ended without a stop reason",
            output.error_message or "An unknown error occurred",
        )
        if reader.transformations:
            _add_transformations_diagnostic(output, reader.transformations)
        acc.done()
    except Exception as error:
        acc.fail(error, aborted=signal is not None and signal.aborted)


async def _request(model: Model, context: Context, options: AnthropicOptions) -> tuple[HttpRequest, bool]:
    """The HTTP request (after ``on_payload``) and whether it authenticates with OAuth."""
    assert_request_auth(model.provider, options.api_key, options.headers)
    retention = resolve_cache_retention(options.cache_retention, options.env)
    session_id = None if retention == "none" else options.session_id
    _, oauth = request_headers(
        model,
        context,
        api_key=options.api_key,
        options_headers=options.headers,
        cache_session_id=session_id,
        betas=None,
    )
    params = build_params(model, context, oauth, options)
    replaced = await apply_on_payload(options, params, model)
    if replaced is not params:
        params = {**replaced, "stream": True}
    body = {key: value for key, value in params.items() if key not in ("betas", "user_profile_id")}
    betas = params.get("betas")
    headers, _ = request_headers(
        model,
        context,
        api_key=options.api_key,
        options_headers=options.headers,
        cache_session_id=session_id,
        betas=list(betas) if betas is not None else None,
    )
    return HttpRequest(join_url(model.base_url, "/v1/messages?beta=true"), headers, body), oauth


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
