"""Event JSON (Pi's keys) and the EventStream used by agent_loop()."""

from __future__ import annotations

import asyncio

import pytest

from pi_agent import Agent, AgentEvent, AgentToolResult, EventStream, agent_event_to_json
from pi_ai import TextContent, Usage

from ._support import Recorder, faux_provider, reply, text_tool, tool_calls


async def test_events_serialize_with_pis_keys() -> None:
    async with faux_provider(tool_calls(("c1", "t", {"x": 1}), text="Go."), reply("done")) as faux:
        agent = Agent(model=faux.get_model(), stream_fn=faux.stream, tools=[text_tool("t", "ran")])
        recorder = Recorder()
        agent.subscribe(recorder)
        await agent.prompt("hi")
    by_type: dict[str, list[dict[str, object]]] = {}
    for event in recorder.events:
        by_type.setdefault(event.type, []).append(agent_event_to_json(event))
    assert by_type["agent_start"] == [{"type": "agent_start"}]
    update = by_type["message_update"][0]
    assert set(update) == {"type", "assistantMessageEvent", "message"}
    assert set(update["assistantMessageEvent"]) == {"type", "contentIndex", "partial"}  # type: ignore[arg-type]
    assert by_type["tool_execution_start"] == [{"type": "tool_execution_start", "toolCallId": "c1", "toolName": "t",
                                                "args": {"x": 1}}]
    (end,) = by_type["tool_execution_end"]
    duration = end.pop("durationMs")  # Pi 1.6: how long execute() ran, whole milliseconds
    assert isinstance(duration, int) and duration >= 0
    assert end == {"type": "tool_execution_end", "toolCallId": "c1", "toolName": "t",
                   "result": {"content": [{"type": "text", "text": "ran"}]}, "isError": False}
    turn_end = by_type["turn_end"][0]
    assert turn_end["toolResults"][0]["toolCallId"] == "c1"  # type: ignore[index]
    assert turn_end["message"]["stopReason"] == "toolUse"  # type: ignore[index]
    assert [m["role"] for m in by_type["agent_end"][0]["messages"]] == [  # type: ignore[attr-defined]
        "user", "assistant", "toolResult", "assistant"]


async def test_a_tool_that_did_not_run_has_no_duration() -> None:
    """``durationMs`` is absent when ``execute`` never ran (here: an unknown tool), as in Pi 1.6."""
    async with faux_provider(tool_calls(("c1", "missing", {})), reply("done")) as faux:
        agent = Agent(model=faux.get_model(), stream_fn=faux.stream, tools=[text_tool("t", "ran")])
        recorder = Recorder()
        agent.subscribe(recorder)
        await agent.prompt("hi")
    (end,) = [agent_event_to_json(e) for e in recorder.events if e.type == "tool_execution_end"]
    assert end["isError"] is True and "durationMs" not in end


def test_tool_results_leave_absent_fields_out() -> None:
    from pi_agent import tool_result_to_json

    full = AgentToolResult(content=[TextContent(text="x")], details={"a": 1}, usage=Usage(input=1),
                           added_tool_names=["more"], terminate=False)
    assert tool_result_to_json(full) == {
        "content": [{"type": "text", "text": "x"}], "details": {"a": 1},
        "usage": {"input": 1, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                  "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
        "addedToolNames": ["more"], "terminate": False}
    assert tool_result_to_json(AgentToolResult()) == {"content": []}


async def test_event_stream_settles_on_the_final_event_and_ignores_later_pushes() -> None:
    stream: EventStream[str, int] = EventStream(lambda e: e == "end", lambda e: 42)
    stream.push("a")
    stream.push("end")
    stream.push("late")
    assert [e async for e in stream] == ["a", "end"]
    assert await stream.result() == 42


async def test_event_stream_wakes_waiting_readers_and_reports_failure() -> None:
    stream: EventStream[str, int] = EventStream(lambda e: False, lambda e: 0)

    async def produce() -> None:
        await asyncio.sleep(0.01)
        stream.push("x")
        stream.fail(RuntimeError("producer died"))

    task = asyncio.create_task(produce())
    seen = []
    with pytest.raises(RuntimeError, match="producer died"):
        async for event in stream:
            seen.append(event)
    await task
    assert seen == ["x"]
    stream2: EventStream[AgentEvent, list[int]] = EventStream(lambda e: False, lambda e: [])
    stream2.end([1])
    assert await stream2.result() == [1]
