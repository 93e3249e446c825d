"""How many scripts may run at once in this process (Pi 1.6: two, ``PI_CODEMODE_MAX_WORKERS``).

Every script runs in a VM on its own thread; a slot is held from the script's start until its VM
is gone. Waiting scripts get slots in arrival order. The slots are shared by every session and
event loop of the process, so the bookkeeping is guarded by a thread lock and a slot is handed to
a waiter through its own loop.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections import deque
from typing import Literal

DEFAULT_MAX_WORKERS = 2
WORKER_WAIT_SECONDS = 60.0

_lock = threading.Lock()
_active = 0
_waiters: deque[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = deque()


def max_workers() -> int:
    """``PI_CODEMODE_MAX_WORKERS`` when it is a positive integer (read on every call)."""
    value = os.environ.get("PI_CODEMODE_MAX_WORKERS", "")
    try:
        number = int(value)
    except ValueError:
        return DEFAULT_MAX_WORKERS
    return number if number > 0 else DEFAULT_MAX_WORKERS


def _grant(loop: asyncio.AbstractEventLoop, future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
    else:  # the waiter gave up in the meantime: pass the slot on
        release()


async def reserve(wait_seconds: float, aborted: asyncio.Future[None] | None = None) -> Literal["reserved", "timeout", "aborted"]:
    """Take a slot, waiting at most ``wait_seconds`` (or until ``aborted`` completes)."""
    global _active
    loop = asyncio.get_running_loop()
    with _lock:
        if _active < max_workers() and not _waiters:
            _active += 1
            return "reserved"
        future: asyncio.Future[None] = loop.create_future()
        _waiters.append((loop, future))
    waits: set[asyncio.Future[None]] = {future} if aborted is None else {future, aborted}
    await asyncio.wait(waits, timeout=wait_seconds, return_when=asyncio.FIRST_COMPLETED)
    with _lock:
        if future.done():
            return "reserved"
        future.cancel()
        if (loop, future) in _waiters:
            _waiters.remove((loop, future))
    return "aborted" if aborted is not None and aborted.done() else "timeout"


def release() -> None:
    """Give a slot back: to the first waiter, or to the pool."""
    global _active
    with _lock:
        while _waiters:
            loop, future = _waiters.popleft()
            if future.done() or loop.is_closed():
                continue
            loop.call_soon_threadsafe(_grant, loop, future)
            return
        _active = max(0, _active - 1)
