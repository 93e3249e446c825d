"""Running a search program and consuming its stdout line by line, stoppable at any line."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
from collections.abc import Callable
from dataclasses import dataclass

from pi_ai import AbortSignal
from pi_coding_agent.core.tools._common import ABORTED_MESSAGE, ToolError

_LINE_LIMIT = 1 << 28


@dataclass(slots=True)
class LinesResult:
    returncode: int | None
    stderr: str
    stopped: bool
    """True when ``on_line`` asked to stop (the program was killed)."""
    aborted: bool


async def run_search(
    program: str, argv: list[str], on_line: Callable[[str], bool], signal: AbortSignal | None
) -> LinesResult:
    """``run_lines`` for rg or fd with the tools' errors: ``Failed to run <program>: ...`` when it
    cannot be started, ``Operation aborted`` when ``signal`` fired."""
    try:
        result = await run_lines(argv, on_line, signal)
    except OSError as error:
        raise ToolError(f"Failed to run {program}: {error}") from None
    if result.aborted:
        raise ToolError(ABORTED_MESSAGE)
    return result


async def run_lines(
    argv: list[str], on_line: Callable[[str], bool], signal: AbortSignal | None = None
) -> LinesResult:
    """Run ``argv``; call ``on_line`` for each stdout line until it returns False.

    The program is terminated when ``on_line`` stops or ``signal`` fires.
    """
    process = await asyncio.create_subprocess_exec(
        *argv,
        stdin=subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        limit=_LINE_LIMIT,
    )
    assert process.stdout is not None and process.stderr is not None
    stopped = False
    aborted = False

    def terminate() -> None:
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()

    def on_abort() -> None:
        nonlocal aborted
        aborted = True
        terminate()

    remove = signal.add_listener(on_abort) if signal is not None else None
    stderr_task = asyncio.ensure_future(process.stderr.read())
    try:
        while True:
            raw = await process.stdout.readline()
            if not raw:
                break
            if stopped or aborted:
                continue
            if not on_line(raw.decode("utf-8", "replace").rstrip("\n")):
                stopped = True
                terminate()
        stderr = (await stderr_task).decode("utf-8", "replace")
        returncode = await process.wait()
    finally:
        if remove is not None:
            remove()
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
        stderr_task.cancel()
    return LinesResult(returncode, stderr, stopped, aborted)
