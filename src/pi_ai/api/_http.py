"""The HTTP transport every wire adapter shares: one JSON POST answered with an SSE stream.

How an adapter uses it::

    payload = build_payload(...)                                  # plain dicts/lists, Pi's key order
    payload = await apply_on_payload(options, payload, model)     # hook may replace it
    request = HttpRequest(url, merge_headers(defaults, model.headers, options.headers), payload)
    try:
        async with open_stream(request, options, model, describe_error=sdk_message) as response:
            # retries are done, ``on_response`` was called, the status is 2xx
            stream.push(StartEvent(partial=output))
            async for sse in response.events(flush_partial=True):   # SseEvent(event, data)
                ...
    except HttpStatusError as error:        # non-2xx after retries: status, reason, headers, body
        output.error_message = my_format(error)
    except (TransportError, AbortError) as error:
        output.error_message = str(error)

Contract:

- ``HttpRequest.body`` is serialized with ``pi_ai._codec.encode`` (compact, like
  ``JSON.stringify``): the bytes on the wire are exactly that text.
- ``merge_headers`` merges header sources left to right, case-insensitively; a ``None``
  value removes the header. Names keep the spelling of the source that set them.
- ``open_stream`` honours ``options.signal`` at every await (connect, response headers, each
  body read, retry sleeps). Aborting cancels the pending await, closes the connection and
  raises ``AbortError`` (``"Request aborted"`` before the response, ``"This operation was
  aborted"`` while reading the body, as Pi's fetch reports them).
- Deadlines, as in Pi (the SDK's ``timeout`` plus undici's ``headersTimeout`` /
  ``bodyTimeout``, which Pi's ``httpIdleTimeoutMs`` sets):

  * the response headers must be in within ``options.timeout_ms`` (default 600 000 ms, the
    SDKs' default) and within ``options.idle_timeout_ms`` (default 300 000 ms; 0 = no limit),
    both counted from the request's start (connecting is bounded by 10 s, undici's connect
    timeout); expiry raises ``TransportError("Request timed out.")``, retried like the SDKs;
  * once the headers are in, ``timeout_ms`` no longer applies: a slow but live body streams
    to its end. Only a wait for the next body bytes longer than ``idle_timeout_ms`` fails,
    with ``TransportError("terminated: no data received for N ms")`` (Pi: ``terminated``).
- Retries (``options.max_retries``, default 0) follow Pi's ``retryProviderRequest``: a
  response with ``x-should-retry: true`` or status 408, 409, 429, >= 500 (unless
  ``x-should-retry: false``) and connection failures/timeouts are retried. The delay is
  ``retry-after-ms``, else ``retry-after`` (seconds or an HTTP date), else
  ``min(0.5 * 2**attempt, 8)`` s minus up to 25 % jitter. A server-requested delay longer than
  ``options.max_retry_delay_ms`` (0 = no cap) fails at once with ``TransportError("Server
  requested Ns retry delay (max: Ms). <message>")`` where ``<message>`` is the SDK-style text
  ``describe_error`` builds (see below).
- A non-2xx final answer raises ``HttpStatusError`` carrying ``status``, ``reason`` (HTTP
  status text), lower-cased ``headers`` and the body ``text``; ``str(error)`` is
  ``describe_error(status, reason, headers, text)``, the message the provider's SDK would
  have put in ``error.message``. Adapters compose their final text from the fields, like Pi:

  * Anthropic SDK: ``anthropic_sdk_message``: ``"<status> <body.message or compact JSON of
    the body or raw text>"``, ``"<status> status code (no body)"`` when empty. Pi uses it
    as is (``529 {"type":"error",...}``).
  * OpenAI SDK: ``openai_sdk_message`` (the SDK keeps only the body's ``error`` member):
    ``"<status> <error.message or compact JSON of error>"``, else raw non-JSON text, else
    ``"<status> status code (no body)"``. Pi's ``formatProviderError`` then replaces it with
    ``"<status>: <compact JSON of body.error>"`` when that JSON is not already contained in
    the message (``openai_error_text``), prefixed ``"OpenAI API error (<status>): "`` by the
    Responses adapter.
  * Google SDK (``@google/genai``): no SDK message helper needed: Pi shows the compact JSON
    of the body when the response content-type is JSON, else of
    ``{"error": {"message": <text>, "code": <status>, "status": <reason>}}``.
- Connection failures before a response raise ``TransportError("Connection error. (...)")``;
  a body cut by the network raises ``TransportError("terminated: <reason>")``, the reason in
  undici's words where httpx's tell which (Pi 1.6 says ``terminated: <deepest cause> (<code>)``,
  Pi 0.85 just ``terminated``); both words match Pi's retryable-error patterns.
- ``on_response(ResponseInfo(status, headers), model)`` is awaited after a 2xx response and
  before the body is read, unless ``call_on_response=False`` (Pi's Google adapter skips it).

- Proxies: each request goes through the proxy the environment names for its URL
  (``HTTP_PROXY``, ``HTTPS_PROXY``, ``NO_PROXY`` with undici's rules, through a CONNECT tunnel;
  see ``pi_ai.api._proxy``), read at every request. httpx's own environment handling is off.

httpx is imported only when the first request is made, so ``import pi_ai`` loads no HTTP
library. ``httpx.AsyncClient`` (connection pools) are kept per event loop, created on first
use: one for ``https`` URLs and one for plain ``http``, which skips loading the CA bundle
(see ``_client``), each per proxy in use.
"""

from __future__ import annotations

import asyncio
import email.utils
import inspect
import json
import math
import random
import re
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pi_ai._abort import AbortError, AbortSignal
from pi_ai._codec import encode
from pi_ai._model import Model
from pi_ai._options import ResponseInfo, StreamOptions
from pi_ai.api._sse import SseDecoder, SseEvent
from pi_ai.js_json import js_trim

if TYPE_CHECKING:
    import httpx

DEFAULT_TIMEOUT_MS = 600_000
"""The Anthropic and OpenAI SDKs' default request timeout."""
DEFAULT_IDLE_TIMEOUT_MS = 300_000
"""undici's default ``headersTimeout`` and ``bodyTimeout`` (Pi's ``httpIdleTimeoutMs`` default)."""
CONNECT_TIMEOUT_S = 10.0
"""undici's connect timeout."""
DEFAULT_MAX_RETRY_DELAY_MS = 60_000

ABORTED_BEFORE_RESPONSE = "Request aborted"
ABORTED_WHILE_READING = "This operation was aborted"

DescribeError = Callable[[int, str, Mapping[str, str], str], str]
"""``(status, reason, headers, body text) -> message`` as the provider SDK words it."""


# --------------------------------------------------------------------------- errors


class TransportError(Exception):
    """The request could not be completed: no connection, timeout, cut body, retry refused."""


class HttpStatusError(Exception):
    """The server answered with a non-2xx status (after any retries)."""

    def __init__(self, message: str, status: int, reason: str, headers: Mapping[str, str], text: str) -> None:
        super().__init__(message)
        self.status = status
        self.reason = reason
        self.headers = dict(headers)
        self.text = text


def _js_stringify(value: Any) -> str:
    return encode(value).decode()


def _safe_json(text: str) -> Any:
    """The parsed body, or ``None`` when it is not JSON (like the SDKs' ``safeJSON``)."""
    try:
        return json.loads(text)
    except ValueError:
        return None


def _stainless_message(status: int, error: Any, text: str | None) -> str:
    """``APIError.makeMessage`` of the Stainless-generated SDKs (Anthropic and OpenAI)."""
    message_field = error.get("message") if isinstance(error, dict) else None
    if message_field:
        msg: str | None = message_field if isinstance(message_field, str) else _js_stringify(message_field)
    elif error:
        msg = _js_stringify(error)
    else:
        msg = text
    if status and msg:
        return f"{status} {msg}"
    if status:
        return f"{status} status code (no body)"
    return msg or "(no status code or body)"


def anthropic_sdk_message(status: int, reason: str, headers: Mapping[str, str], text: str) -> str:
    """The Anthropic SDK's error message for a non-2xx response."""
    body = _safe_json(text)
    return _stainless_message(status, body, None if body is not None else text)


def openai_sdk_message(status: int, reason: str, headers: Mapping[str, str], text: str) -> str:
    """The OpenAI SDK's error message for a non-2xx response (it keeps only ``body.error``)."""
    body = _safe_json(text)
    error = body.get("error") if isinstance(body, dict) else None
    return _stainless_message(status, error, None if body is not None else text)


MAX_PROVIDER_ERROR_BODY_CHARS = 4000


def openai_error_text(error: HttpStatusError, prefix: str | None = None) -> str:
    """Pi's ``formatProviderError(normalizeProviderError(e), prefix)`` for an OpenAI SDK error."""
    message = str(error)
    body = _safe_json(error.text)
    inner = body.get("error") if isinstance(body, dict) else None
    body_text: str | None = None
    if isinstance(inner, dict) and inner:
        body_text = _js_stringify(inner).strip()
        if len(body_text) > MAX_PROVIDER_ERROR_BODY_CHARS:
            extra = len(body_text) - MAX_PROVIDER_ERROR_BODY_CHARS
            body_text = f"{body_text[:MAX_PROVIDER_ERROR_BODY_CHARS]}... [truncated {extra} chars]"
        if not body_text:
            body_text = None
    if body_text is None or body_text in message:
        return f"{prefix} ({error.status}): {message}" if prefix is not None else message
    return f"{prefix} ({error.status}): {body_text}" if prefix is not None else f"{error.status}: {body_text}"


# --------------------------------------------------------------------------- request building


@dataclass(slots=True)
class HttpRequest:
    url: str
    headers: dict[str, str]
    payload: Any
    """The JSON body as plain data; encoded compactly when sent."""


def merge_headers(*sources: Mapping[str, str | None] | None) -> dict[str, str]:
    """Merge header mappings left to right, case-insensitively; ``None`` deletes a header."""
    merged: dict[str, tuple[str, str]] = {}
    for source in sources:
        if not source:
            continue
        for name, value in source.items():
            key = name.lower()
            if value is None:
                merged.pop(key, None)
            else:
                merged.pop(key, None)
                merged[key] = (name, value)
    return dict(merged.values())


def has_header(headers: Mapping[str, str | None] | None, name: str) -> bool:
    """Whether ``headers`` sets ``name`` (any case) to a non-blank value."""
    if not headers:
        return False
    wanted = name.lower()
    return any(
        key.lower() == wanted and value is not None and js_trim(value) for key, value in headers.items()
    )


async def apply_on_payload(options: StreamOptions | None, payload: Any, model: Model) -> Any:
    """Give the ``on_payload`` hook the body; a non-None return value replaces it."""
    if options is None or options.on_payload is None:
        return payload
    result = options.on_payload(payload, model)
    if inspect.isawaitable(result):
        result = await result
    return payload if result is None else result


def join_url(base_url: str, path: str) -> str:
    """``base + path`` without a doubled slash, as the SDKs build request URLs."""
    if base_url.endswith("/") and path.startswith("/"):
        return base_url + path[1:]
    return base_url + path


# --------------------------------------------------------------------------- redirection

_redirect: ContextVar[tuple[str, list[str]] | None] = ContextVar("pi_ai_http_redirect", default=None)


@contextmanager
def redirect_requests(base_url: str) -> Iterator[list[str]]:
    """Send every request made in this context to ``base_url`` (scheme, host and port),
    keeping path and query; yields the list of the original URLs as they are requested.

    The seam Pi offers through its ``fetch`` option: differential tests keep each model's real
    ``baseUrl`` (compat detection reads it) while the bytes go to a server on 127.0.0.1.
    """
    originals: list[str] = []
    token = _redirect.set((base_url.rstrip("/"), originals))
    try:
        yield originals
    finally:
        _redirect.reset(token)


def _target_url(url: str) -> str:
    redirect = _redirect.get()
    if redirect is None:
        return url
    base, originals = redirect
    import httpx

    originals.append(str(httpx.URL(url)))  # as it goes on the wire: "{" is sent as "%7B"
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return base + (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


# --------------------------------------------------------------------------- abort scope


class _AbortScope:
    """Makes awaits inside one request abortable without per-await tasks.

    On abort, if the owning task is suspended in one of our awaits, that task is cancelled;
    the ``CancelledError`` is caught right there and turned into ``AbortError``. Aborts that
    fire while the task is elsewhere are seen by the next ``run`` (it checks the flag first).
    """

    __slots__ = ("_cancelled", "_remove", "_task", "_waiting", "signal")

    def __init__(self, signal: AbortSignal | None) -> None:
        self.signal = signal
        self._task = asyncio.current_task()
        self._waiting = False
        self._cancelled = False
        self._remove = signal.add_listener(self._on_abort) if signal is not None else None

    def _on_abort(self) -> None:
        if self._waiting and not self._cancelled and self._task is not None:
            self._cancelled = True
            self._task.cancel()

    def close(self) -> None:
        if self._remove is not None:
            self._remove()
            self._remove = None

    def check(self, message: str) -> None:
        if self.signal is not None and self.signal.aborted:
            raise AbortError(message)

    async def run(self, awaitable: Awaitable[Any], message: str) -> Any:
        self.check(message)
        self._waiting = True
        try:
            return await awaitable
        except asyncio.CancelledError:
            if self._cancelled and self._task is not None:
                self._cancelled = False
                self._task.uncancel()
                raise AbortError(message) from None
            raise
        finally:
            self._waiting = False


# --------------------------------------------------------------------------- client pool

_ClientKey = tuple[bool, str | None]
"""(https, proxy URL or None)."""

_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[_ClientKey, httpx.AsyncClient]] = (
    weakref.WeakKeyDictionary()
)


def _client(url: str) -> httpx.AsyncClient:
    """The running loop's client for ``url``: one for ``https`` URLs, one for plain ``http``,
    each per proxy (the one the environment names for ``url`` now, see ``pi_ai.api._proxy``).

    httpx builds the TLS context of a client when the client is created, and loading the CA
    bundle into it costs 30-60 ms. A plain-http server (a local model) never needs it, so
    its client gets a context that holds no CA certificates: it is never used (the client
    sees only ``http`` URLs and follows no redirects), and were it used, verification would
    fail rather than pass. ``https`` URLs get a verifying context (the CA bundle, or
    ``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` when set).
    """
    from pi_ai.api._proxy import ProxySettingError, proxy_for

    key = (not url.lower().startswith("http://"), proxy_for(url))
    clients = _clients.setdefault(asyncio.get_running_loop(), {})
    client = clients.get(key)
    if client is None or client.is_closed:
        try:
            client = clients[key] = _new_client(*key)
        except ProxySettingError as error:
            raise TransportError(f"Connection error. ({error})") from None
    return client


def _new_client(tls: bool, proxy: str | None) -> httpx.AsyncClient:
    import ssl

    import httpx

    # Proxies come from our own reading of the environment, so httpx's is off (trust_env).
    verify = httpx.create_ssl_context() if tls else ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=20)
    transport = None
    if proxy is not None:
        import httpcore

        from pi_ai.api._proxy import TunnelBackend

        transport = httpx.AsyncHTTPTransport(verify=verify, trust_env=False, limits=limits)
        # httpx takes no network backend, so its pool is replaced by one whose connections
        # are CONNECT tunnels (``_pool`` is what AsyncHTTPTransport sends through).
        transport._pool = httpcore.AsyncConnectionPool(
            ssl_context=verify,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=TunnelBackend(proxy),
        )
    return httpx.AsyncClient(
        timeout=httpx.Timeout(DEFAULT_TIMEOUT_MS / 1000),
        limits=limits,
        follow_redirects=False,
        verify=verify,
        trust_env=False,
        transport=transport,
    )


async def close_clients() -> None:
    """Close the connection pools of the running loop (tests and shutdown)."""
    for client in (_clients.pop(asyncio.get_running_loop(), None) or {}).values():
        await client.aclose()


# --------------------------------------------------------------------------- retries

_FLOAT_PREFIX = re.compile(r"\s*([+-]?(?:Infinity|\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?))")


def _parse_float(text: str) -> float:
    """JavaScript ``parseFloat``: the longest numeric prefix, NaN when there is none."""
    match = _FLOAT_PREFIX.match(text)
    if match is None:
        return math.nan
    return float(match.group(1).replace("Infinity", "inf"))


def _retryable(status: int | None, headers: Mapping[str, str]) -> bool:
    should_retry = headers.get("x-should-retry")
    if should_retry == "true":
        return True
    if should_retry == "false":
        return False
    if status is None:
        return True
    return status in (408, 409, 429) or status >= 500


def _retry_delay_ms(
    headers: Mapping[str, str], attempt: int, max_retry_delay_ms: int | None, message: str
) -> float:
    def checked(delay_ms: float) -> float:
        cap = DEFAULT_MAX_RETRY_DELAY_MS if max_retry_delay_ms is None else max_retry_delay_ms
        if cap > 0 and delay_ms > cap:
            raise TransportError(
                f"Server requested {math.ceil(delay_ms / 1000)}s retry delay "
                f"(max: {math.ceil(cap / 1000)}s). {message}"
            )
        return delay_ms

    retry_after_ms = headers.get("retry-after-ms")
    if retry_after_ms:
        value = _parse_float(retry_after_ms)
        if not math.isnan(value):
            return checked(value)
    retry_after = headers.get("retry-after")
    if retry_after:
        seconds = _parse_float(retry_after)
        if math.isnan(seconds):
            try:
                when = email.utils.parsedate_to_datetime(retry_after).timestamp()
            except (TypeError, ValueError, IndexError):
                return 0.0  # JavaScript: Date.parse -> NaN, the sleep becomes immediate
            return checked(when * 1000 - time.time() * 1000)
        return checked(seconds * 1000)
    backoff_s: float = min(0.5 * 2.0**attempt, 8.0)
    return backoff_s * 1000 * (1 - random.random() * 0.25)


# --------------------------------------------------------------------------- the response


class StreamResponse:
    """A 2xx response whose body is being streamed."""

    __slots__ = ("_idle_timeout_ms", "_response", "_scope", "headers", "status")

    def __init__(self, response: httpx.Response, scope: _AbortScope, idle_timeout_ms: int = 0) -> None:
        self._response = response
        self._scope = scope
        self._idle_timeout_ms = idle_timeout_ms
        """The read timeout the response's client applies (for the error text)."""
        self.status = response.status_code
        self.headers: dict[str, str] = dict(response.headers.items())

    async def chunks(self, *, aborted_between_reads: str = ABORTED_WHILE_READING) -> AsyncIterator[bytes]:
        """Body bytes as they arrive (content-encoding removed).

        An abort that happens while a read is pending raises ``AbortError("This operation was
        aborted")``; one noticed before the next read raises ``aborted_between_reads`` (Pi's
        Anthropic decoder checks the signal itself and says ``Request was aborted``).
        """
        import httpx

        iterator = self._response.aiter_bytes().__aiter__()
        scope = self._scope
        while True:
            scope.check(aborted_between_reads)
            try:
                chunk = await scope.run(iterator.__anext__(), ABORTED_WHILE_READING)
            except StopAsyncIteration:
                return
            except httpx.TimeoutException:
                raise TransportError(f"terminated: no data received for {self._idle_timeout_ms} ms") from None
            except httpx.HTTPError as error:
                raise TransportError(f"terminated: {_body_cut_reason(error)}") from None
            if chunk:
                yield chunk

    async def events(
        self, *, flush_partial: bool, aborted_between_reads: str = ABORTED_WHILE_READING
    ) -> AsyncIterator[SseEvent]:
        """SSE events, incrementally; ``flush_partial`` dispatches an event cut by end of body."""
        async for batch in self.event_batches(
            flush_partial=flush_partial, aborted_between_reads=aborted_between_reads
        ):
            for event in batch:
                yield event

    async def event_batches(
        self, *, flush_partial: bool, aborted_between_reads: str = ABORTED_WHILE_READING
    ) -> AsyncIterator[list[SseEvent]]:
        """The events each network read completed, as one list per read (never empty).

        Consumers only run while the producer awaits the next read, so an adapter may defer
        work that only matters to them (joining streamed text) to the end of each batch.
        """
        decoder = SseDecoder()
        async for chunk in self.chunks(aborted_between_reads=aborted_between_reads):
            batch = decoder.feed(chunk)
            if batch:
                yield batch
        tail = decoder.finish(flush_partial=flush_partial)
        if tail:
            yield tail

    async def text(self) -> str:
        parts = [chunk async for chunk in self.chunks()]
        return b"".join(parts).decode("utf-8", "replace")


@dataclass(frozen=True, slots=True)
class _Limits:
    """The deadlines of one request (see the module docstring)."""

    headers_s: float
    """From the request's start until the response headers are in."""
    idle_s: float | None
    """The longest wait for the next bytes; ``None`` for no limit."""
    idle_ms: int

    @classmethod
    def of(cls, options: StreamOptions, *, request_timeout: bool) -> _Limits:
        request_ms: float = options.timeout_ms if options.timeout_ms is not None else DEFAULT_TIMEOUT_MS
        if not request_timeout:
            request_ms = math.inf
        idle_ms = options.idle_timeout_ms if options.idle_timeout_ms is not None else DEFAULT_IDLE_TIMEOUT_MS
        headers_ms = min(request_ms, idle_ms) if idle_ms > 0 else request_ms
        headers_s = max(0.0, headers_ms) / 1000
        return cls(headers_s, idle_ms / 1000 if idle_ms > 0 else None, idle_ms)


async def _send(client: httpx.AsyncClient, request: httpx.Request, deadline_s: float) -> httpx.Response:
    """Send ``request``; its response headers must be in within ``deadline_s`` (``TimeoutError``).

    httpx's own timeouts bound each socket operation; this bounds their sum, so headers that
    trickle in a byte at a time still fail on time.
    """
    async with asyncio.timeout(deadline_s if math.isfinite(deadline_s) else None):
        return await client.send(request, stream=True)


def _describe(error: BaseException) -> str:
    text = str(error)
    return text if text else type(error).__name__


_UNDICI_BODY_CUTS = (
    ("(incomplete chunked read)", "other side closed (UND_ERR_SOCKET)"),
    ("(received ", "Response body length does not match content-length header (UND_ERR_RES_CONTENT_LENGTH_MISMATCH)"),
)


def _body_cut_reason(error: BaseException) -> str:
    """Why the body stopped, in undici's words where we know them: Pi 1.6 appends the deepest
    cause of its ``terminated`` error (``terminated: other side closed (UND_ERR_SOCKET)``)."""
    text = _describe(error)
    if text.startswith("peer closed connection without sending complete message body"):
        for marker, reason in _UNDICI_BODY_CUTS:
            if marker in text:
                return reason
    return text


@asynccontextmanager
async def open_stream(
    request: HttpRequest,
    options: StreamOptions | None,
    model: Model,
    *,
    describe_error: DescribeError,
    call_on_response: bool = True,
    request_timeout: bool = True,
    no_retry: Collection[int] = (),
) -> AsyncIterator[StreamResponse]:
    """POST ``request`` and yield the streaming 2xx response (see the module docstring).

    ``no_retry``: statuses that fail at once although they are normally retried.

    ``request_timeout=False`` leaves ``options.timeout_ms`` out (Pi gives the Google SDK no
    timeout, so only the idle timeout bounds the wait for its headers).
    """
    import httpx

    options = options or StreamOptions()
    scope = _AbortScope(options.signal)
    limits = _Limits.of(options, request_timeout=request_timeout)
    timeout = httpx.Timeout(connect=min(CONNECT_TIMEOUT_S, limits.headers_s), read=limits.idle_s, write=None, pool=None)
    # Bytes are sent as they are (a body the adapter compressed or signed).
    content = request.payload if isinstance(request.payload, bytes) else encode(request.payload)
    headers = dict(request.headers)
    url = _target_url(request.url)
    max_retries = options.max_retries or 0
    attempt = 0
    response: httpx.Response | None = None
    try:
        client = _client(url)
        while True:
            scope.check(ABORTED_BEFORE_RESPONSE)
            http_request = client.build_request(
                "POST", url, headers=headers, content=content, timeout=timeout
            )
            status: int | None = None
            failure_headers: Mapping[str, str] = {}
            try:
                response = await scope.run(
                    _send(client, http_request, limits.headers_s), ABORTED_BEFORE_RESPONSE
                )
            except (httpx.TimeoutException, TimeoutError):
                failure: Exception = TransportError("Request timed out.")
            except httpx.HTTPError as error:
                failure = TransportError(f"Connection error. ({_describe(error)})")
            else:
                assert response is not None
                if 200 <= response.status_code < 300:
                    break
                status = response.status_code
                reason = response.reason_phrase
                failure_headers = dict(response.headers.items())
                try:
                    body = await scope.run(response.aread(), ABORTED_BEFORE_RESPONSE)
                    text = body.decode("utf-8", "replace")
                except httpx.HTTPError:
                    text = ""
                finally:
                    await response.aclose()
                    response = None
                failure = HttpStatusError(
                    describe_error(status, reason, failure_headers, text),
                    status,
                    reason,
                    failure_headers,
                    text,
                )
            if attempt >= max_retries or status in no_retry or not _retryable(status, failure_headers):
                raise failure
            delay_ms = _retry_delay_ms(failure_headers, attempt, options.max_retry_delay_ms, str(failure))
            attempt += 1
            await scope.run(asyncio.sleep(max(0.0, delay_ms) / 1000), ABORTED_BEFORE_RESPONSE)
        streaming = StreamResponse(response, scope, limits.idle_ms)
        if call_on_response and options.on_response is not None:
            result = options.on_response(ResponseInfo(streaming.status, streaming.headers), model)
            if inspect.isawaitable(result):
                await result
        yield streaming
    finally:
        scope.close()
        if response is not None:
            await response.aclose()
