"""The named test runs after an in-process model's change (``_test_run``), with real files and real
runs of the folder's Python (pytest, or the runner used where it has none), and the answer check
that knows what a test run is (``_local_aids.answer_check``).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_agent import AfterToolCallContext, AgentContext, AgentToolResult
from pi_ai import AssistantMessage, Context, TextContent, ToolCall, ToolResultMessage, UserMessage
from pi_ai.api.local import ANSWER_CHECK_OPTION
from pi_coding_agent.core.tools import create_tools
from pi_coding_agent.runtime.agent_session._hooks import ExtensionHooks
from pi_coding_agent.runtime.agent_session._local_aids import (
    DONE_NOTE,
    TEST_RUN_INTRO,
    TESTS_NOTE,
    answer_check,
    claims_success,
    passing_test_run,
    suite_passed,
    with_result_notes,
)
from pi_coding_agent.runtime.agent_session._test_run import (
    TEST_RUN_KEY,
    SuiteRun,
    after_change_tests,
    names_tests,
    requested_tests,
    run_tests,
)

WRONG = 'def apply_discount(price, percent):\n    """The price after taking off ``percent`` per cent."""\n    return price * percent / 100\n'
RIGHT = WRONG.replace("price * percent / 100", "price - price * percent / 100")
TEST = (
    "from discount import apply_discount\n\n\ndef test_ten_percent_off():\n    assert apply_discount(200, 10) == 180\n\n\n"
    "def test_no_discount():\n    assert apply_discount(50, 0) == 50\n"
)
UNITTEST = (
    "import unittest\n\nfrom discount import apply_discount\n\n\nclass Discount(unittest.TestCase):\n"
    "    def test_ten_percent_off(self):\n        self.assertEqual(apply_discount(200, 10), 180)\n"
)
REQUEST = "test_discount.py fails. Fix discount.py so the test passes."
TOOLS = create_tools(".")


def _folder(tmp_path: Path, code: str = WRONG, test: str = TEST) -> Path:
    (tmp_path / "discount.py").write_text(code)
    (tmp_path / "test_discount.py").write_text(test)
    return tmp_path


def _venv_without_pytest(folder: Path) -> None:
    """A real ``.venv`` in ``folder`` whose Python has no pytest (the folder's Python is then it)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder / ".venv")], check=True)
    probe = subprocess.run(
        [str(folder / ".venv" / "bin" / "python"), "-c", "import pytest"], check=False, capture_output=True
    )
    assert probe.returncode != 0


# ------------------------------------------------------------------------------ which tests


def test_which_tests_a_request_names(tmp_path: Path) -> None:
    _folder(tmp_path)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_more.py").write_text(TEST)
    (tmp_path / "helper_test.py").write_text(TEST)
    assert requested_tests(REQUEST, str(tmp_path)) == ["test_discount.py"]
    assert requested_tests("Make tests/test_more.py pass.", str(tmp_path)) == ["tests/test_more.py"]
    assert (
        requested_tests("Add a case to test_missing.py.", str(tmp_path)) == []
    )  # no such file, no failing tests
    assert requested_tests("The tests fail. Fix the bug.", str(tmp_path)) == [
        "helper_test.py", "test_discount.py", "tests/test_more.py",
    ]  # fmt: skip
    assert requested_tests("In config.py, set MAX_RETRIES to 5.", str(tmp_path)) == []
    assert names_tests(REQUEST) and names_tests("Add a test in test_slug.py for slugify.")
    assert not names_tests("What does area() in shapes.py compute?")


# ------------------------------------------------------------------------------ real runs


def test_a_failing_run_shows_the_failing_assertions_and_a_passing_one_says_so(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    before = sorted(os.listdir(folder))
    failing = asyncio.run(run_tests(["test_discount.py"], str(folder)))
    assert failing is not None and not failing.passed
    assert "pytest test_discount.py" in failing.command
    assert failing.shown.startswith("2 failed")
    assert "assert 20.0 == 180" in failing.shown and "assert 0.0 == 50" in failing.shown
    (folder / "discount.py").write_text(RIGHT)
    passing = asyncio.run(run_tests(["test_discount.py"], str(folder)))
    assert passing is not None and passing.passed and passing.shown.startswith("2 passed")
    assert sorted(os.listdir(folder)) == before  # no __pycache__, .pytest_cache or .benchmarks left


def test_without_pytest_the_runner_runs_test_functions_and_unittest_cases(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    (folder / "test_cases.py").write_text(UNITTEST)
    _venv_without_pytest(folder)
    failing = asyncio.run(run_tests(["test_discount.py", "test_cases.py"], str(folder)))
    assert failing is not None and not failing.passed and "-m pytest" not in failing.command
    assert failing.shown.startswith("3 failed, 0 passed")
    assert (
        "FAILED test_discount.py::test_ten_percent_off" in failing.shown and "AssertionError" in failing.shown
    )
    (folder / "discount.py").write_text(RIGHT)
    passing = asyncio.run(run_tests(["test_discount.py", "test_cases.py"], str(folder)))
    assert passing is not None and passing.passed and passing.shown == "3 passed"


def test_a_script_test_runs_as_a_script(tmp_path: Path) -> None:
    """A test file with asserts at the top ("so that `python3 test_calc.py` passes") has no test
    for pytest to collect: it runs as a script, its exit code decides."""
    folder = _folder(
        tmp_path,
        test="from discount import apply_discount\n\nassert apply_discount(200, 10) == 180\nprint('ok')\n",
    )
    failing = asyncio.run(run_tests(["test_discount.py"], str(folder)))
    assert failing is not None and not failing.passed and failing.command.endswith(" test_discount.py")
    assert "-m pytest" not in failing.command
    assert failing.shown.startswith("exit code 1") and "AssertionError" in failing.shown
    (folder / "discount.py").write_text(RIGHT)
    passing = asyncio.run(run_tests(["test_discount.py"], str(folder)))
    assert passing is not None and passing.passed and passing.shown == "exit code 0: ok"


def test_a_file_without_tests_does_not_pass(tmp_path: Path) -> None:
    folder = _folder(tmp_path, test="from discount import apply_discount\n")
    _venv_without_pytest(folder)
    run = asyncio.run(run_tests(["test_discount.py"], str(folder)))
    assert run is not None and not run.passed and run.shown.startswith("0 passed")


def test_a_run_that_hangs_is_stopped(tmp_path: Path) -> None:
    folder = _folder(tmp_path, test="import time\n\n\ndef test_slow():\n    time.sleep(60)\n")
    run = asyncio.run(run_tests(["test_discount.py"], str(folder), limit_s=3))
    assert run is not None and not run.passed and run.shown == "stopped: not finished within 3 s"


# ------------------------------------------------------------------------------ after a change


def _after(
    folder: Path, name: str, path: str, *, api: str = "local", error: bool = False, request: str = REQUEST
) -> AfterToolCallContext:
    call = ToolCall(id="c", name=name, arguments={"path": path})
    return AfterToolCallContext(
        assistant_message=AssistantMessage(
            content=[call], api=api, provider="local", model="m", stop_reason="toolUse", timestamp=0
        ),
        tool_call=call,
        args=call.arguments,
        result=AgentToolResult(content=[TextContent(text="ok")], details={"diff": "d"}),
        is_error=error,
        context=AgentContext(
            system_prompt="", messages=[UserMessage(content=request, timestamp=0)], tools=[]
        ),
    )


def test_a_change_of_the_code_runs_the_named_test_and_keeps_the_run_in_its_details(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    (folder / "test_other.py").write_text("def test_one():\n    assert True\n")
    followup = after_change_tests(str(folder))
    result = asyncio.run(followup(_after(folder, "edit", "discount.py"), None))
    assert result is not None and result.details["diff"] == "d"  # the tool's own details are kept
    run = SuiteRun.from_details(result.details)
    assert run is not None and not run.passed and "assert 20.0 == 180" in run.shown
    assert result.content is None  # the text the session keeps is the tool's
    for skipped in (
        _after(folder, "edit", "discount.py", api="openai-completions"),  # another provider
        _after(folder, "edit", "discount.py", error=True),  # the edit failed
        _after(folder, "read", "discount.py"),
        _after(
            folder, "edit", "test_discount.py", request="Fix discount.py; the tests in test_other.py fail."
        ),
        _after(folder, "edit", "discount.py", request="In discount.py, rename percent to rate."),
        # a test the task writes runs once the code it tests is changed, not before it exists
        _after(
            folder,
            "write",
            "test_other.py",
            request="Create other.py with one() and a test in test_other.py.",
        ),
    ):
        assert asyncio.run(followup(skipped, None)) is None


def test_the_hooks_hand_the_run_on_to_the_extensions_result() -> None:
    async def followup(context: AfterToolCallContext, signal: Any) -> Any:
        from pi_agent import AfterToolCallResult

        return AfterToolCallResult(
            details={TEST_RUN_KEY: {"command": "c", "passed": True, "shown": "1 passed"}}
        )

    hooks = ExtensionHooks(lambda: None, followup=followup)
    result = asyncio.run(hooks.after_tool_call(_after(Path("."), "edit", "discount.py"), None))
    assert result is not None and SuiteRun.from_details(result.details) == SuiteRun("c", True, "1 passed")


# ------------------------------------------------------------------------------ what the model sees, and the claim check


def _task(*messages: Any, request: str = REQUEST) -> Context:
    return Context(
        system_prompt="s", messages=[UserMessage(content=request, timestamp=0), *messages], tools=TOOLS
    )


def _call(call_id: str, name: str, **arguments: Any) -> AssistantMessage:
    return AssistantMessage(
        content=[ToolCall(id=call_id, name=name, arguments=arguments)],
        api="local", provider="local", model="m", stop_reason="toolUse", timestamp=0,
    )  # fmt: skip


def _result(
    call_id: str, name: str, text: str = "ok", *, error: bool = False, run: SuiteRun | None = None
) -> ToolResultMessage:
    details = {TEST_RUN_KEY: run.as_details()} if run is not None else {}
    return ToolResultMessage(
        tool_call_id=call_id,
        tool_name=name,
        content=[TextContent(text=text)],
        details=details,
        is_error=error,
        timestamp=0,
    )


FAILED = SuiteRun("python3 -m pytest test_discount.py", False, "1 failed\nE   assert 20.0 == 180")
PASSED = SuiteRun("python3 -m pytest test_discount.py", True, "2 passed")


def test_the_run_is_shown_to_the_model_after_the_change() -> None:
    context = with_result_notes(
        _task(_call("w", "write", path="discount.py"), _result("w", "write", run=FAILED))
    )
    shown = context.messages[-1].content[-1]
    assert isinstance(shown, TextContent) and shown.text.startswith(
        f"({TEST_RUN_INTRO}, with `python3 -m pytest"
    )
    assert "they do not pass yet" in shown.text and "assert 20.0 == 180" in shown.text


def test_after_a_change_in_a_task_about_tests_only_a_passing_test_run_gets_the_done_note() -> None:
    def done_note(command: str, output: str) -> bool:
        context = with_result_notes(
            _task(
                _call("w", "write", path="discount.py"),
                _result("w", "write"),
                _call("b", "bash", command=command),
                _result("b", "bash", output),
            )
        )
        last = context.messages[-1].content[-1]
        return isinstance(last, TextContent) and last.text == DONE_NOTE

    assert not done_note("python test_discount.py", "(no output)")  # ran no test (the rerun's)
    assert done_note("python3 -m pytest -q test_discount.py", "..\n2 passed in 0.01s")


@pytest.mark.parametrize(
    ("command", "output", "passing"),
    [
        ("python3 -m pytest -q", "..\n2 passed in 0.02s", True),
        ("pytest test_discount.py", "1 failed, 1 passed in 0.02s", False),
        ("python -m unittest test_cases", "..\n----\nRan 2 tests in 0.000s\n\nOK", True),
        ("python test_discount.py", "(no output)", False),  # the rerun's: the file has no main
        ("python3 test_calc.py", "ok", True),  # a script test that printed its end
        ("python3 test_calc.py && echo 1 failed", "ok\n1 failed", False),
        ("echo 2 passed", "2 passed", False),
        ("python -c \"print('2 passed')\"", "2 passed", False),
        ("python discount.py", "", False),
        ("cat test_discount.py", "def test_ten_percent_off(): ...", False),
    ],
)
def test_what_counts_as_a_passing_test_run(command: str, output: str, passing: bool) -> None:
    assert passing_test_run(command, output) is passing


def test_a_claim_in_a_task_about_tests_needs_a_passing_run_after_the_last_change() -> None:
    failed = _task(_call("w", "write", path="discount.py"), _result("w", "write", run=FAILED))
    passed = _task(_call("w", "write", path="discount.py"), _result("w", "write", run=PASSED))
    then_echo = _task(
        *failed.messages[1:], _call("b", "bash", command="echo done"), _result("b", "bash", "done")
    )
    then_pytest = _task(
        *failed.messages[1:], _call("b", "bash", command="pytest -q"), _result("b", "bash", "2 passed")
    )
    passed_then_changed = _task(
        *passed.messages[1:], _call("e", "edit", path="discount.py"), _result("e", "edit")
    )
    passed_then_failing = _task(
        *passed.messages[1:],
        _call("b", "bash", command="pytest -q"),
        _result("b", "bash", "1 failed", error=True),
    )
    assert [suite_passed(c) for c in (failed, passed, then_echo, then_pytest, passed_then_changed, passed_then_failing)] == [
        False, True, False, True, False, False,
    ]  # fmt: skip
    read_only = _task(_call("r", "read", path="discount.py"), _result("r", "read"))
    assert not suite_passed(read_only)
    assert suite_passed(
        _task(
            *read_only.messages[1:], _call("b", "bash", command="pytest -q"), _result("b", "bash", "2 passed")
        )
    )

    def checked(context: Context, answer: str) -> str | None:
        check = answer_check(context).get(ANSWER_CHECK_OPTION)
        return None if check is None else check(answer)

    for claim in ("The task is done.", "I fixed the bug in discount.py.", "The tests now pass."):
        assert checked(failed, claim) == TESTS_NOTE and checked(then_echo, claim) == TESTS_NOTE
        assert checked(passed, claim) is None and checked(then_pytest, claim) is None
    assert checked(failed, "I changed discount.py, but the test still fails: it returns 20.0.") is None
    # With nothing changed and no test run, "the tests already pass" is no answer either.
    assert checked(read_only, "The code is already set up to pass the provided tests.") == TESTS_NOTE
    assert checked(read_only, "I could not find the bug.") is None
    # Outside a task about tests, only a claim that tests pass needs the run.
    other = _task(
        _call("w", "write", path="config.py"),
        _result("w", "write"),
        request="In config.py, set MAX_RETRIES to 5.",
    )
    assert checked(other, "The task is done.") is None and checked(other, "The tests pass now.") == TESTS_NOTE


@pytest.mark.parametrize(
    ("answer", "claims"),
    [
        ("The task is done.", True),
        ("The bug is fixed.", True),
        ("I have updated discount.py; the function should now work.", True),
        ("Done.", True),
        ("I changed discount.py; I have not run the tests.", False),
        ("The test still fails: apply_discount returns 20.0.", False),
        ("I could not find the bug.", False),
    ],
)
def test_what_claims_success(answer: str, claims: bool) -> None:
    assert claims_success(answer) is claims
