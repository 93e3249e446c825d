"""A program on a pseudo-terminal of its own, without tmux: what it writes, when, and
answers to the terminal queries it makes (for measurements and for queries tmux does not
answer, such as the cell size in pixels)."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import signal
import struct
import termios
import threading
import time
from pathlib import Path

COLUMNS, ROWS = 100, 30
DEFAULT_ANSWERS = {b"\x1b[c": b"\x1b[?62;22c"}  # device attributes, as xterm answers
ESCAPES = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[P_^][^\x1b]*\x1b\\|\x1b.")


class Pty:
    """A program on a pseudo-terminal; every byte it writes is kept with its arrival time, and
    each query in ``answers`` it writes is answered, in the order asked (the device attributes
    by default). ``answers`` may be changed while it runs (the terminal changed its colours)."""

    def __init__(
        self, command: list[str], cwd: Path, env: dict[str, str], answers: dict[bytes, bytes] | None = None
    ) -> None:
        pid, fd = pty.fork()
        if pid == 0:  # the child: the terminal's size, then the program
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
            os.chdir(cwd)
            os.execvpe(command[0], command, env)
        self.pid, self.fd = pid, fd
        self.answers = {**DEFAULT_ANSWERS, **(answers or {})}
        self.answered: list[bytes] = []
        """The queries answered so far, in order (the answers went to the program's input)."""
        self.chunks: list[tuple[float, bytes]] = []
        self.lock = threading.Lock()
        self.alive = True
        self.exit_code: int | None = None
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while self.alive:
            try:
                data = os.read(self.fd, 65536)
            except OSError:
                break
            if not data:
                break
            now = time.perf_counter()
            asked = sorted((data.find(query), query) for query in list(self.answers) if query in data)
            for _, query in asked:  # in the order asked, as a terminal answers
                os.write(self.fd, self.answers[query])
                self.answered.append(query)
            with self.lock:
                self.chunks.append((now, data))

    def mark(self) -> int:
        with self.lock:
            return len(self.chunks)

    def text_since(self, mark: int) -> tuple[str, float | None]:
        """What was written after ``mark`` without escape sequences, and when the last came."""
        with self.lock:
            chunks = self.chunks[mark:]
        raw = b"".join(data for _, data in chunks)
        return ESCAPES.sub(b"", raw).decode("utf-8", "replace"), (chunks[-1][0] if chunks else None)

    def raw_since(self, mark: int) -> bytes:
        """Every byte written after ``mark``, escape sequences included."""
        with self.lock:
            return b"".join(data for _, data in self.chunks[mark:])

    def write(self, text: str) -> None:
        """Type ``text`` (as the terminal's keyboard)."""
        os.write(self.fd, text.encode("utf-8"))

    def wait_for(self, text: str, mark: int = 0, limit: float = 120, raw: bool = False) -> None:
        """Until ``text`` was written after ``mark`` (with ``raw``, as bytes with escapes)."""
        deadline = time.monotonic() + limit
        while (text.encode() not in self.raw_since(mark)) if raw else (text not in self.text_since(mark)[0]):
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} never came")
            time.sleep(0.01)

    def echo_time(self, key: str, limit: float = 10) -> float:
        """Seconds from writing ``key`` until output holding it arrives."""
        with self.lock:
            mark = len(self.chunks)
        sent = time.perf_counter()
        os.write(self.fd, key.encode("utf-8"))
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            with self.lock:
                chunks = self.chunks[mark:]
            seen = b""
            for arrived, data in chunks:
                seen += data
                if key in ESCAPES.sub(b"", seen).decode("utf-8", "replace"):
                    return arrived - sent
            time.sleep(0.0005)
        raise AssertionError(f"the key {key!r} never came back")

    def wait_exit(self, limit: float = 120) -> int:
        """Until the program has exited by itself and all it wrote is read; its exit status."""
        deadline = time.monotonic() + limit
        while (reaped := os.waitpid(self.pid, os.WNOHANG))[0] == 0:
            if time.monotonic() > deadline:
                raise AssertionError(f"the program did not exit within {limit} s")
            time.sleep(0.02)
        self._reader.join(limit)  # the read ends at the end of the output (EIO)
        self.exit_code = os.waitstatus_to_exitcode(reaped[1])
        return self.exit_code

    def close(self) -> None:
        """SIGTERM, then SIGKILL if it has not gone within 5 s; the child is reaped."""
        self.alive = False
        if self.exit_code is not None:  # it exited by itself (``wait_exit``)
            os.close(self.fd)
            return
        os.kill(self.pid, signal.SIGTERM)
        deadline = time.monotonic() + 5
        while os.waitpid(self.pid, os.WNOHANG) == (0, 0):
            if time.monotonic() > deadline:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                break
            time.sleep(0.05)
        os.close(self.fd)
