"""Killing a command's processes, from pi or from the watchdog that outlives pi.

A command runs as its own process group, and every process it starts inherits the
environment variable ``PI_RUN_MARKER=<token>`` (one token per run). ``kill_run`` SIGKILLs
the group, then, where ``/proc`` exists (Linux), every process of this user still carrying
the token: that catches what left the group with ``setsid``/``setpgid`` (a daemonizing
double fork) as long as it kept its environment.

When pi is killed with SIGKILL nothing in pi can run, so pi starts this file as a separate
process (``python -I -S _watchdog.py``, in its own session, with an empty environment so a
scan for an outer pi's token never matches it). pi tells it on stdin which runs are active::

    start <token>           before the shell is spawned
    group <token> <pgid>    once it is
    end <token>             when the run is over (its background processes may stay)

When stdin reaches end of file (pi exited, however it died), the watchdog kills every run
still active and exits. This file uses only the standard library: the watchdog imports
nothing from pi.
"""

from __future__ import annotations

import contextlib
import os
import signal

MARKER_VARIABLE = "PI_RUN_MARKER"
_SCAN_ROUNDS = 3


def kill_run(pgid: int | None, token: str) -> None:
    """SIGKILL the process group ``pgid`` (if given), then the processes marked with ``token``."""
    if pgid is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)
    # A marked process may fork while the first scan runs; a few rounds catch its children.
    for _ in range(_SCAN_ROUNDS):
        found = marked_processes(token)
        if not found:
            return
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)


def marked_processes(token: str) -> list[int]:
    """Live processes whose environment has ``PI_RUN_MARKER=<token>`` (empty without /proc)."""
    entry = f"{MARKER_VARIABLE}={token}".encode()
    own = os.getpid()
    found = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if not name.isdigit() or int(name) == own:
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as handle:
                environ = handle.read()
        except OSError:  # gone, or another user's process
            continue
        # A zombie's environ reads empty: killed processes drop out of the next round.
        if entry in environ.split(b"\0"):
            found.append(int(name))
    return found


def main() -> None:
    os.chdir("/")
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    active: dict[str, int | None] = {}
    pending = b""
    while True:
        chunk = os.read(0, 65536)
        if not chunk:
            break
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            _apply(active, line.decode("ascii", "replace").split())
    for token, pgid in active.items():
        kill_run(pgid, token)


def _apply(active: dict[str, int | None], words: list[str]) -> None:
    if len(words) == 2 and words[0] == "start":
        active[words[1]] = None
    elif len(words) == 3 and words[0] == "group" and words[2].isdigit():
        active[words[1]] = int(words[2])
    elif len(words) == 2 and words[0] == "end":
        active.pop(words[1], None)


if __name__ == "__main__":
    main()
