"""Anthropic message threads in ``pi_ai`` against a scripted server on 127.0.0.1: what a
``continue`` builds on is checked before it is sent (a changed system prompt or an earlier
message opens a new thread), a reply can be continued once, and releasing the session's
resources forgets its thread. (The wire itself is compared with Pi 1.6's CLI in
``tests/pi_coding_agent/e2e/test_pi16_anthropic_threads.py``.)"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pi_ai import (
    AssistantMessage,
    Context,
    Model,
    SimpleStreamOptions,
    UserMessage,
    cleanup_session_resources,
    stream_simple,
)
from tests.support.scripted_provider import ScriptedProvider

SESSION = "session-threads"


@pytest.fixture
def provider() -> Iterator[ScriptedProvider]:
    with ScriptedProvider([{"text": f"Answer {n}."} for n in range(8)], sequential=True) as server:
        yield server
    cleanup_session_resources(SESSION)


def _model(base_url: str, threads: bool | None = True) -> Model:
    compat = {} if threads is None else {"supportsMessageThreads": threads}
    return Model(id="claude-t", name="t", api="anthropic-messages", provider="p", base_url=base_url, compat=compat)


async def _ask(model: Model, context: Context) -> AssistantMessage:
    options = SimpleStreamOptions(api_key="k", session_id=SESSION)
    reply = await stream_simple(model, context, options).result()
    assert reply.stop_reason == "stop", reply.error_message
    context.messages.append(reply)
    return reply


def _threads(provider: ScriptedProvider) -> list[Any]:
    return [request["body"].get("thread") for request in provider.requests]


async def test_a_changed_system_prompt_or_history_opens_a_new_thread(provider: ScriptedProvider) -> None:
    model = _model(provider.base_url)
    context = Context(system_prompt="Be brief.", messages=[UserMessage(content="one", timestamp=1)])
    await _ask(model, context)
    context.messages.append(UserMessage(content="two", timestamp=2))
    await _ask(model, context)
    context.system_prompt = "Be verbose."
    context.messages.append(UserMessage(content="three", timestamp=3))
    await _ask(model, context)
    context.messages[0] = UserMessage(content="one, edited", timestamp=1)
    context.messages.append(UserMessage(content="four", timestamp=4))
    await _ask(model, context)
    assert [thread["type"] for thread in _threads(provider)] == ["create", "continue", "create", "create"]


async def test_releasing_the_session_forgets_its_thread(provider: ScriptedProvider) -> None:
    model = _model(provider.base_url)
    context = Context(system_prompt="Be brief.", messages=[UserMessage(content="one", timestamp=1)])
    await _ask(model, context)
    cleanup_session_resources(SESSION)
    context.messages.append(UserMessage(content="two", timestamp=2))
    await _ask(model, context)
    assert [thread["type"] for thread in _threads(provider)] == ["create", "create"]


async def test_threads_are_off_away_from_anthropic_unless_the_model_says_so(provider: ScriptedProvider) -> None:
    for threads in (None, False):
        context = Context(system_prompt="Be brief.", messages=[UserMessage(content="one", timestamp=1)])
        await _ask(_model(provider.base_url, threads), context)
    assert _threads(provider) == [None, None]
    assert all("message-threads" not in r["headers"].get("anthropic-beta", "") for r in provider.requests)
