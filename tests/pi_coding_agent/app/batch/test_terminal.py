"""``pi batch`` on a real terminal (a pseudo-terminal it owns): the progress line redrawn in
place, Ctrl-C typed at the terminal stops the running tasks (their tools' processes killed)
without results, and the same command run again finishes exactly those."""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import time
from collections.abc import Callable
from pathlib import Path

from tests.pi_coding_agent.app.batch._support import MODEL, Scripts, make_sandbox, read_jsonl
from tests.support.oracle import REPO

PI = REPO / ".venv" / "bin" / "pi"


def _gone(pid: int) -> bool:
    """The process has exited (a zombie waiting for its new parent to reap it counts)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state == "Z"


class _Terminal:
    """``pi batch`` running on the slave side of a pty; ``output`` is all it wrote there."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
        pid, fd = pty.fork()
        if pid == 0:  # the child: the pty is its controlling terminal, as in a shell
            try:
                os.chdir(cwd)
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        self.output = b""

    def read(self, seconds: float) -> None:
        ready, _, _ = select.select([self.fd], [], [], seconds)
        if ready:
            try:
                self.output += os.read(self.fd, 65536)
            except OSError:  # the child closed the terminal (EIO)
                time.sleep(seconds)

    def read_until(self, done: Callable[[], bool], deadline: float) -> bool:
        while time.monotonic() < deadline:
            if done():
                return True
            self.read(0.05)
        return False

    def wait(self, timeout: float) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                for _ in range(20):  # what is still buffered
                    self.read(0.01)
                return os.waitstatus_to_exitcode(status)
            self.read(0.05)
        os.kill(self.pid, signal.SIGKILL)
        raise AssertionError(f"pi batch did not end; it wrote: {self.output[-2000:]!r}")


def test_progress_on_a_terminal_and_ctrl_c(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    pids.mkdir()

    def hold(name: str) -> list[dict[str, object]]:
        # The first attempt starts a long command; the next one (after Ctrl-C) finds its mark.
        mark = tmp_path / f"{name}.started"
        command = f"if [ -e {mark} ]; then echo again; else touch {mark}; echo $$ > {pids / name}; exec sleep 60; fi"
        return [{"tool_calls": [{"id": "c", "name": "bash", "arguments": {"command": command}}]}, {"text": f"{name} done"}]

    scripts = Scripts(by_task={"hold1": hold("hold1"), "hold2": hold("hold2")}, default=[{"text": "quick"}],
                      before=lambda _task, _turn: time.sleep(0.05))
    sandbox, provider = make_sandbox(tmp_path, scripts)
    ids = ["hold1", "hold2", "q1", "q2", "q3"]
    task_file = tmp_path / "tasks.jsonl"
    task_file.write_text("".join(json.dumps({"id": i, "prompt": f"[task:{i}] go", "model": MODEL}) + "\n" for i in ids))
    out = tmp_path / "results.jsonl"
    argv = [str(PI), "batch", str(task_file), "--out", str(out), "--jobs", "5"]
    env = {**sandbox.env(), "TERM": "xterm-256color"}
    with provider:
        terminal = _Terminal(argv, sandbox.work, env)
        held = terminal.read_until(
            lambda: len(list(pids.iterdir())) == 2 and out.exists() and len(out.read_text().splitlines()) == 3,
            time.monotonic() + 90)
        assert held, f"the quick tasks never finished beside the held ones: {terminal.output[-2000:]!r}"
        terminal.read_until(lambda: b"3/5 done, 2 running" in terminal.output, time.monotonic() + 5)
        os.write(terminal.fd, b"\x03")  # Ctrl-C, as typed
        code = terminal.wait(60)
        os.close(terminal.fd)
        text = terminal.output.decode()
        assert code == 130, text
        # One line redrawn in place while it ran; at the end, that line cleared and the summary kept.
        assert "\r\x1b[Kbatch: 3/5 done, 2 running, 0 failed, " in text
        assert "\r\x1b[Kbatch: 3/5 done, 0 running, 0 failed, " in text
        assert text.rstrip().endswith("pi batch: interrupted; 2 unfinished tasks run when the same command runs again")
        # The tools' commands ran in their own sessions (the terminal's Ctrl-C never reached
        # them): the batch killed them.
        sleepers = [int((pids / name).read_text()) for name in ("hold1", "hold2")]
        deadline = time.monotonic() + 10
        while not all(_gone(pid) for pid in sleepers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert all(_gone(pid) for pid in sleepers)
        assert sorted(line["id"] for line in read_jsonl(out)) == ["q1", "q2", "q3"]

        again = _Terminal([*argv, "--no-progress"], sandbox.work, env)
        assert again.wait(90) == 0, again.output.decode()
        os.close(again.fd)
    lines = read_jsonl(out)
    assert sorted(line["id"] for line in lines[:3]) == ["q1", "q2", "q3"]
    finished = {line["id"]: line for line in lines[3:]}
    assert sorted(finished) == ["hold1", "hold2"]
    for name, line in finished.items():
        assert (line["status"], line["answer"], line["attempt"]) == ("ok", f"{name} done", 2)
    assert [scripts.count(name, 0) for name in ids] == [2, 2, 1, 1, 1]
