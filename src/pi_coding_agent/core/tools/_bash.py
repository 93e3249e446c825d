"""The ``bash`` tool: run a command in the working directory, return the tail of its output.

Output is not cleaned of ANSI sequences (the model may need them verbatim, and tools
rarely colour output into a pipe). Partial output streams through ``on_update`` at most
every 100 ms. A non-zero exit, an abort and a timeout are errors whose text still carries
the output, so the model sees what happened before the failure.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from typing import Any

from pi_agent import AgentTool, AgentToolResult, ToolUpdateCallback
from pi_ai import AbortSignal, TextContent
from pi_ai.js_json import js_number
from pi_coding_agent.core.tools._common import ToolError, optional_number
from pi_coding_agent.core.tools._output import OutputAccumulator, OutputSnapshot
from pi_coding_agent.core.tools._shell import (
    SESSION_ENV_KEYS,
    BashOperations,
    LocalShell,
    ShellAbortedError,
    ShellTimeoutError,
    shell_env,
)
from pi_coding_agent.core.tools._truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size

UPDATE_THROTTLE_SECONDS = 0.1
STRUCTURED_OUTPUT_MAX_BYTES = 1024 * 1024
"""How much output ``structured_content.output`` (what codemode scripts get) keeps: all of it up
to 1 MiB, else the first and last half around an omission marker (Pi 1.6's limit)."""

BASH_OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["output", "truncated", "exit_code", "wall_time_seconds"],
    "properties": {
        "output": {"type": "string", "description": "stdout and stderr together (shortened past 1 MiB)"},
        "truncated": {"type": "boolean"},
        "full_output_path": {"type": "string", "description": "All of the output, when it was shortened"},
        "exit_code": {"type": "number"},
        "wall_time_seconds": {"type": "number"},
    },
}

SessionEnv = Callable[[], Mapping[str, str]]
"""Variables describing the session for commands (``PI_SESSION_ID``, ``PI_MODEL`` ...)."""


BASH_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "required": ["command"],
    "properties": {
        "command": {"type": "string", "description": "The command line to run"},
        "timeout": {"type": "number", "description": "Seconds before the command is killed (default: none)"},
    },
}


class BashTool(AgentTool):
    name = "bash"
    label = "bash"
    description = (
        "Run a bash command in the working directory and get its stdout and stderr back. Only the "
        f"last {DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB of output are returned, "
        "whichever is smaller; when output is cut, all of it is saved to a temp file whose path is "
        "given. A timeout in seconds may be set."
    )
    parameters: dict[str, Any] = BASH_PARAMETERS
    output_schema = BASH_OUTPUT_SCHEMA
    prompt_snippet = "Run bash commands (ls, grep, find, etc.)"

    def __init__(
        self,
        cwd: str,
        *,
        command_prefix: str | None = None,
        shell_path: str | None = None,
        bin_dir: str | None = None,
        session_env: SessionEnv | None = None,
        operations: BashOperations | None = None,
    ) -> None:
        self.cwd = cwd
        self.command_prefix = command_prefix
        self.bin_dir = bin_dir
        self.session_env = session_env
        self.operations: BashOperations = operations or LocalShell(shell_path)
        self.prompt_guidelines: tuple[str, ...] = (
            ("PI_* environment variables describe the current model and session.",) if session_env else ()
        )

    def _env(self) -> tuple[dict[str, str], bool]:
        """The commands' environment, and whether a full output is kept past this process:
        yes when the session has a file (``PI_SESSION_FILE``) that will store its path, or when
        there is no session to ask (the caller keeps the result)."""
        env = shell_env(self.bin_dir)
        for key in SESSION_ENV_KEYS:
            env.pop(key, None)
        if self.session_env is None:
            return env, True
        session = self.session_env()
        env.update(session)
        return env, bool(session.get("PI_SESSION_FILE"))

    async def execute(
        self,
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
    ) -> AgentToolResult[Any]:
        command = str(params["command"])
        timeout = optional_number(params, "timeout")
        if self.command_prefix:
            command = f"{self.command_prefix}\n{command}"
        env, keep_file = self._env()
        output = OutputAccumulator(temp_file_prefix="pi-bash", keep_file=keep_file)
        whole = _HeadTail(STRUCTURED_OUTPUT_MAX_BYTES)
        updates = _Updates(output, on_update)
        accepting = True
        started = time.perf_counter()

        def on_data(data: bytes) -> None:
            if accepting:
                output.append(data)
                whole.append(data)
                updates.schedule()

        def finish() -> OutputSnapshot:
            nonlocal accepting
            accepting = False
            output.finish()
            updates.flush()
            snapshot = output.snapshot(persist_if_truncated=True)
            output.close()
            return snapshot

        try:
            try:
                exit_code = await self.operations.exec(
                    command, self.cwd, on_data=on_data, signal=signal, time_limit=timeout, env=env
                )
            except ShellAbortedError:
                text, _ = _format(finish(), output, "")
                raise ToolError(_with_status(text, "Command aborted")) from None
            except ShellTimeoutError as error:
                text, _ = _format(finish(), output, "")
                raise ToolError(
                    _with_status(text, f"Command timed out after {js_number(error.timeout)} seconds")
                ) from None
            except BaseException:
                finish()
                raise
            snapshot = finish()
            text, details = _format(snapshot, output, "(no output)")
            structured: dict[str, Any] | None = None
            if exit_code is not None:
                structured = whole.structured(snapshot.full_output_path, exit_code, time.perf_counter() - started)
            if exit_code is not None and exit_code != 0:
                raise ToolError(_with_status(text, f"Command exited with code {exit_code}"), structured_content=structured)
            return AgentToolResult(content=[TextContent(text=text)], details=details, structured_content=structured)
        finally:
            updates.cancel()


class _HeadTail:
    """The first and last half of ``limit`` bytes of a stream, and its size."""

    def __init__(self, limit: int) -> None:
        self.head_limit = limit // 2
        self.tail_limit = limit - self.head_limit
        self.limit = limit
        self.head = bytearray()
        self.tail = bytearray()
        self.size = 0

    def append(self, data: bytes) -> None:
        self.size += len(data)
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        self.tail += data
        if len(self.tail) > self.tail_limit * 2:
            del self.tail[: len(self.tail) - self.tail_limit]

    def text(self) -> tuple[str, bool]:
        if self.size <= self.limit:
            return bytes(self.head + self.tail).decode("utf-8", "replace"), False
        tail = bytes(self.tail[-self.tail_limit :])
        start = 0
        while start < len(tail) and tail[start] & 0xC0 == 0x80:  # not inside a character
            start += 1
        head = _decode_prefix(bytes(self.head))
        omitted = self.size - self.head_limit - self.tail_limit
        return f"{head}\n\n[... {omitted} bytes omitted ...]\n\n{tail[start:].decode('utf-8', 'replace')}", True

    def structured(self, full_output_path: str | None, exit_code: int, seconds: float) -> dict[str, Any]:
        text, truncated = self.text()
        data: dict[str, Any] = {"output": text, "truncated": truncated}
        if truncated and full_output_path:
            data["full_output_path"] = full_output_path
        wall = round(seconds * 10) / 10
        data["exit_code"] = exit_code
        data["wall_time_seconds"] = int(wall) if wall.is_integer() else wall
        return data


def _decode_prefix(data: bytes) -> str:
    """``data`` decoded, an incomplete character at its end left out."""
    for cut in range(4):
        try:
            return data[: len(data) - cut].decode("utf-8")
        except UnicodeDecodeError:
            continue
    return data.decode("utf-8", "replace")


def _with_status(text: str, status: str) -> str:
    return f"{text}\n\n{status}" if text else status


def _format(
    snapshot: OutputSnapshot, output: OutputAccumulator, empty: str
) -> tuple[str, dict[str, Any] | None]:
    truncation = snapshot.truncation
    text = snapshot.content or empty
    if not truncation.truncated:
        return text, None
    details: dict[str, Any] = {"truncation": truncation.to_json()}
    if snapshot.full_output_path is not None:
        details["fullOutputPath"] = snapshot.full_output_path
    path = snapshot.full_output_path
    start = truncation.total_lines - truncation.output_lines + 1
    end = truncation.total_lines
    if truncation.last_line_partial:
        text += (
            f"\n\n[Showing last {format_size(truncation.output_bytes)} of line {end} "
            f"(line is {format_size(output.last_line_bytes)}). Full output: {path}]"
        )
    elif truncation.truncated_by == "lines":
        text += f"\n\n[Showing lines {start}-{end} of {truncation.total_lines}. Full output: {path}]"
    else:
        text += (
            f"\n\n[Showing lines {start}-{end} of {truncation.total_lines} "
            f"({format_size(DEFAULT_MAX_BYTES)} limit). Full output: {path}]"
        )
    return text, details


class _Updates:
    """Partial results for the UI: the first at once, then at most one per throttle interval."""

    def __init__(self, output: OutputAccumulator, on_update: ToolUpdateCallback | None) -> None:
        self.output = output
        self.on_update = on_update
        self.dirty = False
        self.last = 0.0
        self.timer: asyncio.TimerHandle | None = None
        if on_update is not None:
            on_update(AgentToolResult(content=[], details=None))

    def schedule(self) -> None:
        if self.on_update is None:
            return
        self.dirty = True
        loop = asyncio.get_running_loop()
        delay = UPDATE_THROTTLE_SECONDS - (loop.time() - self.last)
        if delay <= 0:
            self.cancel()
            self.flush()
        elif self.timer is None:
            self.timer = loop.call_later(delay, self._fire)

    def _fire(self) -> None:
        self.timer = None
        self.flush()

    def flush(self) -> None:
        if self.on_update is None or not self.dirty:
            return
        self.dirty = False
        self.last = asyncio.get_running_loop().time()
        snapshot = self.output.snapshot(persist_if_truncated=True)
        details: dict[str, Any] = {}
        if snapshot.truncation.truncated:
            details["truncation"] = snapshot.truncation.to_json()
        if snapshot.full_output_path is not None:
            details["fullOutputPath"] = snapshot.full_output_path
        self.on_update(AgentToolResult(content=[TextContent(text=snapshot.content)], details=details))

    def cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
