"""The low-level loop: entry points, context handling, callbacks, tool execution rules."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from pi_agent import (
    AfterToolCallContext,
    AfterToolCallResult,
    AgentContext,
    AgentEvent,
    AgentLoopConfig,
    AgentLoopTurnUpdate,
    AgentMessage,
    AgentToolResult,
    BeforeToolCallContext,
    BeforeToolCallResult,
    CustomMessage,
    TurnContext,
    agent_loop,
    agent_loop_continue,
    run_agent_loop,
    run_agent_loop_continue,
    set_default_stream_fn,
)
from pi_ai import (
    AbortController,
    Context,
    ImageContent,
    Message,
    Model,
    SimpleStreamOptions,
    TextContent,
    ToolResultMessage,
    UserMessage,
)
from pi_ai.faux import faux_assistant_message, faux_tool_call

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


def config_for(model: Model, **kwargs: Any) -> AgentLoopConfig:
    return AgentLoopConfig(model=model, **kwargs)


async def run(prompts: list[AgentMessage], context: AgentContext, config: AgentLoopConfig, stream_fn: Any,
              signal: Any = None) -> tuple[list[AgentMessage], Recorder]:
    recorder = Recorder()

    async def emit(event: AgentEvent) -> None:
        recorder(event)

    messages = await run_agent_loop(prompts, context, config, emit, signal=signal, stream_fn=stream_fn)
    return messages, recorder


# --------------------------------------------------------------------------- entry points


async def test_agent_loop_streams_events_and_returns_new_messages_without_touching_context() -> None:
    async with faux_provider(reply("Hello!")) as faux:
        context = AgentContext(system_prompt="sys", messages=[])
        stream = agent_loop([user("Hi")], context, config_for(faux.get_model()), stream_fn=faux.stream)
        kinds = [event.type async for event in stream]
        messages = await stream.result()
    assert kinds == ["agent_start", "turn_start", "message_start", "message_end", "message_start",
                     "message_update", "message_update", "message_update", "message_end", "turn_end", "agent_end"]
    assert [m.role for m in messages] == ["user", "assistant"]
    assert text_of(messages[1]) == "Hello!"
    assert context.messages == []


async def test_continue_appends_to_the_callers_list() -> None:
    async with faux_provider(reply("Sure.")) as faux:
        transcript: list[AgentMessage] = [user("Go on")]
        recorder = Recorder()

        async def emit(event: AgentEvent) -> None:
            recorder(event)

        new = await run_agent_loop_continue(AgentContext(messages=transcript), config_for(faux.get_model()),
                                            emit, stream_fn=faux.stream)
    assert [m.role for m in new] == ["assistant"]
    assert [m.role for m in transcript] == ["user", "assistant"]
    assert recorder.kinds[:3] == ["agent_start", "turn_start", "message_start(assistant)"]


@pytest.mark.parametrize(("messages", "error"), [
    ([], "Cannot continue: no messages in context"),
    ([reply("done")], "Cannot continue from message role: assistant"),
])
async def test_continue_preconditions(messages: list[AgentMessage], error: str) -> None:
    model = Model(id="m", name="m", api="none", provider="none", base_url="")
    with pytest.raises(ValueError, match=error):
        agent_loop_continue(AgentContext(messages=messages), config_for(model), stream_fn=lambda *a: None)  # type: ignore[arg-type,return-value]

    async def emit(event: AgentEvent) -> None:
        raise AssertionError("no event may be emitted")

    with pytest.raises(ValueError, match=error):
        await run_agent_loop_continue(AgentContext(messages=messages), config_for(model), emit, stream_fn=lambda *a: None)  # type: ignore[arg-type,return-value]


async def test_continue_accepts_a_custom_role_tail_that_the_converter_turns_into_user() -> None:
    class Note(CustomMessage, tag="note", kw_only=True):
        text: str
        timestamp: int

    def convert(messages: list[AgentMessage]) -> list[Message]:
        return [UserMessage(content=m.text, timestamp=m.timestamp) if isinstance(m, Note) else m  # type: ignore[misc]
                for m in messages]

    seen: list[Context] = []
    async with faux_provider(reply("Noted.")) as faux:
        def stream_fn(model: Model, context: Context, options: SimpleStreamOptions) -> Any:
            seen.append(context)
            return faux.stream(model, context, options)

        new = await run_agent_loop_continue(
            AgentContext(messages=[Note(text="build done", timestamp=3)]),
            config_for(faux.get_model(), convert_to_llm=convert), _noop, stream_fn=stream_fn,
        )
    assert [m.role for m in new] == ["assistant"]
    assert seen[0].messages == [UserMessage(content="build done", timestamp=3)]


async def _noop(event: AgentEvent) -> None:
    return None


async def test_prompt_list_may_be_empty_and_the_model_sees_the_existing_context() -> None:
    async with faux_provider(reply("Answer.")) as faux:
        messages, recorder = await run([], AgentContext(messages=[user("Earlier")]), config_for(faux.get_model()),
                                       faux.stream)
    assert [m.role for m in messages] == ["assistant"]
    assert recorder.kinds[:3] == ["agent_start", "turn_start", "message_start(assistant)"]


async def test_missing_stream_function_is_a_clear_error() -> None:
    set_default_stream_fn(None)
    model = Model(id="m", name="m", api="none", provider="none", base_url="")
    with pytest.raises(RuntimeError, match="No default stream function configured"):
        await run_agent_loop([user("x")], AgentContext(), config_for(model), _noop)


async def test_default_stream_function_is_used_when_none_is_passed() -> None:
    async with faux_provider(reply("From default.")) as faux:
        set_default_stream_fn(faux.stream)
        try:
            messages, _ = await run([user("x")], AgentContext(), config_for(faux.get_model()), None)
        finally:
            set_default_stream_fn(None)
    assert text_of(messages[-1]) == "From default."


async def test_a_failing_run_ends_the_observational_stream_with_the_error() -> None:
    def broken(messages: list[AgentMessage]) -> list[Message]:
        raise RuntimeError("convert failed")

    async with faux_provider(reply("never")) as faux:
        stream = agent_loop([user("x")], AgentContext(), config_for(faux.get_model(), convert_to_llm=broken),
                            stream_fn=faux.stream)
        seen = []
        with pytest.raises(RuntimeError, match="convert failed"):
            async for event in stream:
                seen.append(event.type)
        with pytest.raises(RuntimeError, match="convert failed"):
            await stream.result()
    assert seen == ["agent_start", "turn_start", "message_start", "message_end"]


# --------------------------------------------------------------------------- context callbacks


async def test_transform_context_applies_to_the_request_only_and_runs_before_convert() -> None:
    order: list[str] = []
    contexts: list[Context] = []

    async def transform(messages: list[AgentMessage], signal: Any) -> list[AgentMessage]:
        order.append(f"transform:{len(messages)}")
        return messages[-1:]

    def convert(messages: list[AgentMessage]) -> list[Message]:
        order.append(f"convert:{len(messages)}")
        return [m for m in messages if isinstance(m, Message.__args__)]  # type: ignore[attr-defined]

    async with faux_provider(reply("ok")) as faux:
        def stream_fn(model: Model, context: Context, options: SimpleStreamOptions) -> Any:
            contexts.append(context)
            return faux.stream(model, context, options)

        history: list[AgentMessage] = [user("one"), reply("two")]
        messages, _ = await run([user("three")], AgentContext(messages=history),
                                config_for(faux.get_model(), transform_context=transform, convert_to_llm=convert),
                                stream_fn)
    assert order == ["transform:3", "convert:1"]
    assert [text_of(m) for m in contexts[0].messages] == ["three"]
    assert len(history) == 2 and len(messages) == 2


async def test_get_api_key_falls_back_to_the_configured_key_and_signal_is_passed() -> None:
    seen: list[SimpleStreamOptions] = []
    keys = iter(["", "fresh-token"])
    controller = AbortController()
    async with faux_provider(tool_calls(("c1", "noop", {})), reply("done")) as faux:
        def stream_fn(model: Model, context: Context, options: SimpleStreamOptions) -> Any:
            seen.append(options)
            return faux.stream(model, context, options)

        config = config_for(faux.get_model(), get_api_key=lambda provider: next(keys),
                            stream_options=SimpleStreamOptions(api_key="static", session_id="s1"))
        await run([user("x")], AgentContext(tools=[text_tool("noop")]), config, stream_fn, signal=controller.signal)
    assert [o.api_key for o in seen] == ["static", "fresh-token"]
    assert all(o.session_id == "s1" and o.signal is controller.signal for o in seen)


async def test_prepare_next_turn_can_swap_model_level_and_context() -> None:
    seen: list[tuple[str, str | None, int]] = []
    async with faux_provider(tool_calls(("c1", "noop", {})), reply("done")) as faux:
        other = faux.get_model().__copy__()
        other.id = "other-model"

        def stream_fn(model: Model, context: Context, options: SimpleStreamOptions) -> Any:
            seen.append((model.id, options.reasoning, len(context.messages)))
            return faux.stream(model, context, options)

        def prepare(turn: TurnContext) -> AgentLoopTurnUpdate:
            compacted = AgentContext(messages=[user("summary")], tools=turn.context.tools)
            return AgentLoopTurnUpdate(context=compacted, model=other, thinking_level="off")

        config = config_for(faux.get_model(), prepare_next_turn=prepare,
                            stream_options=SimpleStreamOptions(reasoning="high"))
        messages, _ = await run([user("x")], AgentContext(tools=[text_tool("noop")]), config, stream_fn)
    assert seen == [("faux-model", "high", 1), ("other-model", None, 1)]
    assert [m.role for m in messages] == ["user", "assistant", "toolResult", "assistant"]


async def test_prepare_next_turn_messages_open_the_turn_before_steering() -> None:
    """Pi 1.6's ``nextTurnSnapshot.messages``: streamed after ``turn_start``, ahead of the steering
    message polled for that turn, and part of the next request and of the run's messages."""
    seen: list[list[str]] = []
    steering = [[], [user("steer")]]
    async with faux_provider(tool_calls(("c1", "noop", {})), reply("done")) as faux:

        def stream_fn(model: Model, context: Context, options: SimpleStreamOptions) -> Any:
            seen.append([m.role for m in context.messages])
            return faux.stream(model, context, options)

        def prepare(turn: TurnContext) -> AgentLoopTurnUpdate:
            return AgentLoopTurnUpdate(messages=[user("opening")])

        config = config_for(faux.get_model(), prepare_next_turn=prepare,
                            get_steering_messages=lambda: steering.pop(0) if steering else [])
        messages, recorder = await run([user("x")], AgentContext(tools=[text_tool("noop")]), config, stream_fn)
    assert seen[1] == ["user", "assistant", "toolResult", "user", "user"]
    assert [text_of(m) for m in messages[3:5]] == ["opening", "steer"]
    assert recorder.kinds[recorder.kinds.index("turn_end(assistant)") + 1 :][:3] == [
        "turn_start", "message_start(user)", "message_end(user)"]


async def test_should_stop_after_turn_sees_the_turn_and_skips_the_queues() -> None:
    polls: list[str] = []
    turns: list[TurnContext] = []

    def steering() -> list[AgentMessage]:
        polls.append("steer")
        return []

    async with faux_provider(tool_calls(("c1", "noop", {})), reply("never")) as faux:
        config = config_for(faux.get_model(), should_stop_after_turn=lambda turn: turns.append(turn) or True,
                            get_steering_messages=steering, get_follow_up_messages=lambda: polls.append("follow") or [])
        _messages, recorder = await run([user("x")], AgentContext(tools=[text_tool("noop")]), config, faux.stream)
        assert faux.pending_response_count == 1
    assert polls == ["steer"]  # only the initial poll
    assert [m.role for m in turns[0].new_messages] == ["user", "assistant", "toolResult"]
    assert recorder.kinds[-2:] == ["turn_end(assistant)", "agent_end"]


async def test_error_reply_ends_the_run_without_polling_queues() -> None:
    polls: list[str] = []
    async with faux_provider(faux_assistant_message("partial", stop_reason="error", error_message="boom 500")) as faux:
        config = config_for(faux.get_model(), get_steering_messages=lambda: polls.append("s") or [],
                            get_follow_up_messages=lambda: polls.append("f") or [])
        messages, recorder = await run([user("x")], AgentContext(), config, faux.stream)
    assert polls == ["s"]
    assert messages[-1].stop_reason == "error"  # type: ignore[union-attr]
    assert recorder.kinds[-2:] == ["turn_end(assistant)", "agent_end"]


async def test_steering_and_follow_ups_are_injected_where_pi_injects_them() -> None:
    steering = [[], [user("S1")], []]
    follow_ups = [[user("F1")], []]
    async with faux_provider(reply("A1"), reply("A2"), reply("A3")) as faux:
        config = config_for(faux.get_model(), get_steering_messages=lambda: steering.pop(0) if steering else [],
                            get_follow_up_messages=lambda: follow_ups.pop(0) if follow_ups else [])
        messages, recorder = await run([user("P")], AgentContext(), config, faux.stream)
    assert [text_of(m) for m in messages] == ["P", "A1", "S1", "A2", "F1", "A3"]
    assert recorder.kinds.count("turn_start") == 3


# --------------------------------------------------------------------------- tools


def weather_tool(delays: dict[str, float], wait_for: dict[str, str] | None = None) -> ScriptTool:
    """``wait_for`` maps a city to another whose call must have started before it can finish."""
    started = {city: asyncio.Event() for city in ("Paris", "Rome", "Atlantis")}

    async def behaviour(call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult[Any]:
        city = params["city"]
        started[city].set()
        on_update(AgentToolResult(content=[TextContent(text=f"fetching {city}")]))
        if wait_for and city in wait_for:
            await asyncio.wait_for(started[wait_for[city]].wait(), 5)
        await asyncio.sleep(delays.get(city, 0))
        if city == "Atlantis":
            raise ValueError("city does not exist")
        return AgentToolResult(content=[TextContent(text=f"sunny in {city}")], details={"city": city})

    return ScriptTool("get_weather", behaviour, parameters=CITY_SCHEMA)


async def test_parallel_tools_overlap_end_in_completion_order_and_report_in_call_order() -> None:
    # Paris cannot finish before Rome has started: only concurrent execution completes.
    tool = weather_tool({"Paris": 0.05}, wait_for={"Paris": "Rome"})
    async with faux_provider(tool_calls(("c1", "get_weather", {"city": "Paris"}), ("c2", "get_weather", {"city": "Rome"})),
                             reply("Both sunny.")) as faux:
        messages, recorder = await run([user("x")], AgentContext(tools=[tool]), config_for(faux.get_model()), faux.stream)
    tool_events = [k for k in recorder.kinds if k.startswith(("tool_", "message_start(toolResult"))]
    assert tool_events == ["tool_execution_start(c1)", "tool_execution_start(c2)", "tool_execution_update(c1)",
                           "tool_execution_update(c2)", "tool_execution_end(c2)", "tool_execution_end(c1)",
                           "message_start(toolResult)", "message_start(toolResult)"]
    results = [m for m in messages if isinstance(m, ToolResultMessage)]
    assert [r.tool_call_id for r in results] == ["c1", "c2"]
    assert [r.tool_call_id for r in recorder.of_type("turn_end")[0].tool_results] == ["c1", "c2"]
    assert results[0].details == {"city": "Paris"}


async def test_sequential_mode_runs_each_call_to_completion_before_the_next() -> None:
    tool = weather_tool({"Paris": 0.03})
    async with faux_provider(tool_calls(("c1", "get_weather", {"city": "Paris"}), ("c2", "get_weather", {"city": "Rome"})),
                             reply("ok")) as faux:
        _, recorder = await run([user("x")], AgentContext(tools=[tool]),
                                config_for(faux.get_model(), tool_execution="sequential"), faux.stream)
    tool_events = [k for k in recorder.kinds if k.startswith(("tool_", "message_end(toolResult"))]
    assert tool_events == ["tool_execution_start(c1)", "tool_execution_update(c1)", "tool_execution_end(c1)",
                           "message_end(toolResult)", "tool_execution_start(c2)", "tool_execution_update(c2)",
                           "tool_execution_end(c2)", "message_end(toolResult)"]


async def test_failures_become_error_results_and_the_run_continues() -> None:
    tool = weather_tool({})
    async with faux_provider(
        tool_calls(("bad", "get_weather", {"town": 3}), ("unknown", "nope", {}), ("throws", "get_weather", {"city": "Atlantis"})),
        reply("recovered"),
    ) as faux:
        messages, _recorder = await run([user("x")], AgentContext(tools=[tool]), config_for(faux.get_model()), faux.stream)
    results = {m.tool_call_id: m for m in messages if isinstance(m, ToolResultMessage)}
    assert all(r.is_error and r.details == {} for r in results.values())
    assert text_of(results["bad"]) == (
        'Validation failed for tool "get_weather":\n  - city: missing\n\n'
        'Received arguments:\n{\n  "town": 3\n}'
    )
    assert text_of(results["unknown"]) == "Tool nope not found"
    assert text_of(results["throws"]) == "city does not exist"
    assert text_of(messages[-1]) == "recovered"
    assert [c[1] for c in tool.calls] == [{"city": "Atlantis"}]


async def test_length_stop_executes_none_of_its_calls() -> None:
    tool = text_tool("noop")
    truncated = faux_assistant_message([faux_tool_call("noop", {}, id="c1")], stop_reason="length")
    async with faux_provider(truncated, reply("retry")) as faux:
        messages, _ = await run([user("x")], AgentContext(tools=[tool]), config_for(faux.get_model()), faux.stream)
    result = messages[2]
    assert isinstance(result, ToolResultMessage) and result.is_error
    assert text_of(result).startswith('Tool call "noop" was not executed: the response hit the output token limit')
    assert tool.calls == []
    assert text_of(messages[-1]) == "retry"


async def test_prepare_arguments_reshapes_before_validation_but_events_keep_raw_args() -> None:
    async def behaviour(call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> str:
        return params["city"]

    class Legacy(ScriptTool):
        def prepare_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
            return {"city": arguments["town"]} if "town" in arguments else arguments

    tool = Legacy("get_weather", behaviour, parameters=CITY_SCHEMA)
    async with faux_provider(tool_calls(("c1", "get_weather", {"town": "Oslo"})), reply("ok")) as faux:
        messages, recorder = await run([user("x")], AgentContext(tools=[tool]), config_for(faux.get_model()), faux.stream)
    assert text_of(messages[2]) == "Oslo"
    assert recorder.of_type("tool_execution_start")[0].args == {"town": "Oslo"}


async def test_hooks_block_override_and_merge_like_pi() -> None:
    before_seen: list[BeforeToolCallContext] = []
    after_seen: list[AfterToolCallContext] = []

    def before(ctx: BeforeToolCallContext, signal: Any) -> BeforeToolCallResult | None:
        before_seen.append(ctx)
        if ctx.tool_call.id == "blocked":
            return BeforeToolCallResult(block=True, reason="nope", terminate=True)
        return None

    async def after(ctx: AfterToolCallContext, signal: Any) -> AfterToolCallResult:
        after_seen.append(ctx)
        return AfterToolCallResult(details={"audited": True}, terminate=True)

    async def behaviour(call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult[Any]:
        return AgentToolResult(content=[TextContent(text="ran")], details={"raw": 1}, added_tool_names=["extra"])

    tool = ScriptTool("act", behaviour, parameters={"type": "object", "properties": {"n": {"type": "number"}}})
    async with faux_provider(tool_calls(("blocked", "act", {"n": "1"}), ("ran", "act", {"n": "2"})), reply("never")) as faux:
        messages, _ = await run([user("x")], AgentContext(tools=[tool]),
                                config_for(faux.get_model(), before_tool_call=before, after_tool_call=after), faux.stream)
        assert faux.pending_response_count == 1  # every result asked to terminate
    assert [ctx.args for ctx in before_seen] == [{"n": 1}, {"n": 2}]  # coerced args
    assert before_seen[0].tool_call.arguments == {"n": "1"}  # raw call
    assert after_seen[0].result.details == {"raw": 1}
    blocked, ran = messages[2], messages[3]
    assert isinstance(blocked, ToolResultMessage) and blocked.is_error and text_of(blocked) == "nope"
    assert isinstance(ran, ToolResultMessage) and not ran.is_error
    assert ran.details == {"audited": True} and text_of(ran) == "ran" and ran.added_tool_names == ["extra"]


async def test_a_raising_after_hook_replaces_the_result_with_its_error() -> None:
    def after(ctx: AfterToolCallContext, signal: Any) -> AfterToolCallResult:
        raise RuntimeError("audit down")

    async with faux_provider(tool_calls(("c1", "noop", {})), reply("ok")) as faux:
        messages, recorder = await run([user("x")], AgentContext(tools=[text_tool("noop")]),
                                       config_for(faux.get_model(), after_tool_call=after), faux.stream)
    assert text_of(messages[2]) == "audit down" and messages[2].is_error  # type: ignore[union-attr]
    assert recorder.of_type("tool_execution_end")[0].is_error is True


async def test_updates_after_the_tool_settled_are_dropped() -> None:
    kept: list[Any] = []

    async def behaviour(call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> str:
        kept.append(on_update)
        on_update(AgentToolResult(content=[TextContent(text="during")]))
        return "done"

    async with faux_provider(tool_calls(("c1", "late", {})), reply("ok")) as faux:
        _, recorder = await run([user("x")], AgentContext(tools=[ScriptTool("late", behaviour)]),
                                config_for(faux.get_model()), faux.stream)
        kept[0](AgentToolResult(content=[TextContent(text="after")]))
    updates = recorder.of_type("tool_execution_update")
    assert [text_of(u.partial_result) for u in updates] == ["during"]


async def test_per_tool_sequential_mode_forces_the_whole_batch() -> None:
    slow = text_tool("slow", delay=0.02, execution_mode="sequential")
    fast = text_tool("fast")
    async with faux_provider(tool_calls(("c1", "slow", {}), ("c2", "fast", {})), reply("ok")) as faux:
        _, recorder = await run([user("x")], AgentContext(tools=[slow, fast]), config_for(faux.get_model()), faux.stream)
    ends = [k for k in recorder.kinds if k.startswith("tool_execution")]
    assert ends == ["tool_execution_start(c1)", "tool_execution_end(c1)", "tool_execution_start(c2)",
                    "tool_execution_end(c2)"]


async def test_abort_in_sequential_batch_leaves_later_calls_without_result() -> None:
    controller = AbortController()

    async def behaviour(call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> str:
        controller.abort()
        return "first"

    async with faux_provider(tool_calls(("c1", "t", {}), ("c2", "t", {})), reply("never")) as faux:
        messages, recorder = await run([user("x")], AgentContext(tools=[ScriptTool("t", behaviour)]),
                                       config_for(faux.get_model(), tool_execution="sequential"), faux.stream,
                                       signal=controller.signal)
    assert [m.role for m in messages] == ["user", "assistant", "toolResult", "assistant"]
    assert messages[-1].stop_reason == "aborted"  # type: ignore[union-attr]
    assert "tool_execution_start(c2)" not in recorder.kinds


async def test_images_in_results_and_prompts_pass_through() -> None:
    image = ImageContent(data="aGk=", mime_type="image/png")

    async def behaviour(call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult[Any]:
        return AgentToolResult(content=[image])

    contexts: list[Context] = []
    async with faux_provider(tool_calls(("c1", "shot", {})), reply("a cat")) as faux:
        def stream_fn(model: Model, context: Context, options: SimpleStreamOptions) -> Any:
            contexts.append(context)
            return faux.stream(model, context, options)

        await run([UserMessage(content=[TextContent(text="look"), image], timestamp=1)],
                  AgentContext(tools=[ScriptTool("shot", behaviour)]), config_for(faux.get_model()), stream_fn)
    assert contexts[1].messages[-1].content == [image]  # type: ignore[union-attr]
