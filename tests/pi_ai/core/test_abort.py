"""The abort signal every layer shares."""

from __future__ import annotations

import asyncio

import pytest

from pi_ai import AbortController, AbortError, AbortSignal


def test_listeners_fire_once_in_order_and_can_be_removed() -> None:
    controller = AbortController()
    calls: list[str] = []
    controller.signal.add_listener(lambda: calls.append("a"))
    remove = controller.signal.add_listener(lambda: calls.append("b"))
    controller.signal.add_listener(lambda: calls.append("c"))
    remove()
    controller.abort("stop")
    controller.abort("again")
    assert calls == ["a", "c"]
    assert controller.signal.aborted and controller.signal.reason == "stop"
    late: list[str] = []
    controller.signal.add_listener(lambda: late.append("late"))
    assert late == ["late"]


async def test_wait_returns_when_aborted() -> None:
    controller = AbortController()
    waiter = asyncio.ensure_future(controller.signal.wait())
    await asyncio.sleep(0)
    assert not waiter.done()
    controller.abort()
    await asyncio.wait_for(waiter, 1)


def test_raise_if_aborted() -> None:
    controller = AbortController()
    controller.signal.raise_if_aborted()
    controller.abort()
    with pytest.raises(AbortError):
        controller.signal.raise_if_aborted()


def test_any_combines_signals() -> None:
    first, second = AbortController(), AbortController()
    combined = AbortSignal.any(first.signal, None, second.signal)
    assert not combined.aborted
    second.abort("second")
    assert combined.aborted and combined.reason == "second"
