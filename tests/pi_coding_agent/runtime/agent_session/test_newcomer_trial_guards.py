"""The guards added after the newcomer trial of 2026-12-07 (issue 27, docs/providers/local-bench.md),
each checked on the 1.5B's real transcript from that trial (``fixtures/newcomer_trial/``, the
session's messages with the trial folder written as ``{cwd}``) and on cases of its own:

- a test the user wants passing is not changed (the 1.5B swapped the asserts of ``test_temps.py``);
- an answer that repeats a guard's refusal is written again (its answer was the refusal's advice);
- an answer to "run this and tell me" must give the output (it said "the output was printed");
- an edit that changes more than the quoted change asked for is refused (it dropped ``{name}``);
- the edit note's "The changed part now reads:" never reaches the user (it opened its answer so);
- a ``write`` or ``edit`` for a question that asks for no change is refused (asked "What is
  17 + 25?", it wrote ``sum.txt``: a fresh machine, the same day).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from pi_agent import AgentContext, BeforeToolCallContext
from pi_ai import (
    AssistantMessage,
    Context,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    message_from_dict,
)
from pi_ai.api.local import ANSWER_CHECK_OPTION, HIDDEN_NOTES_OPTION
from pi_ai.api.local._notes import NoteFilter
from pi_coding_agent.core.tools import create_tools
from pi_coding_agent.runtime.agent_session._local_aids import (
    ANSWER_NOTE,
    CLAIM_NOTE,
    ECHO_NOTE,
    REPORT_NOTE,
    answer_check,
    echoes,
    hidden_notes,
    reports,
    with_result_notes,
)
from pi_coding_agent.runtime.agent_session._write_guard import (
    asks_no_change,
    is_test_file,
    kept_test_refusal,
    question_refusal,
    replacement_refusal,
    write_guard,
)

FIXTURES = Path(__file__).parent / "fixtures" / "newcomer_trial"
TEMPS = (
    'def to_fahrenheit(celsius):\n    """Degrees Celsius to degrees Fahrenheit."""\n    return celsius * 9 / 5 - 32\n\n\n'
    'def to_celsius(fahrenheit):\n    """Degrees Fahrenheit to degrees Celsius."""\n    return (fahrenheit - 32) * 5 / 9\n'
)
TEST_TEMPS = (
    "from temps import to_celsius, to_fahrenheit\n\n\ndef test_freezing():\n    assert to_fahrenheit(0) == 32\n\n\n"
    "def test_boiling():\n    assert to_fahrenheit(100) == 212\n\n\ndef test_back():\n    assert to_celsius(212) == 100\n"
)
FAREWELL = 'def goodbye(name):\n    return f"Bye, {name}."\n\n\ndef leave_note(name):\n    return goodbye(name) + " Take care."\n'
TOOLS = create_tools(".")


def _transcript(name: str, cwd: Path) -> list[Any]:
    text = (FIXTURES / name).read_text().replace("{cwd}", str(cwd))
    return [message_from_dict(json.loads(line)) for line in text.splitlines() if line.strip()]


def _calls(messages: list[Any]) -> list[tuple[int, ToolCall]]:
    return [
        (index, block)
        for index, message in enumerate(messages)
        if isinstance(message, AssistantMessage)
        for block in message.content
        if isinstance(block, ToolCall)
    ]


def _guard(cwd: Path, before: list[Any], call: ToolCall, api: str = "local") -> str | None:
    context = BeforeToolCallContext(
        assistant_message=AssistantMessage(
            content=[call], api=api, provider="local", model="m", stop_reason="toolUse", timestamp=0
        ),
        tool_call=call,
        args=call.arguments,
        context=AgentContext(system_prompt="", messages=before, tools=[]),
    )
    blocked = asyncio.run(write_guard(str(cwd))(context, None))
    return None if blocked is None else blocked.reason


def _final_answer(messages: list[Any]) -> str:
    last = messages[-1]
    assert isinstance(last, AssistantMessage)
    return "".join(block.text for block in last.content if isinstance(block, TextContent))


def _checked(messages: list[Any], answer: str) -> str | None:
    check = answer_check(Context(system_prompt="s", messages=messages, tools=TOOLS)).get(ANSWER_CHECK_OPTION)
    return None if check is None else check(answer)


# ------------------------------------------------------------ print mode: fix with a failing test


def test_the_trials_edits_of_the_failing_test_are_refused(tmp_path: Path) -> None:
    (tmp_path / "temps.py").write_text(TEMPS)
    (tmp_path / "test_temps.py").write_text(TEST_TEMPS)
    messages = _transcript("print-fix-failing-test.jsonl", tmp_path)
    edits = [(index, call) for index, call in _calls(messages) if call.name == "edit"]
    assert len(edits) == 3  # all three swapped an assert of test_temps.py
    for index, call in edits:
        reason = _guard(tmp_path, messages[:index], call)
        assert reason is not None and "is a test" in reason and "change the code it tests" in reason
    assert (tmp_path / "test_temps.py").read_text() == TEST_TEMPS


def test_the_trials_answer_that_repeats_the_write_refusal_is_written_again(tmp_path: Path) -> None:
    messages = _transcript("print-fix-failing-test.jsonl", tmp_path)
    answer = _final_answer(messages)
    assert "write is for new files" in answer  # the refusal's advice, as the user read it
    assert _checked(messages[:-1], answer) == ECHO_NOTE
    assert (
        _checked(messages[:-1], "I could not fix it: temps.py subtracts 32 where it should add it.") is None
    )


def test_the_rerun_claimed_the_failures_resolved_with_nothing_changed(tmp_path: Path) -> None:
    """The same task again after the guards: the 1.5B ran pytest, made two edits that changed
    nothing (refused by the edit tool), then answered that the failures were resolved."""
    messages = _transcript("print-fix-failing-test-after-guards.jsonl", tmp_path)
    answer = _final_answer(messages)
    assert answer.startswith("The test failures are resolved")
    assert _checked(messages[:-1], answer) == CLAIM_NOTE


@pytest.mark.parametrize(
    ("request_text", "path", "refused"),
    [
        ("The tests in test_temps.py fail. Fix the bug in temps.py so they pass.", "test_temps.py", True),
        ("Make test_temps.py pass.", "test_temps.py", True),
        ("Fix temps.py so that the test passes.", "tests/check_temps.py", True),
        ("The tests in test_temps.py fail. Fix the bug in temps.py so they pass.", "temps.py", False),
        (
            "Add a test for to_celsius(32) to test_temps.py and make sure the tests pass.",
            "test_temps.py",
            False,
        ),
        ("Update the test for the new rounding; the tests fail now.", "test_temps.py", False),
        ("Rename to_celsius to from_fahrenheit everywhere.", "test_temps.py", False),
    ],
)
def test_which_test_changes_are_refused(tmp_path: Path, request_text: str, path: str, refused: bool) -> None:
    (tmp_path / "tests").mkdir()
    for name in ("temps.py", "test_temps.py", "tests/check_temps.py"):
        (tmp_path / name).write_text("x = 1\n")
    assert (kept_test_refusal(path, str(tmp_path), request_text) is not None) == refused


def test_a_test_file_the_task_wrote_itself_may_be_changed(tmp_path: Path) -> None:
    (tmp_path / "test_stack.py").write_text("x = 1\n")
    request = "Create stack.py and test_stack.py; `python3 test_stack.py` must pass."
    assert kept_test_refusal("test_stack.py", str(tmp_path), request) is not None
    written = {str(tmp_path / "test_stack.py")}
    assert kept_test_refusal("test_stack.py", str(tmp_path), request, written) is None
    assert kept_test_refusal("test_new.py", str(tmp_path), request) is None  # not there yet: a new file


def test_what_counts_as_a_test_file() -> None:
    assert all(
        map(
            is_test_file,
            ["test_a.py", "a_test.go", "a.test.ts", "b.spec.js", "tests/a.py", "x/__tests__/y.js"],
        )
    )
    assert not any(map(is_test_file, ["temps.py", "testing.py", "contest.py", "latest/a.py"]))


# ------------------------------------------------------------ print mode: run this and tell me


def test_the_trials_answer_without_the_commands_output_is_written_again(tmp_path: Path) -> None:
    messages = _transcript("print-run-command.jsonl", tmp_path)
    answer = _final_answer(messages)
    assert answer.endswith("was executed, and the output was printed.")
    assert _checked(messages[:-1], answer) == REPORT_NOTE
    assert _checked(messages[:-1], "It prints: 7 words, 39 letters") is None
    assert _checked(messages[:-1], "The file has 7 words.") == REPORT_NOTE  # 39 left out


def test_the_reruns_answer_with_a_wrong_number_is_written_again(tmp_path: Path) -> None:
    """The same task after the guards: the 1.5B answered "7 words, 17 letters" (39 printed)."""
    messages = _transcript("print-run-command-after-guards.jsonl", tmp_path)
    answer = _final_answer(messages)
    assert answer.startswith("7 words, 17 letters")
    assert _checked(messages[:-1], answer) == REPORT_NOTE


def test_what_reports_a_commands_output() -> None:
    assert reports("It printed 1048583.", "1048583")
    assert reports("The output is hello world", "hello world\n")
    assert not reports("I ran python3 compute.py for you.", "3\n")  # "3" of python3 is no number
    assert not reports("The command ran fine.", "hello world")
    assert reports("It counted 7 words and 39 letters.", "7 words, 39 letters")
    assert not reports("It counted 7 words and 17 letters.", "7 words, 39 letters")
    assert reports("The first value is 4.", "1 2 3 4 5\n")  # many numbers: one is enough


def test_the_output_check_needs_a_question_about_the_output(tmp_path: Path) -> None:
    messages = _transcript("print-run-command.jsonl", tmp_path)
    not_asked = [UserMessage(content="Check that stats.py runs.", timestamp=0), *messages[1:-1]]
    assert _checked(not_asked, "It runs without errors.") is None


def test_an_echo_is_eight_words_of_a_refusal_in_a_row() -> None:
    refusal = "Not written: a.py was edited. To change part of it, use edit on a.py; write is for new files."
    assert echoes("To change part of the file, use edit on a.py; write is for new files.", [refusal])
    assert not echoes("I used edit on a.py to change part of it.", [refusal])


# ------------------------------------------------------------ the TUI: an edit in one of two files


def test_the_trials_edit_that_dropped_the_name_is_refused_with_the_right_text(tmp_path: Path) -> None:
    (tmp_path / "farewell.py").write_text(FAREWELL)
    (tmp_path / "greet.py").write_text('def hello(name):\n    return f"Hello, {name}!"\n')
    messages = _transcript("tui-edit-one-of-two.jsonl", tmp_path)
    [(index, call)] = _calls(messages)
    reason = _guard(tmp_path, messages[:index], call)
    assert reason is not None and "changes more than that" in reason
    assert repr('return f"See you, {name}."') in reason


def test_quoted_replacements(tmp_path: Path) -> None:
    request = 'In farewell.py, change "Bye" to "See you".'
    block = {"oldText": 'return f"Bye, {name}."'}
    assert replacement_refusal([{**block, "newText": 'return f"See you, {name}."'}], request) is None
    assert replacement_refusal([{**block, "newText": 'return f"See you."'}], request) is not None
    assert replacement_refusal([{**block, "newText": "return 1"}], request) is None  # not that change
    assert (
        replacement_refusal([{**block, "newText": 'return f"See you."'}], "Say goodbye differently.") is None
    )


def test_the_edit_notes_intro_never_reaches_the_answer(tmp_path: Path) -> None:
    answer = _final_answer(_transcript("tui-edit-one-of-two.jsonl", tmp_path))
    assert answer.startswith("The changed part now reads:")
    shown = NoteFilter(hidden_notes()[HIDDEN_NOTES_OPTION])
    text = (
        "".join(shown.feed(answer[index : index + 3]) for index in range(0, len(answer), 3)) + shown.flush()
    )
    assert "changed part" not in text and 'return f"See you.",' in text


# ------------------------------------------------------------ print mode: a question that asks for no change

QUESTIONS = [
    # the phrasings the classification was written on
    "What is 17 + 25?",
    "Which file defines the function parse_day?",
    "What is the timeout set to in config.toml?",
    "What does update.sh do?",
    "Don't change anything, just tell me what `fix_all` returns?",
    "Explain what calc.py does.",
    "Has the bug been fixed?",
    "How many lines does data.csv have",
    "What port does the server listen on?",
    "Why does test_calc.py fail?",
    "Tell me the version in pyproject.toml",
    # held out: written before the classification first ran on them
    "Where is the database URL configured?",
    "How does the retry loop in client.py work?",
    "Do the tests in tests/ cover the parser?",
    "What would happen if I passed None to parse()?",
    "Describe the layout of this project.",
    "Is 97 a prime number?",
    "Which version of requests does requirements.txt pin?",
    "hey, what does main.py print when run?",
    "Can you tell me what version this is?",
    "Could you explain why the cache misses?",
    "Will you check whether the config has a debug flag?",
    "Why does my script print None instead of the total?",
    "Should the constant in limits.py be 100 or 1000?",
    "Is the API key read from an environment variable?",
]
CHANGE_REQUESTS = [
    # the phrasings the classification was written on
    "Can you fix calc.py?",
    "Run python3 stats.py and tell me what it prints.",
    "Could you make the greeting friendlier?",
    "Please add a docstring.",
    "Is there a typo in README.md? Please fix it.",
    "Would you rename foo to bar?",
    "Can you check whether it is wrong and fix it?",
    "Is the file empty? If so, delete it.",
    "Can you give greet() a default argument?",  # held out, misread at first: led to _ASKED_TO_DO
    # held out: written before the classification first ran on them
    "Could you remove the unused imports from app.py?",
    "Why not just delete old.py?",
    "Would it be possible to rename the class to Store?",
    "Could you please implement the missing method?",
    "Can the function be made shorter?",
    "Fix the typo in README.md",
    "The output is wrong. Can you correct the formula in stats.py?",
    "Are you able to update the changelog?",
    "Can you create a .gitignore for Python?",
    "Can you add logging to worker.py?",
    "Could you bring the README up to date?",
    "Can you get rid of the debug prints?",
]


@pytest.mark.parametrize("request_text", QUESTIONS)
def test_a_question_asks_for_no_change(request_text: str) -> None:
    assert asks_no_change(request_text)
    assert (question_refusal(request_text) or "").startswith("Not changed: the user asked a question")


@pytest.mark.parametrize("request_text", CHANGE_REQUESTS)
def test_a_change_request_is_no_such_question(request_text: str) -> None:
    assert not asks_no_change(request_text)
    assert question_refusal(request_text) is None


def test_the_write_after_a_plain_question_is_refused(tmp_path: Path) -> None:
    """``pi -p "What is 17 + 25?"`` in an empty folder (2026-12-07): the 1.5B ran ``echo 17 + 25``,
    wrote ``sum.txt`` and answered with a narration of "the task"."""
    messages = _transcript("print-question-sum.jsonl", tmp_path)
    calls = _calls(messages)
    assert [call.name for _, call in calls] == ["bash", "write"]
    index, write = calls[1]
    reason = _guard(tmp_path, messages[:index], write)
    assert reason is not None and reason.startswith("Not changed:") and "answer to the question" in reason
    assert "\n" not in reason
    assert _guard(tmp_path, messages[: calls[0][0]], calls[0][1]) is None  # bash is not this guard's
    # The same write, asked for, goes through; and a question to another provider is Pi's as it was.
    asked = [UserMessage(content="Can you write 17 + 25 = 42 into sum.txt?", timestamp=0)]
    assert _guard(tmp_path, asked, write) is None
    assert _guard(tmp_path, messages[:index], write, api="openai-completions") is None


def test_the_note_after_a_read_or_a_command_follows_the_same_classification() -> None:
    """``ANSWER_NOTE`` ("a question needs no change to files") follows a ``read`` or a ``bash`` run
    for a question that asks for no change, not for "Can you fix X?" (which has a ``?``). Without it
    after ``bash``, the 1.5B asked "What is 17 + 25?" ran ``echo 17 + 25`` and tried to write the
    sum into a file three times."""

    def notes(text: str, tool: str) -> list[str]:
        result = ToolResultMessage(
            tool_call_id="c", tool_name=tool, content=[TextContent(text="x = 1")], is_error=False, timestamp=0
        )
        shown = with_result_notes(
            Context(messages=[UserMessage(content=text, timestamp=0), result])
        ).messages[1]
        return [block.text for block in shown.content if isinstance(block, TextContent)]

    assert notes("What is x in a.py?", "read") == ["x = 1", ANSWER_NOTE]
    assert notes("What is 17 + 25?", "bash") == ["x = 1", ANSWER_NOTE]
    assert notes("Explain a.py.", "read") == ["x = 1", ANSWER_NOTE]
    assert notes("Can you fix a.py?", "read") == ["x = 1"]
    assert notes("Run a.py and tell me what it prints.", "bash") == ["x = 1"]
