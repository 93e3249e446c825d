"""The ``ls`` tool: one directory's entries, sorted, directories marked with ``/``.

Everything is listed, dotfiles included, and ``.gitignore`` is not consulted (as in Pi:
``ls`` shows what is there; ``find`` and ``grep`` are the filtered views).
"""

from __future__ import annotations

import asyncio
import os
import stat
from typing import Any

from pi_agent import AgentTool, AgentToolResult, ToolUpdateCallback
from pi_ai import AbortSignal
from pi_coding_agent.core.tools._collate import locale_sort_key
from pi_coding_agent.core.tools._common import (
    ToolError,
    js_int,
    listing_result,
    optional_number,
    raise_if_aborted,
    text_content,
)
from pi_coding_agent.core.tools._fs_errors import node_error_message
from pi_coding_agent.core.tools._paths import resolve_to_cwd
from pi_coding_agent.core.tools._truncate import DEFAULT_MAX_BYTES

DEFAULT_LS_LIMIT = 500


LS_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "Directory to list (default: the working directory)"},
        "limit": {"type": "number", "description": f"Most entries to return (default: {DEFAULT_LS_LIMIT})"},
    },
}


class LsTool(AgentTool):
    name = "ls"
    label = "ls"
    description = (
        "List a directory: entries sorted alphabetically, directories end with '/', dotfiles "
        f"included. At most {DEFAULT_LS_LIMIT} entries or {DEFAULT_MAX_BYTES // 1024}KB are returned, "
        "whichever is hit first."
    )
    parameters: dict[str, Any] = LS_PARAMETERS
    prompt_snippet = "List directory contents"
    prompt_guidelines: tuple[str, ...] = ()

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd

    async def execute(
        self,
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
    ) -> AgentToolResult[Any]:
        raise_if_aborted(signal)
        path = params.get("path") or "."
        limit = optional_number(params, "limit")
        result = await asyncio.to_thread(
            self._list,
            resolve_to_cwd(str(path), self.cwd),
            DEFAULT_LS_LIMIT if limit is None else js_int(limit),
        )
        raise_if_aborted(signal)
        return result

    def _list(self, directory: str, limit: int) -> AgentToolResult[Any]:
        if not os.path.exists(directory):
            raise ToolError(f"Path not found: {directory}")
        if not os.path.isdir(directory):
            raise ToolError(f"Not a directory: {directory}")
        try:
            names = os.listdir(directory)
        except OSError as error:
            raise ToolError(
                f"Cannot read directory: {node_error_message(directory, 'scandir', error)}"
            ) from None
        names.sort(key=locale_sort_key)
        entries: list[str] = []
        limit_reached = False
        for name in names:
            if len(entries) >= limit:
                limit_reached = True
                break
            try:
                mode = os.stat(os.path.join(directory, name)).st_mode
            except OSError:
                continue
            entries.append(name + "/" if stat.S_ISDIR(mode) else name)
        if not entries:
            return AgentToolResult(content=text_content("(empty directory)"))
        limit_notice = None
        if limit_reached:
            notice = f"{limit} entries limit reached. Use limit={limit * 2} for more"
            limit_notice = (notice, "entryLimitReached", limit)
        return listing_result(entries, limit_notice)
