"""Driving a program in a real terminal: tmux on its own socket, send-keys and capture-pane.

Waits poll the screen until the expected text shows (or a generous limit passes); no test
asserts how long anything took.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
import uuid
from pathlib import Path

import pytest

WAIT_LIMIT = 30.0


def require_tmux() -> str:
    found = shutil.which("tmux")
    if found is None:
        pytest.skip("tmux is not installed")
    return found


class TmuxPane:
    def __init__(
        self, command: list[str], cwd: Path, env: dict[str, str], width: int = 100, height: int = 30
    ) -> None:
        self.tmux = require_tmux()
        self.socket = f"pi-test-{uuid.uuid4().hex[:8]}"
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        # The pane runs the program, then records its exit status and stays open for capture.
        script = f'cd {shlex.quote(str(cwd))} && env -i {exports} {shlex.join(command)}; echo "[exit $?]"; sleep 600'
        self._run("new-session", "-d", "-s", "t", "-x", str(width), "-y", str(height), script)
        self._run("set-option", "-t", "t", "history-limit", "20000")

    def _run(self, *args: str) -> str:
        done = subprocess.run(
            [self.tmux, "-L", self.socket, *args], capture_output=True, text=True, check=False
        )
        return done.stdout

    def send(self, *keys: str) -> None:
        self._run("send-keys", "-t", "t", *keys)

    def type(self, text: str) -> None:
        self._run("send-keys", "-t", "t", "-l", text)

    def screen(self) -> str:
        return self._run("capture-pane", "-p", "-t", "t")

    def history(self) -> str:
        """Everything the terminal holds: scrollback and screen."""
        return self._run("capture-pane", "-p", "-t", "t", "-S", "-20000")

    def wait_for(
        self,
        text: str,
        limit: float = WAIT_LIMIT,
        everywhere: bool = False,
        poll: float = 0.1,
        region: str | None = None,
    ) -> str:
        deadline = time.monotonic() + limit
        while True:
            shown = self.history() if everywhere else self.screen()
            if region == "editor":
                lines = shown.split("\n")
                rules = [i for i, line in enumerate(lines) if line.startswith("────")]
                shown = "\n".join(lines[rules[-2] + 1 : rules[-1] + 1]) if len(rules) >= 2 else ""
            if text in shown:
                return shown
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} did not appear; the terminal shows:\n{shown}")
            time.sleep(poll)

    def pane_pid(self) -> int:
        return int(self._run("display-message", "-p", "-t", "t", "#{pane_pid}").strip())

    def wait_until_gone(self, text: str, limit: float = WAIT_LIMIT) -> str:
        deadline = time.monotonic() + limit
        while True:
            shown = self.screen()
            if text not in shown:
                return shown
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} is still there:\n{shown}")
            time.sleep(0.1)

    def settle(self, seconds: float = 1.0) -> None:
        """Give the program a moment (a command finishing); nothing is measured."""
        time.sleep(seconds)

    def close(self) -> None:
        self._run("kill-server")
