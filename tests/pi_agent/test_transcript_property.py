"""Property: whatever the tools do, the transcript after a run is a valid conversation.

Tools finish in any order, return, fail validation, raise, or hang until the run is aborted;
the model may call unknown tools. Afterwards every assistant tool call is answered exactly
once, by results in call order, right after the assistant message. The one exception is
Pi's: once the run is aborted, calls that had not started yet (sequential mode, or the
parallel preflight) get no result; the answered ones are still a prefix, in order.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pi_agent import Agent, AgentEvent, AgentMessage, AgentToolResult
from pi_ai import AbortSignal, AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from pi_ai.faux import faux_assistant_message, faux_tool_call

from ._support import ScriptTool, faux_provider

BEHAVIOURS = ("ok", "slow", "raise", "error_result", "hang", "invalid", "unknown", "update")


@dataclass(frozen=True)
class Call:
    behaviour: str
    delay_ms: int


calls = st.builds(Call, st.sampled_from(BEHAVIOURS), st.integers(0, 6))
scenarios = st.fixed_dictionaries({
    "turns": st.lists(st.lists(calls, min_size=1, max_size=4), min_size=1, max_size=3),
    "mode": st.sampled_from(["parallel", "sequential"]),
    "abort_after_ms": st.one_of(st.none(), st.integers(1, 15)),
})


async def behave(call_id: str, params: dict[str, Any], signal: AbortSignal | None, on_update: Any) -> Any:
    behaviour, delay = params["behaviour"], params["delay"] / 1000
    if behaviour == "update" and on_update is not None:
        on_update(AgentToolResult(content=[TextContent(text="progress")]))
    await asyncio.sleep(delay * (3 if behaviour == "slow" else 1))
    if behaviour == "raise":
        raise RuntimeError(f"{call_id} failed")
    if behaviour == "hang":
        assert signal is not None
        await signal.wait()
        raise RuntimeError("Operation aborted")
    if behaviour == "error_result":
        return AgentToolResult(content=[TextContent(text="looked fine")], details={"exit": 1})
    return f"{call_id} done"


PARAMETERS = {"type": "object", "properties": {"behaviour": {"type": "string"}, "delay": {"type": "integer"}},
              "required": ["behaviour", "delay"]}


def script(turns: list[list[Call]]) -> list[AssistantMessage]:
    responses = []
    for turn_index, turn in enumerate(turns):
        blocks = []
        for call_index, call in enumerate(turn):
            call_id = f"t{turn_index}c{call_index}"
            if call.behaviour == "invalid":
                blocks.append(faux_tool_call("work", {"behaviour": ["not", "a", "string"]}, id=call_id))
            elif call.behaviour == "unknown":
                blocks.append(faux_tool_call("missing_tool", {}, id=call_id))
            else:
                blocks.append(faux_tool_call("work", {"behaviour": call.behaviour, "delay": call.delay_ms}, id=call_id))
        responses.append(faux_assistant_message(blocks, stop_reason="toolUse"))
    responses.append(faux_assistant_message("finished"))
    return responses


def check_transcript(messages: list[AgentMessage], *, aborted: bool) -> None:
    assert isinstance(messages[0], UserMessage)
    assert isinstance(messages[-1], AssistantMessage), "a run always ends with an assistant message"
    answered: set[str] = set()
    index = 0
    while index < len(messages):
        message = messages[index]
        index += 1
        if isinstance(message, ToolResultMessage):
            raise AssertionError(f"tool result {message.tool_call_id} does not follow its assistant message")
        if not isinstance(message, AssistantMessage):
            continue
        call_ids = [block.id for block in message.content if isinstance(block, ToolCall)]
        result_ids = []
        while index < len(messages) and isinstance(messages[index], ToolResultMessage):
            result = messages[index]
            assert isinstance(result, ToolResultMessage)
            assert result.tool_call_id not in answered, f"{result.tool_call_id} answered twice"
            answered.add(result.tool_call_id)
            result_ids.append(result.tool_call_id)
            index += 1
        if aborted:
            assert result_ids == call_ids[: len(result_ids)]
        else:
            assert result_ids == call_ids


async def run_scenario(scenario: dict[str, Any]) -> None:
    turns: list[list[Call]] = scenario["turns"]
    hangs = any(call.behaviour == "hang" for turn in turns for call in turn)
    abort_after = scenario["abort_after_ms"]
    if hangs and abort_after is None:
        abort_after = 10  # something must end the hang
    async with faux_provider(*script(turns)) as faux:
        agent = Agent(model=faux.get_model(), stream_fn=faux.stream, tool_execution=scenario["mode"],
                      tools=[ScriptTool("work", behave, parameters=PARAMETERS)])
        ends: list[str] = []

        def listener(event: AgentEvent, signal: AbortSignal) -> None:
            if event.type == "tool_execution_end":
                ends.append(event.tool_call_id)

        agent.subscribe(listener)
        run = asyncio.create_task(agent.prompt("go"))
        if abort_after is not None:
            await asyncio.sleep(abort_after / 1000)
            agent.abort()
        await asyncio.wait_for(run, 10)
        aborted = abort_after is not None and agent.state.messages[-1].stop_reason == "aborted"  # type: ignore[union-attr]
    messages = agent.state.messages
    check_transcript(messages, aborted=aborted)
    results = [m.tool_call_id for m in messages if isinstance(m, ToolResultMessage)]
    assert sorted(ends) == sorted(results), "every answered call had exactly one tool_execution_end"
    assert agent.state.pending_tool_calls == frozenset() and not agent.state.is_streaming


@settings(max_examples=60, deadline=None)
@given(scenarios)
def test_transcript_is_a_valid_conversation(scenario: dict[str, Any]) -> None:
    asyncio.run(run_scenario(scenario))
