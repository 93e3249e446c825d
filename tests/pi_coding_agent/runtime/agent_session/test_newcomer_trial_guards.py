"""The guards added after the newcomer trial of 2026-12-07 (issue 27, docs/providers/local-bench.md),
each checked on the 1.5B's real transcript from that trial (``fixtures/newcomer_trial/``, the
session's messages with the trial folder written as ``{cwd}``) and on cases of its own:

- a test the user wants passing is not changed (the 1.5B swapped the asserts of ``test_temps.py``);
- an answer that repeats a guard's refusal is written again (its answer was the refusal's advice);
- an answer to "run this and tell me" must give the output (it said "the output was printed");
- an edit that changes more than the quoted change asked for is refused (it dropped ``{name}``);
- the edit note's "The changed part now reads:" never reaches the user (it opened its answer so);
- a ``write`` or ``edit`` for a question that asks for no change is refused (asked "What is
  17 + 25?", it wrote ``sum.txt``: a fresh machine, the same day);
- a ``write`` wrapped in a Markdown fence, or one that drops lines of a file the task edited, is
  refused (after setting a value, it wrote ``config.py`` again fenced and cut: the second trial);
- an answer that says the tests pass, with no command run since the task's last change, is
  written again (it said so of a ``discount.py`` it had broken further: the second trial);
- an ``edit`` (or a ``write`` over an existing file) that breaks the file is refused: unparsable,
  a name defined twice, or code left after a ``return`` (its edit put a copy of the wrong
  ``return`` above ``discount.py``'s docstring: the second trial).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from pi_agent import AfterToolCallContext, AgentContext, AgentToolResult, BeforeToolCallContext
from pi_ai import (
    AssistantMessage,
    Context,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    content_text,
    message_from_dict,
)
from pi_ai.api.local import ANSWER_CHECK_OPTION, HIDDEN_NOTES_OPTION
from pi_ai.api.local._notes import NoteFilter
from pi_coding_agent.core.tools import EditTool, create_tools, edited_text
from pi_coding_agent.runtime.agent_session._file_damage import damage_refusal, dropped_text_refusal
from pi_coding_agent.runtime.agent_session._local_aids import (
    ANSWER_NOTE,
    CLAIM_NOTE,
    ECHO_NOTE,
    REPORT_NOTE,
    TESTS_NOTE,
    answer_check,
    claims_tests_pass,
    echoes,
    hidden_notes,
    reports,
    with_result_notes,
)
from pi_coding_agent.runtime.agent_session._test_run import SuiteRun, after_change_tests
from pi_coding_agent.runtime.agent_session._user_request import asks_no_change, may_drop_text
from pi_coding_agent.runtime.agent_session._write_guard import (
    fence_refusal,
    is_test_file,
    kept_test_refusal,
    question_refusal,
    refusal,
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
    "Run python3 stats.py and tell me what it prints.",
    "Please run count_words.py on poem.txt and let me know the counts.",  # the second trial
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
    assert "\n" not in (question_refusal(request_text) or "")


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
    assert (
        reason is not None
        and reason.startswith("Not changed:")
        and "reply to the user with the answer" in reason
    )
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
    assert notes("Run a.py and tell me what it prints.", "bash") == ["x = 1", ANSWER_NOTE]
    assert notes("Run the tests and fix what fails.", "bash") == ["x = 1"]


# ------------------------------------------------------------ the TUI: a value set, then the file written again

CONFIG = (
    '"""Settings for the downloader."""\n\nBASE_URL = "https://example.org/files"\nMAX_RETRIES = 3\n'
    'TIMEOUT_SECONDS = 20\nUSER_AGENT = "downloader/1.0"\n'
)


def test_the_trials_write_after_the_edit_is_refused(tmp_path: Path) -> None:
    """Told "In config.py, set MAX_RETRIES to 5." (the TUI, 2026-12-07, after the question guard),
    the 1.5B made the edit, then wrote config.py again in a Markdown fence with the docstring's
    closing quotes cut: a syntax error, and "has been updated" as the answer."""
    edited = CONFIG.replace("MAX_RETRIES = 3", "MAX_RETRIES = 5")
    (tmp_path / "config.py").write_text(edited)
    messages = _transcript("tui-set-value-write-after-edit.jsonl", tmp_path)
    (edit_index, edit), (write_index, write) = _calls(messages)
    assert _guard(tmp_path, messages[:edit_index], edit) is None  # the asked edit goes through
    reason = _guard(tmp_path, messages[:write_index], write)
    assert reason is not None and reason.startswith("Not written:") and "```" in reason
    assert "\n" not in reason
    # Without the fence, the write still drops the docstring line the edit left as it was.
    content = write.arguments["content"]
    unfenced = content.removeprefix("```python\n").removesuffix("\n```")
    dropped = refusal("config.py", "edited", edited, unfenced)
    assert (
        dropped is not None and "drops 1 of its lines" in dropped and "Settings for the downloader" in dropped
    )
    assert refusal("config.py", "edited", edited, edited + "LOG_LEVEL = 'info'\n") is None  # keeps every line


def test_which_fenced_writes_are_refused() -> None:
    fenced = "```python\nprint('hi')\n```"
    assert fence_refusal("hello.py", fenced) is not None
    assert fence_refusal("hello.sh", "```\necho hi\n```\n") is not None
    assert fence_refusal("README.md", fenced) is None  # Markdown may well hold a fence
    assert fence_refusal("notes.txt", fenced) is None
    assert fence_refusal("hello.py", "print('hi')\n") is None
    assert fence_refusal("doc.py", '"""Example:\n\n```python\nx = 1\n```\n"""\n') is None  # a fence inside


# ------------------------------------------------------------ print mode: a fix, then "the tests now pass" untested

DISCOUNT = (
    'def apply_discount(price, percent):\n    """The price after taking off ``percent`` per cent."""\n'
    "    return price * percent / 100\n"
)
TEST_DISCOUNT = (
    "from discount import apply_discount\n\n\ndef test_ten_percent_off():\n    assert apply_discount(200, 10) == 180\n\n\n"
    "def test_no_discount():\n    assert apply_discount(50, 0) == 50\n"
)


def test_the_trials_write_that_dropped_the_docstring_is_refused(tmp_path: Path) -> None:
    """Told "test_discount.py fails. Fix discount.py so the test passes." (2026-12-07), the 1.5B
    tried to edit the test (refused), added a copy of the wrong ``return`` above the docstring, then
    wrote the file again with the docstring turned into a comment."""
    messages = _transcript("print-fix-discount.jsonl", tmp_path)
    calls = _calls(messages)
    assert [call.name for _, call in calls] == ["edit", "edit", "write"]
    (tmp_path / "discount.py").write_text(
        DISCOUNT.replace(":\n", ":\n    return price * percent / 100\n", 1)
    )  # as the second edit left it
    reason = _guard(tmp_path, messages[: calls[2][0]], calls[2][1])
    assert reason is not None and "drops 1 of its lines" in reason and "The price after" in reason


def test_the_trials_untested_claim_that_the_tests_pass_is_written_again(tmp_path: Path) -> None:
    messages = _transcript("print-fix-discount.jsonl", tmp_path)
    answer = _final_answer(messages)
    assert "now pass" in answer
    assert _checked(messages[:-1], answer) == TESTS_NOTE
    assert _checked(messages[:-1], "I changed discount.py; I have not run the tests.") is None
    ran = ToolCall(id="t", name="bash", arguments={"command": "python3 -m pytest -q", "timeout": 60})
    after_run = [
        *messages[:-1],
        AssistantMessage(
            content=[ran], api="local", provider="local", model="m", stop_reason="toolUse", timestamp=0
        ),
        ToolResultMessage(
            tool_call_id="t",
            tool_name="bash",
            content=[TextContent(text="2 passed")],
            is_error=False,
            timestamp=0,
        ),
    ]
    assert _checked(after_run, answer) is None  # once a command ran after the change, it is its output's word


@pytest.mark.parametrize(
    ("answer", "claims"),
    [
        ("The tests in test_discount.py now pass.", True),
        ("All tests passed.", True),
        ("test_discount.py should pass now.", True),
        ("The fix makes test_temps pass.", True),
        ("I fixed the discount; run the tests to check.", False),
        ("The function now passes the price through unchanged when percent is 0.", False),
    ],
)
def test_what_claims_that_tests_pass(answer: str, claims: bool) -> None:
    assert claims_tests_pass(answer) is claims


# ------------------------------------------------------------ print mode: run and report, then a write of the input


def test_the_trials_write_of_the_input_after_the_run_is_refused(tmp_path: Path) -> None:
    """Told "Please run count_words.py on poem.txt and let me know the counts." (2026-12-07), the
    1.5B ran it, wrote poem.txt back (its last newline lost) and answered that the counts had been
    written into poem.txt, with no count in the answer."""
    (tmp_path / "poem.txt").write_text(
        "The rain falls on the roof\nand the roof sings back\nthe rain falls and falls\n"
    )
    messages = _transcript("print-run-and-report-counts.jsonl", tmp_path)
    (_, run), (write_index, write) = _calls(messages)
    assert run.name == "bash" and write.name == "write"
    reason = _guard(tmp_path, messages[:write_index], write)
    assert reason is not None and reason.startswith("Not changed: the user asked")
    # After the refusal, the answer must give the counts the command printed.
    refused = ToolResultMessage(
        tool_call_id=write.id,
        tool_name="write",
        content=[TextContent(text=reason)],
        is_error=True,
        timestamp=0,
    )
    before_answer = [*messages[:write_index], messages[write_index], refused]
    assert _checked(before_answer, _final_answer(messages)) == REPORT_NOTE
    assert _checked(before_answer, "count_words.py printed: 16 words, 8 distinct.") is None


# ------------------------------------------------------------ an edit that breaks the file


def test_the_trials_edit_that_put_a_return_above_the_docstring_is_refused(tmp_path: Path) -> None:
    """The second trial's task 2: after the refused test edit, the 1.5B replaced the ``def`` line
    of ``apply_discount`` with itself plus a copy of the wrong ``return`` (the docstring and the
    old ``return`` left below it, never run). Refused for the local model only."""
    (tmp_path / "discount.py").write_text(DISCOUNT)
    messages = _transcript("print-fix-discount.jsonl", tmp_path)
    (_, test_edit), (edit_index, edit), _ = _calls(messages)
    assert test_edit.arguments["path"] == "test_discount.py" and edit.arguments["path"] == "discount.py"
    reason = _guard(tmp_path, messages[:edit_index], edit)
    assert reason is not None and reason.startswith("Not changed:")
    assert "after a return in apply_discount" in reason and "discount.py" in reason and "\n" not in reason
    assert _guard(tmp_path, messages[:edit_index], edit, api="openai-completions") is None
    assert (tmp_path / "discount.py").read_text() == DISCOUNT  # the guard only judges
    # The fix the test wants goes through.
    right = ToolCall(
        id="r",
        name="edit",
        arguments={
            "path": "discount.py",
            "edits": [
                {"oldText": "return price * percent / 100", "newText": "return price - price * percent / 100"}
            ],
        },
    )
    assert _guard(tmp_path, messages[:edit_index], right) is None


SLUG = (
    'import re\n\n\ndef slugify(text):\n    text = text.lower()\n    return re.sub(r"\\s+", "_", text)\n\n\n'
    "def title(text):\n    return text.title()\n"
)
NEW_SLUGIFY = 'def slugify(text):\n    words = text.lower().split()\n    return "-".join(words)'


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        # A new function in place of the first line, the old body left below it.
        (SLUG, SLUG.replace("def slugify(text):", NEW_SLUGIFY), "after a return in slugify"),
        # A new function added above the old one, which stays.
        (SLUG, SLUG.replace("def slugify(text):", NEW_SLUGIFY + "\n\n\ndef slugify(text):"), "slugify twice"),
        # A second method of the same name in a class.
        (
            "class Cart:\n    def total(self):\n        return 0\n",
            "class Cart:\n    def total(self):\n        return 1\n\n    def total(self):\n        return 0\n",
            "Cart.total twice",
        ),
        (SLUG, SLUG.replace("text.title()", "text.title("), "unparsable (line 10: "),
        (SLUG, SLUG.replace("    text = text.lower()", "  text = text.lower()"), "unparsable (line 6: "),
        ('{"port": 5127, "debug": false}\n', '{"port": 5128, "debug": false,}\n', "unparsable (line 1: "),
        ('[tool]\nname = "x"\n', '[tool]\nname = "x"\nname = "y"\n', "unparsable ("),
    ],
)
def test_edits_that_break_a_file_are_refused(old: str, new: str, expected: str) -> None:
    suffix = ".json" if old.startswith("{") else ".toml" if old.startswith("[") else ".py"
    reason = damage_refusal(f"f{suffix}", old, new)
    assert reason is not None and expected in reason and reason.startswith("Not changed:")


@pytest.mark.parametrize(
    ("path", "old", "new"),
    [
        ("f.py", SLUG, SLUG.replace('"_"', '"-"')),  # a change inside the body
        ("f.py", SLUG, SLUG + "\n\ndef shout(text):\n    return text.upper()\n"),  # a new name
        (
            "f.py",
            SLUG.replace("text.title()", "text.title("),
            SLUG.replace("text.title()", "text.title(")[:-2],
        ),
        # A property's setter and an overload repeat a name on purpose.
        (
            "f.py",
            "class A:\n    @property\n    def x(self):\n        return 1\n",
            "class A:\n    @property\n    def x(self):\n        return 1\n\n    @x.setter\n    def x(self, v):\n        pass\n",
        ),
        # Code after a return that was there before is no new damage.
        ("f.py", "def f():\n    return 1\n    x = 2\n", "def f():\n    return 2\n    x = 2\n"),
        (
            "f.py",
            "def f(xs):\n    for x in xs:\n        if x:\n            continue\n    return 1\n",
            "def f(xs):\n    return 1\n",
        ),
        ("app.js", "const a = 1;\n", "const a = ;\n"),  # a language the guard does not parse
        ("data.json", '{"a": 1}\n', '{"a": 2}\n'),
    ],
)
def test_edits_that_keep_a_file_whole_pass(path: str, old: str, new: str) -> None:
    assert damage_refusal(path, old, new) is None


def test_a_write_that_breaks_an_existing_file_is_refused_and_a_new_file_is_not_judged(tmp_path: Path) -> None:
    (tmp_path / "slug.py").write_text(SLUG)
    broken = ToolCall(
        id="w", name="write", arguments={"path": "slug.py", "content": SLUG.replace("):", ")", 1)}
    )
    request = [UserMessage(content="Rewrite slug.py to use hyphens.", timestamp=0)]
    reason = _guard(tmp_path, request, broken)
    assert reason is not None and reason.startswith(
        "Not written: this would leave slug.py unparsable (line 4:"
    )
    assert _guard(tmp_path, request, broken, api="openai-completions") is None
    fresh = ToolCall(id="n", name="write", arguments={"path": "new.py", "content": "def f(:\n"})
    assert _guard(tmp_path, request, fresh) is None  # nothing parsed before: nothing to keep


def test_the_judged_result_is_what_the_edit_tool_writes(tmp_path: Path) -> None:
    """``edited_text`` and the ``edit`` tool share the matching (CRLF file, a fuzzy quote match)."""
    target = tmp_path / "q.py"
    target.write_bytes(b"def f():\r\n    return \xe2\x80\x9chi\xe2\x80\x9d\r\n")
    edits = [{"oldText": 'return "hi"', "newText": 'return "hello"'}]
    predicted = edited_text("q.py", str(tmp_path), edits)
    asyncio.run(EditTool(str(tmp_path)).execute("e", {"path": "q.py", "edits": edits}, None, None))
    assert predicted is not None and predicted == target.read_bytes().decode().replace("\r\n", "\n")
    assert edited_text("q.py", str(tmp_path), [{"oldText": "absent", "newText": "x"}]) is None
    assert edited_text("missing.py", str(tmp_path), edits) is None


# ------------------------------------------------------------ print mode: the rerun with the edit guard (docstring dropped, "The task is done.")

DOC = '"""The price after taking off ``percent`` per cent."""'


@pytest.mark.parametrize(
    ("path", "old", "new", "named"),
    [
        ("d.py", DISCOUNT, DISCOUNT.replace(f"    {DOC}\n", ""), "docstring of apply_discount"),
        ("d.py", DISCOUNT, DISCOUNT.replace(f"    {DOC}\n", "    # The price after taking off percent per cent.\n"), "docstring"),
        ("d.py", '"""Prices."""\n\nX = 1\n', "X = 1\n", "docstring of the module"),
        ("d.py", 'class A:\n    def f(self):\n        """Say hi."""\n        return 1\n', "class A:\n    def f(self):\n        return 1\n", "A.f"),
        ("d.py", "# Retries before giving up.\nMAX_RETRIES = 3\n", "MAX_RETRIES = 5\n", "the comment 'Retries before giving up.'"),
        ("run.sh", "#!/bin/sh\n# Build the site first.\nmake\n", "#!/bin/sh\nmake\n", "Build the site first."),
        ("a.js", "// Adds two numbers.\nfunction add(a, b) { return a - b; }\n", "function add(a, b) { return a + b; }\n", "Adds two numbers."),
    ],
)
def test_changes_that_drop_a_docstring_or_a_comment_are_refused(path: str, old: str, new: str, named: str) -> None:
    reason = dropped_text_refusal(path, old, new)
    assert reason is not None and named in reason and "\n" not in reason


@pytest.mark.parametrize(
    ("path", "old", "new"),
    [
        ("d.py", DISCOUNT, DISCOUNT.replace("price * percent / 100", "price - price * percent / 100")),  # the fix
        ("d.py", DISCOUNT, DISCOUNT.replace("per cent.", "per cent, as a float.")),  # reworded
        ("d.py", "# Three retries.\nMAX_RETRIES = 3\n", "# Five retries.\nMAX_RETRIES = 5\n"),  # reworded with the value
        ("d.py", "X = 1  # one\n", "X = 2  # two\n"),  # a trailing comment is no comment line
        ("d.py", "def f():\n    # TODO: handle zero\n    return 1 / 0\n", "def f():\n    return 0\n"),  # a to-do done
        ("d.py", "def f():\n    # print(1)\n    return 1\n", "def f():\n    print(1)\n    return 1\n"),  # uncommented
        ("d.py", "# Shared.\nA = 1\nB = 2\n", "A = 1\n# Shared.\nB = 2\n"),  # moved
        ("d.py", "def f():\n    return 1\n", 'def f():\n    """One."""\n    return 1\n'),  # a docstring added
        ("notes.txt", "# title\ntext\n", "text\n"),  # a kind of file whose comments are not known
        ("d.py", "def f(:\n", "def f():\n    pass\n"),  # broken before: nothing to keep
    ],
)
def test_changes_that_keep_docstrings_and_comments_pass(path: str, old: str, new: str) -> None:
    assert dropped_text_refusal(path, old, new) is None


@pytest.mark.parametrize(
    ("request_text", "may"),
    [
        ("Remove the unused helper from utils.py.", True),
        ("Update the docstring of area().", True),
        ("Move MAX_RETRIES into settings.py.", True),
        ("Refactor parse() into two functions.", True),
        ("test_discount.py fails. Fix discount.py so the test passes.", False),
        ("In config.py, set MAX_RETRIES to 5.", False),
        ('In farewell.py, change "Bye" to "See you".', False),
    ],
)
def test_which_requests_may_drop_docstrings_or_comments(request_text: str, may: bool) -> None:
    assert may_drop_text(request_text) is may


def test_the_reruns_edit_that_dropped_the_docstring_is_refused(tmp_path: Path) -> None:
    """The rerun with the edit guard (2026-12-07): after its edit putting a ``return`` above the
    docstring was refused, the 1.5B replaced ``apply_discount`` with its ``def`` line and the same
    wrong ``return``; that edit, and the ``write`` of the same text after it, drop the docstring."""
    (tmp_path / "discount.py").write_text(DISCOUNT)
    (tmp_path / "test_discount.py").write_text(TEST_DISCOUNT)
    messages = _transcript("print-fix-discount-edit-guard.jsonl", tmp_path)
    calls = _calls(messages)
    assert [call.name for _, call in calls] == ["edit", "edit", "edit", "write", "bash"]
    index, edit = calls[2]
    reason = _guard(tmp_path, messages[:index], edit)
    assert reason is not None and "docstring of apply_discount" in reason and "did not ask to remove" in reason
    assert _guard(tmp_path, messages[:index], edit, api="openai-completions") is None  # local only
    write = calls[3][1]
    reason = _guard(tmp_path, messages[:index], write)  # next, as the edit was refused: nothing read or edited
    assert reason is not None and reason.startswith("Not written:") and "docstring of apply_discount" in reason
    fixed = ToolCall(
        id="f",
        name="edit",
        arguments={"path": "discount.py", "edits": [{"oldText": "return price * percent / 100", "newText": "return price - price * percent / 100"}]},
    )
    assert _guard(tmp_path, messages[:index], fixed) is None  # the fix itself passes
    assert (tmp_path / "discount.py").read_text() == DISCOUNT


def test_the_reruns_answer_after_a_command_that_ran_no_test_is_written_again(tmp_path: Path) -> None:
    messages = _transcript("print-fix-discount-edit-guard.jsonl", tmp_path)
    answer = _final_answer(messages)
    assert answer == "The task is done."
    bash = _calls(messages)[-1][1]
    assert bash.arguments["command"] == "python test_discount.py"  # it printed "(no output)"
    assert _checked(messages[:-1], answer) == TESTS_NOTE
    assert _checked(messages[:-1], "I changed discount.py, but the test still fails.") is None
    shown = with_result_notes(Context(system_prompt="s", messages=messages[:-1], tools=TOOLS)).messages[-1]
    assert isinstance(shown, ToolResultMessage) and content_text(shown.content, "") == "(no output)"  # no DONE_NOTE


def test_the_reruns_write_is_followed_by_the_real_test_run(tmp_path: Path) -> None:
    """Replayed on the files as the rerun's write left them: the write's result gets the run of
    test_discount.py (real pytest), which fails; with the fix instead, it passes and the answer
    "The task is done." is accepted."""
    (tmp_path / "test_discount.py").write_text(TEST_DISCOUNT)
    messages = _transcript("print-fix-discount-edit-guard.jsonl", tmp_path)
    index, write = _calls(messages)[3]
    result_index = index + 1
    (tmp_path / "discount.py").write_text(write.arguments["content"])

    def replay() -> list[Any]:
        result = messages[result_index]
        followup = after_change_tests(str(tmp_path))(
            AfterToolCallContext(
                assistant_message=messages[index], tool_call=write, args=write.arguments,
                result=AgentToolResult(content=list(result.content), details=result.details), is_error=False,
                context=AgentContext(system_prompt="", messages=messages[:index], tools=[]),
            ),
            None,
        )  # fmt: skip
        done = asyncio.run(followup)
        assert done is not None
        return [*messages[:result_index], msgspec.structs.replace(result, details=done.details), *messages[result_index + 1 :]]

    failing = replay()
    run = SuiteRun.from_details(failing[result_index].details)
    assert run is not None and not run.passed and "assert 20.0 == 180" in run.shown
    seen = with_result_notes(Context(system_prompt="s", messages=failing[:-1], tools=TOOLS)).messages[result_index]
    assert "assert 20.0 == 180" in content_text(seen.content, "")  # the model sees why
    assert _checked(failing[:-1], "The task is done.") == TESTS_NOTE
    (tmp_path / "discount.py").write_text(DISCOUNT.replace("price * percent / 100", "price - price * percent / 100"))
    passing = replay()
    run = SuiteRun.from_details(passing[result_index].details)
    assert run is not None and run.passed
    before_bash = passing[: _calls(passing)[-1][0]]
    assert _checked(before_bash, "The task is done.") is None


def test_the_heal_reruns_claim_with_nothing_changed_and_no_test_run_is_written_again(tmp_path: Path) -> None:
    """The rerun with the test run after a change (2026-12-07): the edit of the test refused, the
    1.5B changed nothing and answered that the code "is already set up to pass the provided tests"."""
    (tmp_path / "discount.py").write_text(DISCOUNT)
    (tmp_path / "test_discount.py").write_text(TEST_DISCOUNT)
    messages = _transcript("print-fix-discount-nothing-changed.jsonl", tmp_path)
    answer = _final_answer(messages)
    assert "already set up to pass the provided tests" in answer
    assert _checked(messages[:-1], answer) == TESTS_NOTE
    assert _checked(messages[:-1], "I have not found the bug; the tests still fail.") is None


def test_the_heal_reruns_shell_redirect_over_the_file_is_refused(tmp_path: Path) -> None:
    """The next rerun (2026-12-07): its edits refused (code after a return), the 1.5B wrote
    ``echo 'def apply_discount...' > discount.py`` through bash, dropping the docstring."""
    (tmp_path / "discount.py").write_text(DISCOUNT)
    (tmp_path / "test_discount.py").write_text(TEST_DISCOUNT)
    messages = _transcript("print-fix-discount-shell-redirect.jsonl", tmp_path)
    redirects = [(index, call) for index, call in _calls(messages) if call.name == "bash" and ">" in call.arguments["command"]]
    assert len(redirects) == 1 and "> " + str(tmp_path / "discount.py") in redirects[0][1].arguments["command"]
    index, call = redirects[0]
    reason = _guard(tmp_path, messages[:index], call)
    assert reason is not None and reason.startswith("Not changed:") and "overwrite" in reason
    assert _guard(tmp_path, messages[:index], call, api="openai-completions") is None
    assert (tmp_path / "discount.py").read_text() == DISCOUNT


@pytest.mark.parametrize(
    ("command", "request_text", "refused"),
    [
        ("cat > discount.py <<'EOF'\nx = 1\nEOF", "Fix discount.py.", True),
        ("python3 gen.py | tee discount.py", "Fix discount.py.", True),
        ("python3 gen.py > discount.py", "Run python3 gen.py > discount.py and tell me what it wrote.", False),
        ("echo hi > new.txt", "Fix discount.py.", False),  # a new file
        ("echo '# note' >> discount.py", "Fix discount.py.", False),  # an append
        ("python3 test_discount.py 2>&1 > /dev/null", "Fix discount.py.", False),
        ("python3 -m pytest -q", "Fix discount.py.", False),
        ("sed -i 's/0.9/0.8/' discount.py", "Fix discount.py.", True),
        ("sed -i.bak -e 's/a/b/' discount.py", "Fix discount.py.", True),
        ("sed -Ei 's/a/b/' discount.py && python3 -m pytest", "Fix discount.py.", True),
        ("sed -n '1,5p' discount.py", "Fix discount.py.", False),  # prints only
        ("sed -i 's/a/b/' discount.py", "Use sed to change a to b in discount.py.", False),
        ("cp other.py discount.py", "Fix discount.py.", True),
        ("ls; mv -f other.py discount.py", "Fix discount.py.", True),
        ("cp discount.py backup.py", "Fix discount.py.", False),  # a new file
        ("cp -n other.py discount.py", "Fix discount.py.", False),  # no clobber
        ("echo 'unbalanced > discount.py", "Fix discount.py.", True),  # the redirect rule still reads it
    ],
)
def test_which_shell_commands_overwrite_a_file(tmp_path: Path, command: str, request_text: str, refused: bool) -> None:
    (tmp_path / "discount.py").write_text(DISCOUNT)
    call = ToolCall(id="b", name="bash", arguments={"command": command})
    reason = _guard(tmp_path, [UserMessage(content=request_text, timestamp=0)], call)
    assert (reason is not None) is refused


def test_the_third_reruns_paraphrase_of_the_tests_note_is_kept_from_the_user() -> None:
    """The third rerun's answer after ``TESTS_NOTE``: its advice to the model, repeated as advice to
    the user. Each piece of the note is a sentence of its own, so the filter removes it."""
    notes = NoteFilter(hidden_notes()[HIDDEN_NOTES_OPTION])
    answer = "The tests do not pass yet. Run the tests with bash and fix what fails."
    shown = notes.feed(answer) + notes.flush()
    assert shown.strip() == "The tests do not pass yet."
