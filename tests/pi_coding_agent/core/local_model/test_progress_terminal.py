"""The setup's progress line on a real (pseudo) terminal: redrawn in place and never wider than
the terminal, so a narrow window does not fill with wrapped copies of it."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import termios

from pi_coding_agent.core.local_model import StderrProgress


def _drained(fd: int) -> str:
    chunks: list[bytes] = []
    os.set_blocking(fd, False)
    while True:
        try:
            chunk = os.read(fd, 65536)
        except (BlockingIOError, OSError):
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode()


def test_a_redrawn_line_fits_a_narrow_terminal() -> None:
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 40, 0, 0))
    attrs = termios.tcgetattr(follower)
    attrs[1] &= ~termios.OPOST  # keep "\n" as written
    termios.tcsetattr(follower, termios.TCSANOW, attrs)
    with os.fdopen(follower, "w") as terminal:
        progress = StderrProgress(terminal)
        progress.stage("building llama-cpp-python 0.3.36 from source (one time, several minutes)")
        for step in range(1, 6):
            progress.advance(step, 140, "steps")
        progress.finish("done")
        shown = _drained(leader)
    os.close(leader)
    redraws = [part.split("\r\x1b[2K")[-1] for part in shown.split("\n") if "\r\x1b[2K" in part]
    assert len(redraws) == 1 and shown.count("\r\x1b[2K") == 6  # five advances and the summary, in place
    for part in shown.split("\r\x1b[2K")[1:]:  # each redraw (the stage's first line is printed once)
        assert len(part.split("\n")[0]) < 40, part
    assert redraws[0].startswith("pi: building llama-cpp-python")  # the stage's own line, whole
    # Redrawn lines start with the numbers; the title is what a narrow terminal cuts.
    advances = shown.split("\r\x1b[2K")[1:6]
    for number, part in enumerate(advances, start=1):
        assert part.startswith(f"pi: {number / 140:.0%} ({number} steps of 140 steps, "), part
    assert all(part.endswith("…") for part in advances)
