"""200 tasks through ``pi batch`` (a real process) against a scripted provider on 127.0.0.1,
killed with SIGKILL midway and run again: every task ends once with its right result, none
that was recorded runs again, no task completes twice, and the real Pi reads every session
file the batch wrote with the same context as we do.

``PI_BATCH_SCALE`` changes the number of tasks (default 200)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from pi_coding_agent.app.batch import load_results
from pi_coding_agent.app.batch._transcript import prompt_progress
from pi_coding_agent.core.session import SessionManager
from tests.pi_coding_agent.app.batch._mix import build_mix, check_result
from tests.pi_coding_agent.app.batch._support import (
    Scripts,
    assert_pi_reads_them_alike,
    git_repo,
    make_sandbox,
    read_jsonl,
)
from tests.support.oracle import REPO

PI = REPO / ".venv" / "bin" / "pi"
COUNT = int(os.environ.get("PI_BATCH_SCALE", "200"))

pytestmark = pytest.mark.oracle


def _count_lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def _complete_runs(folder: Path) -> int:
    """Session files of the task whose every prompt was answered."""
    complete = 0
    for path in folder.glob("*.jsonl"):
        with SessionManager.open(str(path), read_only=True) as manager:
            complete += prompt_progress(manager).answered >= 1
    return complete


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_many_tasks_killed_midway_and_finished_by_a_rerun(tmp_path: Path) -> None:
    scripts = Scripts()
    sandbox, provider = make_sandbox(tmp_path, scripts)
    tasks, expected = build_mix(COUNT, sandbox.work, tmp_path / "repo", scripts)
    git_repo(tmp_path / "repo", {"README": "repo\n"})
    task_file = tmp_path / "tasks.jsonl"
    task_file.write_text("".join(json.dumps(task) + "\n" for task in tasks))
    out = tmp_path / "results.jsonl"
    command = [str(PI), "batch", str(task_file), "--out", str(out), "--jobs", "8", "--progress"]
    with provider:
        runner = subprocess.Popen(command, cwd=sandbox.work, env=sandbox.env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 300
        while _count_lines(out) < COUNT // 3 and runner.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert runner.poll() is None, "the batch ended before it could be killed midway"
        os.kill(runner.pid, signal.SIGKILL)
        runner.wait()
        killed_at = time.monotonic()
        recorded = load_results(str(out))
        assert COUNT // 3 <= len(recorded) < COUNT
        second = subprocess.run(command, cwd=sandbox.work, env=sandbox.env(), capture_output=True, text=True, timeout=300, check=False)
    assert second.returncode == 1, second.stderr[-3000:]  # some tasks end in error, timeout or budget
    progress = second.stderr.splitlines()
    assert len([line for line in progress if line.startswith("t")]) == COUNT - len(recorded)
    assert progress[-1].startswith(f"batch: {COUNT}/{COUNT} done, 0 running, ")

    lines = read_jsonl(out)
    assert sorted(line["id"] for line in lines) == sorted(expected), "each task has exactly one result line"
    for line in lines:
        check_result(line, expected[line["id"]])
        assert line["attempt"] == 1 if line["id"] in recorded else line["attempt"] in (1, 2)
    assert any(line["attempt"] == 2 for line in lines), "tasks running at the kill start again"
    # Recorded before the kill: never asked for again.
    asked_after = {task for at, task, _ in scripts.log if at > killed_at}
    assert asked_after.isdisjoint(recorded)
    # No task answered twice: one complete session per task that completed.
    sessions = tmp_path / "results.batch" / "sessions"
    for task_id, want in expected.items():
        assert _complete_runs(sessions / task_id) == (1 if want.status == "ok" else 0), task_id
    # No worktree left behind, and every session file (the interrupted ones too) reads the same in Pi.
    assert list((tmp_path / "results.batch" / "worktrees").iterdir()) == []
    assert_pi_reads_them_alike(sorted(sessions.rglob("*.jsonl")))
