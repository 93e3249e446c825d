"""Prompt-cache misses counted along a session's entries as Pi 1.6 counts them (what its
cache-miss notices report): the repeated part of the prompt less the cache reads, with the
model switch and idle gap that explain it, reset by a compaction."""

from __future__ import annotations

from pi_ai import AssistantMessage, Usage, UsageCost
from pi_coding_agent.core.session import (
    CACHE_TTL_MS,
    CompactionEntry,
    SessionMessageEntry,
    cache_miss_of,
    cache_misses,
)

MINUTE = 60_000


def answer(
    at: int, *, input: int, cache_read: int = 0, model: str = "m1", cost: float = 0.0
) -> SessionMessageEntry:
    usage = Usage(input=input, output=5, cache_read=cache_read, cache_write=0, total_tokens=input + cache_read + 5,
                  cost=UsageCost(input=cost, output=0, cache_read=0, cache_write=0, total=cost))  # fmt: skip
    message = AssistantMessage(content=[], api="anthropic-messages", provider="p", model=model, usage=usage,
                               stop_reason="stop", timestamp=at)  # fmt: skip
    return SessionMessageEntry(id=str(at), parent_id=None, timestamp="", message=message)


def price(_provider: str, _model: str) -> float:
    return 0.3  # dollars per million cache reads


def test_a_prompt_billed_again_is_a_miss_with_its_cost() -> None:
    first = answer(0, input=10, cache_read=30_000)
    second = answer(MINUTE, input=40_000, cost=0.12)  # $3 per million input tokens
    [(message, miss)] = cache_misses([first, second], price)
    assert message is second.message
    assert miss.missed_tokens == 30_010 and not miss.model_changed and miss.idle_ms == MINUTE
    assert abs(miss.missed_cost - 30_010 * (0.12 / 40_000 - 0.3 / 1_000_000)) < 1e-12


def test_what_is_not_counted() -> None:
    cached = answer(0, input=10, cache_read=30_000)
    assert cache_misses([answer(0, input=40_000), answer(1, input=50_000)], price) == []  # no cache ever
    assert cache_misses([cached, answer(1, input=1_000, cache_read=30_000)], price) == []  # a hit
    assert cache_misses([cached, answer(1, input=1_000, cache_read=29_000)], price) == []  # within 1,024
    compaction = CompactionEntry(id="c", parent_id=None, timestamp="", summary="s", tokens_before=1)
    assert cache_misses([cached, compaction, answer(1, input=40_000)], price) == []


def test_a_model_switch_and_an_idle_gap_are_told() -> None:
    cached = answer(0, input=10, cache_read=30_000)
    switched = answer(1, input=40_000, model="m2").message
    idle = answer(CACHE_TTL_MS + MINUTE, input=40_000).message
    assert (miss := cache_miss_of([cached], switched, price)) is not None and miss.model_changed
    assert (
        miss := cache_miss_of([cached], idle, price)
    ) is not None and miss.idle_ms == CACHE_TTL_MS + MINUTE
