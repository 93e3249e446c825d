"""``ctx.ui.onTerminalInput`` of TypeScript extensions: raw keys pass through Node first.

Our TUI asks its input listeners synchronously whether they consume a key, but Node's
listeners answer later. So while any TypeScript listener is subscribed, one listener of ours
takes every key, queues it and sends it to Node (``terminalInput``), one at a time so the keys
keep their order. Node runs its listeners as Pi's TUI does (the first ``{consume: true}`` stops
the key, a ``{data}`` replaces it for the next); a key that is not consumed is fed to the TUI
again, which then skips our listener for it and hands it to the focused component.

Our TUI hands a run of typed text over as one string; Pi's hands its listeners one character
at a time, so a run is split into its characters here (escape sequences and pastes stay whole).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any


class TerminalInputRelay:
    def __init__(self, request: Callable[[str, dict[str, Any]], Awaitable[Any]]) -> None:
        self._request = request
        self._unsubscribe: Callable[[], None] | None = None
        self._feed: Callable[[str], None] | None = None
        self._queue: deque[str] = deque()
        self._busy = False
        self._replaying = False
        self._task: asyncio.Task[None] | None = None
        self._resets: int | None = None

    @property
    def active(self) -> bool:
        return self._unsubscribe is not None

    def switch(self, ui: Any, on: bool) -> None:
        """Node has listeners (``on``) or none any more. A reset of the UI since we
        subscribed (a new session, ``/reload``) already unsubscribed ours."""
        resets = getattr(ui, "resets", None)
        if resets != self._resets:
            self._unsubscribe = None
            self._resets = resets
        if on and self._unsubscribe is None:
            subscribe = getattr(ui, "on_terminal_input", None)
            feed = getattr(getattr(ui, "tui", None), "feed_input", None)
            if callable(subscribe) and callable(feed):
                self._feed = feed
                self._unsubscribe = subscribe(self._listener)
        elif not on and self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _listener(self, data: str) -> bool:
        if self._replaying:
            return False  # a key Node let through: on to the focused component
        self._queue.extend(_keys(data))
        if not self._busy:
            self._busy = True
            self._task = asyncio.get_running_loop().create_task(self._drain())
        return True

    async def _drain(self) -> None:
        try:
            while self._queue:
                data = self._queue.popleft()
                try:
                    answer = await self._request("terminalInput", {"data": data})
                except Exception:  # the host is gone: keys reach the TUI as if it never listened
                    answer = None
                self._pass_on(data, answer)
        finally:
            self._busy = False

    def _pass_on(self, data: str, answer: Any) -> None:
        if isinstance(answer, dict):
            if answer.get("consume"):
                return
            given = answer.get("data")
            data = given if isinstance(given, str) else data
        if not data or self._feed is None:
            return
        self._replaying = True
        try:
            self._feed(data)
        finally:
            self._replaying = False


def _keys(data: str) -> list[str]:
    """``data`` as Pi's TUI passes it to listeners: plain text one character at a time."""
    if data.startswith("\x1b") or len(data) <= 1:
        return [data]
    return list(data)
