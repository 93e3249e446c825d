"""``stream_proxy``: a stream function that reaches models through your own server.

Apps that keep provider credentials on a server POST the request there and get the
provider's events back as server-sent events. The server leaves out the ``partial``
message of each event to save bandwidth; this client rebuilds it, so the agent sees an
ordinary assistant-message stream (Pi's ``streamProxy`` protocol, usable with Pi's servers):

    agent = Agent(model=model, stream_fn=functools.partial(
        stream_proxy, proxy_url="https://genai.example.com", auth_token=token))

Request: ``POST <proxy_url>/api/stream`` with ``Authorization: Bearer <auth_token>`` and the
JSON body ``{"model", "context", "options"}``. Response: ``data: <event JSON>`` lines.
Failures never raise: a bad status, an abort, a dropped connection or a malformed event all
end the stream with an ``error`` event.
"""

from __future__ import annotations

import codecs
import json
from typing import TYPE_CHECKING, Any

from pi_ai import (
    AssistantMessage,
    AssistantMessageEvent,
    AssistantMessageEventStream,
    Context,
    DoneEvent,
    ErrorEvent,
    Model,
    SimpleStreamOptions,
    StartEvent,
    TextContent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingContent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCall,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    Usage,
    convert,
    now_ms,
    parse_streaming_json,
    start_stream,
    to_builtins,
)
from pi_ai.js_json import stringify

if TYPE_CHECKING:
    import httpx

ABORTED_TEXT = "Request aborted by user"
CLOSED_TEXT = "Connection closed by proxy server before the response completed"
_WHITESPACE = " \t\n\r\v\f\u00a0\ufeff"
_DEFAULT_MAX_RETRY_DELAY_MS = SimpleStreamOptions().max_retry_delay_ms


def _request_options(options: SimpleStreamOptions) -> dict[str, Any]:
    """The serializable options the server may apply (absent ones are left out)."""
    fields: dict[str, Any] = {
        "temperature": options.temperature,
        "samplingParams": options.sampling_params,
        "maxTokens": options.max_tokens,
        "reasoning": options.reasoning,
        "cacheRetention": options.cache_retention,
        "sessionId": options.session_id,
        "headers": options.headers,
        "metadata": options.metadata,
        "transport": options.extra.get("transport"),
        "thinkingBudgets": None
        if options.thinking_budgets is None
        else {key: value for key, value in vars(options.thinking_budgets).items() if value is not None},
        "maxRetryDelayMs": (
            None if options.max_retry_delay_ms == _DEFAULT_MAX_RETRY_DELAY_MS else options.max_retry_delay_ms
        ),
    }
    return {key: to_builtins(value) for key, value in fields.items() if value is not None}


class ProxyError(Exception):
    """The proxy answered with an error status."""


class _Rebuilder:
    """Turns the server's partial-less events back into full assistant-message events."""

    def __init__(self, partial: AssistantMessage) -> None:
        self.partial = partial
        self.tool_json: dict[int, str] = {}
        self.terminal = False

    def _block(self, index: int) -> Any:
        content = self.partial.content
        return content[index] if 0 <= index < len(content) else None

    def _set_block(self, index: int, block: TextContent | ThinkingContent | ToolCall) -> None:
        content = self.partial.content
        if index < len(content):
            content[index] = block
        elif index == len(content):
            content.append(block)
        else:
            raise ValueError(f"Received content index {index} out of order")

    def event(self, raw: dict[str, Any]) -> AssistantMessageEvent | None:
        partial = self.partial
        kind = raw.get("type")
        index = raw.get("contentIndex", 0)
        if kind == "start":
            return StartEvent(partial=partial)
        if kind == "text_start":
            self._set_block(index, TextContent(text=""))
            return TextStartEvent(content_index=index, partial=partial)
        if kind == "text_delta":
            block = self._block(index)
            if not isinstance(block, TextContent):
                raise ValueError("Received text_delta for non-text content")
            block.text += raw["delta"]
            return TextDeltaEvent(content_index=index, delta=raw["delta"], partial=partial)
        if kind == "text_end":
            block = self._block(index)
            if not isinstance(block, TextContent):
                raise ValueError("Received text_end for non-text content")
            block.text_signature = raw.get("contentSignature")
            return TextEndEvent(content_index=index, content=block.text, partial=partial)
        if kind == "thinking_start":
            self._set_block(index, ThinkingContent(thinking=""))
            return ThinkingStartEvent(content_index=index, partial=partial)
        if kind == "thinking_delta":
            block = self._block(index)
            if not isinstance(block, ThinkingContent):
                raise ValueError("Received thinking_delta for non-thinking content")
            block.thinking += raw["delta"]
            return ThinkingDeltaEvent(content_index=index, delta=raw["delta"], partial=partial)
        if kind == "thinking_end":
            block = self._block(index)
            if not isinstance(block, ThinkingContent):
                raise ValueError("Received thinking_end for non-thinking content")
            block.thinking_signature = raw.get("contentSignature")
            return ThinkingEndEvent(content_index=index, content=block.thinking, partial=partial)
        if kind == "toolcall_start":
            self._set_block(index, ToolCall(id=raw.get("id", ""), name=raw.get("toolName", ""), arguments={}))
            self.tool_json[index] = ""
            return ToolCallStartEvent(content_index=index, partial=partial)
        if kind == "toolcall_delta":
            block = self._block(index)
            if not isinstance(block, ToolCall):
                raise ValueError("Received toolcall_delta for non-toolCall content")
            text = self.tool_json.get(index, "") + raw["delta"]
            self.tool_json[index] = text
            block.arguments = parse_streaming_json(text) or {}
            return ToolCallDeltaEvent(content_index=index, delta=raw["delta"], partial=partial)
        if kind == "toolcall_end":
            block = self._block(index)
            if not isinstance(block, ToolCall):
                return None
            final = convert({**to_builtins(block), **(raw.get("toolCall") or {})}, ToolCall)
            self._set_block(index, final)
            self.tool_json.pop(index, None)
            return ToolCallEndEvent(content_index=index, tool_call=final, partial=partial)
        if kind in ("done", "error"):
            self.terminal = True
            partial.stop_reason = raw["reason"]
            partial.usage = convert(raw["usage"], Usage) if raw.get("usage") is not None else Usage()
            if raw.get("providerThinkingLevel") is not None:
                partial.provider_thinking_level = raw["providerThinkingLevel"]
            if kind == "done":
                return DoneEvent(reason=raw["reason"], message=partial)
            partial.error_message = raw.get("errorMessage")
            return ErrorEvent(reason=raw["reason"], error=partial)
        return None  # an event type this client does not know: skipped, as Pi does


def stream_proxy(
    model: Model,
    context: Context,
    options: SimpleStreamOptions | None = None,
    *,
    proxy_url: str,
    auth_token: str,
) -> AssistantMessageEventStream:
    """Stream one model response through a Pi-protocol proxy server."""
    options = options if options is not None else SimpleStreamOptions()
    signal = options.signal
    partial = AssistantMessage(
        content=[],
        api=model.api,
        provider=model.provider,
        model=model.id,
        usage=Usage(),
        stop_reason="pending",
        timestamp=now_ms(),
    )
    body = stringify(
        {"model": to_builtins(model), "context": to_builtins(context), "options": _request_options(options)}
    )

    async def produce(stream: AssistantMessageEventStream) -> None:
        import asyncio

        import httpx

        stream.partial = partial
        rebuild = _Rebuilder(partial)
        task = asyncio.current_task()

        def interrupt() -> None:  # a pending read must not wait for the server to notice
            if task is not None:
                task.cancel()

        remove_listener = signal.add_listener(interrupt) if signal is not None else None
        try:
            async with (
                httpx.AsyncClient(timeout=httpx.Timeout(None, connect=30.0)) as client,
                client.stream(
                    "POST",
                    f"{proxy_url}/api/stream",
                    content=body.encode(),
                    headers={"Authorization": f"Bearer {auth_token}", "Content-Type": "application/json"},
                ) as response,
            ):
                if not response.is_success:
                    raise ProxyError(await _error_text(response))
                await _read_events(response, rebuild, stream)
            if signal is not None and signal.aborted:
                raise ProxyError(ABORTED_TEXT)
            if not rebuild.terminal:
                partial.stop_reason = "error"
                partial.error_message = CLOSED_TEXT
                stream.push(ErrorEvent(reason="error", error=partial))
        except asyncio.CancelledError:
            if signal is None or not signal.aborted:
                raise
            _fail(stream, partial, ABORTED_TEXT, aborted=True)
        except Exception as error:
            aborted = signal is not None and signal.aborted
            _fail(
                stream,
                partial,
                ABORTED_TEXT if aborted else (str(error) or type(error).__name__),
                aborted=aborted,
            )
        finally:
            if remove_listener is not None:
                remove_listener()

    return start_stream(model, produce, signal=signal)


def _fail(
    stream: AssistantMessageEventStream, partial: AssistantMessage, text: str, *, aborted: bool
) -> None:
    partial.stop_reason = "aborted" if aborted else "error"
    partial.error_message = text
    stream.push(ErrorEvent(reason=partial.stop_reason, error=partial))


async def _error_text(response: httpx.Response) -> str:
    text = f"Proxy error: {response.status_code} {response.reason_phrase}"
    try:
        data = json.loads(await response.aread())
    except (ValueError, UnicodeDecodeError):
        return text
    if isinstance(data, dict) and data.get("error"):
        return f"Proxy error: {data['error']}"
    return text


async def _read_events(
    response: httpx.Response, rebuild: _Rebuilder, stream: AssistantMessageEventStream
) -> None:
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    buffer = ""

    def process(line: str) -> None:
        if not line.startswith("data: "):
            return
        data = line[6:].strip(_WHITESPACE)
        if not data:
            return
        event = rebuild.event(json.loads(data))
        if event is not None:
            stream.push(event)

    async for chunk in response.aiter_bytes():
        buffer += decoder.decode(chunk)
        *lines, buffer = buffer.split("\n")
        for line in lines:
            process(line)
    buffer += decoder.decode(b"", final=True)
    if buffer:
        process(buffer)
