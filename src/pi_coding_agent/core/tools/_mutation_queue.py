"""One writer at a time per file: ``write`` and ``edit`` on the same path run in call order.

Calls in one batch may run in parallel; two edits of one file must not interleave their
read-modify-write cycles. Different files still proceed in parallel. The key is the real
path (symlinks resolved), so two spellings of one file share a queue.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

_locks: dict[str, tuple[asyncio.Lock, int]] = {}


def _key(path: str) -> str:
    try:
        return os.path.realpath(path, strict=True)
    except OSError:
        return os.path.abspath(path)


@asynccontextmanager
async def file_mutation(path: str) -> AsyncIterator[None]:
    """Hold the queue of ``path`` for the duration of the ``async with`` block."""
    key = _key(path)
    lock, users = _locks.get(key, (None, 0))
    if lock is None:
        lock = asyncio.Lock()
    _locks[key] = (lock, users + 1)
    try:
        async with lock:
            yield
    finally:
        lock, users = _locks[key]
        if users <= 1:
            del _locks[key]
        else:
            _locks[key] = (lock, users - 1)
