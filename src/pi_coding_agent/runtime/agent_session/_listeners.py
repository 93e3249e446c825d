"""Listeners of session events: called synchronously, in the order they subscribed."""

from __future__ import annotations

from collections.abc import Callable

from pi_coding_agent.runtime.agent_session._events import AgentSessionEvent

AgentSessionEventListener = Callable[[AgentSessionEvent], None]


class Listeners:
    def __init__(self) -> None:
        self._items: list[AgentSessionEventListener] = []

    def add(self, listener: AgentSessionEventListener) -> Callable[[], None]:
        """Subscribe ``listener``; returns the function that unsubscribes it."""
        self._items.append(listener)

        def remove() -> None:
            if listener in self._items:
                self._items.remove(listener)

        return remove

    def emit(self, event: AgentSessionEvent) -> None:
        for listener in list(self._items):
            listener(event)

    def clear(self) -> None:
        self._items.clear()
