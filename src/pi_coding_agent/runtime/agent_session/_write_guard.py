"""A ``write`` that would wreck a file the task has read or edited is refused, with the reason.

Qwen2.5-Coder 1.5B, after an ``edit``, wrote the file again from memory and cut it short, and
once overwrote one file with another's content (issue 27). So when an in-process (``local``)
model calls ``write`` on a file that a successful ``read`` or ``edit`` of the same task (since the
user's last message) touched, and the new content is shorter than the file (fewer non-blank lines)
or unrelated to it (keeps under half of its non-blank lines), the call is blocked before it runs:
the model gets an error result saying why and what to do instead, and the file stays as it was.

It also refuses an ``edit`` or ``write`` outside the working folder that the user's message does
not name: asked to fix ``calc.py`` in an empty folder, the 1.5B wrote ``<pi's install>/examples/calc.py``
(the system prompt lists pi's own examples folder) in a real run on 2026-12-06.

And it refuses an ``edit`` or ``write`` of an existing test file when the user asked for code that
makes failing tests pass and did not ask to change the tests: told "The tests in test_temps.py
fail. Fix the bug in temps.py so they pass.", the 1.5B swapped the arguments of all three asserts
in the test file and never touched temps.py (newcomer trial, 2026-12-07).

And it refuses an ``edit`` that changes more than the quoted change the user asked for: told
'In farewell.py, change "Bye" to "See you".', the 1.5B replaced ``return f"Bye, {name}."`` with
``return f"See you.",`` (the name dropped, and a comma that makes the function return a tuple).
The refusal gives the block's ``newText`` with just the asked change made.

And it refuses any ``edit`` or ``write`` when the user's message is a question, or a command to run
and report, that asks for no change (``asks_no_change``): asked "What is 17 + 25?" in an empty
folder, the 1.5B ran ``echo 17 + 25``, wrote ``sum.txt`` and answered with a narration of "the
task" (a fresh machine, 2026-12-07); told to run a script on poem.txt and give the counts, it
wrote poem.txt back (the second newcomer trial). The refusal tells it to answer the question instead.

And it refuses a ``write`` whose whole content is a Markdown code fence (not into a Markdown or
text file), and a ``write`` over a file the task edited that drops any of its lines: told "In
config.py, set MAX_RETRIES to 5.", the 1.5B made the edit, then wrote config.py again as
```` ```python ```` plus the lines of the edit note's excerpt with the docstring's closing quotes
cut (newcomer trial, 2026-12-07).

And it refuses a ``bash`` command that overwrites an existing file through the shell (a redirect,
``tee``, ``sed -i``, ``cp`` or ``mv`` onto it) unless the user asked for that (``redirect_refusal``).

And it refuses an ``edit``, or a ``write`` over an existing file, that breaks it
(``_file_damage.damage_refusal``), or that keeps it whole but drops a docstring or a comment line
the user did not ask to remove (``_file_damage.dropped_text_refusal``).

Only for in-process models: a large model that shortens a file it read does so on purpose, and
Pi's behaviour with those providers is kept (docs/providers/local.md).
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Awaitable, Callable, Collection, Sequence

from pi_agent import BeforeToolCallContext, BeforeToolCallResult
from pi_ai import AbortSignal, AssistantMessage, ToolCall, ToolResultMessage, UserMessage
from pi_coding_agent.core.local_model import LOCAL_API
from pi_coding_agent.core.tools import edit_base_text, edited_text, resolve_read_path
from pi_coding_agent.runtime.agent_session._file_damage import damage_refusal, dropped_text_refusal
from pi_coding_agent.runtime.agent_session._user_request import (
    asks_no_change,
    last_request,
    may_drop_text,
    wants_tests_passing,
)

ToolGuard = Callable[[BeforeToolCallContext, AbortSignal | None], Awaitable[BeforeToolCallResult | None]]

REFUSAL_PREFIXES = ("Not written:", "Not changed:")
"""How each refusal begins (the answer check knows them by it: ``_local_aids.guard_refusals``)."""
RELATED_SHARE = 0.5
"""A new content keeping less than this share of the old file's non-blank lines is unrelated to it..."""
RELATED_MIN_LINES = 4
"""...when the old file has at least this many (a one-line file may well be replaced whole)."""


def touched_files(messages: list[object], cwd: str) -> dict[str, str]:
    """Absolute path -> ``read`` or ``edited``, for the files a successful ``read`` or ``edit`` of
    the task (since the user's last message) touched."""
    task: list[object] = []
    for message in reversed(messages):
        if isinstance(message, UserMessage):
            break
        task.append(message)
    calls = {
        block.id: block
        for message in task
        if isinstance(message, AssistantMessage)
        for block in message.content
        if isinstance(block, ToolCall)
    }
    touched: dict[str, str] = {}
    for message in reversed(task):
        if (
            not isinstance(message, ToolResultMessage)
            or message.is_error
            or message.tool_name not in ("read", "edit")
        ):
            continue
        call = calls.get(message.tool_call_id)
        path = call.arguments.get("path") if call is not None else None
        if isinstance(path, str):
            absolute = resolve_read_path(path, cwd)
            touched[absolute] = (
                "edited" if message.tool_name == "edit" or touched.get(absolute) == "edited" else "read"
            )
    return touched


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.replace("\r\n", "\n").split("\n") if line.strip()]


def refusal(path: str, how: str, old: str, new: str) -> str | None:
    """Why writing ``new`` over ``old`` (a file the task ``how`` = read / edited) is refused, or None:
    fewer lines, or unrelated lines; over a file the task edited, any of its lines dropped (told
    to set a value in ``config.py``, the 1.5B made the edit, then wrote the file again from the
    edit note's excerpt, its first line cut and the whole in a Markdown fence: newcomer trial)."""
    old_lines, new_lines = _lines(old), _lines(new)
    if not old_lines:
        return None
    advice = (
        f"The file is unchanged. To change part of it, use edit on {path}; write is for new files "
        "or a full rewrite that keeps what the file has."
    )
    if len(new_lines) < len(old_lines):
        return (
            f"Not written: {path} was {how} in this task, and this content would replace its "
            f"{len(old_lines)} non-blank lines with {len(new_lines)}. {advice}"
        )
    if how == "edited":
        dropped = [line for line in dict.fromkeys(old_lines) if line not in set(new_lines)]
        if dropped:
            return (
                f"Not written: {path} was edited in this task, and this content drops {len(dropped)} of its "
                f"lines (such as {dropped[0]!r}). {advice}"
            )
    kept = len(set(old_lines) & set(new_lines))
    distinct = len(set(old_lines))
    if distinct >= RELATED_MIN_LINES and kept < RELATED_SHARE * distinct:
        return (
            f"Not written: {path} was {how} in this task, and this content keeps only {kept} of its "
            f"{distinct} distinct lines: it is not that file. {advice}"
        )
    return None


def outside_refusal(path: str, cwd: str, request: str) -> str | None:
    """Why a change to ``path`` is refused when it lies outside ``cwd`` and ``request`` (the user's
    message) does not name it, or None."""
    absolute = resolve_read_path(path, cwd)
    root = os.path.normpath(os.path.abspath(cwd))
    if absolute == root or absolute.startswith(root.rstrip(os.sep) + os.sep):
        return None
    if path in request or absolute in request:
        return None
    return (
        f"Not changed: {path} is outside the working folder ({root}) and the user did not name it. "
        "The task's files are in the working folder: use a path inside it (a relative path is enough)."
    )


_TEST_NAME = re.compile(r"(?:^test_.+|.+_test\.\w+|.+\.(?:test|spec)\.\w+)$")
_TEST_DIRS = frozenset(["test", "tests", "__tests__", "spec"])
_CHANGE_TESTS = re.compile(
    r"\b(?:add|create|write|update|change|modify|edit|extend|rewrite|rename|adjust|delete|remove)\s+"
    r"(?:the\s+|a\s+|an\s+|this\s+|that\s+|these\s+|those\s+|new\s+|more\s+)*(?:\w+\s+)?"
    r"(?:tests?\b|test_\w+|\S*_test\b|\S+\.(?:test|spec)\.)",
    re.IGNORECASE,
)


def is_test_file(path: str) -> bool:
    """Whether ``path`` names a test: ``test_*``, ``*_test.*``, ``*.test.*``, ``*.spec.*`` or a
    file under a ``test``/``tests``/``__tests__``/``spec`` folder."""
    parts = path.replace("\\", "/").split("/")
    return bool(_TEST_NAME.match(parts[-1])) or any(part in _TEST_DIRS for part in parts[:-1])


def written_files(messages: Sequence[object], cwd: str) -> set[str]:
    """Absolute paths a successful ``write`` of the task (since the user's last message) wrote."""
    calls: dict[str, str] = {}
    written: set[str] = set()
    for message in reversed(messages):
        if isinstance(message, UserMessage):
            break
        if isinstance(message, ToolResultMessage) and message.tool_name == "write" and not message.is_error:
            written.add(message.tool_call_id)
        elif isinstance(message, AssistantMessage):
            for block in message.content:
                path = block.arguments.get("path") if isinstance(block, ToolCall) else None
                if isinstance(block, ToolCall) and block.name == "write" and isinstance(path, str):
                    calls[block.id] = resolve_read_path(path, cwd)
    return {calls[call_id] for call_id in written if call_id in calls}


def kept_test_refusal(path: str, cwd: str, request: str, written: Collection[str] = ()) -> str | None:
    """Why a change to ``path`` is refused when it is an existing test the task did not write,
    ``request`` (the user's message) asks for failing tests to pass and does not ask to change
    tests; else None."""
    absolute = resolve_read_path(path, cwd)
    if not is_test_file(path) or not os.path.isfile(absolute) or absolute in written:
        return None
    if not wants_tests_passing(request) or _CHANGE_TESTS.search(request):
        return None
    return (
        f"Not changed: {path} is a test, and the user asked for the code to pass it, not for a change "
        "to the test. Leave the test as it is and change the code it tests."
    )


_QUOTED_CHANGE = re.compile(
    r"""\b(?:change|replace|rename|turn)\s+(["'`])(.+?)\1\s+(?:to|into|with|by)\s+(["'`])(.+?)\3""",
    re.IGNORECASE,
)


def replacement_refusal(edits: object, request: str) -> str | None:
    """Why an ``edit`` is refused when the user asked to change quoted text into other quoted text
    ("change "Bye" to "See you"") and a block that does it changes more than that; else None."""
    pairs = [(match.group(2), match.group(4)) for match in _QUOTED_CHANGE.finditer(request)]
    if not pairs or not isinstance(edits, list):
        return None
    for block in edits:
        old = block.get("oldText") if isinstance(block, dict) else None
        new = block.get("newText") if isinstance(block, dict) else None
        if not isinstance(old, str) or not isinstance(new, str):
            continue
        asked = [(before, after) for before, after in pairs if before in old and after in new]
        if not asked:
            continue
        expected = old
        for before, after in asked:
            expected = expected.replace(before, after)
        if new.strip() != expected.strip():
            return (
                f"Not changed: the user asked to change {asked[0][0]!r} to {asked[0][1]!r}, and this edit "
                f"changes more than that. For that block, newText is {expected!r}; make the edit with it."
            )
    return None


def question_refusal(request: str) -> str | None:
    """Why an ``edit`` or ``write`` is refused when ``request`` is a question that asks for no
    change (``asks_no_change``); else None."""
    if not asks_no_change(request):
        return None
    return (
        "Not changed: the user asked a question, or to run something and report, and no change to files. "
        "Do not create or change files: reply to the user with the answer."
    )


_FENCE = re.compile(r"^\s*```[\w+-]*[ \t]*\n.*\n```\s*$", re.DOTALL)
_MARKDOWN = (".md", ".markdown", ".mdx", ".txt", ".rst")


def fence_refusal(path: str, content: str) -> str | None:
    """Why a ``write`` is refused when its whole content is one Markdown code fence (```` ``` ````
    first and last) and ``path`` is no Markdown or text file: the fence would end up in the file
    (the 1.5B wrote ``config.py`` so in the newcomer trial); else None."""
    if path.lower().endswith(_MARKDOWN) or not _FENCE.match(content):
        return None
    return (
        f"Not written: the content is wrapped in a Markdown code fence (```), which would become part of "
        f"{path}. Write the file's text only, without the ``` lines."
    )


_OVERWRITE = re.compile(r"""(?<![0-9&<>])(?:&>|>\|?)(?!>|&)\s*(["']?)([^\s;&|<>"']+)\1""")
_TEE = re.compile(r"""\btee\s+((?:-[^\sa]*\s+)*)(["']?)([^\s;&|<>"'-][^\s;&|<>"']*)\2""")


def redirect_refusal(command: str, cwd: str, request: str) -> str | None:
    """Why a ``bash`` command is refused when it overwrites an existing file of the working folder
    through the shell (``> file``, ``tee file``, ``sed -i ... file``, ``cp``/``mv`` onto a file)
    and the user's message does not ask for that; else None. Its edits refused by the guards
    above, the 1.5B wrote ``echo 'def apply_discount...' > discount.py``, dropping the docstring
    (the rerun of the second newcomer trial's task 2, 2026-12-07): a change through the shell
    passes every check an ``edit`` gets."""
    targets = [match.group(2) for match in _OVERWRITE.finditer(command)]
    targets += [match.group(3) for match in _TEE.finditer(command) if "a" not in match.group(1)]
    in_place = _in_place_targets(command)
    for target in [*targets, *in_place]:
        absolute = resolve_read_path(target, cwd)
        if target.startswith("/dev/") or not os.path.isfile(absolute):
            continue
        if re.search(rf">\s*{re.escape(target)}(?![\w.])|\btee\b[^|;&]*{re.escape(target)}", request):
            continue
        if target in in_place and _SHELL_CHANGE_ASKED.search(request):
            continue
        return (
            f"Not changed: this command would overwrite {target} through the shell. Change an existing "
            "file with edit (or write), which check the change."
        )
    return None


_SEGMENT = re.compile(r"&&|\|\||[;|&\n]")
_SHELL_CHANGE_ASKED = re.compile(r"\b(?:sed|cp|mv|copy|move|rename|overwrite)\b", re.IGNORECASE)
"""Words of a request that ask for a change through ``sed``, ``cp`` or ``mv`` itself."""


def _in_place_targets(command: str) -> list[str]:
    """The files that ``sed -i`` changes in place and that ``cp``/``mv`` write onto (their last
    operand; none with ``-n``, ``-t`` or a ``--`` option, which this does not read) in ``command``."""
    targets: list[str] = []
    for segment in _SEGMENT.split(command):
        try:
            words = shlex.split(segment)
        except ValueError:
            continue  # unbalanced quotes: the shell would refuse it too
        if not words:
            continue
        options = [word for word in words[1:] if word.startswith("-")]
        operands = [word for word in words[1:] if not word.startswith("-")]
        if words[0] == "sed" and any(_sed_in_place(option) for option in options):
            script_given = any(option.startswith(("-e", "-f", "--expression", "--file")) for option in options)
            targets += operands if script_given else operands[1:]
        elif words[0] in ("cp", "mv") and len(operands) >= 2 and not any(
            option.startswith("--") or "n" in option or "t" in option for option in options
        ):
            targets.append(operands[-1])
    return targets


def _sed_in_place(option: str) -> bool:
    """``-i``, ``-i.bak``, ``--in-place``, or short options that include ``i`` (``-Ei``)."""
    if option.startswith("--"):
        return option.startswith("--in-place")
    return "i" in option.split(".", 1)[0]


def _dropped(path: str, old: str, new: str, request: str, verb: str = "Not changed") -> str | None:
    """``dropped_text_refusal`` unless the user's message may mean to drop such text."""
    return None if may_drop_text(request) else dropped_text_refusal(path, old, new, verb)


def write_guard(cwd: str) -> ToolGuard:
    """The ``before_tool_call`` check (see the module)."""

    async def guard(
        context: BeforeToolCallContext, signal: AbortSignal | None
    ) -> BeforeToolCallResult | None:
        name = context.tool_call.name
        if context.assistant_message.api != LOCAL_API:
            return None
        command = context.args.get("command")
        if name == "bash" and isinstance(command, str):
            redirected = redirect_refusal(command, cwd, last_request(context.context.messages))
            return BeforeToolCallResult(block=True, reason=redirected) if redirected is not None else None
        if name not in ("write", "edit"):
            return None
        path, content = context.args.get("path"), context.args.get("content")
        if not isinstance(path, str):
            return None
        messages: list[object] = list(context.context.messages)
        request = last_request(messages)
        refused = (
            question_refusal(request)
            or outside_refusal(path, cwd, request)
            or kept_test_refusal(path, cwd, request, written_files(messages, cwd))
        )
        if refused is None and name == "edit":
            edits = context.args.get("edits")
            refused = replacement_refusal(edits, request)
            old, new = edit_base_text(path, cwd), edited_text(path, cwd, edits)
            if refused is None and old is not None and new is not None:
                refused = damage_refusal(path, old, new) or _dropped(path, old, new, request)
        if refused is not None:
            return BeforeToolCallResult(block=True, reason=refused)
        if name != "write" or not isinstance(content, str):
            return None
        fenced = fence_refusal(path, content)
        if fenced is not None:
            return BeforeToolCallResult(block=True, reason=fenced)
        how = touched_files(list(context.context.messages), cwd).get(resolve_read_path(path, cwd))
        existing = edit_base_text(path, cwd)  # None: no such text file
        reason = refusal(path, how, existing, content) if how is not None and existing is not None else None
        if reason is None and existing is not None:
            reason = damage_refusal(path, existing, content, "Not written") or _dropped(
                path, existing, content, request, "Not written"
            )
        return BeforeToolCallResult(block=True, reason=reason) if reason is not None else None

    return guard
