"""``pi.exec``: run a program without a shell, with a timeout and an abort signal."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any


async def run_program(
    command: str, args: list[str], *, cwd: str, timeout_ms: float | None, signal: Any
) -> dict[str, Any]:
    """``timeout_ms`` is Pi's ``timeout`` option; on timeout or abort the process is killed."""
    try:
        process = await asyncio.create_subprocess_exec(
            command, *args, cwd=cwd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
    except OSError as error:
        return {"stdout": "", "stderr": str(error), "code": 127, "killed": False}
    killed = False

    def kill() -> None:
        nonlocal killed
        killed = True
        with contextlib.suppress(ProcessLookupError):
            process.kill()

    remove = signal.add_listener(kill) if signal is not None and hasattr(signal, "add_listener") else None
    try:
        out, err = await asyncio.wait_for(
            process.communicate(), None if timeout_ms is None else timeout_ms / 1000
        )
    except TimeoutError:
        kill()
        out, err = await process.communicate()
    finally:
        if callable(remove):
            remove()
    code = process.returncode if process.returncode is not None else 1
    return {
        "stdout": out.decode(errors="replace"),
        "stderr": err.decode(errors="replace"),
        "code": code,
        "killed": killed,
    }
