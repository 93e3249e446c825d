"""Startup cost of the ``pi`` command, ours against Pi 0.85, measured in the same run.

Three measurements, each the median of N runs of a fresh process (peak RSS from
``wait4``):

* ``pi --version``;
* ``pi --help``;
* ``pi -p hello`` with a ``models.json`` that points at a scripted OpenAI-compatible server
  on 127.0.0.1: the time from launching the process until the first HTTP request reaches
  that server (the part of a one-shot run that is ours, not the model's).

Ours is ``.venv/bin/pi``; Pi is the real 0.85 CLI through ``../shared/oracle/pi-cli``
(offline, loopback-only). Goal: each of our times at most 1/3 of Pi's.

Run: ``.venv/bin/python bench/startup.py [N]`` (default 7).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.support import oracle  # noqa: E402
from tests.support.scripted_provider import ScriptedProvider, models_json  # noqa: E402

OURS = [str(REPO / ".venv" / "bin" / "pi")]


def _pi_command() -> list[str] | None:
    folder = oracle.oracle_dir()
    if folder is None or not oracle.runtime_installed():
        return None
    return [str(folder / "pi-cli")]


TIME = "/usr/bin/time"


def _run(command: list[str], env: dict[str, str], cwd: str) -> tuple[float, float, int]:
    """(seconds, peak RSS in MB, exit status) of one process.

    The peak RSS comes from GNU time when it is installed: measured on our own forked child
    it would include this (much bigger) benchmark process as it was before ``exec``.
    """
    wrapped = [TIME, "-f", "PEAK-RSS-KB %M", *command] if os.path.exists(TIME) else command
    started = time.perf_counter()
    done = subprocess.run(
        wrapped, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        check=False,
    )
    elapsed = time.perf_counter() - started
    peak_kb = 0.0
    for line in done.stderr.decode(errors="replace").splitlines():
        if line.startswith("PEAK-RSS-KB "):
            peak_kb = float(line.split()[1])
    return elapsed, peak_kb / 1024, done.returncode


def _first_request(command: list[str], env: dict[str, str], cwd: str, agent_dir: Path) -> tuple[float, float, int]:
    with ScriptedProvider([{"text": "hello back"}]) as provider:
        (agent_dir / "models.json").write_text(json.dumps(models_json(provider.base_url)), encoding="utf-8")
        started = time.monotonic()
        _, rss, code = _run(
            [*command, "--no-session", "--model", "scripted-openai/scripted-model", "-p", "hello"], env, cwd
        )
        if provider.first_request_at is None:
            raise RuntimeError(f"{command[0]} made no request (exit {code})")
        return provider.first_request_at - started, rss, code


def _median(samples: list[tuple[float, float, int]], label: str) -> tuple[float, float]:
    codes = {code for _, _, code in samples}
    if codes != {0}:
        raise RuntimeError(f"{label}: exit statuses {sorted(codes)}")
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def main() -> int:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    pi = _pi_command()
    with tempfile.TemporaryDirectory(prefix="pi-startup-") as tmp:
        home = Path(tmp) / "home"
        agent_dir = home / ".pi" / "agent"
        agent_dir.mkdir(parents=True)
        (agent_dir / "settings.json").write_text(json.dumps({"retry": {"enabled": False}}), encoding="utf-8")
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "PI_CODING_AGENT_DIR": str(agent_dir),
            "PI_ORACLE_HOME": str(oracle.oracle_home()),
        }
        cases: list[tuple[str, Callable[[list[str]], tuple[float, float, int]]]] = [
            ("pi --version", lambda cmd: _run([*cmd, "--version"], env, tmp)),
            ("pi --help", lambda cmd: _run([*cmd, "--help"], env, tmp)),
            ("pi -p: launch to first request", lambda cmd: _first_request(cmd, env, tmp, agent_dir)),
        ]
        print(f"{runs} runs each, median; peak RSS of the process")
        print(f"{'case':34} {'ours':>9} {'Pi 0.85':>9} {'ratio':>7}   {'RSS ours':>9} {'RSS Pi':>9}")
        for label, measure in cases:
            measure(OURS)  # warm the file cache
            ours_time, ours_rss = _median([measure(OURS) for _ in range(runs)], label)
            if pi is None:
                print(f"{label:34} {ours_time * 1000:7.0f}ms {'n/a':>9} {'':>7}   {ours_rss:7.0f}MB")
                continue
            measure(pi)
            pi_time, pi_rss = _median([measure(pi) for _ in range(runs)], label)
            print(
                f"{label:34} {ours_time * 1000:7.0f}ms {pi_time * 1000:7.0f}ms {ours_time / pi_time:7.2f}"
                f"   {ours_rss:7.0f}MB {pi_rss:7.0f}MB"
            )
        if pi is None:
            print("Pi 0.85 runtime not installed: ../shared/oracle/install.sh")
    return 0


if __name__ == "__main__":
    sys.exit(main())
