"""The Agent class: state, listeners, queues, one run at a time, failure normalization."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from pi_agent import (
    Agent,
    AgentEvent,
    AgentLoopTurnUpdate,
    AgentMessage,
    AgentToolResult,
    TurnContext,
    set_default_stream_fn,
)
from pi_ai import (
    AbortSignal,
    AssistantMessage,
    Context,
    ImageContent,
    Message,
    Model,
    SimpleStreamOptions,
    TextContent,
    ToolResultMessage,
    UserMessage,
)

from ._support import (
    CITY_SCHEMA,
    Recorder,
    ScriptTool,
    faux_provider,
    reply,
    text_of,
    text_tool,
    tool_calls,
    user,
)


def make_agent(faux: Any, **kwargs: Any) -> Agent:
    return Agent(model=faux.get_model(), stream_fn=faux.stream, **kwargs)


async def test_defaults_and_copied_initial_lists() -> None:
    tools = [text_tool("t")]
    messages: list[AgentMessage] = [user("hi")]
    agent = Agent(stream_fn=lambda *a: None, tools=tools, messages=messages)  # type: ignore[arg-type,return-value]
    state = agent.state
    assert (state.system_prompt, state.thinking_level, state.is_streaming) == ("", "off", False)
    assert state.model.id == "unknown" and state.model.api == "unknown"
    assert state.streaming_message is None and state.error_message is None
    assert state.pending_tool_calls == frozenset()
    tools.append(text_tool("u"))
    messages.clear()
    assert len(state.tools) == 1 and len(state.messages) == 1
    replacement = [user("a"), user("b")]
    state.messages = replacement
    replacement.pop()
    assert len(state.messages) == 2
    assert agent.steering_mode == "one-at-a-time" and agent.follow_up_mode == "one-at-a-time"
    assert agent.signal is None
    agent.abort()  # idle: nothing happens
    await agent.wait_for_idle()


def test_without_any_stream_function_construction_fails() -> None:
    set_default_stream_fn(None)
    with pytest.raises(RuntimeError, match="No default stream function configured"):
        Agent()


async def test_prompt_runs_and_state_follows_the_events() -> None:
    async with faux_provider(reply("Hello!")) as faux:
        agent = make_agent(faux)
        snapshots: list[tuple[str, int, bool]] = []

        def listener(event: AgentEvent, signal: AbortSignal) -> None:
            snapshots.append((event.type, len(agent.state.messages), agent.state.is_streaming))

        agent.subscribe(listener)
        agent.subscribe(listener)  # subscribing twice has no effect
        await agent.prompt("Hi", [ImageContent(data="aGk=", mime_type="image/png")])
    assert snapshots[3] == ("message_end", 1, True)  # state is updated before listeners run
    assert snapshots[-1] == ("agent_end", 2, True)
    assert len(snapshots) == 11
    first = agent.state.messages[0]
    assert isinstance(first, UserMessage) and isinstance(first.content, list)
    assert first.content[1] == ImageContent(data="aGk=", mime_type="image/png")
    assert agent.state.is_streaming is False and agent.state.streaming_message is None


async def test_unsubscribe_stops_delivery() -> None:
    async with faux_provider(reply("one"), reply("two")) as faux:
        agent = make_agent(faux)
        recorder = Recorder()
        unsubscribe = agent.subscribe(recorder)
        await agent.prompt("a")
        count = len(recorder.events)
        unsubscribe()
        await agent.prompt("b")
    assert count > 0 and len(recorder.events) == count


async def test_second_prompt_while_running_is_rejected_and_the_first_completes() -> None:
    async with faux_provider(reply("first")) as faux:
        agent = make_agent(faux)
        gate = asyncio.Event()

        async def slow(event: AgentEvent, signal: AbortSignal) -> None:
            if event.type == "agent_start":
                await gate.wait()

        agent.subscribe(slow)
        first = asyncio.create_task(agent.prompt("a"))
        await asyncio.sleep(0)
        with pytest.raises(RuntimeError, match="Agent is already processing a prompt"):
            await agent.prompt("b")
        with pytest.raises(RuntimeError, match=r"Agent is already processing\. Wait for completion before continuing\."):
            await agent.continue_()
        with pytest.raises(RuntimeError, match="before resetting"):
            agent.reset()
        gate.set()
        await first
    assert [text_of(m) for m in agent.state.messages] == ["a", "first"]


async def test_continue_preconditions() -> None:
    async with faux_provider() as faux:
        agent = make_agent(faux)
        with pytest.raises(ValueError, match="No messages to continue from"):
            await agent.continue_()
        agent.state.messages = [user("hi"), reply("hello")]
        with pytest.raises(ValueError, match="Cannot continue from message role: assistant"):
            await agent.continue_()


async def test_continue_from_assistant_tail_runs_steering_one_at_a_time() -> None:
    calls: list[int] = []
    async with faux_provider(reply("R1"), reply("R2")) as faux:
        def stream_fn(model: Model, context: Context, options: SimpleStreamOptions) -> Any:
            calls.append(len(context.messages))
            return faux.stream(model, context, options)

        agent = Agent(model=faux.get_model(), stream_fn=stream_fn, messages=[user("hi"), reply("hello")])
        agent.steer(user("S1"))
        agent.steer(user("S2"))
        await agent.continue_()
    assert [text_of(m) for m in agent.state.messages] == ["hi", "hello", "S1", "R1", "S2", "R2"]
    assert calls == [3, 5]


async def test_continue_from_a_tool_result_tail() -> None:
    result = ToolResultMessage(tool_call_id="c1", tool_name="bash", content=[TextContent(text="12 f")], is_error=False,
                               timestamp=1)
    async with faux_provider(reply("The file has 12 lines.")) as faux:
        agent = make_agent(faux, messages=[user("count"), tool_calls(("c1", "bash", {})), result])
        recorder = Recorder()
        agent.subscribe(recorder)
        await agent.continue_()
    assert recorder.kinds[:3] == ["agent_start", "turn_start", "message_start(assistant)"]
    assert [m.role for m in recorder.of_type("agent_end")[0].messages] == ["assistant"]
    assert text_of(agent.state.messages[-1]) == "The file has 12 lines."


async def test_reset_clears_transcript_run_state_and_queues_but_keeps_configuration() -> None:
    async with faux_provider(reply("x")) as faux:
        agent = make_agent(faux, system_prompt="sys", thinking_level="low", tools=[text_tool("t")])
        await agent.prompt("hi")
        agent.steer(user("s"))
        agent.follow_up(user("f"))
        assert agent.has_queued_messages()
        agent.state.error_message = "old"
        agent.reset()
    state = agent.state
    assert state.messages == [] and state.error_message is None and not agent.has_queued_messages()
    assert (state.system_prompt, state.thinking_level, len(state.tools)) == ("sys", "low", 1)


async def test_a_throwing_listener_ends_the_run_with_an_error_message_and_prompt_returns() -> None:
    async with faux_provider(tool_calls(("c1", "t", {}), text="Running."), reply("never")) as faux:
        tool = text_tool("t")
        agent = make_agent(faux, tools=[tool])
        recorder = Recorder()
        agent.subscribe(recorder)

        def explode(event: AgentEvent, signal: AbortSignal) -> None:
            if event.type == "tool_execution_start":
                raise RuntimeError("UI crashed")

        agent.subscribe(explode)
        await agent.prompt("go")
    assert tool.calls == []
    roles = [(m.role, getattr(m, "stop_reason", None)) for m in agent.state.messages]
    assert roles == [("user", None), ("assistant", "toolUse"), ("assistant", "error")]
    failure = agent.state.messages[-1]
    assert isinstance(failure, AssistantMessage) and failure.content == [TextContent(text="")]
    assert failure.error_message == "UI crashed" and failure.api == faux.get_model().api
    assert agent.state.error_message == "UI crashed"
    assert recorder.kinds[-4:] == ["message_start(assistant)", "message_end(assistant)", "turn_end(assistant)", "agent_end"]
    assert recorder.of_type("agent_end")[-1].messages == [failure]
    assert agent.state.is_streaming is False and agent.state.pending_tool_calls == frozenset()


async def test_failure_while_reporting_a_failure_propagates_and_still_settles() -> None:
    async with faux_provider(reply("x")) as faux:
        agent = make_agent(faux)

        def always(event: AgentEvent, signal: AbortSignal) -> None:
            if event.type in ("turn_start", "message_start"):
                raise RuntimeError(f"broken at {event.type}")

        agent.subscribe(always)
        with pytest.raises(RuntimeError, match="broken at message_start"):
            await agent.prompt("x")
    assert agent.state.is_streaming is False
    await agent.wait_for_idle()


async def test_convert_failure_after_abort_is_reported_as_aborted() -> None:
    async with faux_provider(reply("x")) as faux:
        agent = make_agent(faux)

        def convert(messages: list[AgentMessage]) -> list[Message]:
            agent.abort()
            raise RuntimeError("convert failed")

        agent.convert_to_llm = convert
        await agent.prompt("x")
    last = agent.state.messages[-1]
    assert isinstance(last, AssistantMessage)
    assert (last.stop_reason, last.error_message) == ("aborted", "convert failed")


async def test_async_agent_end_listener_runs_while_still_streaming() -> None:
    async with faux_provider(reply("x")) as faux:
        agent = make_agent(faux)
        seen: list[tuple[bool, bool]] = []

        async def at_end(event: AgentEvent, signal: AbortSignal) -> None:
            if event.type == "agent_end":
                await asyncio.sleep(0.05)
                seen.append((agent.state.is_streaming, signal.aborted))

        agent.subscribe(at_end)
        task = asyncio.create_task(agent.prompt("x"))
        await asyncio.sleep(0.01)
        await agent.wait_for_idle()
        assert seen == [(True, False)]
        await task
    assert agent.state.is_streaming is False


async def test_listeners_are_awaited_in_subscription_order() -> None:
    async with faux_provider(reply("x")) as faux:
        agent = make_agent(faux)
        order: list[str] = []

        async def slow(event: AgentEvent, signal: AbortSignal) -> None:
            if event.type == "agent_start":
                await asyncio.sleep(0.02)
                order.append("slow")

        def fast(event: AgentEvent, signal: AbortSignal) -> None:
            if event.type == "agent_start":
                order.append("fast")

        agent.subscribe(slow)
        agent.subscribe(fast)
        await agent.prompt("x")
    assert order == ["slow", "fast"]


async def test_pending_tool_calls_and_streaming_message_are_tracked() -> None:
    tool = ScriptTool("get_weather", _sleepy, parameters=CITY_SCHEMA)
    async with faux_provider(tool_calls(("c1", "get_weather", {"city": "a"}), ("c2", "get_weather", {"city": "b"})),
                             reply("done"), token_size=(1, 1)) as faux:
        agent = make_agent(faux, tools=[tool])
        pending: list[frozenset[str]] = []
        streaming: list[str | None] = []

        def listener(event: AgentEvent, signal: AbortSignal) -> None:
            pending.append(agent.state.pending_tool_calls)
            message = agent.state.streaming_message
            streaming.append(None if message is None else message.role)

        agent.subscribe(listener)
        await agent.prompt("x")
    assert frozenset({"c1", "c2"}) in pending
    assert pending[-1] == frozenset()
    assert "assistant" in streaming and streaming[-1] is None


async def _sleepy(call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> str:
    await asyncio.sleep(0.01)
    return "ok"


async def test_abort_during_streaming_keeps_the_queues() -> None:
    async with faux_provider(reply("a long answer that streams slowly " * 4), token_size=(1, 1),
                             tokens_per_second=400) as faux:
        agent = make_agent(faux)
        agent.follow_up(user("later"))

        def listener(event: AgentEvent, signal: AbortSignal) -> None:
            if event.type == "message_update" and event.assistant_message_event.type == "text_delta":
                agent.abort()

        agent.subscribe(listener)
        await agent.prompt("x")
    last = agent.state.messages[-1]
    assert isinstance(last, AssistantMessage) and last.stop_reason == "aborted"
    assert agent.state.error_message == "Request was aborted"
    assert text_of(last).startswith("a lo")
    assert agent.has_queued_messages()


async def test_abort_while_tools_wait_for_the_signal() -> None:
    async def waits(call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> str:
        on_update(AgentToolResult(content=[TextContent(text="running")]))
        await signal.wait()
        raise RuntimeError("Operation aborted")

    async with faux_provider(tool_calls(("c1", "job", {}), ("c2", "job", {})), reply("never")) as faux:
        agent = make_agent(faux, tools=[ScriptTool("job", waits)])
        agent.subscribe(lambda event, signal: agent.abort() if event.type == "tool_execution_update" else None)
        await agent.prompt("x")
    roles = [(m.role, getattr(m, "stop_reason", None), getattr(m, "is_error", None)) for m in agent.state.messages]
    assert roles == [("user", None, None), ("assistant", "toolUse", None), ("toolResult", None, True),
                     ("toolResult", None, True), ("assistant", "aborted", None)]


async def test_run_settings_reach_the_stream_function() -> None:
    seen: list[SimpleStreamOptions] = []
    async with faux_provider(reply("x")) as faux:
        def stream_fn(model: Model, context: Context, options: SimpleStreamOptions) -> Any:
            seen.append(options)
            return faux.stream(model, context, options)

        agent = Agent(model=faux.get_model(), stream_fn=stream_fn, thinking_level="high", session_id="sess",
                      transport="websocket", max_retry_delay_ms=5)
        await agent.prompt("x")
        agent.state.thinking_level = "off"
        agent.session_id = "next"
        faux.set_responses([reply("y")])
        await agent.prompt("y")
    assert (seen[0].reasoning, seen[0].session_id, seen[0].extra, seen[0].max_retry_delay_ms) == (
        "high", "sess", {"transport": "websocket"}, 5)
    assert (seen[1].reasoning, seen[1].session_id) == (None, "next")


async def test_turn_hooks_receive_the_run_signal() -> None:
    signals: list[Any] = []
    async with faux_provider(tool_calls(("c1", "t", {})), reply("x")) as faux:
        def stop(turn: TurnContext, signal: AbortSignal | None) -> bool:
            signals.append(signal)
            return False

        def prepare_plain(signal: AbortSignal | None) -> AgentLoopTurnUpdate | None:
            raise AssertionError("the with-context variant takes precedence")

        async def prepare(turn: TurnContext, signal: AbortSignal | None) -> AgentLoopTurnUpdate | None:
            signals.append(signal)
            return None

        agent = make_agent(faux, tools=[text_tool("t")], should_stop_after_turn=stop, prepare_next_turn=prepare_plain,
                           prepare_next_turn_with_context=prepare)
        current: list[Any] = []
        agent.subscribe(lambda event, signal: current.append(signal))
        await agent.prompt("x")
    assert len(signals) == 3 and all(s is current[0] for s in signals)


async def test_queue_modes_can_change_between_runs() -> None:
    async with faux_provider(reply("R1"), reply("R2")) as faux:
        agent = make_agent(faux)
        agent.steering_mode = "all"
        agent.steer(user("S1"))
        agent.steer(user("S2"))
        await agent.prompt("P")
    assert [text_of(m) for m in agent.state.messages] == ["P", "S1", "S2", "R1"]
    assert agent.steering_mode == "all"


async def test_prompt_accepts_one_message_or_a_list() -> None:
    async with faux_provider(reply("one"), reply("two")) as faux:
        agent = make_agent(faux)
        await agent.prompt(user("single"))
        await agent.prompt([user("a"), user("b")])
    assert [text_of(m) for m in agent.state.messages] == ["single", "one", "a", "b", "two"]


async def test_a_listener_failure_in_a_parallel_batch_cancels_the_tools_still_running() -> None:
    cancelled = asyncio.Event()

    async def slow(call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> str:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    async with faux_provider(tool_calls(("slow", "slow", {}), ("fast", "fast", {})), reply("never")) as faux:
        agent = make_agent(faux, tools=[ScriptTool("slow", slow), text_tool("fast")])

        def explode(event: AgentEvent, signal: AbortSignal) -> None:
            if event.type == "tool_execution_end" and event.tool_call_id == "fast":
                raise RuntimeError("listener broke")

        agent.subscribe(explode)
        await asyncio.wait_for(agent.prompt("go"), 5)
    assert cancelled.is_set()
    last = agent.state.messages[-1]
    assert isinstance(last, AssistantMessage) and last.error_message == "listener broke"
