"""AgentSession with a scripted in-process model: persistence, retries, abort, user bash ordering."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from pi_ai import AssistantMessage, Context, StreamOptions, ToolResultMessage
from pi_ai.faux import (
    FauxProvider,
    FauxState,
    faux_assistant_message,
    faux_tool_call,
    register_faux_provider,
)
from pi_coding_agent.core.bash import BashResult
from pi_coding_agent.core.session import SessionManager
from pi_coding_agent.runtime.agent_session import (
    SessionError,
)
from tests.pi_coding_agent.runtime.agent_session._support import (
    API,
    Env,
    file_lines,
    make_session,
    models_json,
    record_events,
    write_settings,
)


async def test_prompt_persists_every_settled_message(env: Env, faux: FauxProvider) -> None:
    faux.set_responses([faux_assistant_message("Hello there")])
    session = make_session(env, write_settings(env))
    events = record_events(session)
    await session.prompt("hi")
    lines = file_lines(session)
    assert [line["type"] for line in lines] == ["session", "model_change", "thinking_level_change", *["message"] * 3]
    assert lines[1]["provider"] == "faux" and lines[1]["modelId"] == "faux-1"
    assert lines[2]["thinkingLevel"] == "off"
    assert [line["message"]["role"] for line in lines[3:]] == ["system", "user", "assistant"]
    assert lines[5]["message"]["content"] == [{"type": "text", "text": "Hello there"}]
    types = [event["type"] for event in events]
    assert types[0] == "agent_start" and types[-2:] == ["agent_end", "agent_settled"]
    assert events[-2]["willRetry"] is False
    assert not session.is_streaming


async def test_resumed_session_restores_messages_model_and_level(env: Env, faux: FauxProvider) -> None:
    faux.set_responses([faux_assistant_message("first"), faux_assistant_message("second")])
    first = make_session(env, write_settings(env))
    await first.prompt("one")
    path = first.session_manager.get_session_file()
    assert path is not None
    first.dispose()
    first.session_manager.close()
    resumed = make_session(env, write_settings(env), manager=SessionManager.open(path), model=None)
    assert resumed.model is not None and resumed.model.id == "faux-1"
    assert [m.role for m in resumed.agent.state.messages] == ["system", "user", "assistant"]
    await resumed.prompt("two")
    lines = file_lines(resumed)
    # No second model_change / thinking entry: the file already has them.
    assert [line["type"] for line in lines].count("model_change") == 1
    assert [line["type"] for line in lines].count("thinking_level_change") == 1
    assert [line["message"]["role"] for line in lines if line["type"] == "message"] == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
    ]


async def test_transient_error_is_retried_with_backoff_events(env: Env, faux: FauxProvider) -> None:
    faux.set_responses(
        [
            faux_assistant_message([], stop_reason="error", error_message="503 Service Unavailable: overloaded"),
            faux_assistant_message("recovered"),
        ]
    )
    session = make_session(env, write_settings(env, retry={"baseDelayMs": 5, "maxRetries": 2}))
    events = record_events(session)
    await session.prompt("hi")
    retry_events = [e for e in events if e["type"].startswith("auto_retry") or e["type"] == "agent_end"]
    assert retry_events[0]["type"] == "agent_end" and retry_events[0]["willRetry"] is True
    assert retry_events[1] == {
        "type": "auto_retry_start",
        "attempt": 1,
        "maxAttempts": 2,
        "delayMs": 5,
        "errorMessage": "503 Service Unavailable: overloaded",
    }
    assert retry_events[2] == {"type": "auto_retry_end", "success": True, "attempt": 1}
    assert retry_events[3]["type"] == "agent_end" and retry_events[3]["willRetry"] is False
    assert events[-1] == {"type": "agent_settled", "aborted": False}
    assert [event["type"] for event in events].count("agent_settled") == 1
    # The failed answer stays in the file but not in the context the model sees next.
    roles = [(line["message"]["role"], line["message"].get("stopReason")) for line in file_lines(session)
             if line["type"] == "message"]
    assert roles == [("system", None), ("user", None), ("assistant", "error"), ("assistant", "stop")]
    assert [m.role for m in session.agent.state.messages] == ["system", "user", "assistant"]


async def test_backoff_is_capped_by_max_agent_delay(env: Env, faux: FauxProvider) -> None:
    """Pi 1.6's ``retry.maxAgentDelayMs``: the announced (and waited) backoff never exceeds it."""
    failure = faux_assistant_message([], stop_reason="error", error_message="503 Service Unavailable: overloaded")
    faux.set_responses([failure, failure, faux_assistant_message("recovered")])
    settings = write_settings(env, retry={"baseDelayMs": 4, "maxRetries": 3, "maxAgentDelayMs": 6})
    session = make_session(env, settings)
    events = record_events(session)
    await session.prompt("hi")
    assert [e["delayMs"] for e in events if e["type"] == "auto_retry_start"] == [4, 6]
    assert session.agent.state.messages[-1].role == "assistant"


async def test_retries_exhausted_and_non_retryable_errors(env: Env, faux: FauxProvider) -> None:
    failure = faux_assistant_message([], stop_reason="error", error_message="429 rate limit exceeded")
    faux.set_responses([failure, failure, failure])
    session = make_session(env, write_settings(env, retry={"baseDelayMs": 1, "maxRetries": 2}))
    events = record_events(session)
    await session.prompt("hi")
    starts = [e for e in events if e["type"] == "auto_retry_start"]
    assert [(e["attempt"], e["delayMs"]) for e in starts] == [(1, 1), (2, 2)]
    assert [e for e in events if e["type"] == "auto_retry_end"] == [
        {"type": "auto_retry_end", "success": False, "attempt": 2, "finalError": "429 rate limit exceeded"}
    ]
    assert faux.pending_response_count == 0

    faux.set_responses([faux_assistant_message([], stop_reason="error", error_message="insufficient_quota (429)")])
    events.clear()
    await session.prompt("again")
    assert not [e for e in events if e["type"].startswith("auto_retry")]
    disabled = make_session(env, write_settings(env, retry={"enabled": False}))
    faux.set_responses([failure])
    disabled_events = record_events(disabled)
    await disabled.prompt("x")
    assert not [e for e in disabled_events if e["type"].startswith("auto_retry")]


async def test_abort_during_retry_backoff_cancels_the_retry(env: Env, faux: FauxProvider) -> None:
    faux.set_responses([faux_assistant_message([], stop_reason="error", error_message="connection error")])
    session = make_session(env, write_settings(env, retry={"baseDelayMs": 30_000}))
    events = record_events(session)
    retrying = asyncio.Event()
    session.subscribe(lambda event: retrying.set() if event.type == "auto_retry_start" else None)
    task = asyncio.create_task(session.prompt("hi"))
    await asyncio.wait_for(retrying.wait(), 5)
    assert session.is_retrying
    await session.abort()
    await asyncio.wait_for(task, 5)
    assert {"type": "auto_retry_end", "success": False, "attempt": 1, "finalError": "Retry cancelled"} in events
    assert events[-1] == {"type": "agent_settled", "aborted": True}


async def test_prompt_refuses_without_model_or_credentials(env: Env, faux: FauxProvider) -> None:
    # Only a provider without a key, and no fallback to the embedded model: no model at all.
    keyless_only = models_json()
    del keyless_only["providers"]["faux"]
    (env.agent_dir / "models.json").write_text(json.dumps(keyless_only), encoding="utf-8")
    no_model = make_session(env, write_settings(env, localModelFallback=False), model=None)
    assert no_model.model is None
    with pytest.raises(SessionError, match="No model selected"):
        await no_model.prompt("hi")
    keyless = make_session(env, write_settings(env), model=("keyless", "k-1"))
    with pytest.raises(SessionError, match="No API key found for keyless"):
        await keyless.prompt("hi")
    assert faux.state.call_count == 0


async def test_thinking_level_changes_are_recorded_once(env: Env, faux: FauxProvider) -> None:
    session = make_session(env, write_settings(env))
    events = record_events(session)
    session.set_thinking_level("high")  # clamped to "off": the faux model does not reason
    assert session.thinking_level == "off" and events == []


def _BashResult(output: str, exit_code: int | None) -> BashResult:
    return BashResult(output=output, exit_code=exit_code, cancelled=False, truncated=False, full_output_path=None)


async def test_user_bash_during_a_run_waits_until_it_settles(env: Env) -> None:
    slow = register_faux_provider(api=API, provider="faux", tokens_per_second=200)
    contexts: list[Context] = []

    def remember(answer: AssistantMessage) -> Any:
        def factory(context: Context, options: StreamOptions | None, state: FauxState, model: Any) -> AssistantMessage:
            contexts.append(context)
            return answer

        return factory

    try:
        (env.work / "a.txt").write_text("alpha\n", encoding="utf-8")
        slow.set_responses(
            [
                remember(faux_assistant_message([faux_tool_call("read", {"path": "a.txt"}, id="call_1")],
                                                stop_reason="toolUse")),
                remember(faux_assistant_message("The file says alpha. " * 20)),
                remember(faux_assistant_message("ok")),
            ]
        )
        session = make_session(env, write_settings(env), tools=["read"])
        seen_bash_while_running: list[bool] = []

        def on_event(event: Any) -> None:
            if getattr(event, "type", "") == "tool_execution_start":
                session.record_bash_result("ls", _BashResult("a.txt\n", 0))
                session.record_bash_result("cat secret", _BashResult("hunter2\n", 0), exclude_from_context=True)
                seen_bash_while_running.append(session.has_pending_bash_messages)

        session.subscribe(on_event)
        await session.prompt("read a.txt")
        assert seen_bash_while_running == [True]
        assert not session.has_pending_bash_messages
        roles = [line["message"]["role"] for line in file_lines(session) if line["type"] == "message"]
        assert roles == ["system", "user", "assistant", "toolResult", "assistant", "bashExecution", "bashExecution"]
        bash_lines = [line["message"] for line in file_lines(session) if line["type"] == "message"][-2:]
        assert list(bash_lines[0]) == ["role", "command", "output", "exitCode", "cancelled", "truncated", "timestamp"]
        assert bash_lines[1]["excludeFromContext"] is True and bash_lines[1]["command"] == "cat secret"
        # The model never saw the bash runs between the tool call and its result.
        second_call = contexts[1].messages
        assert [m.role for m in second_call] == ["user", "assistant", "toolResult"]
        assert isinstance(second_call[2], ToolResultMessage)
        # Next prompt: "!ls" is in the context as a user message, "!!cat secret" is not.
        await session.prompt("next")
        texts = [
            block.text
            for message in contexts[2].messages
            if message.role == "user"
            for block in message.content  # type: ignore[union-attr]
            if hasattr(block, "text")
        ]
        assert "Ran `ls`\n```\na.txt\n\n```" in texts
        assert not any("hunter2" in text for text in texts)
        # When idle, a result is inserted at once.
        session.record_bash_result("pwd", _BashResult(str(env.work), 0))
        assert file_lines(session)[-1]["message"]["command"] == "pwd"
    finally:
        slow.unregister()


async def test_executed_user_bash_while_streaming_is_queued_then_recorded(env: Env) -> None:
    slow = register_faux_provider(api=API, provider="faux", tokens_per_second=100)
    try:
        slow.set_responses([faux_assistant_message("streaming slowly " * 10)])
        session = make_session(env, write_settings(env, shellCommandPrefix="export GREETING=hello"))
        updates: list[str] = []
        session.subscribe(lambda event: updates.append(event.delta) if event.type == "bash_execution_update" else None)
        started = asyncio.Event()
        session.subscribe(lambda event: started.set() if event.type == "message_update" else None)
        run = asyncio.create_task(session.prompt("talk"))
        await asyncio.wait_for(started.wait(), 5)
        result = await session.execute_bash("echo $GREETING; printf '\\033[31mred\\033[0m'", exclude_from_context=False)
        assert session.is_streaming and session.has_pending_bash_messages
        assert result.output == "hello\nred" and result.exit_code == 0
        await asyncio.wait_for(run, 10)
        lines = file_lines(session)
        last = lines[-1]["message"]
        assert last["role"] == "bashExecution"
        # Recorded as typed (no prefix), output cleaned of ANSI escapes.
        assert last["command"] == "echo $GREETING; printf '\\033[31mred\\033[0m'"
        assert last["output"] == "hello\nred" and last["exitCode"] == 0 and last["excludeFromContext"] is False
        assert lines[-2]["message"]["role"] == "assistant"
        assert "".join(updates) == "hello\nred"

        def cancel_on_output(delta: str) -> None:
            assert session.is_bash_running
            session.abort_bash()

        cancelled = await asyncio.wait_for(session.execute_bash("echo started; sleep 30", on_chunk=cancel_on_output), 10)
        assert not session.is_bash_running
        assert cancelled.cancelled and cancelled.exit_code is None
        record = file_lines(session)[-1]["message"]
        assert record["cancelled"] is True and "exitCode" not in record and record["output"] == "started\n"
    finally:
        slow.unregister()
