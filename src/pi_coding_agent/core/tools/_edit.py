"""The ``edit`` tool: targeted text replacements in one file, with a diff in ``details``.

Line endings and a UTF-8 byte order mark are kept as the file had them: matching happens
on LF text without the BOM, and the result is converted back before it is written.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from pi_agent import AgentTool, AgentToolResult, ToolUpdateCallback
from pi_ai import AbortSignal
from pi_coding_agent.core.tools._common import ToolError, raise_if_aborted, text_content, utf8_bytes
from pi_coding_agent.core.tools._diff import display_diff, unified_patch
from pi_coding_agent.core.tools._edit_match import (
    apply_edits,
    detect_line_ending,
    normalize_to_lf,
    restore_line_endings,
)
from pi_coding_agent.core.tools._fs_errors import access_error, error_code, node_error_message
from pi_coding_agent.core.tools._mutation_queue import file_mutation
from pi_coding_agent.core.tools._paths import resolve_to_cwd

_BOM = "\ufeff"


def _is_single_edit(value: object) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("oldText"), str)
        and isinstance(value.get("newText"), str)
    )


EDIT_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "required": ["path", "edits"],
    "properties": {
        "path": {
            "type": "string",
            "description": "File to edit, relative to the working directory or absolute",
        },
        "edits": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["oldText", "newText"],
                "properties": {
                    "oldText": {
                        "type": "string",
                        "description": "Text to replace, exactly as in the file; must occur once and "
                        "not overlap the other edits",
                    },
                    "newText": {"type": "string", "description": "The text that replaces oldText"},
                },
            },
            "description": "The replacements, all located in the original file (not one after "
            "another); they must not overlap",
        },
    },
}


class EditTool(AgentTool):
    name = "edit"
    label = "edit"
    description = (
        "Change one file by replacing exact text. Each edits[].oldText must occur exactly once in "
        "the file as it is now and must not overlap another edit of the same call. Combine nearby "
        "changes into one edit, and keep oldText short: just enough to be unique."
    )
    parameters: dict[str, Any] = EDIT_PARAMETERS
    prompt_snippet = "Make precise edits by exact text replacement, several disjoint ones in one call"
    prompt_guidelines = (
        "Use edit for precise changes; each edits[].oldText must match the file exactly",
        "For several changes in one file, send one edit call with several entries in edits[]",
        "Every edits[].oldText is located in the original file, not after the other edits: never "
        "send overlapping or nested edits, merge nearby changes into one",
        "Keep each edits[].oldText as short as it can be while still unique in the file",
    )

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd

    def prepare_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Accept the shapes models send besides the schema's.

        ``edits`` as a JSON string or as one object, and the older top-level
        ``oldText``/``newText`` pair (appended after any ``edits``).
        """
        args = dict(arguments)
        edits = args.get("edits")
        if isinstance(edits, str):
            try:
                parsed = json.loads(edits)
            except ValueError:
                parsed = None
            if isinstance(parsed, list):
                args["edits"] = parsed
            elif _is_single_edit(parsed):
                args["edits"] = [parsed]
        elif _is_single_edit(edits):
            args["edits"] = [edits]
        old_text, new_text = args.get("oldText"), args.get("newText")
        if not isinstance(old_text, str) or not isinstance(new_text, str):
            return args
        current = args.get("edits")
        merged = list(current) if isinstance(current, list) else []
        merged.append({"oldText": old_text, "newText": new_text})
        rest = {key: value for key, value in args.items() if key not in ("oldText", "newText")}
        rest["edits"] = merged
        return rest

    async def execute(
        self,
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
    ) -> AgentToolResult[Any]:
        edits = params.get("edits")
        if not isinstance(edits, list) or not edits:
            raise ToolError("Edit tool input is invalid. edits must contain at least one replacement.")
        path = str(params["path"])
        pairs = [(str(edit["oldText"]), str(edit["newText"])) for edit in edits]
        absolute = resolve_to_cwd(path, self.cwd)
        async with file_mutation(absolute):
            raise_if_aborted(signal)
            denied = access_error(absolute, os.R_OK | os.W_OK)
            if denied is not None:
                raise ToolError(f"Could not edit file: {path}. Error code: {error_code(denied)}.")
            diff, patch, first_line = await asyncio.to_thread(_edit_file, absolute, path, pairs)
            raise_if_aborted(signal)
        details: dict[str, Any] = {"diff": diff, "patch": patch}
        if first_line is not None:
            details["firstChangedLine"] = first_line
        return AgentToolResult(
            content=text_content(f"Successfully replaced {len(pairs)} block(s) in {path}."), details=details
        )


def _edit_file(absolute: str, path: str, pairs: list[tuple[str, str]]) -> tuple[str, str, int | None]:
    try:
        with open(absolute, "rb") as handle:
            raw = handle.read().decode("utf-8", "replace")
    except OSError as error:
        raise ToolError(node_error_message(None, "read", error)) from None
    bom = _BOM if raw.startswith(_BOM) else ""
    text = raw[len(bom) :]
    ending = detect_line_ending(text)
    base, result = apply_edits(normalize_to_lf(text), pairs, path)
    try:
        with open(absolute, "wb") as handle:
            handle.write(utf8_bytes(bom + restore_line_endings(result, ending)))
    except OSError as error:
        raise ToolError(node_error_message(absolute, "open", error)) from None
    diff, first_line = display_diff(base, result)
    return diff, unified_patch(path, path, base, result), first_line


def edit_base_text(path: str, cwd: str) -> str | None:
    """The text an edit of ``path`` is matched against (LF line ends, no byte order mark), or None
    when it is no UTF-8 text file. The embedded model's grammar makes ``oldText`` quote it
    (``pi_ai.api.local.CopiedText``, docs/providers/local.md)."""
    try:
        with open(resolve_to_cwd(path, cwd), "rb") as handle:
            raw = handle.read().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return normalize_to_lf(raw.removeprefix(_BOM))


def edited_text(path: str, cwd: str, edits: object) -> str | None:
    """The text ``edits`` (the ``edit`` tool's argument) would leave in ``path`` (LF line ends, no
    byte order mark), or None when the file is no UTF-8 text or the tool would refuse the edits.
    Lets a check judge an edit's result before it is made (the write guard, docs/providers/local.md)."""
    base = edit_base_text(path, cwd)
    if base is None or not isinstance(edits, list) or not edits or not all(map(_is_single_edit, edits)):
        return None
    try:
        return apply_edits(base, [(str(edit["oldText"]), str(edit["newText"])) for edit in edits], path)[1]
    except ToolError:
        return None
