"""Codex's WebSocket transport, Pi 0.85's default (``transport: auto``), through the
``websockets`` module (the ``openai-codex`` extra; without it requests go over SSE).

One request is a ``response.create`` frame carrying the request body; the events come back
one JSON message each, until ``response.completed`` / ``done`` / ``incomplete``. As in Pi:

- with a session id, the socket is kept for the session and account (five minutes idle,
  55 minutes at most) and reused by the next request of that session;
- ``auto`` and ``websocket-cached`` then send only what is new: when the request equals the
  last one but for ``input``, and ``input`` starts with the last input plus the last answer,
  the frame carries ``previous_response_id`` and the rest of the input;
- a socket that cannot be opened, or fails before the first event, sends the request over SSE
  instead, notes a ``provider_transport_failure`` diagnostic on the message, and keeps that
  session on SSE; a failure after the first event ends the request with its error;
- ``websocket_connection_limit_reached`` before any event, and ``previous_response_not_found``,
  are tried once more (the latter with the whole conversation).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pi_ai._abort import AbortError
from pi_ai._codec import encode
from pi_ai._event_stream import now_ms
from pi_ai._messages import Diagnostic, DiagnosticError
from pi_ai.api._codex_events import CodexApiError, CodexProtocolError
from pi_ai.api._codex_request import CODEX_TOOL_CALL_PROVIDERS, codex_url, websocket_headers
from pi_ai.api._common import check_stream_end
from pi_ai.js_json import JsonParseError, parse, stringify

if TYPE_CHECKING:
    from pi_ai.api._codex_http import Exchange

OPENAI_BETA = "responses_websockets=2026-02-06"
IDLE_TTL_S = 5 * 60
MAX_AGE_S = 55 * 60
DEFAULT_CONNECT_TIMEOUT_MS = 15_000
_TERMINAL = frozenset({"response.completed", "response.done", "response.incomplete"})
_MESSAGE_TOO_BIG = 1009


@dataclass(slots=True)
class _Continuation:
    request: dict[str, Any]
    response_id: str
    response_items: list[Any]


@dataclass(slots=True)
class _Entry:
    socket: Any
    loop: asyncio.AbstractEventLoop
    created: float
    busy: bool = True
    idle: asyncio.TimerHandle | None = None
    continuation: _Continuation | None = None


_sessions: dict[str, dict[str, _Entry]] = {}
_closing: set[asyncio.Future[None]] = set()
"""Closes of expired sockets still running (kept so they are not collected midway)."""
_sse_sessions: set[str] = set()
"""Sessions whose WebSocket failed: their requests go over SSE from then on."""


class _Started:
    """Whether this attempt has seen its first event (the message has started)."""

    def __init__(self) -> None:
        self.value = False


async def run(exchange: Exchange, body: dict[str, Any], transport: str, session: str | None) -> bool:
    """Send the request over the WebSocket; False when SSE must carry it instead."""
    if session is not None and session in _sse_sessions:
        return False
    try:
        import websockets  # noqa: F401
    except ImportError:
        return False
    retried_limit = retried_missing = False
    signal = exchange.options.signal
    while True:
        started = _Started()
        try:
            await _exchange(exchange, body, transport, session, started)
            output = exchange.acc.output
            check_stream_end(
                output, signal, "Codex stream ended without a stop reason", output.error_message or ""
            )
            return True
        except Exception as error:
            aborted = signal is not None and signal.aborted
            code = error.code if isinstance(error, CodexApiError) else None
            limit_before_start = not started.value and code == "websocket_connection_limit_reached"
            if not aborted and code == "previous_response_not_found" and not retried_missing:
                retried_missing = True
                continue
            if not aborted and limit_before_start and not retried_limit:
                retried_limit = True
                continue
            if aborted or (isinstance(error, CodexApiError | CodexProtocolError) and not limit_before_start):
                raise
            _note_failure(exchange, body, transport, started.value, error)
            if session is not None:
                _sse_sessions.add(session)
            if started.value:
                raise
            return False


def _note_failure(
    exchange: Exchange, body: dict[str, Any], transport: str, started: bool, error: Exception
) -> None:
    details: dict[str, Any] = {"configuredTransport": transport}
    if not started:
        details["fallbackTransport"] = "sse"
    details.update(
        eventsEmitted=started,
        phase="after_message_stream_start" if started else "before_message_stream_start",
        requestBytes=len(encode(body)),
    )
    output = exchange.acc.output
    diagnostic = Diagnostic(
        type="provider_transport_failure",
        timestamp=now_ms(),
        error=DiagnosticError.of(error),
        details=details,
    )
    output.diagnostics = [*(output.diagnostics or []), diagnostic]


async def _exchange(
    exchange: Exchange, body: dict[str, Any], transport: str, session: str | None, started: _Started
) -> None:
    options = exchange.options
    url = codex_url(exchange.model.base_url).replace("https:", "wss:", 1).replace("http:", "ws:", 1)
    request_id = exchange.session_key or _uuid7()
    assert options.api_key is not None
    headers = websocket_headers(exchange.model, options, exchange.account_id, options.api_key, request_id)
    headers["openai-beta"] = OPENAI_BETA
    socket, entry = await _acquire(url, headers, session, exchange)
    cached = transport in ("websocket-cached", "auto")
    frame = _with_continuation(entry, body) if cached and entry is not None else body
    keep = True
    try:
        await socket.send(stringify({"type": "response.create", **frame}))
        idle_ms = options.timeout_ms
        while True:
            event = await _receive(socket, idle_ms, options)
            before = exchange.events_read
            last = exchange.handle(event)
            started.value = started.value or exchange.events_read > before
            if last:
                break
        exchange.reader.finish()
        if options.signal is not None and options.signal.aborted:
            keep = False
        elif cached and entry is not None and exchange.acc.output.response_id:
            entry.continuation = _Continuation(body, exchange.acc.output.response_id, _answer_items(exchange))
    except BaseException:
        if entry is not None:
            entry.continuation = None
        keep = False
        raise
    finally:
        await _release(socket, entry, session, exchange.account_id, keep)


async def _receive(socket: Any, idle_ms: int | None, options: Any) -> Any:
    """The next message's JSON; Pi's error texts for a closed socket, an idle one, an abort."""
    import websockets

    receive = asyncio.ensure_future(socket.recv())
    waiters: set[asyncio.Future[Any]] = {receive}
    abort = asyncio.ensure_future(options.signal.wait()) if options.signal is not None else None
    if abort is not None:
        waiters.add(abort)
    try:
        timeout = idle_ms / 1000 if idle_ms else None
        done, _ = await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            if not waiter.done():
                waiter.cancel()
    if abort is not None and abort in done:
        raise AbortError("Request was aborted")
    if receive not in done:
        await socket.close(1000, "idle_timeout")
        raise TimeoutError(f"WebSocket idle timeout after {idle_ms}ms")
    try:
        message = receive.result()
    except websockets.ConnectionClosed as closed:
        raise _closed_error(closed) from None
    text = message if isinstance(message, str) else bytes(message).decode("utf-8", "replace")
    try:
        return parse(text)
    except JsonParseError as error:
        raise CodexProtocolError(f"Invalid Codex WebSocket JSON: {error}") from None


def _closed_error(closed: Any) -> Exception:
    received = closed.rcvd
    if received is None:
        return ConnectionError("WebSocket closed 1006")  # no close frame: an abnormal closure
    reason = received.reason or (" message too big" if received.code == _MESSAGE_TOO_BIG else "")
    reason = f" {reason.strip()}" if reason else ""
    return ConnectionError(f"WebSocket closed {received.code}{reason}")


def _answer_items(exchange: Exchange) -> list[Any]:
    """The answer as the next request's ``input`` would replay it (tool outputs left out)."""
    from pi_ai._context import Context
    from pi_ai.api._responses_convert import ConvertOptions, convert_responses_messages

    items = convert_responses_messages(
        exchange.model,
        Context(messages=[exchange.acc.output]),
        CODEX_TOOL_CALL_PROVIDERS,
        ConvertOptions(grammar_input_properties=exchange.grammar, include_system_prompt=False),
    )
    return [
        item for item in items if item.get("type") not in ("function_call_output", "custom_tool_call_output")
    ]


def _with_continuation(entry: _Entry, body: dict[str, Any]) -> dict[str, Any]:
    last = entry.continuation
    if last is None:
        return body

    def without_input(value: dict[str, Any]) -> bytes:
        return encode({k: v for k, v in value.items() if k not in ("input", "previous_response_id")})

    baseline = [*(last.request.get("input") or []), *last.response_items]
    current = body.get("input") or []
    if (
        without_input(body) != without_input(last.request)
        or len(current) < len(baseline)
        or encode(current[: len(baseline)]) != encode(baseline)
    ):
        entry.continuation = None
        return body
    return {**body, "previous_response_id": last.response_id, "input": current[len(baseline) :]}


# --------------------------------------------------------------------------- sockets


async def _connect(url: str, headers: dict[str, str], exchange: Exchange) -> Any:
    from websockets.asyncio.client import connect

    configured = exchange.options.websocket_connect_timeout_ms
    timeout_ms = DEFAULT_CONNECT_TIMEOUT_MS if configured is None else configured
    signal = exchange.options.signal
    opening = asyncio.ensure_future(
        connect(url, additional_headers=headers, user_agent_header=None, open_timeout=None, max_size=None)
    )
    abort = asyncio.ensure_future(signal.wait()) if signal is not None else None
    waiters: set[asyncio.Future[Any]] = {opening, *([abort] if abort is not None else [])}
    try:
        done, _ = await asyncio.wait(
            waiters,
            timeout=timeout_ms / 1000 if timeout_ms > 0 else None,
            return_when=asyncio.FIRST_COMPLETED,
        )
    finally:
        if abort is not None and not abort.done():
            abort.cancel()
    if opening not in done:
        opening.cancel()
        if abort is not None and abort in done:
            raise AbortError("Request was aborted")
        raise TimeoutError(f"WebSocket connect timeout after {timeout_ms}ms")
    return opening.result()


def _reusable(socket: Any) -> bool:
    from websockets.protocol import State

    return bool(socket.state is State.OPEN)


async def _acquire(
    url: str, headers: dict[str, str], session: str | None, exchange: Exchange
) -> tuple[Any, _Entry | None]:
    loop = asyncio.get_running_loop()
    account = exchange.account_id
    if session is None:
        return await _connect(url, headers, exchange), None
    entries = _sessions.setdefault(session, {})
    cached = entries.get(account)
    if cached is not None:
        if cached.idle is not None:
            cached.idle.cancel()
            cached.idle = None
        expired = time.monotonic() - cached.created >= MAX_AGE_S
        if cached.loop is not loop:
            entries.pop(account, None)  # opened under an event loop that has ended: unusable
        elif not cached.busy and (expired or not _reusable(cached.socket)):
            entries.pop(account, None)
            await _close_quietly(cached.socket, "connection_age_limit" if expired else "done")
        elif not cached.busy:
            cached.busy = True
            return cached.socket, cached
        else:
            return await _connect(url, headers, exchange), None  # in use by another request
    socket = await _connect(url, headers, exchange)
    entry = _Entry(socket, loop, time.monotonic())
    _sessions.setdefault(session, {})[account] = entry
    return socket, entry


async def _release(socket: Any, entry: _Entry | None, session: str | None, account: str, keep: bool) -> None:
    if entry is None or session is None:
        await _close_quietly(socket, "done")
        return
    if not keep or not _reusable(socket):
        await _close_quietly(socket, "done")
        _forget(session, account, entry)
        return
    entry.busy = False

    def expire() -> None:
        if not entry.busy:
            _forget(session, account, entry)
            closing = asyncio.ensure_future(_close_quietly(entry.socket, "idle_timeout"))
            _closing.add(closing)
            closing.add_done_callback(_closing.discard)

    entry.idle = asyncio.get_running_loop().call_later(IDLE_TTL_S, expire)


def _forget(session: str, account: str, entry: _Entry) -> None:
    entries = _sessions.get(session)
    if entries is not None and entries.get(account) is entry:
        del entries[account]
    if entries is not None and not entries:
        del _sessions[session]


async def _close_quietly(socket: Any, reason: str) -> None:
    try:
        await socket.close(1000, reason)
    except Exception:
        return


async def close_sessions(session: str | None = None) -> None:
    """Close the kept sockets of one session (all without ``session``); Pi's session cleanup."""
    chosen = [session] if session is not None else list(_sessions)
    for name in chosen:
        for entry in list(_sessions.pop(name, {}).values()):
            if entry.idle is not None:
                entry.idle.cancel()
            await _close_quietly(entry.socket, "debug_close")
    if session is None:
        _sse_sessions.clear()
    else:
        _sse_sessions.discard(session)


def _uuid7() -> str:
    import uuid_utils

    return str(uuid_utils.uuid7())
