"""What an in-process (``local``) model gets besides what Pi sends any model.

Measured with Qwen2.5-Coder 1.5B on ``bench/local_tasks.py`` (docs/providers/local.md):

- its ``edits[].oldText`` was made up more often than not, so the grammar makes it quote lines of
  the file being edited (``edit_quotes``);
- after an edit that worked, told only "Successfully replaced 1 block(s)", it went on to ``write``
  the file again from memory, losing most of it; so the model sees the changed lines as they now
  read (``with_result_notes``). Only the request changes: the session keeps Pi's tool result.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from pi_ai import Context, TextContent, ToolResultMessage, UserMessage
from pi_ai.api.local import COPY_SOURCE_OPTION, CopiedText
from pi_coding_agent.tools import edit_base_text

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


def _note(message: ToolResultMessage, changed_files: bool) -> str | None:
    if message.is_error:
        return None
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
    """``context`` with each successful ``edit`` result followed by the lines it changed, and each
    successful ``bash`` run after a change (since the user's last message) by ``DONE_NOTE``."""
    messages = list(context.messages)
    changed_files = False
    for index, message in enumerate(messages):
        if isinstance(message, UserMessage):
            changed_files = False
        if not isinstance(message, ToolResultMessage):
            continue
        note = _note(message, changed_files)
        if message.tool_name in ("edit", "write") and not message.is_error:
            changed_files = True
        if note is not None:
            messages[index] = msgspec.structs.replace(message, content=[*message.content, TextContent(text=note)])
    return msgspec.structs.replace(context, messages=messages)
