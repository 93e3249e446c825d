"""A push-based async stream of assistant-message events with a settled result.

Producers ``push`` events; one consumer iterates them with ``async for``; anyone may
``await stream.result()`` for the final ``AssistantMessage``. Errors are values: once a stream
has been handed out it always ends with a ``done`` or ``error`` event, and ``result()`` never
raises. ``start_stream`` runs a producer coroutine under that guarantee.
"""

from __future__ import annotations

import copy
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from pi_ai._abort import AbortSignal
from pi_ai._events import AssistantMessageEvent, DoneEvent, ErrorEvent, StartEvent
from pi_ai._messages import AssistantMessage, Usage
from pi_ai._model import Model

if TYPE_CHECKING:
    import asyncio


def now_ms() -> int:
    """Unix time in integer milliseconds, the unit of every message ``timestamp``."""
    return time.time_ns() // 1_000_000


def empty_assistant_message(model: Model, *, timestamp: int | None = None) -> AssistantMessage:
    """The zero state of a response from ``model``: no content, zero usage, ``pending``."""
    return AssistantMessage(
        content=[],
        api=model.api,
        provider=model.provider,
        model=model.id,
        usage=Usage(),
        stop_reason="pending",
        timestamp=now_ms() if timestamp is None else timestamp,
    )


_PYTHON_FAULTS = (
    AssertionError,
    AttributeError,
    LookupError,
    MemoryError,
    NameError,
    NotImplementedError,
    OverflowError,
    RecursionError,
    StopIteration,
    TypeError,
    UnicodeError,
    ZeroDivisionError,
)
"""Exceptions that only come from a fault in our code; their text ("'NoneType' object has no
attribute ...") means nothing to a user and never reaches an ``errorMessage``."""

UNREADABLE_RESPONSE = "Could not read the provider's response"

DEFAULT_RESPONSE_TIMEOUT_MS = 3_600_000
"""The default deadline for one whole response (an hour; why: ``docs/cli.md``, ``responseTimeoutMs``):
far above what a live answer takes, so only a stalled one reaches it."""


def response_timeout_message(timeout_ms: int) -> str:
    """The ``errorMessage`` of a response stopped by its deadline (retryable: "timed out")."""
    return f"Response timed out: the answer was not complete within responseTimeoutMs ({timeout_ms} ms)"


def error_text(error: BaseException) -> str:
    """The message of an exception as JavaScript's ``error.message`` would read (a fault in
    our own code reads as ``UNREADABLE_RESPONSE``, never Python's wording)."""
    if isinstance(error, _PYTHON_FAULTS):
        return UNREADABLE_RESPONSE
    text = str(error)
    return text if text else type(error).__name__


class AssistantMessageEventStream:
    """Async iterator of ``AssistantMessageEvent`` plus ``await result()``."""

    __slots__ = (
        "_deadline", "_done", "_expired", "_queue", "_result", "_started", "_task", "_waiter", "partial"
    )

    def __init__(self) -> None:
        self._started = time.perf_counter()
        self._queue: deque[AssistantMessageEvent] = deque()
        self._done = False
        self._result: AssistantMessage | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._deadline: asyncio.TimerHandle | None = None
        self._expired: str | None = None
        """The deadline's error message once it expired: every later ``fail`` reports it."""
        self.partial: AssistantMessage | None = None
        """The producer's live output message; used to report partial content if it crashes."""

    @property
    def done(self) -> bool:
        """True once a terminal event was pushed or ``end`` was called."""
        return self._done

    def push(self, event: AssistantMessageEvent) -> None:
        """Deliver ``event``. Ignored after the stream is done; a terminal event finishes it.

        A ``start`` event is delivered with a copy of its message as it is now: producers keep
        filling the same live message, and a consumer that reads ``start`` after later chunks
        were parsed must still see the message as it began (empty, ``pending``), as Pi's
        ``message_start`` shows it.
        """
        if self._done:
            return
        if type(event) is StartEvent:
            event = StartEvent(partial=copy.deepcopy(event.partial))
        elif isinstance(event, DoneEvent):
            self._time(event.message)
            self._done = True
            self._result = event.message
            self._disarm()
        elif isinstance(event, ErrorEvent):
            self._time(event.error)
            self._done = True
            self._result = event.error
            self._disarm()
        self._queue.append(event)
        if self._waiter is not None:  # (checked here: this runs for every delta, bench/stream_parse.py)
            self._wake()

    def end(self, result: AssistantMessage | None = None) -> None:
        """Finish without (another) event. ``result`` settles ``result()`` if nothing did yet."""
        if result is not None:
            self._time(result)
        self._done = True
        if self._result is None and result is not None:
            self._result = result
        self._disarm()
        self._wake()

    def _time(self, message: AssistantMessage) -> None:
        """Give the final ``message`` its ``durationMs`` (Pi 1.6): whole milliseconds since this
        stream was made, unless it has one already. (Adapters make their output message just
        before the stream, so its ``timestamp`` may be a millisecond or more earlier.)"""
        if self._done or message.duration_ms is not None:
            return
        message.duration_ms = max(0, int((time.perf_counter() - self._started) * 1000 + 0.5))

    def set_deadline(self, model: Model, timeout_ms: int) -> None:
        """End the stream as an ``error`` (``response_timeout_message``) unless it ended within
        ``timeout_ms`` from now. Must be called inside the running event loop.

        On expiry the producer task of ``start_stream`` is cancelled: its pending await stops
        and whatever it holds is released as it unwinds (``open_stream`` closes the HTTP
        response, the local model stops generating), then the stream fails with the partial
        message so far. A stream fed by other means (no producer task) fails at once, and
        later pushes are ignored.
        """
        import asyncio  # already loaded: we are inside a running loop

        self._disarm()
        if self._done:
            return
        self._deadline = asyncio.get_running_loop().call_later(
            timeout_ms / 1000, self._expire, model, response_timeout_message(timeout_ms)
        )

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self, model: Model, message: str) -> None:
        self._deadline = None
        if self._done:
            return
        task = self._task
        if task is None:
            self.fail(model, message)
            return
        self._expired = message
        # The runner fails the stream once the producer has unwound, so the error event comes
        # after the connection is closed (``fail`` then reports the deadline).
        task.cancel()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    async def _wait(self) -> None:
        import asyncio  # already loaded: we are inside a running loop

        waiter = self._waiter
        if waiter is None:
            waiter = self._waiter = asyncio.get_running_loop().create_future()
        await asyncio.shield(waiter)

    def __aiter__(self) -> AssistantMessageEventStream:
        return self

    async def __anext__(self) -> AssistantMessageEvent:
        while True:
            if self._queue:
                return self._queue.popleft()
            if self._done:
                raise StopAsyncIteration
            await self._wait()

    async def result(self) -> AssistantMessage:
        """The settled message (``done.message`` or ``error.error``). Never raises."""
        while self._result is None:
            if self._done:
                raise RuntimeError("event stream ended without a terminal event")  # a producer bug
            await self._wait()
        return self._result

    def fail(
        self,
        model: Model,
        error: BaseException | str,
        signal: AbortSignal | None = None,
        *,
        aborted: bool = False,
    ) -> None:
        """End the stream with an ``error`` event built from ``error`` and the partial so far.

        The reason is ``aborted`` when ``aborted`` is true or ``signal`` has fired, else ``error``;
        after the deadline expired (``set_deadline``) it is always the deadline's ``error``.
        """
        if self._done:
            return
        if self._expired is not None:
            error, aborted, signal = self._expired, False, None
        message = self.partial if self.partial is not None else empty_assistant_message(model)
        aborted = aborted or (signal is not None and signal.aborted)
        message.stop_reason = "aborted" if aborted else "error"
        message.error_message = error if isinstance(error, str) else error_text(error)
        self.push(ErrorEvent(reason=message.stop_reason, error=message))


Producer = Callable[[AssistantMessageEventStream], Awaitable[None]]


def start_stream(
    model: Model, producer: Producer, *, signal: AbortSignal | None = None
) -> AssistantMessageEventStream:
    """Run ``producer`` as a task feeding a new stream, with the errors-are-values guarantee.

    Whatever the producer does (raise, return early, get cancelled) the stream ends with a
    terminal event. Must be called from inside a running event loop.
    """
    import asyncio  # lazily: ``import pi_ai`` must not pay for asyncio

    stream = AssistantMessageEventStream()

    async def run() -> None:
        try:
            await producer(stream)
        except asyncio.CancelledError:
            stream.fail(model, "Request was aborted", aborted=True)
            raise
        except Exception as exc:
            stream.fail(model, exc, signal)
        if not stream.done:
            stream.fail(model, "stream ended without a final event", signal)

    stream._task = asyncio.get_running_loop().create_task(run())
    return stream

