"""User ``!cmd`` in the real interactive ``pi`` (tmux): Escape aborts it, and SIGKILL of pi
while it runs, leave no process behind."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from tests.pi_coding_agent.app.interactive._tmux import TmuxPane
from tests.pi_coding_agent.e2e._harness import OUR_PI, Sandbox
from tests.reliability.leaks import (
    NEEDS_PROC,
    children,
    command_line,
    left_behind,
    marker_of,
    spreading_command,
    wait_for_pids,
)
from tests.support.scripted_provider import ScriptedProvider

pytestmark = NEEDS_PROC

SETTINGS = {
    "retry": {"enabled": False},
    "defaultProvider": "scripted-openai",
    "defaultModel": "scripted-model",
}


def _pi_in(pane: TmuxPane) -> int:
    """The pid of our pi under the pane's shell."""
    for pid in children(pane.pane_pid()):
        if str(OUR_PI) in command_line(pid) or "pi_coding_agent" in command_line(pid):
            return pid
    raise AssertionError(f"no pi under the pane: {[command_line(pid) for pid in children(pane.pane_pid())]}")


def _run_spreading_command(pane: TmuxPane, pids_file: Path) -> tuple[list[int], str | None]:
    pane.type("!" + spreading_command(pids_file))
    pane.send("Enter")
    pids = wait_for_pids(pids_file)
    return pids, marker_of(pids[0])


def test_escape_and_sigkill_during_user_bash_leave_no_process(tmp_path: Path) -> None:
    with ScriptedProvider([{"text": "ok"}]) as provider:
        sandbox = Sandbox.create(tmp_path / "sandbox", provider.base_url, SETTINGS)
        pane = TmuxPane([str(OUR_PI)], sandbox.work, sandbox.env(TERM="xterm-256color"))
        try:
            pane.wait_for("scripted-model", limit=60)
            pids, marker = _run_spreading_command(pane, tmp_path / "aborted")
            pane.send("Escape")
            assert left_behind(pids, marker) == []

            pi = _pi_in(pane)
            pids, marker = _run_spreading_command(pane, tmp_path / "killed")
            watchdogs = [pid for pid in children(pi) if "_watchdog.py" in command_line(pid)]
            os.kill(pi, signal.SIGKILL)
            pane.wait_for("[exit 137]")
            assert marker is not None and len(watchdogs) == 1
            assert left_behind([*pids, *watchdogs], marker) == []
        finally:
            pane.close()
