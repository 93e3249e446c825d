"""Cancellation shared by every layer: providers, the agent loop and tools.

Modelled on the web platform's ``AbortController``: the owner of an operation keeps the
controller, everything that must stop when asked receives its ``signal``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncio

AbortListener = Callable[[], None]


class AbortError(Exception):
    """Raised by ``AbortSignal.raise_if_aborted`` and by code that stops because it was asked to."""


class AbortSignal:
    """Read side of an abort: poll ``aborted``, register listeners, or ``await wait()``."""

    __slots__ = ("_event", "_listeners", "aborted", "reason")

    def __init__(self) -> None:
        self.aborted = False
        self.reason: object = None
        self._listeners: list[AbortListener] = []
        self._event: asyncio.Event | None = None

    def add_listener(self, listener: AbortListener) -> Callable[[], None]:
        """Call ``listener`` once on abort (at once if already aborted). Returns an unsubscribe."""
        if self.aborted:
            listener()
            return lambda: None
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove

    async def wait(self) -> None:
        """Return once the signal is aborted."""
        if self.aborted:
            return
        if self._event is None:
            import asyncio  # lazily: importing asyncio costs more than all of pi_ai

            self._event = asyncio.Event()
        await self._event.wait()

    def raise_if_aborted(self) -> None:
        if self.aborted:
            raise AbortError(str(self.reason) if self.reason is not None else "This operation was aborted")

    def _fire(self, reason: object) -> None:
        if self.aborted:
            return
        self.aborted = True
        self.reason = reason
        if self._event is not None:
            self._event.set()
        listeners, self._listeners = self._listeners, []
        for listener in listeners:
            listener()

    @staticmethod
    def any(*signals: AbortSignal | None) -> AbortSignal:
        """A signal that aborts when any of ``signals`` does."""
        controller = AbortController()
        for signal in signals:
            if signal is not None:
                signal.add_listener(_forward(signal, controller))
        return controller.signal


class AbortController:
    """Write side: ``abort()`` fires the signal once; later calls do nothing."""

    __slots__ = ("signal",)

    def __init__(self) -> None:
        self.signal = AbortSignal()

    def abort(self, reason: object = None) -> None:
        self.signal._fire(reason if reason is not None else "This operation was aborted")


def _forward(source: AbortSignal, target: AbortController) -> AbortListener:
    return lambda: target.abort(source.reason)
