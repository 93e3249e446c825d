"""Per-provider limits on model requests, shared by every task of a batch.

``concurrency`` caps requests in flight at once; ``requests_per_minute`` spaces request starts
evenly (``60 / rpm`` seconds apart), which never bursts past a provider's per-second limits
either. A request that still gets a rate-limit answer is retried by the task's session with
Pi's rules (the ``retry`` settings: ``maxRetries``, ``baseDelayMs`` doubling), as in ``pi -p``.

The limiter wraps the agent's model call (``Agent.stream_fn``): a request waits for its slot
(an abort ends the wait), and the slot is freed when the response settles.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from pi_agent import StreamFn
from pi_ai import AbortSignal, AssistantMessageEventStream, Context, Model, SimpleStreamOptions


@dataclass(frozen=True)
class ProviderLimit:
    concurrency: int | None = None
    requests_per_minute: float | None = None


class Limiter(Protocol):
    def limits(self, provider: str) -> bool:
        """Whether requests to ``provider`` are limited at all."""
        ...

    async def acquire(self, provider: str) -> None: ...

    async def release(self, provider: str) -> None: ...


class LocalLimiter:
    """Limits for the tasks of one process (the local runner, or the Ray limiter actor)."""

    def __init__(self, limits: Mapping[str, ProviderLimit]) -> None:
        self._limits = dict(limits)
        self._slots = {
            provider: asyncio.Semaphore(limit.concurrency)
            for provider, limit in self._limits.items()
            if limit.concurrency
        }
        self._next_start: dict[str, float] = {}

    def limits(self, provider: str) -> bool:
        return provider in self._limits

    async def acquire(self, provider: str) -> None:
        limit = self._limits.get(provider)
        if limit is None:
            return
        slots = self._slots.get(provider)
        if slots is not None:
            await slots.acquire()
        if limit.requests_per_minute:
            now = time.monotonic()
            start = max(now, self._next_start.get(provider, now))
            self._next_start[provider] = start + 60.0 / limit.requests_per_minute
            if start > now:
                try:
                    await asyncio.sleep(start - now)
                except BaseException:
                    if slots is not None:
                        slots.release()
                    raise

    async def release(self, provider: str) -> None:
        slots = self._slots.get(provider)
        if slots is not None:
            slots.release()


def limited_stream_fn(inner: StreamFn, limiter: Limiter) -> StreamFn:
    """``inner`` with every request to a limited provider waiting for its turn first."""

    async def stream(
        model: Model, context: Context, options: SimpleStreamOptions
    ) -> AssistantMessageEventStream:
        if not limiter.limits(model.provider):
            return await _resolve(inner(model, context, options))
        if not await _wait_for_slot(limiter, model.provider, options.signal):
            return _aborted_stream(model, options.signal)
        try:
            source = await _resolve(inner(model, context, options))
        except BaseException:
            await limiter.release(model.provider)
            raise
        task = asyncio.get_running_loop().create_task(_release_when_settled(source, limiter, model.provider))
        _pending.add(task)
        task.add_done_callback(_pending.discard)
        return source

    return stream


_pending: set[asyncio.Task[None]] = set()
"""Release tasks in flight (kept referenced so they are not collected mid-way)."""


async def _resolve(value: object) -> AssistantMessageEventStream:
    if isinstance(value, AssistantMessageEventStream):
        return value
    result = await value  # type: ignore[misc]
    assert isinstance(result, AssistantMessageEventStream)
    return result


async def _wait_for_slot(limiter: Limiter, provider: str, signal: AbortSignal | None) -> bool:
    """True once the slot is held; False when ``signal`` fired first (no slot held then)."""
    if signal is None:
        await limiter.acquire(provider)
        return True
    acquire = asyncio.ensure_future(limiter.acquire(provider))
    aborted = asyncio.ensure_future(signal.wait())
    await asyncio.wait({acquire, aborted}, return_when=asyncio.FIRST_COMPLETED)
    aborted.cancel()
    if acquire.done() and not acquire.cancelled() and acquire.exception() is None:
        if signal.aborted:
            await limiter.release(provider)
            return False
        return True
    acquire.cancel()
    try:
        await acquire
    except asyncio.CancelledError:
        return False
    await limiter.release(provider)  # it completed while being cancelled
    return False


async def _release_when_settled(source: AssistantMessageEventStream, limiter: Limiter, provider: str) -> None:
    try:
        await source.result()
    finally:
        await limiter.release(provider)


def _aborted_stream(model: Model, signal: AbortSignal | None) -> AssistantMessageEventStream:
    stream = AssistantMessageEventStream()
    stream.fail(model, "Request was aborted", signal, aborted=True)
    return stream


_LIMIT = re.compile(r"^(?P<value>\d+(?:\.\d+)?)(?P<unit>/min|/s)?$")


def parse_limit(spec: str) -> tuple[str, ProviderLimit]:
    """``PROVIDER=N`` (requests at once) or ``PROVIDER=N/min`` / ``N/s`` (request rate)."""
    provider, sep, value = spec.partition("=")
    match = _LIMIT.match(value.strip())
    if not sep or not provider.strip() or match is None or float(match["value"]) <= 0:
        raise ValueError(
            f"invalid rate limit {spec!r}: expected PROVIDER=N (at once), PROVIDER=N/min or PROVIDER=N/s"
        )
    number = float(match["value"])
    if match["unit"] is None:
        if not number.is_integer():
            raise ValueError(f"invalid rate limit {spec!r}: requests at once must be a whole number")
        return provider.strip(), ProviderLimit(concurrency=int(number))
    per_minute = number * 60 if match["unit"] == "/s" else number
    return provider.strip(), ProviderLimit(requests_per_minute=per_minute)


def merge_limits(specs: list[str]) -> dict[str, ProviderLimit]:
    """Several ``--rate-limit`` options; a provider may get both kinds."""
    merged: dict[str, ProviderLimit] = {}
    for spec in specs:
        provider, limit = parse_limit(spec)
        current = merged.get(provider, ProviderLimit())
        merged[provider] = ProviderLimit(
            limit.concurrency or current.concurrency,
            limit.requests_per_minute or current.requests_per_minute,
        )
    return merged
