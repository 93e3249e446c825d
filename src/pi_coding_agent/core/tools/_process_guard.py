"""pi's side of the watchdog (``_watchdog``): one per process, started with the first command.

``watchdog()`` registers a command run with the watchdog before its shell is spawned, then its
process group, and unregisters it when the run is over. If the watchdog cannot be started or
has died, runs still work: the guard restarts it on the next message (replaying the active
runs) and otherwise gives up silently; only the SIGKILL-of-pi protection is lost.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import subprocess
import sys
import threading

_WATCHDOG_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_watchdog.py")


class _Watchdog:
    def __init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self._active: dict[str, int | None] = {}
        self._lock = threading.Lock()
        self._stop_at_exit = False

    def start(self, token: str) -> None:
        with self._lock:
            self._active[token] = None
            self._send(f"start {token}\n")

    def group(self, token: str, pgid: int) -> None:
        with self._lock:
            self._active[token] = pgid
            self._send(f"group {token} {pgid}\n")

    def end(self, token: str) -> None:
        with self._lock:
            self._active.pop(token, None)
            self._send(f"end {token}\n")

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def _send(self, line: str) -> None:
        for _ in range(2):
            if self._process is None or self._process.poll() is not None:
                if not self._spawn():
                    return
                line = self._replay()
            assert self._process is not None and self._process.stdin is not None
            try:
                os.write(self._process.stdin.fileno(), line.encode("ascii"))
                return
            except BlockingIOError:  # a stuck watchdog: keep running unguarded
                return
            except OSError:  # it died: reap it, then start another
                self._process.poll()
                self._process = None

    def _replay(self) -> str:
        lines = []
        for token, pgid in self._active.items():
            lines.append(f"start {token}\n")
            if pgid is not None:
                lines.append(f"group {token} {pgid}\n")
        return "".join(lines)

    def _spawn(self) -> bool:
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-I", "-S", "-B", _WATCHDOG_SCRIPT],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                cwd="/",
                env={},
                start_new_session=True,
            )
        except OSError:
            self._process = None
            return False
        assert self._process.stdin is not None
        os.set_blocking(self._process.stdin.fileno(), False)
        if not self._stop_at_exit:
            atexit.register(self.stop)
            self._stop_at_exit = True
        return True

    def stop(self) -> None:
        """At exit: close its stdin (it kills what is still active and exits) and reap it."""
        process, self._process = self._process, None
        if process is None:
            return
        assert process.stdin is not None
        with contextlib.suppress(OSError):
            process.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=2)


_watchdog = _Watchdog()


def watchdog() -> _Watchdog:
    """The process-wide watchdog client."""
    return _watchdog


def new_run_token() -> str:
    import secrets  # loaded with the first command, not at startup

    return secrets.token_hex(8)
