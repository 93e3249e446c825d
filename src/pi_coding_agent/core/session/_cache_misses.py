"""Prompt-cache misses along a session, as Pi 1.6 counts them (its ``showCacheMissNotices``).

A turn's prompt repeats the previous turn's prompt, so that part should have been read from
the provider's cache; what was billed at the full rate instead is the miss: the shorter of
the two prompts less this turn's cache reads. Counted only after a turn with a prompt (the
first turn, and the turn after a compaction or branch summary, which legitimately change
the context, count nothing), only where the provider ever reported cache activity (a turn
with no cache reads or writes counts there, and nowhere else), and only above 1,024 tokens
(cache breakpoint granularity). A model switch is counted: it re-bills the whole prompt.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from pi_ai import AssistantMessage
from pi_coding_agent.core.session._entries import BranchSummaryEntry, CompactionEntry, SessionMessageEntry

NOISE_FLOOR_TOKENS = 1024
CACHE_TTL_MS = 5 * 60 * 1000
"""Anthropic's default cache lifetime: an idle gap longer than this is the likely cause."""

CacheReadPrice = Callable[[str, str], float]
"""Dollars per million cache-read tokens of ``(provider, model)`` (0 when unknown)."""


@dataclass(frozen=True)
class CacheMiss:
    missed_tokens: int
    missed_cost: float
    idle_ms: int
    model_changed: bool


@dataclass(frozen=True)
class _Previous:
    prompt_tokens: int
    model_key: str
    timestamp: int
    reported_cache: bool


def _prompt_tokens(message: AssistantMessage) -> int:
    usage = message.usage
    return int(usage.input + usage.cache_read + usage.cache_write)


def _miss(previous: _Previous | None, message: AssistantMessage, price: CacheReadPrice) -> CacheMiss | None:
    usage = message.usage
    prompt = _prompt_tokens(message)
    cached = usage.cache_read + usage.cache_write
    if previous is None or prompt <= 0 or (cached == 0 and not previous.reported_cache):
        return None
    missed = min(previous.prompt_tokens, prompt) - usage.cache_read
    if missed <= NOISE_FLOOR_TOKENS:
        return None
    # Missed tokens land in the input or cache-write buckets: their rate is this answer's own.
    paid = usage.input + usage.cache_write
    paid_rate = (usage.cost.input + usage.cost.cache_write) / paid if paid > 0 else 0.0
    if usage.cache_read > 0:
        read_rate = usage.cost.cache_read / usage.cache_read
    else:
        read_rate = price(message.provider, message.model) / 1_000_000
    return CacheMiss(
        missed_tokens=missed,
        missed_cost=missed * max(0.0, paid_rate - read_rate),
        idle_ms=max(0, message.timestamp - previous.timestamp),
        model_changed=f"{message.provider}/{message.model}" != previous.model_key,
    )


def _after(previous: _Previous | None, message: AssistantMessage) -> _Previous | None:
    prompt = _prompt_tokens(message)
    if prompt <= 0:
        return previous
    reported = (
        previous.reported_cache if previous else False
    ) or message.usage.cache_read + message.usage.cache_write > 0
    return _Previous(prompt, f"{message.provider}/{message.model}", message.timestamp, reported)


def _scan(
    entries: Iterable[object], price: CacheReadPrice
) -> tuple[_Previous | None, list[tuple[AssistantMessage, CacheMiss]]]:
    previous: _Previous | None = None
    misses: list[tuple[AssistantMessage, CacheMiss]] = []
    for entry in entries:
        if isinstance(entry, CompactionEntry | BranchSummaryEntry):
            previous = None
        elif isinstance(entry, SessionMessageEntry) and isinstance(entry.message, AssistantMessage):
            miss = _miss(previous, entry.message, price)
            if miss is not None:
                misses.append((entry.message, miss))
            previous = _after(previous, entry.message)
    return previous, misses


def cache_misses(
    entries: Iterable[object], price: CacheReadPrice
) -> list[tuple[AssistantMessage, CacheMiss]]:
    """Every counted miss of the session's entries, with the answer that paid for it."""
    return _scan(entries, price)[1]


def cache_miss_of(
    entries: Iterable[object], message: AssistantMessage, price: CacheReadPrice
) -> CacheMiss | None:
    """The miss of an answer that just ended (``entries`` do not hold it yet)."""
    return _miss(_scan(entries, price)[0], message, price)
