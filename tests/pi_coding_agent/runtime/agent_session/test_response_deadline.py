"""``responseTimeoutMs`` reaches every model call of a session (the assembly's stream function),
and a call that never ends fails as the deadline's error, retried under the ``retry`` settings."""

from __future__ import annotations

import asyncio
from typing import Any

from pi_ai import AssistantMessage, Context, StreamOptions
from pi_ai._event_stream import response_timeout_message
from pi_ai.faux import FauxProvider, FauxState, faux_assistant_message
from tests.pi_coding_agent.runtime.agent_session._support import Env, make_session, write_settings


def _hanging(seen: list[int | None]) -> Any:
    """A faux answer that notes the call's deadline, then never comes."""

    async def answer(context: Context, options: StreamOptions | None, state: FauxState, model: Any) -> AssistantMessage:
        assert options is not None
        seen.append(options.response_timeout_ms)
        await asyncio.Event().wait()
        raise AssertionError("unreachable: the deadline cancels this call")

    return answer


def _noting(seen: list[int | None], text: str) -> Any:
    def answer(context: Context, options: StreamOptions | None, state: FauxState, model: Any) -> AssistantMessage:
        assert options is not None
        seen.append(options.response_timeout_ms)
        return faux_assistant_message(text)

    return answer


async def test_the_default_deadline_reaches_the_model_call(env: Env, faux: FauxProvider) -> None:
    seen: list[int | None] = []
    faux.set_responses([_noting(seen, "hi")])
    session = make_session(env, write_settings(env, retry={"enabled": False}))
    await session.prompt("go")
    assert seen == [3_600_000]


async def test_a_call_that_never_ends_fails_at_the_deadline_and_is_retried(env: Env, faux: FauxProvider) -> None:
    seen: list[int | None] = []
    faux.set_responses([_hanging(seen), _noting(seen, "second try")])
    settings = write_settings(env, responseTimeoutMs=200, retry={"enabled": True, "maxRetries": 1, "baseDelayMs": 1})
    session = make_session(env, settings)
    await asyncio.wait_for(session.prompt("go"), 30)
    assert seen == [200, 200]
    final = session.messages[-1]
    assert isinstance(final, AssistantMessage) and final.stop_reason == "stop"


async def test_without_retries_the_answer_is_the_deadlines_error(env: Env, faux: FauxProvider) -> None:
    seen: list[int | None] = []
    faux.set_responses([_hanging(seen)])
    session = make_session(env, write_settings(env, responseTimeoutMs=200, retry={"enabled": False}))
    await asyncio.wait_for(session.prompt("go"), 30)
    final = session.messages[-1]
    assert isinstance(final, AssistantMessage)
    assert (final.stop_reason, final.error_message) == ("error", response_timeout_message(200))
