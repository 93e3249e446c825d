"""A command that spreads over the process table, and the checks that it is all gone.

``spreading_command(pids)`` starts, and records the pid of: the shell itself, a background
``sleep``, a double-forked ``sleep`` (its parent exits, it is re-parented), a ``setsid``
``sleep`` (a new session and process group) and a ``setsid`` double fork, then waits. The
checks read ``/proc``: a pid counts as gone once it is not running (a zombie waiting for its
parent counts as gone), and the run's ``PI_RUN_MARKER`` finds any descendant the list missed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

import pytest

from tests.pi_coding_agent.core.tools.processes import alive
from tests.reliability.figures import record

NEEDS_PROC = pytest.mark.skipif(
    not Path("/proc/self/environ").exists(), reason="reads the process table in /proc"
)

SPREAD = 5
"""Pids ``spreading_command`` records."""
GONE_WITHIN = 15.0
"""Bound on the wait for the processes to go (a bug bound: a correct run takes milliseconds)."""


def spreading_command(pids: Path) -> str:
    p = str(pids)
    return (
        f"echo $$ >> {p}; "
        f"sleep 300 & echo $! >> {p}; "
        f"( ( sleep 301 & echo $! >> {p} ) & ); "
        f"setsid sh -c 'echo $$ >> {p}; exec sleep 302' & "
        f"( setsid sh -c 'sleep 303 & echo $! >> {p}; wait' & ); "
        "wait"
    )


def wait_for_pids(path: Path, count: int = SPREAD, within: float = 30.0) -> list[int]:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        with contextlib.suppress(FileNotFoundError):
            found = [int(word) for word in path.read_text().split()]
            if len(found) >= count:
                return found
        time.sleep(0.02)
    raise AssertionError(f"the command did not start its {count} processes: {path} is {_read(path)!r}")


def marker_of(pid: int) -> str | None:
    """The ``PI_RUN_MARKER`` value in a process's environment."""
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return None
    for item in environ.split(b"\0"):
        if item.startswith(b"PI_RUN_MARKER="):
            return item.split(b"=", 1)[1].decode()
    return None


def marked(marker: str) -> list[int]:
    """Running processes carrying ``marker``."""
    entry = f"PI_RUN_MARKER={marker}".encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            environ = Path(f"/proc/{name}/environ").read_bytes()
        except OSError:
            continue
        if entry in environ.split(b"\0") and alive(int(name)):
            found.append(int(name))
    return found


def left_behind(
    pids: list[int], marker: str | None, within: float = GONE_WITHIN, *, meant_to_survive: bool = False
) -> list[int]:
    """The processes still running after ``within`` seconds (killed, so the machine stays clean).

    ``meant_to_survive``: the check expects them running (a backgrounded server, the
    documented limit), so they do not count as processes left in the suite's figures.
    """
    deadline = time.monotonic() + within
    while True:
        running = sorted({pid for pid in pids if alive(pid)} | set(marked(marker) if marker else []))
        if not running or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    if not meant_to_survive:
        record("processes", checked=len(set(pids)), left=len(running))
    for pid in running:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return running


def children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(word) for word in text.split()]


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except FileNotFoundError:
        return ""
