"""The local API's turn parser: generated text, in any split, becomes the right events and blocks."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pi_ai import AssistantMessage, AssistantMessageEventStream, TextContent, ThinkingContent, ToolCall
from pi_ai.api.local._output import TurnParser, answer_started

CALL = {"name": "write", "arguments": {"path": "a.txt", "content": "x = {\"k\": [1, 2]}\n"}}
CALL_JSON = json.dumps(CALL)


def _parse(text: str, *, pieces: int = 1, thinking: bool = False, hold: bool = False) -> tuple[AssistantMessage, list[Any], TurnParser]:
    stream = AssistantMessageEventStream()
    output = AssistantMessage(content=[], api="local", provider="local", model="m", stop_reason="pending", timestamp=0)
    parser = TurnParser(stream, output, thinking=thinking, hold_calls=hold)
    size = max(1, pieces)
    for start in range(0, len(text), size):
        parser.feed(text[start : start + size])
    parser.finish()
    events = list(stream._queue)
    return output, events, parser


@pytest.mark.parametrize("pieces", [1, 3, 7, 1000])
@pytest.mark.parametrize(
    "form", [f"<tool_call>\n{CALL_JSON}\n</tool_call>", f"```json\n{CALL_JSON}\n```", CALL_JSON]
)
def test_each_call_form_gives_one_tool_call(form: str, pieces: int) -> None:
    output, events, _ = _parse(form, pieces=pieces)
    assert len(output.content) == 1
    call = output.content[0]
    assert isinstance(call, ToolCall) and call.name == "write" and call.arguments == CALL["arguments"]
    kinds = [event.type for event in events]
    assert kinds[0] == "toolcall_start" and kinds[-1] == "toolcall_end" and "toolcall_delta" in kinds
    # The deltas are the raw text of the arguments object (what other adapters stream).
    streamed = "".join(event.delta for event in events if event.type == "toolcall_delta")
    assert json.loads(streamed) == CALL["arguments"]


def test_several_calls_in_a_row() -> None:
    second = json.dumps({"name": "bash", "arguments": {"command": "ls"}})
    output, events, _ = _parse(f"<tool_call>\n{CALL_JSON}\n</tool_call>\n<tool_call>\n{second}\n</tool_call>", pieces=2)
    assert [block.name for block in output.content if isinstance(block, ToolCall)] == ["write", "bash"]
    assert [event.content_index for event in events if event.type == "toolcall_end"] == [0, 1]
    assert len({block.id for block in output.content if isinstance(block, ToolCall)}) == 2


@pytest.mark.parametrize("pieces", [1, 4])
def test_a_plain_answer_streams_as_text(pieces: int) -> None:
    text = "The answer is <b>42</b> and `x` {y}."
    output, events, _ = _parse(text, pieces=pieces)
    assert output.content == [TextContent(text=text)]
    assert next(event.type for event in events) == "text_start"
    assert "".join(event.delta for event in events if event.type == "text_delta") == text
    assert events[-1].type == "text_end" and events[-1].content == text


def test_thinking_then_answer() -> None:
    output, events, _ = _parse("<think>\nadd them\n</think>\n\n5", pieces=2, thinking=True)
    assert isinstance(output.content[0], ThinkingContent) and output.content[0].thinking == "add them"
    assert output.content[1] == TextContent(text="5")
    assert [event.type for event in events if event.type.endswith(("_start", "_end"))] == [
        "thinking_start", "thinking_end", "text_start", "text_end"
    ]


def test_a_call_cut_off_by_the_output_cap_keeps_what_arrived() -> None:
    output, events, _ = _parse('<tool_call>\n{"name": "write", "arguments": {"path": "a.txt", "cont', pieces=5)
    call = output.content[0]
    assert isinstance(call, ToolCall) and call.name == "write" and call.arguments["path"] == "a.txt"
    assert events[-1].type == "toolcall_end"


def test_held_calls_are_streamed_only_when_released() -> None:
    output, events, parser = _parse(f"<tool_call>\n{CALL_JSON}\n</tool_call>", pieces=3, hold=True)
    assert output.content == [] and events == [] and [call.name for call in parser.held] == ["write"]
    parser.release_calls()
    assert [event.type for event in parser.stream._queue] == ["toolcall_start", "toolcall_delta", "toolcall_end"]
    assert output.content == [parser.stream._queue[-1].tool_call]


def test_answer_started_decides_on_the_first_character() -> None:
    assert not answer_started("")
    assert not answer_started("  ")
    assert not answer_started("<tool")
    assert not answer_started("```json")
    assert not answer_started("{")
    assert answer_started("Hello")
    assert not answer_started("<think>still thinking")
    assert answer_started("<think>done</think>\nYes")


def test_a_calls_first_argument_is_heard_and_the_call_can_be_written_again() -> None:
    stream = AssistantMessageEventStream()
    output = AssistantMessage(content=[], api="local", provider="local", model="m", stop_reason="pending", timestamp=0)
    heard: list[tuple[str, str, str]] = []
    parser = TurnParser(stream, output, thinking=True, hold_calls=True, on_first_argument=lambda *a: heard.append(a))
    head = "<think>plan</think>\n<tool_call>\n"
    for piece in (head, '{"name": "edit", "arguments": {"path": "a\\u00e9.py"', ', "edits": [{"oldText": "x'):
        parser.feed(piece)
    assert heard == [("edit", "path", "a\u00e9.py")]
    assert parser.rewind_call() == "<think>plan</think>\n"  # the call's text is gone, the rest kept
    parser.feed(f"<tool_call>\n{CALL_JSON}\n</tool_call>")
    parser.finish()
    assert heard[-1] == ("write", "path", "a.txt")
    assert [block.name for block in parser.held] == ["write"]
    assert isinstance(output.content[0], ThinkingContent) and output.content[0].thinking == "plan"
