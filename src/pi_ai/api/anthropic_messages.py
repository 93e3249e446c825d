"""``anthropic-messages``: Anthropic's Messages API (``POST {baseUrl}/v1/messages?beta=true``).

``stream`` takes ``AnthropicOptions`` (thinking switch, budget, adaptive effort, display,
interleaving, tool choice); ``stream_simple`` maps the unified reasoning level onto them like
Pi: budget thinking (the budget added to ``max_tokens``) or, for models marked
``forceAdaptiveThinking``, adaptive thinking with an effort. The request body is built in
``_anthropic_payload``; this module runs the request and turns the SSE stream into Pi's
events and final message.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import msgspec

from pi_ai._context import Context
from pi_ai._event_stream import AssistantMessageEventStream, error_text, now_ms, start_stream
from pi_ai._events import (
    DoneEvent,
    StartEvent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from pi_ai._messages import AssistantMessage, Diagnostic, TextContent, ThinkingContent, ToolCall, Usage
from pi_ai._model import Model, ModelCost, calculate_cost
from pi_ai._options import SimpleStreamOptions, StreamOptions
from pi_ai._partial_json import PartialJson, repair_json
from pi_ai._registry import ApiImplementation
from pi_ai._simple_options import (
    adjust_max_tokens_for_thinking,
    base_options,
    clamp_max_tokens_to_context,
)
from pi_ai.api._anthropic_payload import (
    anthropic_compat,
    assert_request_auth,
    build_params,
    from_claude_code_name,
    request_headers,
)
from pi_ai.api._common import (
    PendingText,
    check_stream_end,
    end_with_error,
    provider_options,
    resolve_cache_retention,
)
from pi_ai.api._http import (
    HttpRequest,
    anthropic_sdk_message,
    apply_on_payload,
    join_url,
    open_stream,
)
from pi_ai.js_json import JsonParseError, parse

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

_decode = msgspec.json.Decoder().decode

_MESSAGE_EVENTS = frozenset(
    {
        "message_start",
        "message_delta",
        "message_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
    }
)


def _parse_event(data: str) -> Any:
    """Pi's ``parseJsonWithRepair`` with ``JSON.parse``'s error texts."""
    try:
        return parse(data)
    except JsonParseError:
        repaired = repair_json(data)
        if repaired == data:
            raise
        return parse(repaired)


def _map_stop_reason(reason: str, details: Any) -> tuple[str, str | None]:
    if reason in ("end_turn", "pause_turn", "stop_sequence"):
        return "stop", None
    if reason == "max_tokens":
        return "length", None
    if reason == "tool_use":
        return "toolUse", None
    if reason == "refusal":
        explanation = details.get("explanation") if isinstance(details, dict) else None
        return "error", explanation or "The model refused to complete the request"
    if reason == "sensitive":
        return "error", "Provider stopped with: sensitive"
    raise ValueError(f"Unhandled stop reason: {reason}")


def _total(usage: Usage) -> None:
    usage.total_tokens = usage.input + usage.output + usage.cache_read + usage.cache_write


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
    stream.partial = output
    signal = options.signal
    try:
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
        request = HttpRequest(join_url(model.base_url, "/v1/messages?beta=true"), headers, body)
        async with open_stream(request, options, model, describe_error=anthropic_sdk_message) as response:
            stream.push(StartEvent(partial=output))
            transformations = await _consume(
                stream, response, output=output, model=model, context=context, options=options, oauth=oauth
            )
        check_stream_end(
            output,
            signal,
            ValueError,
            "Anthropic stream ended without a stop reason",
            output.error_message or "An unknown error occurred",
        )
        if transformations:
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
        stream.push(DoneEvent(reason=output.stop_reason, message=output))  # type: ignore[arg-type]
    except Exception as error:
        end_with_error(stream, output, signal, error_text(error))


async def _consume(
    stream: AssistantMessageEventStream,
    response: Any,
    *,
    output: AssistantMessage,
    model: Model,
    context: Context,
    options: AnthropicOptions,
    oauth: bool,
) -> list[Any] | None:
    """Process the SSE events; returns Anthropic's input transformations, if it reported any."""
    compat = anthropic_compat(model)
    usage_model = model
    blocks = output.content
    usage = output.usage
    # SSE block index -> positions in output.content still open under that index.
    open_blocks: dict[Any, list[int]] = {}
    parsers: dict[int, PartialJson] = {}
    transformations: list[Any] | None = None
    saw_start = False
    saw_stop = False

    def find(index: Any) -> int:
        positions = open_blocks.get(index)
        return positions[0] if positions else -1

    def opened(index: Any, block: TextContent | ThinkingContent | ToolCall) -> int:
        blocks.append(block)
        position = len(blocks) - 1
        open_blocks.setdefault(index, []).append(position)
        return position

    push = stream.push
    pending = PendingText()
    try:
        async for batch in response.event_batches(
            flush_partial=True, aborted_between_reads="Request was aborted"
        ):
            for sse in batch:
                if sse.event not in _MESSAGE_EVENTS:
                    if sse.event == "error":
                        raise ValueError(sse.data)
                    continue
                try:
                    try:
                        event = _decode(sse.data)
                    except msgspec.DecodeError:
                        event = _parse_event(sse.data)
                except ValueError as error:
                    raw = "\\n".join(sse.raw)
                    raise ValueError(
                        f"Could not parse Anthropic SSE event {sse.event}: {error}; data={sse.data}; raw={raw}"
                    ) from None
                if not isinstance(event, dict):
                    continue
                kind = event.get("type")
                if kind == "content_block_delta":
                    delta = event.get("delta") or {}
                    delta_type = delta.get("type")
                    positions = open_blocks.get(event.get("index"))
                    if not positions:
                        continue
                    position = positions[0]
                    block = blocks[position]
                    if delta_type == "text_delta":
                        if isinstance(block, TextContent):
                            text = delta.get("text") or ""
                            pending.add(block, text)
                            push(TextDeltaEvent(content_index=position, delta=text, partial=output))
                    elif delta_type == "thinking_delta":
                        if isinstance(block, ThinkingContent):
                            text = delta.get("thinking") or ""
                            pending.add(block, text)
                            push(ThinkingDeltaEvent(content_index=position, delta=text, partial=output))
                    elif delta_type == "input_json_delta":
                        if isinstance(block, ToolCall):
                            fragment = delta.get("partial_json") or ""
                            block.arguments = parsers[position].feed(fragment)
                            push(ToolCallDeltaEvent(content_index=position, delta=fragment, partial=output))
                    elif delta_type == "signature_delta" and isinstance(block, ThinkingContent):
                        block.thinking_signature = (block.thinking_signature or "") + (
                            delta.get("signature") or ""
                        )
                elif kind == "message_start":
                    saw_start = True
                    message = event.get("message") or {}
                    output.response_id = message.get("id")
                    if isinstance(message.get("input_transformations"), list):
                        transformations = message["input_transformations"]
                    output.model = message.get("model") or model.id
                    usage_model = model
                    if output.model != model.id:
                        for fallback in compat.allowed_fallback_models:
                            if (
                                fallback.get("provider") == model.provider
                                and fallback.get("model") == output.model
                            ):
                                if fallback.get("cost"):
                                    cost = msgspec.convert(fallback["cost"], ModelCost)
                                    usage_model = msgspec.structs.replace(model, id=output.model, cost=cost)
                                break
                    reported = message.get("usage") or {}
                    usage.input = reported.get("input_tokens") or 0
                    usage.output = reported.get("output_tokens") or 0
                    usage.cache_read = reported.get("cache_read_input_tokens") or 0
                    usage.cache_write = reported.get("cache_creation_input_tokens") or 0
                    usage.cache_write_1h = (reported.get("cache_creation") or {}).get(
                        "ephemeral_1h_input_tokens"
                    ) or 0
                    _total(usage)
                    calculate_cost(usage_model, usage)
                elif kind == "content_block_start":
                    content_block = event.get("content_block") or {}
                    block_type = content_block.get("type")
                    index = event.get("index")
                    if block_type == "fallback":
                        if blocks:
                            raise ValueError("Anthropic performed an unsupported mid-output model fallback")
                        continue
                    if block_type == "text":
                        text = content_block.get("text")
                        position = opened(index, TextContent(text=text if text is not None else ""))
                        push(TextStartEvent(content_index=position, partial=output))
                    elif block_type == "thinking":
                        thinking = content_block.get("thinking")
                        signature = content_block.get("signature")
                        position = opened(
                            index,
                            ThinkingContent(
                                thinking=thinking if thinking is not None else "",
                                thinking_signature=signature if signature is not None else "",
                            ),
                        )
                        push(ThinkingStartEvent(content_index=position, partial=output))
                    elif block_type == "redacted_thinking":
                        position = opened(
                            index,
                            ThinkingContent(
                                thinking="[Reasoning redacted]",
                                thinking_signature=content_block.get("data"),
                                redacted=True,
                            ),
                        )
                        push(ThinkingStartEvent(content_index=position, partial=output))
                    elif block_type == "tool_use":
                        name = content_block.get("name") or ""
                        tool_input = content_block.get("input")
                        position = opened(
                            index,
                            ToolCall(
                                id=content_block.get("id") or "",
                                name=from_claude_code_name(name, context.tools) if oauth else name,
                                arguments=tool_input if tool_input is not None else {},
                            ),
                        )
                        parsers[position] = PartialJson()
                        push(ToolCallStartEvent(content_index=position, partial=output))
                elif kind == "content_block_stop":
                    index = event.get("index")
                    position = find(index)
                    if position < 0:
                        continue
                    open_blocks[index].pop(0)
                    block = blocks[position]
                    if isinstance(block, TextContent):
                        pending.flush_block(block)
                        push(TextEndEvent(content_index=position, content=block.text, partial=output))
                    elif isinstance(block, ThinkingContent):
                        pending.flush_block(block)
                        push(ThinkingEndEvent(content_index=position, content=block.thinking, partial=output))
                    else:
                        block.arguments = parsers.pop(position).value
                        push(ToolCallEndEvent(content_index=position, tool_call=block, partial=output))
                elif kind == "message_delta":
                    if isinstance(event.get("input_transformations"), list):
                        transformations = event["input_transformations"]
                    delta = event.get("delta") or {}
                    if delta.get("stop_reason"):
                        output.raw_stop_reason = delta["stop_reason"]
                        stop_reason, message_text = _map_stop_reason(
                            delta["stop_reason"], delta.get("stop_details")
                        )
                        output.stop_reason = stop_reason  # type: ignore[assignment]
                        if message_text:
                            output.error_message = message_text
                    reported = event.get("usage")
                    if reported:
                        if reported.get("input_tokens") is not None:
                            usage.input = reported["input_tokens"]
                        if reported.get("output_tokens") is not None:
                            usage.output = reported["output_tokens"]
                        if reported.get("cache_read_input_tokens") is not None:
                            usage.cache_read = reported["cache_read_input_tokens"]
                        if reported.get("cache_creation_input_tokens") is not None:
                            usage.cache_write = reported["cache_creation_input_tokens"]
                        thinking_tokens = (reported.get("output_tokens_details") or {}).get("thinking_tokens")
                        if thinking_tokens is not None:
                            usage.reasoning = thinking_tokens
                    _total(usage)
                    calculate_cost(usage_model, usage)
                elif kind == "message_stop":
                    saw_stop = True
            pending.flush()
    finally:
        pending.flush()
    if saw_start and not saw_stop:
        raise ValueError("Anthropic stream ended before message_stop")
    return transformations


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
