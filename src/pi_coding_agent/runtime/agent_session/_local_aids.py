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
  edit of the same task counts as a repeat, and the model is asked to reply (``edit_undos``).
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from pi_ai import Context, TextContent, ToolResultMessage, UserMessage, content_text
from pi_ai.api.local import COPY_SOURCE_OPTION, UNDO_OPTION, CopiedText
from pi_coding_agent.core.tools import edit_base_text

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


DONE_NOTE = "(The command succeeded after your changes. If the task is done, reply to the user now.)"
ANSWER_NOTE = (
    "(If this answers the user's question, reply with the answer now; a question needs no change to files.)"
)
"""After a file is read for a question: the 1.5B read the README it was asked about, then edited it."""


def _asks(message: UserMessage) -> bool:
    return "?" in content_text(message.content, "")


def _note(message: ToolResultMessage, changed_files: bool, question: bool) -> str | None:
    if message.is_error:
        return None
    if message.tool_name == "read" and question and not changed_files:
        return ANSWER_NOTE
    if message.tool_name == "edit":
        details = message.details
        patch = details.get("patch") if isinstance(details, dict) else None
        region = changed_region(patch) if isinstance(patch, str) else None
        if region is not None:
            return f"The file is saved; no write is needed. The changed part now reads:\n```\n{region}\n```"
    if message.tool_name == "bash" and changed_files:
        return DONE_NOTE
    return None


def with_result_notes(context: Context) -> Context:
    """``context`` with each successful ``edit`` result followed by the lines it changed, each
    successful ``bash`` run after a change (since the user's last message) by ``DONE_NOTE``, and
    each successful ``read`` for a question (a user message with ``?``), before any change, by
    ``ANSWER_NOTE``."""
    messages = list(context.messages)
    changed_files = question = False
    for index, message in enumerate(messages):
        if isinstance(message, UserMessage):
            changed_files, question = False, _asks(message)
        if not isinstance(message, ToolResultMessage):
            continue
        note = _note(message, changed_files, question)
        if message.tool_name in ("edit", "write") and not message.is_error:
            changed_files = True
        if note is not None:
            messages[index] = msgspec.structs.replace(
                message, content=[*message.content, TextContent(text=note)]
            )
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
