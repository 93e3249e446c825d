"""The ``auth.json`` lock, shared with Pi: a directory ``auth.json.lock`` (``proper-lockfile``).

Creating a directory is atomic, so whoever creates it holds the lock; everyone else waits and
retries (10 ms doubling, up to 1 s, with jitter) for up to 30 s. A lock directory whose
modification time is more than 30 s old belongs to a process that died: it is removed and
taken. The holder touches the directory every 10 s so a long refresh never looks dead. Pi's
own processes lock and honour the same directory, so a refresh by either program is never
run twice at once.
"""

from __future__ import annotations

import contextlib
import os
import random
import time
from collections.abc import AsyncIterator
from pathlib import Path

STALE_S = 30.0
_TOUCH_EVERY_S = 10.0
_MAX_DELAY_S = 1.0


class AuthLockError(Exception):
    """The lock could not be taken (held by a live process for 30 s, or the folder is not writable)."""


def lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


def _try_take(lock: Path) -> bool:
    try:
        os.mkdir(lock, 0o700)
        return True
    except FileExistsError:
        pass
    try:
        stale = lock.stat().st_mtime < time.time() - STALE_S
    except FileNotFoundError:
        return _try_take_once(lock)
    if stale:
        with contextlib.suppress(FileNotFoundError):
            os.rmdir(lock)
        return _try_take_once(lock)
    return False


def _try_take_once(lock: Path) -> bool:
    try:
        os.mkdir(lock, 0o700)
        return True
    except FileExistsError:
        return False


async def _touch(lock: Path) -> None:
    import asyncio

    while True:
        await asyncio.sleep(_TOUCH_EVERY_S)
        with contextlib.suppress(OSError):
            os.utime(lock)


@contextlib.asynccontextmanager
async def locked(path: Path) -> AsyncIterator[None]:
    """Hold the lock of ``path`` (``auth.json``) for the block."""
    import asyncio  # only writers lock; a run that reads credentials never needs it

    lock = lock_path(path)
    deadline = time.monotonic() + STALE_S
    attempt = 0
    while True:
        try:
            if _try_take(lock):
                break
        except OSError as error:
            raise AuthLockError(f"Cannot lock {path}: {error.strerror or error}") from None
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise AuthLockError(f"Cannot lock {path}: {lock} is held by another process")
        base = min(0.01 * 2**attempt, _MAX_DELAY_S / 2)
        attempt += 1
        await asyncio.sleep(min(base * (1 + random.random()), remaining))
    toucher = asyncio.ensure_future(_touch(lock))
    try:
        yield
    finally:
        toucher.cancel()
        with contextlib.suppress(OSError):
            os.rmdir(lock)
