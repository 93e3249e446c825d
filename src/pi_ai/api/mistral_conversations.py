"""The ``mistral-conversations`` wire API: Mistral's native chat completions endpoint.

Pi 0.85 talks to Mistral with its own fetch code (no SDK): ``POST {baseUrl}/v1/chat/completions``
with a bearer key, the body from ``_mistral_payload``, and an SSE reader of its own (events
split on any blank-line form, ``data:`` lines joined, ``[DONE]`` ends). Its deadline covers the
whole exchange, body included: ``timeout_ms``, 60 s by default. No retries. Errors read
``Mistral API error (<status>): <body>``.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from dataclasses import dataclass, replace
from typing import Any

from pi_ai._context import Context
from pi_ai._event_stream import AssistantMessageEventStream, empty_assistant_message, error_text, start_stream
from pi_ai._messages import TextContent, ThinkingContent, ToolCall
from pi_ai._model import Model, calculate_cost, clamp_thinking_level
from pi_ai._options import SimpleStreamOptions, StreamOptions
from pi_ai._registry import ApiImplementation
from pi_ai._simple_options import base_options
from pi_ai.api import _js
from pi_ai.api._accumulator import StreamAccumulator, StreamError
from pi_ai.api._common import (
    call_on_response,
    check_stream_end,
    pi_user_agent,
    provider_options,
    sanitize_surrogates,
)
from pi_ai.api._http import (
    HttpRequest,
    HttpStatusError,
    StreamResponse,
    TransportError,
    apply_on_payload,
    merge_headers,
    open_stream,
)
from pi_ai.api._mistral_payload import chat_payload, derive_tool_call_id, wire_payload
from pi_ai.js_json import parse, stringify

__all__ = ["API", "OPTIONS", "MistralOptions", "stream", "stream_simple"]

DEFAULT_TIMEOUT_MS = 60_000
MAX_ERROR_BODY = 4000
_BOUNDARY = re.compile("\r\n\r\n|\r\n\r|\r\n\n|\r\r\n|\n\r\n|\r\r|\n\r|\n\n")
_LINE = re.compile("\r\n|\r|\n")
_DONE = object()
_STOP_REASONS = {"stop": "stop", "length": "length", "model_length": "length", "tool_calls": "toolUse"}


@dataclass(kw_only=True)
class MistralOptions(StreamOptions):
    tool_choice: Any = None
    """``auto``, ``none``, ``any``, ``required`` or ``{"type": "function", "function": {"name"}}``."""
    prompt_mode: str | None = None
    reasoning_effort: str | None = None


OPTIONS = MistralOptions


# --------------------------------------------------------------------------- request


def _caching(options: MistralOptions) -> bool:
    return options.cache_retention != "none" and bool(options.session_id)


def _url(base_url: str) -> str:
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(base_url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/") + "/v1/chat/completions", "", ""))


def _headers(model: Model, api_key: str, options: MistralOptions) -> dict[str, str]:
    headers = merge_headers(
        {
            "User-Agent": pi_user_agent(),
            "accept": "text/event-stream",
            "authorization": f"Bearer {api_key}",
            "content-type": "application/json",
        },
        model.headers,
        options.headers,
    )
    explicit = any(
        name.lower() == "x-affinity" for source in (model.headers, options.headers) for name in source or {}
    )
    if _caching(options) and not explicit:
        headers["x-affinity"] = str(options.session_id)
    return headers


def _error_text(error: BaseException) -> str:
    if isinstance(error, HttpStatusError):
        body = error.text.strip()
        if body:
            cut = (
                body
                if len(body) <= MAX_ERROR_BODY
                else f"{body[:MAX_ERROR_BODY]}... [truncated {len(body) - MAX_ERROR_BODY} chars]"
            )
            return f"Mistral API error ({error.status}): {cut}"
        return f"Mistral API error ({error.status}): {error.reason or f'Request failed with status {error.status}'}"
    if isinstance(error, TimeoutError):
        return "The operation was aborted due to timeout"
    if isinstance(error, TransportError):
        return "terminated" if str(error).startswith("terminated") else "fetch failed"
    return error_text(error)


# --------------------------------------------------------------------------- the stream


async def _events(response: StreamResponse) -> AsyncIterator[list[Any]]:
    """Each read's parsed events, split the way Pi's reader splits them."""
    buffer = ""
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    async for chunk in response.chunks():
        buffer += decoder.decode(chunk)
        batch: list[Any] = []
        while (match := _BOUNDARY.search(buffer)) is not None:
            try:
                event = _parse_event(buffer[: match.start()])
            except Exception:
                if batch:  # the events before the bad one are streamed first, as Pi's are
                    yield batch
                raise
            buffer = buffer[match.end() :]
            if event is _DONE:
                yield batch
                return
            if event is not None:
                batch.append(event)
        if batch:
            yield batch
    buffer += decoder.decode(b"", final=True)
    if buffer.strip():
        event = _parse_event(buffer)
        if event is not None and event is not _DONE:
            yield [event]


def _parse_event(raw: str) -> Any:
    lines = [line[5:].lstrip() for line in _LINE.split(raw) if line.startswith("data:")]
    data = "\n".join(lines).strip()
    if not data:
        return None
    if data == "[DONE]":
        return _DONE
    parsed = parse(data)
    if type(parsed) is not dict or type(parsed.get("choices")) is not list:
        raise StreamError("Invalid Mistral streaming event")
    return parsed


class _Reader:
    def __init__(self, acc: StreamAccumulator, model: Model) -> None:
        self._acc = acc
        self._model = model
        self._current: int | None = None
        self._tools: dict[Any, int] = {}

    def _finish_current(self) -> None:
        if self._current is not None:
            self._acc.end(self._current)
            self._current = None

    def _block(self, kind: type) -> int:
        acc = self._acc
        if self._current is None or not isinstance(acc.output.content[self._current], kind):
            self._finish_current()
            self._current = acc.open_text() if kind is TextContent else acc.open_thinking()
        return self._current

    def chunk(self, data: dict[str, Any]) -> None:
        output = self._acc.output
        if not output.response_id and _js.truthy(data.get("id")):
            output.response_id = _js.as_text(data.get("id"))
        if _js.truthy(data.get("usage")):
            self._usage(data["usage"])
        choice = _js.item(data["choices"], 0)
        if not _js.truthy(choice):
            return
        reason = _js.get(choice, "finish_reason")
        if _js.truthy(reason):
            output.raw_stop_reason = _js.text(reason)
            mapped = _STOP_REASONS.get(output.raw_stop_reason)
            output.stop_reason = mapped or "error"  # type: ignore[assignment]
            if mapped is None:
                output.error_message = f"Provider stopped with: {output.raw_stop_reason}"
        delta = _js.get(choice, "delta")
        content = _js.get(delta, "content")
        if not _js.nullish(content):
            for item in [content] if isinstance(content, str) else _js.iterate(content, "contentItems"):
                self._content(item)
        calls = _js.get(delta, "tool_calls")
        for call in _js.iterate(calls, "toolCalls") if _js.truthy(calls) else []:
            self._tool_call(call)

    def _content(self, item: Any) -> None:
        acc = self._acc
        if isinstance(item, str):
            acc.text_delta(self._block(TextContent), sanitize_surrogates(item))
        elif _js.get(item, "type") == "thinking":
            parts = _js.get(item, "thinking")
            texts = [
                _js.text(_js.opt(part, "text")) if not _js.nullish(_js.opt(part, "text")) else ""
                for part in (_js.iterate(parts, "item.thinking") if not _js.nullish(parts) else [])
            ]
            delta = sanitize_surrogates("".join(text for text in texts if text))
            if delta:
                acc.thinking_delta(self._block(ThinkingContent), delta)
        elif _js.get(item, "type") == "text":
            value = _js.get(item, "text")
            acc.text_delta(
                self._block(TextContent), sanitize_surrogates("" if _js.nullish(value) else _js.text(value))
            )

    def _tool_call(self, call: Any) -> None:
        self._finish_current()
        raw_id = _js.get(call, "id")
        index = _js.get(call, "index")
        call_id = (
            _js.text(raw_id)
            if _js.truthy(raw_id) and raw_id != "null"
            else derive_tool_call_id(f"toolcall:{_js.text(index) if not _js.nullish(index) else 0}", 0)
        )
        key = _js.map_key(call_id if _js.nullish(index) else index)
        function = _js.get(call, "function")
        position = self._tools.get(key)
        if position is None:
            name = _js.get(function, "name")
            block = ToolCall(id=call_id, name=_js.as_text(name), arguments={})
            position = self._tools[key] = self._acc.open_tool_call(block)
        arguments = _js.get(function, "arguments")
        fragment = (
            arguments if isinstance(arguments, str) else stringify(arguments if _js.truthy(arguments) else {})
        )
        self._acc.arguments_delta(position, fragment)

    def _usage(self, usage: Any) -> None:
        counts = self._acc.output.usage
        prompt = _number(_js.opt(usage, "prompt_tokens"))
        cached = min(prompt, max(0, _cached_tokens(usage)))
        counts.input = max(0, prompt - cached)
        counts.output = _number(_js.opt(usage, "completion_tokens"))
        counts.cache_read = cached
        counts.cache_write = 0
        counts.total_tokens = _number(_js.opt(usage, "total_tokens")) or counts.input + counts.output + cached
        calculate_cost(self._model, counts)

    def finish(self) -> None:
        self._finish_current()
        for position in self._tools.values():
            self._acc.end(position)


def _number(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value else 0


def _cached_tokens(usage: Any) -> int:
    for outer, inner in (
        ("promptTokensDetails", "cachedTokens"),
        ("prompt_tokens_details", "cached_tokens"),
        ("promptTokenDetails", "cachedTokens"),
        ("prompt_token_details", "cached_tokens"),
    ):
        value = _js.opt(_js.opt(usage, outer), inner)
        if not _js.nullish(value):
            return value if isinstance(value, int) and not isinstance(value, bool) else 0
    for name in ("numCachedTokens", "num_cached_tokens"):
        value = _js.opt(usage, name)
        if not _js.nullish(value):
            return value if isinstance(value, int) and not isinstance(value, bool) else 0
    return 0


# --------------------------------------------------------------------------- the call


async def _run(
    events: AssistantMessageEventStream, model: Model, context: Context, options: MistralOptions
) -> None:
    output = empty_assistant_message(model)
    acc = StreamAccumulator(events, output)
    signal = options.signal
    try:
        if not options.api_key:
            raise ValueError(f"No API key for provider: {model.provider}")
        payload = chat_payload(
            model,
            context,
            temperature=options.temperature,
            max_tokens=options.max_tokens,
            tool_choice=options.tool_choice,
            prompt_mode=options.prompt_mode,
            reasoning_effort=options.reasoning_effort,
            cache_key=options.session_id if _caching(options) else None,
        )
        payload = await apply_on_payload(options, payload, model)
        request = HttpRequest(
            _url(model.base_url), _headers(model, options.api_key, options), wire_payload(payload)
        )
        deadline = (options.timeout_ms if options.timeout_ms is not None else DEFAULT_TIMEOUT_MS) / 1000
        async with asyncio.timeout(deadline):
            await _exchange(request, options, model, acc)
        check_stream_end(
            output,
            signal,
            "Mistral stream ended without a finish reason",
            output.error_message or "An unknown error occurred",
        )
        acc.done()
    except Exception as error:
        acc.error(_error_text(error), aborted=signal is not None and signal.aborted)


async def _exchange(
    request: HttpRequest, options: MistralOptions, model: Model, acc: StreamAccumulator
) -> None:
    single = replace(options, max_retries=0, on_response=None)
    async with AsyncExitStack() as stack:
        try:
            response = await stack.enter_async_context(
                open_stream(request, single, model, describe_error=lambda *_: "", request_timeout=False)
            )
        except HttpStatusError as error:
            await call_on_response(options, model, error.status, error.headers)
            raise
        await call_on_response(options, model, response.status, response.headers)
        acc.start()
        reader = _Reader(acc, model)
        try:
            async for batch in _events(response):
                for data in batch:
                    reader.chunk(data)
                acc.flush()
        except _js.JsTypeError as error:
            raise StreamError(str(error)) from None
        reader.finish()


def stream(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AssistantMessageEventStream:
    """Stream one response. Every failure arrives as an ``error`` event."""
    resolved = provider_options(options, MistralOptions)
    return start_stream(model, lambda events: _run(events, model, context, resolved), signal=resolved.signal)


def stream_simple(
    model: Model, context: Context, options: SimpleStreamOptions | None = None
) -> AssistantMessageEventStream:
    """Unified options (Pi 1.6): a reasoning model with a ``thinkingLevelMap`` gets the level it
    maps to as ``reasoning_effort`` (``high`` where it maps to nothing; thinking off sends the
    map's ``off`` entry, if any); one without a map gets ``prompt_mode: reasoning``. Pi 0.85
    used ``reasoning_effort`` for three named models only. Raises ``ValueError`` at once without
    a key."""
    simple = options or SimpleStreamOptions()
    if not simple.api_key:
        raise ValueError(f"No API key for provider: {model.provider}")
    provider = MistralOptions(**base_options(model, context, simple), tool_choice=simple.tool_choice)
    level = clamp_thinking_level(model, simple.reasoning) if simple.reasoning else None
    reasoning = None if level == "off" else level
    effort_map = model.thinking_level_map if model.reasoning else None
    if effort_map is not None:
        mapped = effort_map.get(reasoning) if reasoning is not None else effort_map.get("off")
        provider.reasoning_effort = mapped if mapped is not None or reasoning is None else "high"
    elif model.reasoning and reasoning is not None:
        provider.prompt_mode = "reasoning"
    return stream(model, context, provider)


API = ApiImplementation(api="mistral-conversations", stream=stream, stream_simple=stream_simple)
