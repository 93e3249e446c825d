"""``pi.events``: one bus shared by every extension of a run, for talking to each other."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

ErrorSink = Callable[[str, BaseException], None]


class EventBus:
    """Named channels; ``emit`` calls every listener of a channel in subscription order.

    A listener that raises is reported (through the runner, as an ``extension_error`` whose
    event is ``events:<channel>``) and the others still run. Coroutine listeners are
    scheduled on the running loop, not awaited: ``emit`` never blocks the emitter.
    """

    def __init__(self, on_error: ErrorSink) -> None:
        self._listeners: dict[str, list[Callable[[Any], Any]]] = {}
        self._on_error = on_error

    def on(self, channel: str, listener: Callable[[Any], Any]) -> Callable[[], None]:
        """Subscribe; returns the function that unsubscribes."""
        self._listeners.setdefault(channel, []).append(listener)

        def off() -> None:
            listeners = self._listeners.get(channel, [])
            if listener in listeners:
                listeners.remove(listener)

        return off

    def emit(self, channel: str, data: Any = None) -> None:
        import asyncio

        for listener in list(self._listeners.get(channel, ())):
            try:
                result = listener(data)
                if inspect.isawaitable(result):
                    task = asyncio.ensure_future(result)
                    task.add_done_callback(functools.partial(self._report, channel))
            except Exception as error:
                self._on_error(channel, error)

    def _report(self, channel: str, task: Any) -> None:
        if not task.cancelled() and task.exception() is not None:
            self._on_error(channel, task.exception())
