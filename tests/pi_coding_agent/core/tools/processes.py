"""Process-table checks for tests that must leave no process behind."""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path


def alive(pid: int) -> bool:
    """Running (a zombie waiting to be reaped counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def wait_gone(pid: int, within: float = 3.0) -> bool:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while loop.time() < deadline:
        if not alive(pid):
            return True
        await asyncio.sleep(0.02)
    return not alive(pid)


async def read_pid(path: Path, within: float = 5.0) -> int:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while loop.time() < deadline:
        text = _read(path)
        if text.strip():
            return int(text.strip())
        await asyncio.sleep(0.01)
    raise AssertionError(f"no pid written to {path}")


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except FileNotFoundError:
        return ""


def read_and_remove(path: Path) -> str:
    """A temp output file's text; the file is deleted."""
    try:
        return path.read_text()
    finally:
        path.unlink()


def kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, 9)
