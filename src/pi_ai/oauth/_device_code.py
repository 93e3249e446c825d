"""Polling an RFC 8628 device authorization until the user approves it, as Pi polls.

The interval is the server's (at least 1 s; 5 s when it names none). ``slow_down`` takes the
server's new interval when it gives one (GitHub does), else adds 5 s. Polling stops at the
code's expiry with "Device flow timed out" (with a hint about clock drift when the server
asked to slow down: a VM whose clock runs fast polls too early forever).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from pi_ai.oauth._types import OAuthError

T = TypeVar("T")

_MINIMUM_INTERVAL_S = 1.0
_DEFAULT_INTERVAL_S = 5.0
_SLOW_DOWN_STEP_S = 5.0
_TIMEOUT = "Device flow timed out"
_SLOW_DOWN_TIMEOUT = (
    "Device flow timed out after one or more slow_down responses. This is often caused by clock drift in "
    "WSL or VM environments. Please sync or restart the VM clock and try again."
)


@dataclass(frozen=True, slots=True)
class Poll(Generic[T]):
    """One poll's outcome: ``complete`` carries ``value``, ``failed`` a ``message``."""

    status: Literal["pending", "slow_down", "complete", "failed"]
    value: T | None = None
    message: str = ""
    interval_seconds: float | None = None


def pending() -> Poll[T]:
    return Poll("pending")


def slow_down(interval_seconds: float | None = None) -> Poll[T]:
    return Poll("slow_down", interval_seconds=interval_seconds)


def failed(message: str) -> Poll[T]:
    return Poll("failed", message=message)


def complete(value: T) -> Poll[T]:
    return Poll("complete", value=value)


async def poll_device_code(
    poll: Callable[[], Awaitable[Poll[T]]],
    *,
    interval_seconds: float | None,
    expires_in_seconds: float | None,
    wait_before_first_poll: bool = False,
) -> T:
    deadline = time.monotonic() + expires_in_seconds if expires_in_seconds is not None else float("inf")
    interval = max(
        _MINIMUM_INTERVAL_S, interval_seconds if interval_seconds is not None else _DEFAULT_INTERVAL_S
    )
    slowed = False
    if wait_before_first_poll:
        await _sleep_until(min(time.monotonic() + interval, deadline))
    while time.monotonic() < deadline:
        result = await poll()
        if result.status == "complete":
            return result.value  # type: ignore[return-value]
        if result.status == "failed":
            raise OAuthError(result.message)
        if result.status == "slow_down":
            slowed = True
            given = result.interval_seconds
            interval = max(
                _MINIMUM_INTERVAL_S, given if given and given > 0 else interval + _SLOW_DOWN_STEP_S
            )
        if time.monotonic() >= deadline:
            break
        await _sleep_until(min(time.monotonic() + interval, deadline))
    raise OAuthError(_SLOW_DOWN_TIMEOUT if slowed else _TIMEOUT)


async def _sleep_until(moment: float) -> None:
    remaining = moment - time.monotonic()
    if remaining > 0:
        await asyncio.sleep(remaining)
