"""Driving a program in a real terminal: tmux on its own socket, send-keys and capture-pane.

Waits poll the screen every few tens of milliseconds until the expected text shows (or a
generous limit passes); no test asserts how long anything took.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

WAIT_LIMIT = 30.0
POLL = 0.03


def require_tmux() -> str:
    found = shutil.which("tmux")
    if found is None:
        if os.environ.get("CI") == "1":
            pytest.fail("CI=1 but tmux is not installed (.ci/run installs Debian's tmux package)")
        pytest.skip("tmux is not installed")
    return found


def editor_lines(screen: str) -> list[str]:
    """What the editor holds: the lines between the last two horizontal rules of the screen."""
    lines = screen.split("\n")
    rules = [i for i, line in enumerate(lines) if line.startswith("──")]
    return lines[rules[-2] + 1 : rules[-1]] if len(rules) >= 2 else []


def editor_text(screen: str) -> str:
    return "\n".join(editor_lines(screen))


def suggestions(screen: str) -> list[str]:
    """The completion rows under the editor, spaces squeezed (``→`` marks the highlighted one)."""
    rows = screen.split("\n")
    last_rule = max(i for i, row in enumerate(rows) if row.startswith("──"))
    found = []
    for row in rows[last_rule + 1 :]:
        if not row.startswith(("→ ", "  ")):
            break
        found.append(" ".join(row.split()))
    return found


class TmuxPane:
    def __init__(
        self,
        command: list[str] | None,
        cwd: Path,
        env: dict[str, str],
        width: int = 100,
        height: int = 30,
        *,
        extended_keys: bool = False,
        background: str | None = None,
        tmux_env: bool = False,
    ) -> None:
        """Run ``command`` in a new pane (``None``: an interactive bash, for job control); with
        ``extended_keys``, tmux forwards modified keys (Shift+Enter) to a program that asks;
        with ``background`` (a tmux colour), the panes have it and tmux answers ``OSC 11``;
        with ``tmux_env`` the program sees ``TMUX`` (naming this server), as in a user's tmux."""
        self.tmux = require_tmux()
        self.socket = f"pi-test-{uuid.uuid4().hex[:8]}"
        if tmux_env:
            folder = os.environ.get("TMUX_TMPDIR") or "/tmp"
            env = {**env, "TMUX": f"{folder}/tmux-{os.getuid()}/{self.socket},0,0"}
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        if command is None:
            script = f"cd {shlex.quote(str(cwd))} && env -i {exports} bash --norc --noprofile -i"
        else:
            # The pane runs the program, then records its exit status and stays open for capture.
            script = f'cd {shlex.quote(str(cwd))} && env -i {exports} {shlex.join(command)}; echo "[exit $?]"; sleep 600'
        # Options in the server's configuration, there before the pane's program asks about them.
        config = [line for on, line in ((extended_keys, "set -s extended-keys on"),
                                        (background is not None, f"set -g window-style bg={background}")) if on]  # fmt: skip
        self.config = Path(tempfile.mkstemp(prefix="pi-test-tmux-", suffix=".conf")[1]) if config else None
        if self.config is not None:
            self.config.write_text("\n".join(config) + "\n", encoding="utf-8")
        self._run("-f", str(self.config or "/dev/null"), "new-session", "-d", "-s", "t", "-x", str(width), "-y", str(height), script)
        self._run("set-option", "-t", "t", "history-limit", "20000")
        self._run("set-option", "-s", "set-clipboard", "on")

    def _run(self, *args: str) -> str:
        done = subprocess.run(
            [self.tmux, "-L", self.socket, *args], capture_output=True, text=True, check=False
        )
        return done.stdout

    def send(self, *keys: str) -> None:
        self._run("send-keys", "-t", "t", *keys)

    def type(self, text: str) -> None:
        self._run("send-keys", "-t", "t", "-l", text)

    def paste(self, text: str) -> None:
        """``text`` as the terminal pastes it (bracketed when the program asked for that)."""
        done = subprocess.run([self.tmux, "-L", self.socket, "load-buffer", "-b", "paste", "-"], input=text,
                              text=True, capture_output=True, check=False)  # fmt: skip
        assert done.returncode == 0, done.stderr
        self._run("paste-buffer", "-p", "-d", "-b", "paste", "-t", "t")

    def screen(self) -> str:
        return self._run("capture-pane", "-p", "-t", "t")

    def styled_screen(self, blanks: bool = False) -> str:
        """The screen with its colours and styles (``capture-pane -e``); with ``blanks``, the
        trailing blank cells too (a background colour reaching the line's end)."""
        return self._run("capture-pane", "-p", "-e", *(["-N"] if blanks else []), "-t", "t")

    def history(self) -> str:
        """Everything the terminal holds: scrollback and screen."""
        return self._run("capture-pane", "-p", "-t", "t", "-S", "-20000")

    def record_output(self, path: Path) -> None:
        """From now on, append every byte the program writes to the terminal to ``path``
        (escape sequences included, such as images tmux does not draw)."""
        self._run("pipe-pane", "-o", "-t", "t", f"cat >> {shlex.quote(str(path))}")

    def styled_history(self, blanks: bool = False) -> str:
        """Scrollback and screen with their colours and styles (``blanks``: as ``styled_screen``)."""
        return self._run("capture-pane", "-p", "-e", *(["-N"] if blanks else []), "-t", "t", "-S", "-20000")

    def clipboard(self) -> str:
        """The newest tmux paste buffer (filled by an ``OSC 52`` clipboard write)."""
        return self._run("show-buffer")

    def pane_pid(self) -> int:
        return int(self._run("display-message", "-p", "-t", "t", "#{pane_pid}").strip())

    def wait_until(self, check: Callable[[str], bool], what: str, limit: float = WAIT_LIMIT, everywhere: bool = False,
                   poll: float = POLL) -> str:  # fmt: skip
        deadline = time.monotonic() + limit
        while True:
            shown = self.history() if everywhere else self.screen()
            if check(shown):
                return shown
            if time.monotonic() > deadline:
                raise AssertionError(f"{what}; the terminal shows:\n{shown}")
            time.sleep(poll)

    def wait_for(self, text: str, limit: float = WAIT_LIMIT, everywhere: bool = False, poll: float = POLL,
                 region: str | None = None) -> str:  # fmt: skip
        if region == "editor":
            return self.wait_until(lambda s: text in editor_text(s), f"{text!r} not in the editor",
                                   limit, poll=poll)  # fmt: skip
        return self.wait_until(lambda s: text in s, f"{text!r} did not appear", limit, everywhere, poll)

    def wait_until_gone(self, text: str, limit: float = WAIT_LIMIT) -> str:
        return self.wait_until(lambda s: text not in s, f"{text!r} is still there", limit)

    def editor(self) -> str:
        return editor_text(self.screen()).strip()

    def close(self) -> None:
        self._run("kill-server")
        if self.config is not None:
            self.config.unlink(missing_ok=True)
