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

Only for in-process models: a large model that shortens a file it read does so on purpose, and
Pi's behaviour with those providers is kept (docs/providers/local.md).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable

from pi_agent import BeforeToolCallContext, BeforeToolCallResult
from pi_ai import AbortSignal, AssistantMessage, ToolCall, ToolResultMessage, UserMessage, content_text
from pi_coding_agent.core.local_model import LOCAL_API
from pi_coding_agent.core.tools import edit_base_text, resolve_read_path

ToolGuard = Callable[[BeforeToolCallContext, AbortSignal | None], Awaitable[BeforeToolCallResult | None]]

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
    """Why writing ``new`` over ``old`` (a file the task ``how`` = read / edited) is refused, or None."""
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
    kept = len(set(old_lines) & set(new_lines))
    distinct = len(set(old_lines))
    if distinct >= RELATED_MIN_LINES and kept < RELATED_SHARE * distinct:
        return (
            f"Not written: {path} was {how} in this task, and this content keeps only {kept} of its "
            f"{distinct} distinct lines: it is not that file. {advice}"
        )
    return None


def _last_request(messages: list[object]) -> str:
    for message in reversed(messages):
        if isinstance(message, UserMessage):
            return content_text(message.content, "")
    return ""


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


def write_guard(cwd: str) -> ToolGuard:
    """The ``before_tool_call`` check (see the module)."""

    async def guard(
        context: BeforeToolCallContext, signal: AbortSignal | None
    ) -> BeforeToolCallResult | None:
        name = context.tool_call.name
        if name not in ("write", "edit") or context.assistant_message.api != LOCAL_API:
            return None
        path, content = context.args.get("path"), context.args.get("content")
        if not isinstance(path, str):
            return None
        outside = outside_refusal(path, cwd, _last_request(list(context.context.messages)))
        if outside is not None:
            return BeforeToolCallResult(block=True, reason=outside)
        if name != "write" or not isinstance(content, str):
            return None
        how = touched_files(list(context.context.messages), cwd).get(resolve_read_path(path, cwd))
        old = edit_base_text(path, cwd) if how is not None else None
        reason = refusal(path, how, old, content) if how is not None and old is not None else None
        return BeforeToolCallResult(block=True, reason=reason) if reason is not None else None

    return guard
