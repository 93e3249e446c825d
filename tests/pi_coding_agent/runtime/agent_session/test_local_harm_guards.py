"""The coding agent's "do no harm" guards for an in-process model (issue 27 item 5), on the 1.5B's
recorded failures: a ``write`` that would wreck a file the task read or edited is refused with the
reason, an answer that claims a change the task never made is not accepted, bash's ``timeout``
cannot be 0, and our notes are handed to the stream to keep out of the answer."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from pi_agent import AgentContext, BeforeToolCallContext
from pi_ai import AssistantMessage, Context, TextContent, Tool, ToolCall, ToolResultMessage, UserMessage
from pi_ai.api.local import ANSWER_CHECK_OPTION, HIDDEN_NOTES_OPTION
from pi_coding_agent.core.tools import create_tools
from pi_coding_agent.runtime.agent_session._local_aids import (
    CLAIM_NOTE,
    DONE_NOTE,
    TESTS_NOTE,
    answer_check,
    claims_change,
    hidden_notes,
    may_change_files,
    with_argument_bounds,
)
from pi_coding_agent.runtime.agent_session._write_guard import write_guard

CALC = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
TEST_CALC = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n    assert add(0, 0) == 0\n    assert add(-1, 1) == 0\n"


def _assistant(*calls: ToolCall, api: str = "local", text: str = "") -> AssistantMessage:
    content: list[Any] = [TextContent(text=text)] if text else []
    return AssistantMessage(
        content=[*content, *calls],
        api=api,
        provider="local",
        model="m",
        stop_reason="toolUse" if calls else "stop",
        timestamp=0,
    )


def _call(call_id: str, name: str, **arguments: Any) -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments=arguments)


def _result(call_id: str, name: str, *, error: bool = False) -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id=call_id, tool_name=name, content=[TextContent(text="ok")], is_error=error, timestamp=0
    )


def _guarded(cwd: Path, messages: list[Any], path: str, content: str, api: str = "local") -> str | None:
    call = _call("w", "write", path=path, content=content)
    context = BeforeToolCallContext(
        assistant_message=_assistant(call, api=api),
        tool_call=call,
        args=call.arguments,
        context=AgentContext(system_prompt="", messages=messages, tools=[]),
    )
    blocked = asyncio.run(write_guard(str(cwd))(context, None))
    return None if blocked is None else blocked.reason


def _task_that_edited_calc() -> list[Any]:
    """The 1.5B's ``fix-bug`` run: read calc.py, fix ``add`` with an edit, then ``write`` the
    file again from memory (issue 27)."""
    return [
        UserMessage(content="Fix the bug in calc.py so that test_calc.py passes.", timestamp=0),
        _assistant(_call("r1", "read", path="calc.py")),
        _result("r1", "read"),
        _assistant(
            _call(
                "e1",
                "edit",
                path="calc.py",
                edits=[{"oldText": "    return a - b", "newText": "    return a + b"}],
            )
        ),
        _result("e1", "edit"),
    ]


def test_a_write_from_memory_that_cuts_an_edited_file_short_is_refused(tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text(CALC)
    reason = _guarded(tmp_path, _task_that_edited_calc(), "calc.py", "def add(a, b):\n    return a + b\n")
    assert reason is not None
    assert "calc.py was edited in this task" in reason and "6 non-blank lines with 2" in reason
    assert "use edit" in reason and "unchanged" in reason


def test_overwriting_a_read_file_with_another_files_content_is_refused(tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text(CALC)
    (tmp_path / "test_calc.py").write_text(TEST_CALC)
    messages = [
        UserMessage(content="Add a test for mul.", timestamp=0),
        _assistant(_call("r1", "read", path="test_calc.py")),
        _result("r1", "read"),
        _assistant(_call("r2", "read", path=str(tmp_path / "calc.py"))),
        _result("r2", "read"),
    ]
    reason = _guarded(tmp_path, messages, "./test_calc.py", CALC + "\n\ndef div(a, b):\n    return a / b\n")
    assert (
        reason is not None
        and "test_calc.py was read in this task" in reason
        and "keeps only 0 of its" in reason
    )


@pytest.mark.parametrize(
    ("content", "refused"),
    [
        (CALC.replace("a - b", "a + b", 1), False),  # a full rewrite that keeps the file: allowed
        (CALC + "\n\ndef div(a, b):\n    return a / b\n", False),  # longer, same file
        ("print('hello')\n", True),
    ],
)
def test_what_a_write_may_do_to_a_file_the_task_read(tmp_path: Path, content: str, refused: bool) -> None:
    (tmp_path / "calc.py").write_text(CALC)
    assert (_guarded(tmp_path, _task_that_edited_calc(), "calc.py", content) is not None) == refused


def test_files_the_task_did_not_touch_and_other_providers_are_left_alone(tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text(CALC)
    earlier_task = [
        *_task_that_edited_calc(),
        _assistant(text="Fixed."),
        UserMessage(content="Now a new task.", timestamp=0),
    ]
    failed_read = [
        UserMessage(content="x", timestamp=0),
        _assistant(_call("r1", "read", path="calc.py")),
        _result("r1", "read", error=True),
    ]
    assert _guarded(tmp_path, earlier_task, "calc.py", "x = 1\n") is None  # read in an earlier task
    assert _guarded(tmp_path, failed_read, "calc.py", "x = 1\n") is None
    assert _guarded(tmp_path, _task_that_edited_calc(), "new.py", "x = 1\n") is None
    assert (
        _guarded(tmp_path, _task_that_edited_calc(), "calc.py", "x = 1\n", api="openai-completions") is None
    )


def test_the_refusal_reaches_the_model_as_the_tools_error_and_the_file_is_unchanged(tmp_path: Path) -> None:
    """Through the real agent loop: the hook blocks the real write tool's call."""
    from pi_agent import Agent
    from pi_ai import AssistantMessageEventStream, DoneEvent, Model, StartEvent

    (tmp_path / "calc.py").write_text(CALC)
    turns = [
        _assistant(_call("r1", "read", path="calc.py")),
        _assistant(_call("w1", "write", path="calc.py", content="def add(a, b):\n    return a + b\n")),
        _assistant(text="Done."),
    ]

    def stream_fn(model: Model, context: Context, options: Any) -> AssistantMessageEventStream:
        events = AssistantMessageEventStream()
        message = turns.pop(0)
        events.push(StartEvent(partial=message))
        events.push(DoneEvent(reason=message.stop_reason, message=message))
        return events

    model = Model(id="m", name="m", api="local", provider="local", base_url="")
    tools = create_tools(str(tmp_path), ["read", "write"])
    agent = Agent(model=model, tools=tools, stream_fn=stream_fn, before_tool_call=write_guard(str(tmp_path)))

    asyncio.run(agent.prompt("Fix add in calc.py."))
    results = [m for m in agent.state.messages if isinstance(m, ToolResultMessage)]
    assert [(r.tool_name, r.is_error) for r in results] == [("read", False), ("write", True)]
    assert "Not written: calc.py was read in this task" in results[1].content[0].text  # type: ignore[union-attr]
    assert (tmp_path / "calc.py").read_text() == CALC


# ------------------------------------------------------------------ claims of a change


@pytest.mark.parametrize(
    "answer",
    [
        # the 1.5B's answers to "fix the failing test" after changing nothing (issue 27)
        "I have fixed the bug in calc.py. The add function now returns the sum.",
        "The bug has been fixed: `add` now returns `a + b`.",
        "I've updated the README with the new port.",
        "Successfully renamed `total` to `sum_values` in both files.",
        "I made the necessary changes to config.json.",
        "The function is now fixed and the test passes.",
    ],
)
def test_answers_that_claim_a_change(answer: str) -> None:
    assert claims_change(answer)


@pytest.mark.parametrize(
    "answer",
    [
        "The default port in README.md is 8080.",
        "17 + 25 = 42.",
        "The test fails because add returns a - b; it should return a + b.",
        "There are 3 Python files in src.",
        "You could fix it by changing `-` to `+`.",
    ],
)
def test_answers_that_claim_nothing(answer: str) -> None:
    assert not claims_change(answer)


@pytest.mark.parametrize(
    ("command", "changes"),
    [
        ("python -m pytest -q test_calc.py", False),
        ("cat README.md | grep port", False),
        ("ls -la && wc -l *.py", False),
        ("git status", False),
        ("python test_calc.py 2>&1", False),
        ("pytest > /dev/null", False),
        ("sed -i 's/a - b/a + b/' calc.py", True),
        ("echo 'x = 1' > config.py", True),
        ("rm old.txt", True),
        ("git checkout calc.py", True),
        ("find . -name '*.pyc' -delete", True),
        ("FOO=1 make build", True),
    ],
)
def test_which_commands_may_change_files(command: str, changes: bool) -> None:
    assert may_change_files(command) == changes


TOOLS = [
    Tool(
        name="bash",
        description="run",
        parameters={
            "type": "object",
            "properties": {
                "command": {"type": "string"},
                "timeout": {"type": "number", "description": "Seconds"},
            },
            "required": ["command"],
        },
    )
]


def _context(*messages: Any) -> Context:
    return Context(
        system_prompt="s",
        messages=[UserMessage(content="Fix the failing test.", timestamp=0), *messages],
        tools=TOOLS,
    )


def test_a_claim_is_checked_only_while_the_task_has_changed_nothing() -> None:
    ran_tests = _context(
        _assistant(_call("b1", "bash", command="python -m pytest -q")), _result("b1", "bash")
    )
    check = answer_check(ran_tests)[ANSWER_CHECK_OPTION]
    assert check("I fixed the bug in calc.py and the test passes now.") == CLAIM_NOTE
    assert check("The test fails: add returns a - b.") is None
    edited = _context(_assistant(_call("e1", "edit", path="calc.py", edits=[])), _result("e1", "edit"))
    failed_edit = _context(
        _assistant(_call("e1", "edit", path="calc.py", edits=[])), _result("e1", "edit", error=True)
    )
    sed = _context(_assistant(_call("b1", "bash", command="sed -i 's/-/+/' calc.py")), _result("b1", "bash"))
    # A change by a command: in a task about tests, a claim still needs a passing test run.
    assert answer_check(sed)[ANSWER_CHECK_OPTION]("I fixed the bug in calc.py.") == TESTS_NOTE
    fix_request = UserMessage(content="Fix the bug in calc.py.", timestamp=0)
    sed_other = Context(system_prompt="s", messages=[fix_request, *sed.messages[1:]], tools=TOOLS)
    assert answer_check(sed_other) == {}
    # After an edit with no test run since, in a task about tests any claim of success is sent back...
    after_edit = answer_check(edited)[ANSWER_CHECK_OPTION]
    assert after_edit("I fixed the bug in calc.py.") == TESTS_NOTE
    assert after_edit("I fixed the bug in calc.py and the test passes now.") == TESTS_NOTE
    assert after_edit("I changed calc.py, but the test still fails.") is None
    # ...and in another task only a claim that the tests pass.
    other = Context(
        system_prompt="s",
        messages=[UserMessage(content="Fix the bug in calc.py.", timestamp=0), *edited.messages[1:]],
        tools=TOOLS,
    )
    after_other = answer_check(other)[ANSWER_CHECK_OPTION]
    assert after_other("I fixed the bug in calc.py.") is None
    assert after_other("I fixed the bug in calc.py and the test passes now.") == TESTS_NOTE
    assert ANSWER_CHECK_OPTION in answer_check(failed_edit)
    assert (
        answer_check(Context(system_prompt="s", messages=[UserMessage(content="hi", timestamp=0)])) == {}
    )  # no tools


def test_bash_timeout_is_at_least_ten_seconds_in_the_local_request_only() -> None:
    context = _context()
    bounded = with_argument_bounds(context)
    assert bounded.tools is not None and context.tools is not None
    assert bounded.tools[0].parameters["properties"]["timeout"] == {
        "type": "number",
        "description": "Seconds",
        "minimum": 10,
        "maximum": 100_000,
    }
    assert "exclusiveMinimum" not in context.tools[0].parameters["properties"]["timeout"]
    no_bash = Context(
        system_prompt="s",
        messages=[],
        tools=[Tool(name="read", description="r", parameters={"type": "object"})],
    )
    assert with_argument_bounds(no_bash) is no_bash


def test_our_notes_are_handed_to_the_stream_to_hide() -> None:
    notes = hidden_notes()[HIDDEN_NOTES_OPTION]
    assert DONE_NOTE in notes and CLAIM_NOTE in notes


# ------------------------------------------------------------------ outside the working folder


def _change(cwd: Path, request: str, tool: str, path: str) -> str | None:
    arguments: dict[str, Any] = {"path": path}
    arguments.update(
        {"content": "x = 1\n"} if tool == "write" else {"edits": [{"oldText": "a", "newText": "b"}]}
    )
    call = _call("c", tool, **arguments)
    context = BeforeToolCallContext(
        assistant_message=_assistant(call),
        tool_call=call,
        args=call.arguments,
        context=AgentContext(
            system_prompt="", messages=[UserMessage(content=request, timestamp=0)], tools=[]
        ),
    )
    blocked = asyncio.run(write_guard(str(cwd))(context, None))
    return None if blocked is None else blocked.reason


def test_a_change_outside_the_working_folder_that_the_user_did_not_name_is_refused(tmp_path: Path) -> None:
    """The real run: asked to fix calc.py in an empty folder, the 1.5B edited, then wrote,
    ``<pi's install>/examples/calc.py``, the examples folder the system prompt lists."""
    work = tmp_path / "work"
    work.mkdir()
    install = tmp_path / "pi-install" / "examples" / "calc.py"
    request = "Fix the bug in calc.py so that the test in test_calc.py passes."
    for tool in ("write", "edit"):
        reason = _change(work, request, tool, str(install))
        assert reason is not None and f"is outside the working folder ({work})" in reason
    assert _change(work, request, "write", "../notes.txt") is not None
    assert not install.exists()


def test_changes_inside_the_folder_or_where_the_user_said_are_allowed(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    other = tmp_path / "shared" / "settings.json"
    assert _change(work, "Fix calc.py", "write", "calc.py") is None
    assert _change(work, "Fix calc.py", "edit", str(work / "sub" / "calc.py")) is None
    assert _change(work, f"Set debug to true in {other}", "edit", str(other)) is None
    assert _change(work, "Add a line to ~/notes.txt", "write", "~/notes.txt") is None
