"""bench/session_resume.py runs end to end on a tiny session (the real benchmark is not a test)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support.oracle import REPO, runtime_installed


def test_bench_runs_on_a_small_session() -> None:
    command = [
        sys.executable,
        str(REPO / "bench" / "session_resume.py"),
        "--entries",
        "400",
        "--runs",
        "1",
        "--json",
    ]
    if not runtime_installed():
        command.append("--skip-pi")
    completed = subprocess.run(command, capture_output=True, text=True, check=False, timeout=120, cwd=REPO)
    assert completed.returncode == 0, completed.stderr[-2000:]
    result = json.loads(completed.stdout)
    assert result["session"]["entries"] >= 400
    assert result["python"]["summary"]["messages"] > 0 and result["python"]["peak_rss_mb"] > 0
    if "pi" in result:
        assert result["same_context"] is True
        assert result["wall_ratio"] > 0 and result["rss_ratio"] > 0
