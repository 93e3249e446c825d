"""After the in-process model changes a file in a task about tests, the tests run and it sees the result.

Told "test_discount.py fails. Fix discount.py so the test passes.", the 1.5B rewrote the function
as wrongly as before, ran ``python test_discount.py`` (which runs no test: the file has no main)
and answered "The task is done." (the second newcomer trial's rerun, 2026-12-07). So when the
user's message names a test file (``test_x.py``, ``x_test.py``) or says that tests fail or should
pass, each successful ``edit`` or ``write`` of a file that is no test (``is_test_file``) by the
in-process model is followed by a real run of those tests, with the folder's Python (its
``.venv`` if it has one, else ``python3`` on ``PATH``): a test file that is a script (asserts at
the top, "so that `python3 test_calc.py` passes") runs as one; the others with pytest when that
Python has it, else with a small runner of their ``unittest`` cases and ``test_*`` functions. The outcome goes into the
tool result's ``details`` (``TEST_RUN_KEY``), so the session keeps Pi's text; the request shows it
to the model after the result (``_local_aids.with_result_notes``), and the answer check counts a
passed run as the tests having been run (``_local_aids.answer_check``).
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import os
import re
import shutil
import signal as signals
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pi_agent import AfterToolCallContext, AfterToolCallResult
from pi_ai import AbortSignal
from pi_coding_agent.core.local_model import LOCAL_API
from pi_coding_agent.runtime.agent_session._hooks import ToolFollowup
from pi_coding_agent.runtime.agent_session._user_request import last_request, wants_tests_passing
from pi_coding_agent.runtime.agent_session._write_guard import is_test_file

TEST_RUN_KEY = "testRun"
"""The key of a change's tool-result ``details`` that holds its test run (``SuiteRun.as_details``)."""
TEST_TIMEOUT_S = 30.0
"""A run that takes longer is stopped and reported as not finished."""
MAX_FILES = 5
"""At most this many test files run (the named ones, else the ones found in the folder)."""
MAX_SHOWN_LINES = 16
MAX_SHOWN_CHARS = 1200
"""The failing part of the output shown to the model is cut to this many lines and characters."""

_NAMED_TEST = re.compile(r"(?<![\w.-])(?:[\w.-]+/)*(?:test_\w+|\w+_test)\.py\b")


def names_tests(request: str) -> bool:
    """Whether ``request`` is about tests: it names a Python test file or says tests fail or pass."""
    return _NAMED_TEST.search(request) is not None or wants_tests_passing(request)


def requested_tests(request: str, cwd: str) -> list[str]:
    """The test files (relative to ``cwd``) to run for ``request``: the existing ones it names; else,
    when it says tests fail or pass, the ``test_*.py``/``*_test.py`` files of ``cwd`` and of its
    ``tests``/``test`` folder; at most ``MAX_FILES``."""
    named = [
        name for name in dict.fromkeys(match.group(0) for match in _NAMED_TEST.finditer(request))
        if os.path.isfile(os.path.join(cwd, name))
    ]  # fmt: skip
    if named or not wants_tests_passing(request):
        return named[:MAX_FILES]
    found: list[str] = []
    for folder in ("", "tests", "test"):
        try:
            names = sorted(os.listdir(os.path.join(cwd, folder) if folder else cwd))
        except OSError:
            continue
        found.extend(
            os.path.join(folder, name) if folder else name
            for name in names
            if _NAMED_TEST.fullmatch(name) and os.path.isfile(os.path.join(cwd, folder, name))
        )
    return found[:MAX_FILES]


def folder_python(cwd: str) -> str | None:
    """The Python the user's folder would run its tests with: its ``.venv``/``venv``, else
    ``python3`` (or ``python``) on ``PATH``."""
    for venv in (".venv", "venv"):
        candidate = os.path.join(cwd, venv, "bin", "python")
        if os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("python3") or shutil.which("python")


@dataclass(frozen=True)
class SuiteRun:
    """One run of the tests: the command as the user would type it, whether every test passed,
    and what the model is shown (the summary line and, on failure, the failing lines)."""

    command: str
    passed: bool
    shown: str

    def as_details(self) -> dict[str, Any]:
        return {"command": self.command, "passed": self.passed, "shown": self.shown}

    @staticmethod
    def from_details(details: object) -> SuiteRun | None:
        """The run kept in a tool result's ``details``, if any."""
        run = details.get(TEST_RUN_KEY) if isinstance(details, Mapping) else None
        if not isinstance(run, Mapping):
            return None
        command, passed, shown = run.get("command"), run.get("passed"), run.get("shown")
        if not isinstance(command, str) or not isinstance(passed, bool) or not isinstance(shown, str):
            return None
        return SuiteRun(command, passed, shown)


_RUNNER = """\
import importlib.util, os, sys, traceback, unittest
sys.path.insert(0, os.getcwd())
passed = failed = 0
for path in sys.argv[1:]:
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    name = os.path.splitext(os.path.basename(path))[0]
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    except BaseException:
        failed += 1
        print(f"ERROR {path}: " + traceback.format_exc().strip().splitlines()[-1])
        continue
    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    if suite.countTestCases():
        result = unittest.TextTestRunner(stream=sys.stdout, verbosity=0).run(suite)
        bad = len(result.failures) + len(result.errors)
        failed += bad
        passed += result.testsRun - bad
    for key, value in list(vars(module).items()):
        if key.startswith("test") and callable(value) and not isinstance(value, type):
            try:
                value()
                passed += 1
            except BaseException:
                failed += 1
                lines = traceback.format_exc().strip().splitlines()
                print(f"FAILED {path}::{key}")
                print("\\n".join(lines[-3:]))
print(f"{failed} failed, {passed} passed" if failed else f"{passed} passed")
sys.exit(1 if failed or not passed else 0)
"""
"""Runs ``unittest`` cases and plain ``test_*`` functions of the files named on its command line
(where the folder's Python has no pytest); prints ``N passed`` or ``N failed, M passed``."""
_NO_PYTEST = "No module named pytest"
_PYTEST_ARGS = ("-m", "pytest", "-q", "--tb=short", "-p", "no:cacheprovider", "-p", "no:benchmark")
"""Quiet, short tracebacks, and no ``.pytest_cache``/``.benchmarks`` folders left in the user's folder."""
_SUMMARY = re.compile(r"^=*\s*(\d+ (?:passed|failed|error).*?)\s*=*$")
_NOISE = re.compile(
    r"^(?:[.FEsxX]+\s*(?:\[\s*\d+%\])?|=+ (?:FAILURES|ERRORS|short test summary info) =+|_+ .* _+)$"
)


async def _run(argv: list[str], cwd: str, limit_s: float) -> tuple[int | None, str]:
    """Exit code (None: stopped after ``limit_s``) and the merged output of ``argv`` run in ``cwd``."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    process = await asyncio.create_subprocess_exec(
        *argv, cwd=cwd, env=env, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        output, _ = await asyncio.wait_for(process.communicate(), limit_s)
    except (TimeoutError, asyncio.CancelledError) as stopped:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signals.SIGKILL)
        await process.wait()
        if isinstance(stopped, asyncio.CancelledError):
            raise
        return None, ""
    return process.returncode, output.decode("utf-8", "replace")


def _shown(output: str, passed: bool) -> str:
    """The run's summary line, and on failure the failing lines before it (cut to the limits)."""
    lines = [line.rstrip() for line in output.strip().splitlines() if line.strip()]
    summary = next((match.group(1) for line in reversed(lines) if (match := _SUMMARY.match(line))), None)
    if summary is None:
        summary = lines[-1] if lines else "no output"
    if passed:
        return summary
    detail = [line for line in lines if not _NOISE.match(line) and not _SUMMARY.match(line)]
    if len(detail) > MAX_SHOWN_LINES:
        detail = [*detail[:MAX_SHOWN_LINES], "..."]
    text = _cut("\n".join(detail))
    return f"{summary}\n{text}" if text else summary


def is_script_test(path: str) -> bool:
    """Whether the test file at ``path`` is a script (asserts and no ``test_*`` functions or test
    classes for a runner; run as ``python3 test_x.py``, like the bench's ``test_calc.py``); a file
    that does not parse counts as a script (running it shows the error), one with neither tests
    nor asserts does not (a runner then finds no test: not passed)."""
    try:
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return True
    runner_tests = any(
        (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"))
        or (
            isinstance(node, ast.ClassDef)
            and (node.name.startswith("Test") or "TestCase" in ast.unparse(node))
        )
        for node in tree.body
    )
    return not runner_tests and any(isinstance(node, ast.Assert) for node in ast.walk(tree))


async def run_tests(files: list[str], cwd: str, limit_s: float = TEST_TIMEOUT_S) -> SuiteRun | None:
    """Run ``files`` (relative to ``cwd``) with the folder's Python (each script test as a script,
    the others with pytest or the runner); None when it has no Python."""
    python = folder_python(cwd)
    if python is None or not files:
        return None
    shown_python = os.path.basename(python) if shutil.which(os.path.basename(python)) == python else python
    scripts = [name for name in files if is_script_test(os.path.join(cwd, name))]
    suites = [name for name in files if name not in scripts]
    runs = [await _run_script(python, shown_python, name, cwd, limit_s) for name in scripts]
    if suites:
        runs.append(await _run_suites(python, shown_python, suites, cwd, limit_s))
    if len(runs) == 1:
        return runs[0]
    return SuiteRun(
        "; ".join(run.command for run in runs),
        all(run.passed for run in runs),
        "\n".join(f"{run.command}: {run.shown}" for run in runs),
    )


async def _run_script(python: str, shown_python: str, name: str, cwd: str, limit_s: float) -> SuiteRun:
    command = f"{shown_python} {name}"
    code, output = await _run([python, name], cwd, limit_s)
    if code is None:
        return SuiteRun(command, False, f"stopped: not finished within {limit_s:.0f} s")
    lines = [line.rstrip() for line in output.strip().splitlines() if line.strip()]
    if code == 0:
        return SuiteRun(command, True, f"exit code 0{': ' + lines[-1] if lines else ''}")
    tail = lines[-MAX_SHOWN_LINES:]
    return SuiteRun(command, False, _cut("\n".join([f"exit code {code}", *tail])))


async def _run_suites(python: str, shown_python: str, files: list[str], cwd: str, limit_s: float) -> SuiteRun:
    code, output = await _run([python, *_PYTEST_ARGS, *files], cwd, limit_s)
    command = f"{shown_python} -m pytest {' '.join(files)}"
    if code not in (0, None) and _NO_PYTEST in output:
        code, output = await _run([python, "-c", _RUNNER, *files], cwd, limit_s)
        command = f"{shown_python} (unittest cases and test_* functions of) {' '.join(files)}"
    if code is None:
        return SuiteRun(command, False, f"stopped: not finished within {limit_s:.0f} s")
    return SuiteRun(command, code == 0, _shown(output, code == 0))


def _cut(text: str) -> str:
    return text if len(text) <= MAX_SHOWN_CHARS else text[:MAX_SHOWN_CHARS] + "..."


def after_change_tests(cwd: str) -> ToolFollowup:
    """The ``after_tool_call`` step (see the module): for an in-process model's successful ``edit``
    or ``write`` in a task about tests, run the tests and keep the run in the result's ``details``."""

    async def followup(
        context: AfterToolCallContext, signal: AbortSignal | None
    ) -> AfterToolCallResult | None:
        if (
            context.is_error
            or context.tool_call.name not in ("edit", "write")
            or context.assistant_message.api != LOCAL_API
        ):
            return None
        path = context.args.get("path")
        if not isinstance(path, str) or is_test_file(path):
            return None
        files = requested_tests(last_request(context.context.messages), cwd)
        if not files:
            return None
        run = await run_tests(files, cwd)
        if run is None or (signal is not None and signal.aborted):
            return None
        details = context.result.details
        base = dict(details) if isinstance(details, Mapping) else {}
        return AfterToolCallResult(details={**base, TEST_RUN_KEY: run.as_details()})

    return followup
