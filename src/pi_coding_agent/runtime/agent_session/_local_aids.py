"""What an in-process (``local``) model gets besides what Pi sends any model.

Measured with Qwen2.5-Coder 1.5B on ``bench/local_tasks.py`` (docs/providers/local.md):

- its ``edits[].oldText`` was made up more often than not, so the grammar makes it quote lines of
  the file being edited (``edit_quotes``);
- after an edit that worked, told only "Successfully replaced 1 block(s)", it went on to ``write``
  the file again from memory, losing most of it; so the model sees the changed lines as they now
  read (``with_result_notes``). Only the request changes: the session keeps Pi's tool result;
- asked a question about a README, it read the file, then edited it: a read for a question is
  followed by a note to answer (``ANSWER_NOTE``);
- having renamed a function in two files, it renamed it back in one: an edit that swaps back an
  edit of the same task counts as a repeat, and the model is asked to reply (``edit_undos``);
- asked to fix a failing test, it changed nothing and reported success: an answer that claims a
  change when the task made none is written again once, after ``CLAIM_NOTE`` (``answer_check``);
- every "run this command" task sent bash ``"timeout": 0``, which the tool refuses (then 0.5,
  which cut a command short): the grammar holds ``timeout`` to at least 10 s (``with_argument_bounds``);
- having made an edit, it said the tests now pass without running them: such an answer is written
  again once, after ``TESTS_NOTE`` (``answer_check``);
- it copied our notes into its answers: each one is kept out of the answer's text (``hidden_notes``),
  and an answer that repeats a guard's refusal is written again once, after ``ECHO_NOTE``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Any

import msgspec

from pi_ai import (
    AssistantMessage,
    Context,
    TextContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    content_text,
)
from pi_ai.api.local import (
    ANSWER_CHECK_OPTION,
    COPY_SOURCE_OPTION,
    HIDDEN_NOTES_OPTION,
    UNDO_OPTION,
    CopiedText,
)
from pi_coding_agent.core.tools import edit_base_text
from pi_coding_agent.runtime.agent_session._test_run import SuiteRun, names_tests
from pi_coding_agent.runtime.agent_session._user_request import asks_no_change, last_request
from pi_coding_agent.runtime.agent_session._write_guard import REFUSAL_PREFIXES

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
MAX_SHOWN_LINES = 60
"""At most this many changed-region lines are added to an edit's result."""


def edit_quotes(cwd: str) -> dict[str, Any]:
    """The ``local`` API's copy rule for ``edit``: ``edits[].oldText`` quotes lines of the file
    being edited, as it is when the call is written."""

    def quotes(tool: str, key: str, value: str) -> CopiedText | None:
        if tool != "edit" or key != "path":
            return None
        text = edit_base_text(value, cwd)
        return None if text is None else CopiedText("oldText", text)

    return {COPY_SOURCE_OPTION: quotes}


def changed_region(patch: str) -> str | None:
    """The lines around each change as they read after it (the new side of ``patch``'s hunks),
    ``...`` between hunks; None when there is no hunk."""
    shown: list[str] = []
    for line in patch.split("\n"):
        if _HUNK.match(line):
            if shown:
                shown.append("...")
        elif line[:1] in (" ", "+") and not line.startswith("+++"):
            shown.append(line[1:])
    if not shown:
        return None
    if len(shown) > MAX_SHOWN_LINES:
        shown = [*shown[:MAX_SHOWN_LINES], "..."]
    return "\n".join(shown)


EDIT_NOTE = "The file is saved; no write is needed."
"""After a successful edit (with the changed lines): told only "Successfully replaced", the 1.5B
rewrote the file from memory."""
REGION_INTRO = "The changed part now reads:"
"""Introduces the changed lines after ``EDIT_NOTE``; the 1.5B once answered with it (newcomer trial)."""
DONE_NOTE = "(The command succeeded after your changes. If the task is done, reply to the user now.)"
ANSWER_NOTE = "(If this answers the user's question, reply with the answer now; a question needs no change to files.)"
"""After a file is read or a command run for a question: the 1.5B read the README it was asked about,
then edited it; asked "What is 17 + 25?", it ran ``echo 17 + 25``, then tried to write the sum into
a file three times (refused by the write guard), and answered only then."""


def _asks(message: UserMessage) -> bool:
    return asks_no_change(content_text(message.content, ""))


TEST_RUN_INTRO = "The tests were run after this change"
"""Opens the note that shows a change's test run (``_test_run``): ``(The tests were run after this
change, with `python3 -m pytest test_x.py`: 1 failed ...)``."""


def suite_run_note(message: ToolResultMessage) -> str | None:
    """The note showing the test run kept in a change's result (``_test_run.TEST_RUN_KEY``), if any."""
    run = SuiteRun.from_details(message.details)
    if run is None:
        return None
    verdict = "they pass" if run.passed else "they do not pass yet"
    return f"({TEST_RUN_INTRO}, with `{run.command}`; {verdict}:\n{run.shown})"


def _note(message: ToolResultMessage, changed_files: bool, question: bool, untested: bool) -> str | None:
    if message.is_error:
        return None
    shown = _result_note(message, changed_files, question, untested)
    notes = [note for note in (shown, suite_run_note(message)) if note]
    return "\n".join(notes) if notes else None


def _result_note(message: ToolResultMessage, changed_files: bool, question: bool, untested: bool) -> str | None:
    if message.tool_name in ("read", "bash") and question and not changed_files:
        return ANSWER_NOTE
    if message.tool_name == "edit":
        details = message.details
        patch = details.get("patch") if isinstance(details, dict) else None
        region = changed_region(patch) if isinstance(patch, str) else None
        if region is not None:
            return f"{EDIT_NOTE} {REGION_INTRO}\n```\n{region}\n```"
    if message.tool_name == "bash" and changed_files and not untested:
        return DONE_NOTE
    return None


def with_result_notes(context: Context) -> Context:
    """``context`` with each successful ``edit`` result followed by the lines it changed, each
    change's test run (``_test_run``) shown after its result, each successful ``bash`` run after a
    change (since the user's last message) by ``DONE_NOTE`` (in a task about tests, only a run
    whose tests passed: the 1.5B took the note after ``python test_discount.py``, which ran no
    test, as leave to answer "The task is done."), and each successful ``read`` or ``bash`` run for
    a question that asks for no change (``asks_no_change``: "Can you fix X?" asks for one), before
    any change, by ``ANSWER_NOTE``."""
    messages = list(context.messages)
    changed_files = question = about_tests = False
    commands = _bash_commands(messages)
    for index, message in enumerate(messages):
        if isinstance(message, UserMessage):
            changed_files, question = False, _asks(message)
            about_tests = names_tests(content_text(message.content, ""))
        if not isinstance(message, ToolResultMessage):
            continue
        untested = about_tests and not passing_test_run(
            commands.get(message.tool_call_id, ""), content_text(message.content, "")
        )
        note = _note(message, changed_files, question, untested)
        if message.tool_name in ("edit", "write") and not message.is_error:
            changed_files = True
        if note is not None:
            messages[index] = msgspec.structs.replace(message, content=[*message.content, TextContent(text=note)])
    return msgspec.structs.replace(context, messages=messages)


def edit_undos() -> dict[str, Any]:
    """The ``local`` API's undo source for ``edit``: the edit that swaps each block's texts back,
    whole or one block at a time. Such a call, made after the edit worked, is treated as a repeat
    (the model is asked to reply instead)."""

    def undos(tool: str, arguments: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        edits = arguments.get("edits")
        if tool != "edit" or not isinstance(edits, list) or not all(isinstance(e, dict) for e in edits):
            return []
        swapped = [{"oldText": e.get("newText"), "newText": e.get("oldText")} for e in edits]
        calls = [{**arguments, "edits": swapped}]
        if len(swapped) > 1:
            calls.extend({**arguments, "edits": [one]} for one in swapped)
        return [("edit", call) for call in calls]

    return {UNDO_OPTION: undos}


CLAIM_NOTE = (
    "(No file has been changed in this task: no edit or write was made. Do not say that you changed "
    "something. Make the change now with the tools, or tell the user plainly that nothing was changed.)"
)
"""Asked of an answer that claims a change the task never made (``answer_check``)."""

_VERBS = (
    "fixed|updated|changed|modified|edited|added|created|renamed|replaced|removed|deleted|corrected|"
    "implemented|written|wrote|refactored|moved|applied|resolved"
)
_CLAIM = re.compile(
    rf"\bI(?:'ve| have)?\s+(?:now\s+|also\s+|successfully\s+|just\s+)*(?:{_VERBS})\b"
    rf"|\b(?:has|have)\s+(?:now\s+)?been\s+(?:successfully\s+)?(?:{_VERBS})\b"
    rf"|\b(?:is|are)\s+now\s+(?:fixed|updated|corrected|renamed|in place)\b"
    rf"|\b(?:is|are|was|were)\s+(?:now\s+)?(?:fixed|resolved|corrected)\b"
    rf"|\bsuccessfully\s+(?:{_VERBS})\b"
    rf"|\bI(?:'ve| have)?\s+made\s+(?:the\s+|these\s+|those\s+|some\s+)?(?:following\s+|necessary\s+|requested\s+)?changes?\b",
    re.IGNORECASE,
)


def claims_change(text: str) -> bool:
    """Whether an answer says that something was changed ("I fixed...", "...has been updated")."""
    return _CLAIM.search(text) is not None


_READ_ONLY_COMMANDS = frozenset(
    ["cat", "ls", "grep", "egrep", "rg", "find", "head", "tail", "wc", "pwd", "echo", "printf", "python", "python3", "pytest", "node", "which", "true", "sort", "uniq", "diff", "tree", "stat", "file", "du", "df", "date", "env", "uname", "nl", "cut", "awk", "jq", "test", "["]
)
_READ_ONLY_GIT = frozenset(["status", "diff", "log", "show", "blame", "branch"])
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SEGMENTS = re.compile(r"&&|\|\||[;|\n]")
_REDIRECT = re.compile(r"(?<![0-9&<])>{1,2}(?!&)\s*(?!/dev/null\b)\S")


def may_change_files(command: str) -> bool:
    """Whether a shell command may have changed files: anything but a known read-only command
    (running tests included), or output sent into a file. Unknown commands count as changes, so
    an answer after them is never held against the task."""
    if _REDIRECT.search(command):
        return True
    for segment in _SEGMENTS.split(command):
        words = segment.split()
        while words and _ASSIGNMENT.match(words[0]):
            words = words[1:]
        if not words:
            continue
        name = words[0].rsplit("/", 1)[-1]
        if name == "git":
            if len(words) < 2 or words[1] not in _READ_ONLY_GIT:
                return True
        elif name not in _READ_ONLY_COMMANDS or (name == "find" and ("-delete" in words or "-exec" in words)):
            return True
        if name == "awk" and "-i" in words:
            return True
    return False


def task_changed_files(context: Context) -> bool:
    """Whether the task (since the user's last message) made a change: a successful ``edit`` or
    ``write``, or a successful ``bash`` command that may change files."""
    commands = _task_commands(context)
    for message in reversed(context.messages):
        if isinstance(message, UserMessage):
            break
        if not isinstance(message, ToolResultMessage) or message.is_error:
            continue
        if message.tool_name in ("edit", "write"):
            return True
        if message.tool_name == "bash" and may_change_files(commands.get(message.tool_call_id, "")):
            return True
    return False


ECHO_NOTE = (
    "(That reply repeats a message the tools gave you, not meant for the user. Reply to the user in your "
    "own words: say what was changed in this task and whether it is done, or that it is not done.)"
)
"""Asked of an answer that repeats one of our guards' refusals (``answer_check``): in the newcomer
trial the 1.5B, its ``write`` refused, answered the user with the refusal's advice."""
ECHO_WORDS = 8
"""An answer with this many consecutive words of a guard's refusal repeats it."""
_WORD = re.compile(r"[\w/.'-]+")


def _shingles(text: str) -> set[tuple[str, ...]]:
    words = [word.lower().strip(".") for word in _WORD.findall(text)]
    return {tuple(words[index : index + ECHO_WORDS]) for index in range(len(words) - ECHO_WORDS + 1)}


def echoes(text: str, sources: list[str]) -> bool:
    """Whether ``text`` repeats ``ECHO_WORDS`` consecutive words of one of ``sources``."""
    said = _shingles(text)
    return any(said & _shingles(source) for source in sources)


def guard_refusals(context: Context) -> list[str]:
    """The texts of the task's tool results (since the user's last message) that are our guards'
    refusals (``_write_guard.REFUSAL_PREFIXES``)."""
    found: list[str] = []
    for message in reversed(context.messages):
        if isinstance(message, UserMessage):
            break
        if isinstance(message, ToolResultMessage) and message.is_error:
            text = content_text(message.content, "")
            if text.startswith(REFUSAL_PREFIXES):
                found.append(text)
    return found


REPORT_NOTE = (
    "(The user does not see what the tools return. Reply with what the command printed: quote its output.)"
)
"""Asked of an answer to "run this and tell me" that leaves the command's output out: in the newcomer
trial the 1.5B ran ``python3 stats.py fruits.txt`` and answered "...was executed, and the output was
printed.", so the user read no output at all."""
_ASKS_OUTPUT = re.compile(
    r"\b(?:tell me|let me know|report|prints?|printed|outputs?|show me|how many|what number|what value)\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?!\w)")


def command_output(context: Context) -> str | None:
    """The output of the task's last tool call (our guards' refusals aside) when it is a successful
    ``bash`` run with output and the user's message asks what a command prints; else None."""
    for message in reversed(context.messages):
        if isinstance(message, UserMessage):
            return None
        if isinstance(message, ToolResultMessage) and not (
            message.is_error and content_text(message.content, "").startswith(REFUSAL_PREFIXES)
        ):
            text = content_text(message.content, "").strip()
            if message.tool_name != "bash" or message.is_error or not text:
                return None
            break
    else:
        return None
    return text if _ASKS_OUTPUT.search(last_request(context.messages)) else None


REPORT_ALL_NUMBERS = 3
"""An output with at most this many distinct numbers is reported only with all of them."""


def reports(answer: str, output: str) -> bool:
    """Whether ``answer`` gives ``output``: one of its lines as it is, or its numbers (all of them
    when it has at most ``REPORT_ALL_NUMBERS``, else one). After the guard the 1.5B reported
    "7 words, 17 letters" for "7 words, 39 letters"."""
    if any(line.strip() in answer for line in output.splitlines() if len(line.strip()) >= 2):
        return True
    printed, said = set(_NUMBER.findall(output)), set(_NUMBER.findall(answer))
    if not printed:
        return False
    return printed <= said if len(printed) <= REPORT_ALL_NUMBERS else bool(printed & said)


TESTS_NOTE = (
    "(No test run has passed since the files last changed, so nobody knows that the task is done. Do not say "
    "that it is done or that the tests pass. Run the tests with bash and fix what fails. If you cannot, tell "
    "the user plainly that the tests do not pass yet.)"
)
"""Asked of an answer that says the tests pass, or in a task about tests (``_test_run.names_tests``)
that the task is done or something fixed, when no test run passed after the task's last change: in
the second newcomer trial the 1.5B edited ``discount.py`` (breaking it further) and answered "...the
tests in `test_discount.py` now pass." without running them; in its rerun it ran
``python test_discount.py``, which ran no test, and answered "The task is done."; in the next
rerun, its edit of the test refused, it changed nothing and answered "The code in
`test_discount.py` is already set up to pass the provided tests.". One sentence per piece of
advice, so that each is kept out of the answer (``hidden_notes``): after it, the 1.5B answered
"The tests do not pass yet. Run the tests with bash and fix what fails." (the third rerun)."""
_PASS_CLAIM = re.compile(
    r"\b(?:tests?|test_[\w.]+|[\w.]+_test)\b[^.!?\n]*?\b(?:now\s+|should\s+|will\s+)?pass(?:es|ed|ing)?\b"
    r"|\bpass(?:es|ing)?\s+(?:\w+\s+){0,3}tests?\b",
    re.IGNORECASE,
)
_DONE_CLAIM = re.compile(
    r"\b(?:task|issue|bug|problem|change|fix|it)\s+(?:is|has been|was)\s+(?:now\s+)?(?:done|complete|completed|finished|solved)\b"
    r"|\b(?:is|are|should|will)\s+(?:now\s+)?(?:work|working|works|correct)\b|\bdone\s*[.!]?\s*$",
    re.IGNORECASE,
)
_DENIAL = re.compile(r"\b(?:not|never|cannot|unable|still\s+fail\w*|fails|failed)\b|n't\b", re.IGNORECASE)
_OWNED_UP = re.compile(
    r"(?:\b(?:not|never)|n't)\s+(?:\w+\s+){0,2}(?:run|ran|tested|pass\w*|done|finished|fixed|verified|checked)\b"
    r"|\bstill\s+fail\w*",
    re.IGNORECASE,
)
_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+")


def _affirms(pattern: re.Pattern[str], text: str) -> bool:
    """Whether a sentence of ``text`` matches ``pattern`` and denies nothing, and no part of ``text``
    owns up to the tests not being run or not passing ("the test does not pass yet", "I changed
    discount.py; I have not run the tests" claim nothing)."""
    if _OWNED_UP.search(text):
        return False
    return any(pattern.search(part) and not _DENIAL.search(part) for part in _SENTENCES.split(text))


def claims_tests_pass(text: str) -> bool:
    """Whether an answer says that tests pass ("the tests in test_x.py now pass", "all tests passed")."""
    return _affirms(_PASS_CLAIM, text)


def claims_success(text: str) -> bool:
    """Whether an answer says the task is done, something fixed or changed, or the tests pass."""
    return claims_tests_pass(text) or _affirms(_DONE_CLAIM, text) or _affirms(_CLAIM, text)


_TEST_COMMAND = re.compile(
    r"\b(?:pytest|py\.test|unittest|nose2|tox)\b|(?:^|[\s/])(?:test_[\w.-]*|[\w.-]*_test)\.py\b", re.IGNORECASE
)
_PASSED_OUTPUT = re.compile(r"\b[1-9]\d* passed\b|^OK\b", re.MULTILINE)
_FAILED_OUTPUT = re.compile(r"\b[1-9]\d* (?:failed|errors?)\b|^FAILED\b|\bno tests ran\b", re.MULTILINE | re.IGNORECASE)


_SCRIPT_RUN = re.compile(r"^\s*python[\d.]*\s+(?:[\w./-]*/)?(?:test_[\w.-]*|[\w.-]*_test)\.py\s*$")
_NO_OUTPUT = "(no output)"


def passing_test_run(command: str, output: str) -> bool:
    """Whether a successful ``bash`` run of ``command`` printing ``output`` ran tests that passed:
    a test command (pytest, unittest, a ``test_*.py`` file...) whose output says tests passed
    (pytest's ``N passed``, unittest's ``OK``) and none failed, or a test file run as a script
    (``python3 test_calc.py``, asserts at its top) that printed something. ``python
    test_discount.py`` exited 0 printing nothing in the rerun (``test_*`` functions and no main):
    it ran no test, so it does not count; nor do ``echo``, ``cat`` or running the code itself."""
    if not _TEST_COMMAND.search(command) or _FAILED_OUTPUT.search(output):
        return False
    if _PASSED_OUTPUT.search(output):
        return True
    return bool(_SCRIPT_RUN.match(command)) and output.strip() not in ("", _NO_OUTPUT)


def suite_passed(context: Context) -> bool:
    """Whether the latest test run of the task (since the user's last message) passed and no file
    changed after it: walking back, a change with ``edit`` or ``write`` decides by the run that
    followed it (``_test_run``; none: not passed), a ``bash`` test command that failed says no, one
    whose output says tests passed says yes; other commands are passed over."""
    commands = _task_commands(context)
    for message in reversed(context.messages):
        if isinstance(message, UserMessage):
            return False
        if not isinstance(message, ToolResultMessage):
            continue
        if message.tool_name in ("edit", "write") and not message.is_error:
            run = SuiteRun.from_details(message.details)
            return run is not None and run.passed
        command = commands.get(message.tool_call_id, "")
        if message.tool_name == "bash" and _TEST_COMMAND.search(command):
            if message.is_error:
                return False
            if passing_test_run(command, content_text(message.content, "")):
                return True
    return False


def _edited(context: Context) -> bool:
    """Whether the task (since the user's last message) made a successful ``edit`` or ``write``."""
    for message in reversed(context.messages):
        if isinstance(message, UserMessage):
            return False
        if isinstance(message, ToolResultMessage) and message.tool_name in ("edit", "write") and not message.is_error:
            return True
    return False


def _bash_commands(messages: Sequence[object]) -> dict[str, str]:
    """The ``bash`` commands the assistant called in ``messages``, by tool call id."""
    return {
        block.id: str(block.arguments.get("command", ""))
        for message in messages
        if isinstance(message, AssistantMessage)
        for block in message.content
        if isinstance(block, ToolCall) and block.name == "bash"
    }


def _task_commands(context: Context) -> dict[str, str]:
    """The ``bash`` commands of the task (since the user's last message), by tool call id."""
    messages = list(context.messages)
    starts = [index for index, message in enumerate(messages) if isinstance(message, UserMessage)]
    return _bash_commands(messages[starts[-1] + 1 :] if starts else messages)


def answer_check(context: Context) -> dict[str, Any]:
    """The ``local`` API's answer check: when the task has changed nothing so far, an answer that
    claims a change is not accepted (``CLAIM_NOTE``); when one of our guards refused a call in the
    task, an answer that repeats the refusal is not accepted (``ECHO_NOTE``); right after a command
    the user asked about, an answer without any of its output is not accepted (``REPORT_NOTE``);
    in a task about tests (``_test_run.names_tests``) with no passing test run after its last
    change, or in another task after an ``edit`` or ``write`` that no passing test run followed, an
    answer that claims success (in the first case) or that the tests pass (in both) is not
    accepted (``TESTS_NOTE``).
    Each time the turn is written again once after the note. Otherwise no check (the answer streams as it is written)."""
    if not context.tools:
        return {}
    unchanged = not task_changed_files(context)
    refusals = guard_refusals(context)
    output = command_output(context)
    about_tests = names_tests(last_request(context.messages))
    untested = (about_tests or _edited(context)) and not suite_passed(context)
    if not unchanged and not refusals and output is None and not untested:
        return {}

    def check(text: str) -> str | None:
        if refusals and echoes(text, refusals):
            return ECHO_NOTE
        if unchanged and claims_change(text):
            return CLAIM_NOTE
        if untested and (claims_success(text) if about_tests else claims_tests_pass(text)):
            return TESTS_NOTE
        return REPORT_NOTE if output is not None and not reports(text, output) else None

    return {ANSWER_CHECK_OPTION: check}


def hidden_notes() -> dict[str, Any]:
    """Our notes, for the ``local`` API to keep out of the answers' text."""
    return {HIDDEN_NOTES_OPTION: [f"{EDIT_NOTE} {REGION_INTRO}", f"({TEST_RUN_INTRO}", DONE_NOTE, ANSWER_NOTE, CLAIM_NOTE, ECHO_NOTE, REPORT_NOTE, TESTS_NOTE]}


BASH_MIN_TIMEOUT = 10
BASH_MAX_TIMEOUT = 100_000
ARGUMENT_BOUNDS: dict[tuple[str, str], dict[str, Any]] = {
    ("bash", "timeout"): {"minimum": BASH_MIN_TIMEOUT, "maximum": BASH_MAX_TIMEOUT}
}
"""Bounds given to the grammar, which Pi's schemas do not state. bash refuses a ``timeout``
of 0 or less (the 1.5B sent 0 on every "run this command" task); held to more than 0 only, it
wrote 0.5, and ``python3 -c 'print(6*7)'`` timed out on a loaded machine. So at least 10 s. And
it refuses more than 2147483.647 s: a rerun of the second trial's task 2 sent 1000000000000000,
then 2147483647, and answered that the command had timed out. So at most 99999 s (the grammar
holds a maximum as a count of digits)."""


def with_argument_bounds(context: Context) -> Context:
    """``context`` with ``ARGUMENT_BOUNDS`` in its tools' schemas: a bash ``timeout`` under 10 s
    (0, which the tool refuses, or 0.5, which cut a command short) cannot be written."""
    tools = [_bounded(tool) for tool in context.tools or []]
    if not context.tools or all(new is old for new, old in zip(tools, context.tools, strict=True)):
        return context
    return msgspec.structs.replace(context, tools=tools)


def _bounded(tool: Tool) -> Tool:
    properties = tool.parameters.get("properties") if isinstance(tool.parameters, dict) else None
    if not isinstance(properties, dict):
        return tool
    changed = {
        key: {**schema, **ARGUMENT_BOUNDS[(tool.name, key)]}
        for key, schema in properties.items()
        if (tool.name, key) in ARGUMENT_BOUNDS and isinstance(schema, dict)
    }
    if not changed:
        return tool
    parameters = {**tool.parameters, "properties": {**properties, **changed}}
    return msgspec.structs.replace(tool, parameters=parameters)


ATTACH_MAX_CHARS = 4000
"""A file the user's message names is attached when it has at most this many characters..."""
ATTACH_MAX_FILES = 3
"""...and at most this many of them (the first named)."""
_NAMED = re.compile(r"(?<![\w/.~-])[\w][\w./-]*\.[A-Za-z0-9]+")


def named_files(text: str, cwd: str) -> list[tuple[str, str]]:
    """(name, content) of the small text files inside ``cwd`` that ``text`` names, as written."""
    found: list[tuple[str, str]] = []
    root = os.path.realpath(cwd)
    for name in dict.fromkeys(match.group(0).rstrip(".") for match in _NAMED.finditer(text)):
        path = os.path.realpath(os.path.join(root, name))
        if not path.startswith(root + os.sep) or not os.path.isfile(path):
            continue
        try:
            with open(path, encoding="utf-8") as handle:
                content = handle.read(ATTACH_MAX_CHARS + 1)
        except (OSError, UnicodeDecodeError):
            continue
        if len(content) <= ATTACH_MAX_CHARS:
            found.append((name, content))
        if len(found) == ATTACH_MAX_FILES:
            break
    return found


class NamedFiles:
    """Attaches the files a user's message names to that message, in the request only, as ``@file``
    would (``<file name="...">``): the 1.5B answered questions about a file without reading it and
    edited files it had not read. Each message's attachment is made once, when the message is
    first sent, and then kept as it was: later turns of the session send the same text, so the
    prompt cache keeps it (and the edits made since are in the tool results)."""

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
        self._made: dict[tuple[int, str], str] = {}

    def attachment(self, message: UserMessage) -> str:
        text = content_text(message.content, "")
        key = (message.timestamp, text)
        if key not in self._made:
            files = named_files(text, self.cwd)
            self._made[key] = "".join(f'\n<file name="{name}">\n{content}\n</file>' for name, content in files)
        return self._made[key]

    def __call__(self, context: Context) -> Context:
        messages = list(context.messages)
        changed = False
        for index, message in enumerate(messages):
            if not isinstance(message, UserMessage):
                continue
            attached = self.attachment(message)
            if attached:
                content = [TextContent(text=message.content)] if isinstance(message.content, str) else message.content
                messages[index] = msgspec.structs.replace(message, content=[*content, TextContent(text=attached)])
                changed = True
        return msgspec.structs.replace(context, messages=messages) if changed else context


_DOCS_SECTION = re.compile(r"\n*<docs>\n.*?\n</docs>", re.DOTALL)
_ABOUT_PI = re.compile(r"\bpi\b", re.IGNORECASE)


def without_pi_docs(context: Context) -> Context:
    """``context`` without the system prompt's ``<docs>`` section (where pi's own documentation
    and examples are) unless the user's last message mentions pi. The 1.5B put that folder in front
    of the project's file names (``<pi's install>/config.py``), explained a ``grep`` over it instead
    of running one (newcomer trial), and once edited ``<pi's install>/examples/calc.py``; the
    section is also about 150 tokens of prefill."""
    request = next(
        (content_text(m.content, "") for m in reversed(context.messages) if isinstance(m, UserMessage)), ""
    )
    if not context.system_prompt or _ABOUT_PI.search(request):
        return context
    shorter = _DOCS_SECTION.sub("", context.system_prompt)
    return context if shorter == context.system_prompt else msgspec.structs.replace(context, system_prompt=shorter)
