"""One Codex exchange over HTTP (SSE): the compressed POST, Codex's retry rule, and reading
the event stream into the shared Responses reader.

Codex retries differently from the OpenAI SDK (Pi 0.85's own loop, ``maxRetries`` default 0):
429 and 5xx (and texts naming a rate limit or an overloaded upstream) wait for ``retry-after-ms``
/ ``retry-after`` or 1 s, 2 s, 4 s...; any other failure, the network's included, is retried
after 1 s, 2 s, 4 s... too, unless its message names a usage limit (a ChatGPT plan's limit
does not lift in seconds). A server asking for a longer wait than ``max_retry_delay_ms`` fails
at once.
"""

from __future__ import annotations

import asyncio
import dataclasses
import email.utils
import inspect
import math
import re
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from pi_ai._abort import AbortError
from pi_ai._codec import encode
from pi_ai._model import Model
from pi_ai._options import ResponseInfo, StreamOptions
from pi_ai.api._accumulator import StreamAccumulator
from pi_ai.api._codex_events import decode_event, http_error_message, map_event
from pi_ai.api._codex_request import codex_url
from pi_ai.api._http import HttpRequest, HttpStatusError, StreamResponse, TransportError, open_stream
from pi_ai.api._responses_stream import ResponsesStreamReader
from pi_ai.api._sse import SseEvent

BASE_DELAY_MS = 1000
ZSTD_LEVEL = 3
_TERMINAL_LIMIT = re.compile(
    r"GoUsageLimitError|FreeUsageLimitError|Monthly usage limit reached|available balance|"
    r"insufficient_quota|out of budget|quota exceeded|billing",
    re.IGNORECASE,
)
_TRANSIENT_TEXT = re.compile(
    r"rate.?limit|overloaded|service.?unavailable|upstream.?connect|connection.?refused", re.IGNORECASE
)
ABORTED = "Request was aborted"


def retryable(status: int, text: str) -> bool:
    if status == 429 and _TERMINAL_LIMIT.search(text):
        return False
    if status in (429, 500, 502, 503, 504):
        return True
    return _TRANSIENT_TEXT.search(text) is not None


def _number(text: str) -> float | None:
    """JavaScript ``Number(text)`` when finite (blank text is 0)."""
    stripped = text.strip()
    if not stripped:
        return 0.0
    try:
        value = float(stripped)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def retry_after_ms(headers: Mapping[str, str]) -> float | None:
    millis = headers.get("retry-after-ms")
    if millis is not None and (value := _number(millis)) is not None:
        return max(0.0, value)
    after = headers.get("retry-after")
    if not after:
        return None
    seconds = _number(after)
    if seconds is not None:
        return max(0.0, seconds * 1000)
    try:
        when = email.utils.parsedate_to_datetime(after).timestamp()
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when * 1000 - time.time() * 1000)


class RetryDelayExceeded(Exception):
    pass


def zstd_module() -> Any | None:
    """The standard library's zstd (Python 3.14), else its backport (the ``openai-codex``
    extra), else ``None``. Not ``zstandard``: httpx would import that one at every run and
    offer zstd to every provider (docs/decisions/codex-transport.md)."""
    import importlib

    for name in ("compression.zstd", "backports.zstd"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    return None


def compress(body: bytes) -> bytes | None:
    """zstd at Codex's level, or ``None`` without a zstd module (plain JSON is sent then)."""
    zstd = zstd_module()
    return None if zstd is None else bytes(zstd.compress(body, level=ZSTD_LEVEL))


@dataclasses.dataclass(kw_only=True, slots=True)
class Exchange:
    """The state of one Codex request: where the events go, and how to send it."""

    model: Model
    options: StreamOptions
    acc: StreamAccumulator
    reader: ResponsesStreamReader
    account_id: str
    session_key: str | None
    grammar: Mapping[str, str]
    started: bool = False
    events_read: int = 0
    """Events given to the reader, over every attempt."""

    def start(self) -> None:
        if not self.started:
            self.started = True
            self.acc.start()

    def handle(self, event: Any) -> bool:
        """One decoded Codex event: the Responses reader gets it as Codex means it (the message
        starts at the first event it gets); True once the response is complete."""
        mapped, last = map_event(event, self.acc.output)
        if mapped is not None:
            self.events_read += 1
            self.start()
            self.reader.event(mapped)
        return last

    def _handle_sse(self, sse: SseEvent) -> bool:
        data = sse.data.strip()
        if not data or data == "[DONE]":
            return False
        return self.handle(decode_event(data))

    async def over_sse(self, body: dict[str, Any], headers: dict[str, str]) -> None:
        content = encode(body)
        compressed = compress(content)
        if compressed is not None:
            headers = {**headers, "content-encoding": "zstd"}
        request = HttpRequest(codex_url(self.model.base_url), headers, compressed or content)
        async with self._open(request) as response:
            self.start()
            with_abort = response.event_batches(flush_partial=True, aborted_between_reads=ABORTED)
            await self.acc.feed(with_abort, self._handle_sse)
        self.reader.finish()

    async def _on_response(self, status: int, headers: Mapping[str, str]) -> None:
        hook = self.options.on_response
        if hook is not None:
            result = hook(ResponseInfo(status, dict(headers)), self.model)
            if inspect.isawaitable(result):
                await result

    async def _sleep(self, delay_ms: float) -> None:
        signal = self.options.signal
        if signal is None:
            await asyncio.sleep(delay_ms / 1000)
            return
        if signal.aborted:
            raise AbortError(ABORTED)
        waiter = asyncio.ensure_future(signal.wait())
        try:
            await asyncio.wait({waiter}, timeout=delay_ms / 1000)
        finally:
            waiter.cancel()
        if signal.aborted:
            raise AbortError(ABORTED)

    @asynccontextmanager
    async def _open(self, request: HttpRequest) -> AsyncIterator[StreamResponse]:
        options = self.options
        single = dataclasses.replace(options, max_retries=0)
        max_retries = options.max_retries or 0
        attempt = 0
        while True:
            if options.signal is not None and options.signal.aborted:
                raise AbortError(ABORTED)
            stack = AsyncExitStack()
            try:
                response = await stack.enter_async_context(
                    open_stream(
                        request,
                        single,
                        self.model,
                        describe_error=lambda status, reason, _headers, text: http_error_message(
                            status, reason, text
                        ),
                        call_on_response=False,
                        request_timeout=options.timeout_ms is not None,
                    )
                )
            except AbortError:
                raise AbortError(ABORTED) from None
            except (HttpStatusError, TransportError, RetryDelayExceeded) as failure:
                delay = await self._retry_delay(failure, attempt, max_retries)
                if delay is None:
                    raise self._final(failure) from None
                await self._sleep(delay)
                attempt += 1
                continue
            async with stack:
                await self._on_response(response.status, response.headers)
                yield response
            return

    async def _retry_delay(self, failure: Exception, attempt: int, max_retries: int) -> float | None:
        """How long to wait before the next attempt; ``None`` when the failure is final."""
        if isinstance(failure, HttpStatusError):
            await self._on_response(failure.status, failure.headers)
            if attempt < max_retries and retryable(failure.status, failure.text):
                after = retry_after_ms(failure.headers)
                if after is None:
                    return float(BASE_DELAY_MS * 2**attempt)
                cap = self.options.max_retry_delay_ms
                if cap > 0 and after > cap:
                    raise RetryDelayExceeded(
                        f"Server requested {math.ceil(after / 1000)}s retry delay (max: {math.ceil(cap / 1000)}s)"
                    )
                return after
        if attempt < max_retries and "usage limit" not in str(failure):
            return float(BASE_DELAY_MS * 2**attempt)
        return None

    def _final(self, failure: Exception) -> Exception:
        if isinstance(failure, TransportError) and str(failure) == "Request timed out.":
            return TransportError(f"Codex SSE response headers timed out after {self.options.timeout_ms}ms")
        return failure
