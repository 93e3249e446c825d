"""A push-fed async stream of events that settles with a result.

``agent_loop()`` returns one: the loop pushes events from a background task, the caller
iterates them and/or awaits ``result()``. Unlike Pi's stream, a run that dies with an
exception does not leave the consumer hanging: the stream ends and both the iteration and
``result()`` raise that exception.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    import asyncio

E = TypeVar("E")
R = TypeVar("R")


class EventStream(Generic[E, R]):
    """``async for event in stream`` plus ``await stream.result()``."""

    __slots__ = ("_done", "_error", "_extract", "_has_result", "_is_final", "_queue", "_result", "_waiter")

    def __init__(self, is_final: Callable[[E], bool], extract: Callable[[E], R]) -> None:
        self._is_final = is_final
        self._extract = extract
        self._queue: deque[E] = deque()
        self._done = False
        self._has_result = False
        self._result: R | None = None
        self._error: BaseException | None = None
        self._waiter: asyncio.Future[None] | None = None

    @property
    def done(self) -> bool:
        return self._done

    def push(self, event: E) -> None:
        """Deliver ``event``; ignored once the stream is done. A final event settles the result."""
        if self._done:
            return
        if self._is_final(event):
            self._done = True
            self._set_result(self._extract(event))
        self._queue.append(event)
        self._wake()

    def end(self, result: R | None = None) -> None:
        """Finish; ``result`` settles ``result()`` unless a final event already did."""
        self._done = True
        if result is not None:
            self._set_result(result)
        self._wake()

    def fail(self, error: BaseException) -> None:
        """Finish with an error: iteration and ``result()`` raise it once queued events are read."""
        if self._error is None and not self._has_result:
            self._error = error
        self._done = True
        self._wake()

    def _set_result(self, result: R) -> None:
        if not self._has_result:
            self._has_result = True
            self._result = result

    def _wake(self) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def _wait(self) -> None:
        import asyncio  # lazily: importing pi_agent must not pay for asyncio

        if self._waiter is None:
            self._waiter = asyncio.get_running_loop().create_future()
        await asyncio.shield(self._waiter)

    def __aiter__(self) -> EventStream[E, R]:
        return self

    async def __anext__(self) -> E:
        while True:
            if self._queue:
                return self._queue.popleft()
            if self._done:
                if self._error is not None:
                    raise self._error
                raise StopAsyncIteration
            await self._wait()

    async def result(self) -> R:
        while not self._has_result:
            if self._error is not None:
                raise self._error
            if self._done:
                raise RuntimeError("event stream ended without a result")
            await self._wait()
        return self._result  # type: ignore[return-value]
