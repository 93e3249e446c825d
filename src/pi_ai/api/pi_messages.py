"""The ``pi-messages`` wire API: Pi's own message protocol, spoken to a backend (the Radius
gateway, or any server a ``models.json`` provider names with ``"api": "pi-messages"``).

The request is one ``POST {baseUrl}/messages`` of ``{model, context, options}`` (``?debug=1``
when the ``debug`` option is set); the answer is SSE whose ``data:`` lines are Pi's
assistant-message events without ``partial``, ending with a ``done`` or ``error`` event that
carries the stop reason, usage and response id. We rebuild the message from those events on
the shared accumulator. As in Pi, a stream that ends without a terminal event, or any failure,
becomes an ``error`` event with an empty message.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Any

from pi_ai._codec import convert, to_builtins
from pi_ai._context import Context
from pi_ai._event_stream import (
    AssistantMessageEventStream,
    empty_assistant_message,
    error_text,
    now_ms,
    start_stream,
)
from pi_ai._messages import (
    AssistantMessage,
    Diagnostic,
    DiagnosticError,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
)
from pi_ai._model import Model
from pi_ai._options import SimpleStreamOptions, StreamOptions
from pi_ai._registry import ApiImplementation
from pi_ai.api._accumulator import StreamAccumulator, StreamError
from pi_ai.api._common import call_on_response, env_value, provider_options
from pi_ai.api._http import (
    HttpRequest,
    HttpStatusError,
    StreamResponse,
    apply_on_payload,
    merge_headers,
    open_stream,
)
from pi_ai.js_json import JsonParseError, parse

__all__ = ["API", "OPTIONS", "PiMessagesOptions", "stream", "stream_simple"]

API_NAME = "pi-messages"
_DIAGNOSTIC_BODY_MAX = 8192


@dataclass(kw_only=True)
class PiMessagesOptions(StreamOptions):
    reasoning: str | None = None
    tool_choice: Any = None
    debug: bool = False
    """Ask the backend for debug output (``?debug=1``)."""


OPTIONS = PiMessagesOptions


class PiMessagesResponseError(Exception):
    """A non-2xx answer, worded ``<status> <status text>: <message> (<code>)``."""

    def __init__(self, message: str, details: dict[str, Any], code: str | None = None) -> None:
        super().__init__(message)
        self.details = details
        self.code = code


def _response_error(model: Model, url: str, error: HttpStatusError) -> PiMessagesResponseError:
    try:
        parsed: Any = parse(error.text)
    except JsonParseError:
        parsed = None
    body = parsed if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict) else None
    detail = body["error"] if body is not None else None
    message = (
        detail.get("message") if isinstance(detail, dict) and isinstance(detail.get("message"), str) else None
    )
    code = detail.get("code") if isinstance(detail, dict) and isinstance(detail.get("code"), str) else None
    text = f"{error.status} {error.reason}: {message if message is not None else error.text}"
    if code:
        text += f" ({code})"
    raw = None if body is not None else error.text
    details: dict[str, Any] = {
        "version": 1,
        "provider": model.provider,
        "model": model.id,
        "url": url,
        "status": error.status,
        "statusText": error.reason,
        **({"error": detail} if detail is not None else {}),
        **(
            {"body": raw if len(raw) <= _DIAGNOSTIC_BODY_MAX else raw[:_DIAGNOSTIC_BODY_MAX] + "…"}
            if raw is not None
            else {}
        ),
        "timestampMs": now_ms(),
    }
    return PiMessagesResponseError(text, details, code or None)


# --------------------------------------------------------------------------- request


def _payload(model: Model, context: Context, options: PiMessagesOptions) -> dict[str, Any]:
    retention = options.cache_retention or (
        "long" if env_value("PI_CACHE_RETENTION", options.env) == "long" else None
    )
    settings = {
        "temperature": options.temperature,
        "maxTokens": options.max_tokens,
        "reasoning": options.reasoning,
        "cacheRetention": retention,
        "sessionId": options.session_id,
        "toolChoice": options.tool_choice,
    }
    return {
        "model": model.id,
        "context": to_builtins(context),
        "options": {key: value for key, value in settings.items() if value is not None},
    }


def _url(model: Model, debug: bool) -> str:
    return f"{re.sub(r'/+$', '', model.base_url)}/messages" + ("?debug=1" if debug else "")


# --------------------------------------------------------------------------- events


async def _events(response: StreamResponse) -> AsyncIterator[list[Any]]:
    """Each read's events: blocks split at a blank line (CRLF read as LF), the first
    ``data:`` line of each parsed; ``[DONE]`` and data-less blocks skipped."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    buffer = ""
    async for chunk in response.chunks():
        buffer = (buffer + decoder.decode(chunk)).replace("\r\n", "\n")
        batch = []
        while (split := buffer.find("\n\n")) != -1:
            event = _parse(buffer[:split])
            buffer = buffer[split + 2 :]
            if event is not None:
                batch.append(event)
        if batch:
            yield batch
    buffer = (buffer + decoder.decode(b"", final=True)).replace("\r\n", "\n")
    if buffer.strip():
        event = _parse(buffer)
        if event is not None:
            yield [event]


def _parse(raw: str) -> Any:
    line = next((line for line in raw.split("\n") if line.startswith("data:")), None)
    data = line[5:].strip() if line is not None else ""
    return parse(data) if data and data != "[DONE]" else None


class _Rebuilder:
    """Pi's events, replayed onto the accumulator; True from ``handle`` at the terminal event."""

    def __init__(self, acc: StreamAccumulator) -> None:
        self._acc = acc

    def handle(self, event: Any) -> bool:
        if not isinstance(event, dict):
            raise StreamError(
                f"Cannot read properties of {'null' if event is None else 'undefined'} (reading 'type')"
            )
        kind = event.get("type")
        acc = self._acc
        if kind == "start":
            acc.start()
        elif kind in ("text_start", "thinking_start", "toolcall_start"):
            self._open(kind, event)
        elif kind == "text_delta" or kind == "thinking_delta":
            delta = str(event.get("delta", ""))
            grow = acc.text_delta if kind == "text_delta" else acc.thinking_delta
            grow(self._index(event), delta)
        elif kind == "toolcall_delta":
            acc.arguments_delta(self._index(event), str(event.get("delta", "")))
        elif kind in ("text_end", "thinking_end", "toolcall_end"):
            self._close(kind, self._index(event), event)
        elif kind in ("done", "error"):
            self._finish(kind, event)
            return True
        return False

    def _index(self, event: dict[str, Any]) -> int:
        """The event's ``contentIndex``, which must name an opened block (Pi then reads
        through ``undefined`` and fails with V8's text)."""
        index = event.get("contentIndex")
        if type(index) is not int or not 0 <= index < len(self._acc.output.content):
            raise StreamError(f"Cannot read properties of undefined (reading '{event.get('type')}')")
        return index

    def _open(self, kind: str, event: dict[str, Any]) -> None:
        acc = self._acc
        if kind == "text_start":
            acc.open_text()
        elif kind == "thinking_start":
            acc.open_thinking()
        else:
            call = ToolCall(
                id=str(event.get("id") or ""), name=str(event.get("toolName") or ""), arguments={}
            )
            acc.open_tool_call(call)

    def _close(self, kind: str, index: int, event: dict[str, Any]) -> None:
        acc = self._acc
        acc.flush_block(index)
        block = acc.output.content[index]
        if isinstance(block, TextContent) and kind == "text_end":
            block.text = str(event.get("content", block.text))
            block.text_signature = _text(event.get("contentSignature"))
        elif isinstance(block, ThinkingContent) and kind == "thinking_end":
            block.thinking = str(event.get("content", block.thinking))
            block.thinking_signature = _text(event.get("contentSignature"))
            block.redacted = event.get("redacted") if isinstance(event.get("redacted"), bool) else None
        elif isinstance(block, ToolCall) and kind == "toolcall_end":
            acc.finish_arguments(index)
            given = event.get("toolCall")
            if isinstance(given, dict):
                merged = {**to_builtins(block), **given}
                acc.output.content[index] = convert(merged, ToolCall)
        acc.end(index)

    def _finish(self, kind: str, event: dict[str, Any]) -> None:
        output = self._acc.output
        usage = event.get("usage")
        if isinstance(usage, dict):
            output.usage = convert(usage, Usage)
        output.response_id = _text(event.get("responseId"))
        answered = event.get("responseModel")
        if isinstance(answered, str):
            output.response_model = answered
        level = event.get("providerThinkingLevel")
        if isinstance(level, str):
            output.provider_thinking_level = level
        rewrite = event.get("rewrite")
        if isinstance(rewrite, dict):
            diagnostic = Diagnostic(type="pi_messages_rewrite", timestamp=now_ms(), details=dict(rewrite))
            output.diagnostics = [*(output.diagnostics or []), diagnostic]
        reason = event.get("reason")
        if kind == "done":
            output.stop_reason = reason  # type: ignore[assignment]
            self._acc.done()
        else:
            self._acc.error(str(event.get("errorMessage", "")), aborted=reason == "aborted")


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


# --------------------------------------------------------------------------- the call


async def _run(
    events: AssistantMessageEventStream, model: Model, context: Context, options: PiMessagesOptions
) -> None:
    output = empty_assistant_message(model)
    acc = StreamAccumulator(events, output)
    url = _url(model, options.debug)
    try:
        if not options.api_key:
            raise ValueError(f'No API key provided for provider "{model.provider}"')
        payload = await apply_on_payload(options, _payload(model, context, options), model)
        headers = merge_headers(
            {
                "authorization": f"Bearer {options.api_key}",
                "accept": "text/event-stream",
                "content-type": "application/json",
            },
            options.headers,
        )
        if await _exchange(HttpRequest(url, headers, payload), options, model, acc):
            return
        raise StreamError(f"{model.provider} stream ended without a terminal event")
    except Exception as error:
        _fail(acc, model, error, aborted=options.signal is not None and options.signal.aborted)


async def _exchange(
    request: HttpRequest, options: PiMessagesOptions, model: Model, acc: StreamAccumulator
) -> bool:
    single = replace(options, max_retries=0, on_response=None)
    try:
        async with open_stream(
            request, single, model, describe_error=lambda *_: "", request_timeout=False
        ) as response:
            await call_on_response(options, model, response.status, response.headers)
            rebuilder = _Rebuilder(acc)
            async for batch in _events(response):
                for event in batch:
                    if rebuilder.handle(event):
                        return True
                acc.flush()
    except HttpStatusError as error:
        await call_on_response(options, model, error.status, error.headers)
        raise _response_error(model, request.url, error) from None
    return False


def _fail(acc: StreamAccumulator, model: Model, error: BaseException, *, aborted: bool) -> None:
    """Pi reports every failure on a fresh, empty message."""
    fresh: AssistantMessage = empty_assistant_message(model)
    acc.output.content.clear()
    for field in ("usage", "response_id", "provider_thinking_level", "diagnostics", "raw_stop_reason"):
        setattr(acc.output, field, getattr(fresh, field))
    if isinstance(error, PiMessagesResponseError) and not aborted:
        acc.output.diagnostics = [
            Diagnostic(
                type="pi_messages_response_failure",
                timestamp=now_ms(),
                error=DiagnosticError.of(error, "PiMessagesResponseError", error.code),
                details=error.details,
            )
        ]
    acc.error(error_text(error), aborted=aborted)


def stream(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AssistantMessageEventStream:
    resolved = provider_options(options, PiMessagesOptions)
    return start_stream(model, lambda events: _run(events, model, context, resolved), signal=resolved.signal)


def stream_simple(
    model: Model, context: Context, options: SimpleStreamOptions | None = None
) -> AssistantMessageEventStream:
    """The caller's options as they are (no token clamping: the backend decides), plus
    ``reasoning``, ``tool_choice`` and ``debug`` (from ``extra``)."""
    simple = options or SimpleStreamOptions()
    from pi_ai._simple_options import stream_option_values

    provider = PiMessagesOptions(
        **stream_option_values(simple),
        reasoning=simple.reasoning,
        tool_choice=simple.tool_choice,
        debug=bool(simple.extra.get("debug")),
    )
    return stream(model, context, provider)


API = ApiImplementation(api=API_NAME, stream=stream, stream_simple=stream_simple)
