"""The ``write`` tool: create or overwrite a file, making parent directories as needed."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from pi_agent import AgentTool, AgentToolResult, ToolUpdateCallback
from pi_ai import AbortSignal
from pi_coding_agent.core.tools._common import ToolError, raise_if_aborted, text_content, utf8_bytes
from pi_coding_agent.core.tools._fs_errors import node_error_message
from pi_coding_agent.core.tools._mutation_queue import file_mutation
from pi_coding_agent.core.tools._paths import resolve_to_cwd

WRITE_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "required": ["path", "content"],
    "properties": {
        "path": {
            "type": "string",
            "description": "File to write, relative to the working directory or absolute",
        },
        "content": {"type": "string", "description": "The complete new content of the file"},
    },
}


class WriteTool(AgentTool):
    name = "write"
    label = "write"
    description = (
        "Write a file with the given content: a new file is created, an existing one is replaced "
        "entirely. Missing parent directories are created."
    )
    parameters: dict[str, Any] = WRITE_PARAMETERS
    prompt_snippet = "Create or overwrite files"
    prompt_guidelines = ("Use write only for new files or to rewrite a whole file.",)

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd

    async def execute(
        self,
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
    ) -> AgentToolResult[Any]:
        path = str(params["path"])
        content = str(params["content"])
        absolute = resolve_to_cwd(path, self.cwd)
        async with file_mutation(absolute):
            # Abort is checked between steps, never mid-write: the queue stays held until the
            # file system operation in flight has finished.
            raise_if_aborted(signal)
            await asyncio.to_thread(_write_file, absolute, content)
            raise_if_aborted(signal)
        return AgentToolResult(content=text_content(f"Successfully wrote to {path}"))


def _write_file(absolute: str, content: str) -> None:
    parent = os.path.dirname(absolute)
    try:
        os.makedirs(parent, exist_ok=True)
    except OSError as error:
        raise ToolError(node_error_message(error.filename or parent, "mkdir", error)) from None
    try:
        with open(absolute, "wb") as handle:
            handle.write(utf8_bytes(content))
    except OSError as error:
        raise ToolError(node_error_message(absolute, "open", error)) from None
