"""Do no harm, whatever the model writes (issue 27 item 5), on the ``local`` API's stream side:
a call that repeats itself or grows too long is cut off, our notes never reach the answer's text,
and an answer can be held back for a check. The texts are the 1.5B's own failures as the issue and
docs/providers/local.md record them, fed as a model streams them (a few characters at a time)."""

from __future__ import annotations

import json

import pytest

from pi_ai import (
    AssistantMessage,
    AssistantMessageEventStream,
    Context,
    TextContent,
    TextDeltaEvent,
    Tool,
    ToolCall,
    UserMessage,
    is_retryable_assistant_error,
    stream,
)
from pi_ai.api.local import OWN_NOTES, TOOL_HINT, LocalOptions, _runaway
from pi_ai.api.local._notes import NoteFilter
from pi_ai.api.local._output import TurnParser
from pi_ai.api.local._runaway import MAX_CALL_CHARS, REPEATED, TOO_LONG, CallWatch, cut_error, repeated_tail
from pi_coding_agent.runtime.agent_session._local_aids import ANSWER_NOTE, DONE_NOTE, EDIT_NOTE
from tests.support.local_model import SMOKE_MODEL, local_model

BLOCK = {"oldText": "def add(a, b):\n    return a - b", "newText": "def add(a, b):\n    return a + b"}
RUNAWAY_EDIT = json.dumps({"name": "edit", "arguments": {"path": "calc.py", "edits": [BLOCK] * 240}})
"""The 1.5B's ``edit`` that held the same block 240 times, until the 8 192-token cap (issue 27)."""


def _pieces(text: str, size: int = 4) -> list[str]:
    return [text[index : index + size] for index in range(0, len(text), size)]


def _parser(**options: object) -> tuple[TurnParser, AssistantMessage, list[str]]:
    output = AssistantMessage(
        content=[], api="local", provider="local", model="m", stop_reason="pending", timestamp=0
    )
    cuts: list[str] = []
    parser = TurnParser(
        AssistantMessageEventStream(),
        output,
        thinking=False,
        on_cut=cuts.append,
        **options,  # type: ignore[arg-type]
    )
    return parser, output, cuts


def test_the_repeated_edit_block_is_cut_off_after_a_few_repeats() -> None:
    parser, output, cuts = _parser(hold_calls=True)
    fed = 0
    for piece in _pieces("<tool_call>\n" + RUNAWAY_EDIT + "\n</tool_call>"):
        parser.feed(piece)
        fed += len(piece)
        if cuts:
            break
    parser.finish()
    block_size = len(json.dumps(BLOCK)) + 2
    assert cuts == [REPEATED] and parser.cut == REPEATED and not parser.cut_streamed
    assert fed < 6 * block_size  # cut off early: a few blocks in, not 240
    assert parser.held == [] and output.content == []  # nothing of it runs or shows


def test_a_streamed_call_that_runs_away_is_reported_as_streamed() -> None:
    parser, _output, cuts = _parser()
    for piece in _pieces(RUNAWAY_EDIT):
        parser.feed(piece)
        if cuts:
            break
    assert cuts == [REPEATED] and parser.cut_streamed  # the caller ends the turn with an error


def test_a_call_over_the_length_cap_is_cut_off() -> None:
    lines = "".join(f"value_{index} = compute({index}, step={index * 7})\n" for index in range(600))
    call = json.dumps({"name": "write", "arguments": {"path": "big.py", "content": lines}})
    assert len(call) > MAX_CALL_CHARS and repeated_tail(call[:MAX_CALL_CHARS]) is None
    parser, _output, cuts = _parser(hold_calls=True)
    for piece in _pieces(call, 16):
        parser.feed(piece)
    parser.finish()
    assert cuts == [TOO_LONG] and parser.held == []


@pytest.mark.parametrize(
    "text",
    [
        # real code with short repeated pieces: never a loop
        "# " + "-" * 300 + "\n",
        "matrix = [\n" + "    [0, 0, 0, 0, 0, 0, 0, 0],\n" * 12 + "]\n",
        "def test_add():\n    assert add(1, 2) == 3\n    assert add(2, 2) == 4\n    assert add(0, 0) == 0\n",
        "".join(f"    case {index}: return handler_{index}(request)\n" for index in range(40)),
    ],
)
def test_ordinary_file_contents_are_not_taken_for_a_loop(text: str) -> None:
    raw = json.dumps({"path": "a.py", "content": text})
    watch = CallWatch()
    assert all(watch.check(raw[:end]) is None for end in range(1, len(raw) + 1))


def test_the_same_lines_written_over_and_over_in_a_string_are_a_loop() -> None:
    new_text = "def square(n):\n    return n * n\n" * 60
    raw = json.dumps({"path": "calc.py", "edits": [{"oldText": "def square(n):", "newText": new_text}]})
    watch = CallWatch()
    assert any(watch.check(raw[:end]) == REPEATED for end in range(1, len(raw) + 1))


def test_the_length_cap_is_read_when_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_runaway, "MAX_CALL_CHARS", 50)
    assert CallWatch().check("x" * 51) == TOO_LONG


@pytest.mark.parametrize(
    ("answer", "shown"),
    [
        # the 1.5B replied with the note it had been given after a passing test run (issue 27)
        (f"{DONE_NOTE}\n\nThe test passes now.", "The test passes now."),
        (f"The port is 8080. {ANSWER_NOTE}", "The port is 8080."),
        ("Those tool calls are done. The file has 3 functions.", "The file has 3 functions."),
        (f"{EDIT_NOTE} I changed `add` to return a + b.", "I changed `add` to return a + b."),
        (
            "The test passes. Stop once the task is done: never undo, delete or rewrite your own changes.",
            "The test passes.",
        ),
        ("Done: I read the file and ran the tests.", "Done: I read the file and ran the tests."),
    ],
)
def test_our_notes_never_reach_the_answer(answer: str, shown: str) -> None:
    notes = (*OWN_NOTES, EDIT_NOTE, DONE_NOTE, ANSWER_NOTE)
    parser, output, _cuts = _parser(hidden_notes=notes)
    for piece in _pieces(answer, 3):
        parser.feed(piece)
    parser.finish()
    assert [block.text for block in output.content if isinstance(block, TextContent)] == [shown]


def test_a_note_split_across_pieces_is_held_until_settled() -> None:
    notes = NoteFilter([DONE_NOTE])
    shown = [notes.feed(piece) for piece in _pieces("Yes. " + DONE_NOTE + " Bye.", 2)]
    assert "".join(shown) + notes.flush() == "Yes.  Bye.".replace("  ", " ")
    assert all("command succeeded" not in piece for piece in shown)


def test_every_sentence_of_the_tool_hint_is_a_hidden_fragment() -> None:
    fragments = NoteFilter([TOOL_HINT]).fragments
    for sentence in TOOL_HINT.split(". "):
        assert any(sentence.rstrip(".") in fragment for fragment in fragments)


def test_a_held_answer_shows_only_when_released() -> None:
    parser, output, _cuts = _parser(hold_text=True)
    for piece in _pieces("I fixed the bug in calc.py.", 5):
        parser.feed(piece)
    parser.finish()
    assert parser.held_text == "I fixed the bug in calc.py." and output.content == []
    parser.drop_text()
    for piece in _pieces("Nothing was changed: the test still fails.", 5):
        parser.feed(piece)
    parser.finish()
    parser.release_text()
    assert [block.text for block in output.content if isinstance(block, TextContent)] == [
        "Nothing was changed: the test still fails."
    ]


# ------------------------------------------------------------------ through the real model (SmolLM2 135M)

WEATHER = Tool(
    name="get_weather",
    description="Weather for a city",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def _weather_context(text: str, tools: list[Tool] | None = None) -> Context:
    return Context(
        system_prompt="You answer questions about the weather.",
        messages=[UserMessage(content=text, timestamp=0)],
        tools=tools,
    )


async def test_an_answer_that_fails_the_check_is_written_again_once_and_never_shown() -> None:
    checked: list[str] = []

    def check(text: str) -> str | None:
        checked.append(text)
        return "(Answer in one word.)" if len(checked) == 1 else None

    events = stream(
        local_model(SMOKE_MODEL, max_tokens=24),
        _weather_context("Say hello."),
        LocalOptions(answer_check=check),
    )
    deltas = [event.delta async for event in events if isinstance(event, TextDeltaEvent)]
    message = await events.result()
    assert len(checked) == 1 and checked[0]  # asked once, about the first answer
    final = message.content[0]
    assert isinstance(final, TextContent) and "".join(deltas).strip() == final.text
    assert message.stop_reason in ("stop", "length") and message.usage.output > 0


async def test_a_call_over_the_cap_is_written_again_then_reported_never_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_runaway, "MAX_CALL_CHARS", 30)  # every call of this model runs over it
    held = LocalOptions(tool_choice="required", copy_source=lambda _tool, _key, _value: None)
    events = stream(
        local_model(SMOKE_MODEL, max_tokens=120), _weather_context("Weather in Paris?", [WEATHER]), held
    )
    message = await events.result()
    assert message.stop_reason == "error" and message.error_message == cut_error(TOO_LONG)
    assert "30 characters" in (message.error_message or "")
    assert not is_retryable_assistant_error(message)  # the same prompt would run away the same way
    assert not any(isinstance(block, ToolCall) for block in message.content)


async def test_a_streamed_call_over_the_cap_ends_the_turn_with_the_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_runaway, "MAX_CALL_CHARS", 30)
    events = stream(
        local_model(SMOKE_MODEL, max_tokens=120),
        _weather_context("Weather in Paris?", [WEATHER]),
        LocalOptions(tool_choice="required"),
    )
    message = await events.result()
    assert message.stop_reason == "error" and message.error_message == cut_error(TOO_LONG)
