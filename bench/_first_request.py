"""What the start-up benches share: Pi 1.6's CLI, a fresh home and agent folder for one run, and
the seconds from a CLI's launch to the first request a scripted provider on 127.0.0.1 receives."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tests.support import oracle
from tests.support.scripted_provider import ScriptedProvider, models_json

MODEL = "scripted-openai/scripted-model"


def pi_current() -> list[str]:
    """Pi 1.6's CLI (``pi-cli-current``), or exit saying it is missing."""
    folder = oracle.oracle_dir()
    if folder is None or not oracle.runtime_installed(current=True):
        raise SystemExit("Pi 1.6's CLI (pi-cli-current) is not available: set PI_ORACLE_DIR")
    return [str(folder / "pi-cli-current")]


def sandbox(
    root: Path, settings: dict[str, Any], keep: Iterable[str] = ()
) -> tuple[dict[str, str], str, Path]:
    """A fresh home under ``root`` with ``settings`` in its agent folder: the environment (this
    one's ``PATH``, locale, ``TMPDIR`` and ``keep``), the working folder and the agent folder."""
    home = root / "home"
    agent_dir = home / ".pi" / "agent"
    work = root / "work"
    agent_dir.mkdir(parents=True)
    work.mkdir()
    (agent_dir / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    names = {"PATH", "LANG", "LC_ALL", "TMPDIR", *keep}
    env = {k: v for k, v in os.environ.items() if k in names}
    env.update(
        {
            "HOME": str(home),
            "PI_CODING_AGENT_DIR": str(agent_dir),
            "PI_CURRENT_HOME": str(oracle.current_home()),
            "PI_OFFLINE": "1",
        }
    )
    return env, str(work), agent_dir


def first_request(
    command: list[str], prompt: str, env: dict[str, str], cwd: str, agent_dir: Path
) -> tuple[float, dict[str, Any], str]:
    """Run ``command --no-session -p prompt`` against a scripted provider: the seconds from its
    launch to the provider's first request, that request's body, and the run's stderr."""
    with ScriptedProvider([{"text": "done"}]) as provider:
        (agent_dir / "models.json").write_text(json.dumps(models_json(provider.base_url)), encoding="utf-8")
        if env.get("PI_TS_TIMING") == "launch":  # ours reports its phases from this moment
            env["PI_TS_TIMING"] = str(time.time())
        started = time.monotonic()
        done = subprocess.run(
            [*command, "--no-session", "--model", MODEL, "-p", prompt],
            env=env,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            check=False,
            timeout=300,
        )
        stderr = done.stderr.decode(errors="replace")
        if done.returncode != 0 or provider.first_request_at is None:
            raise RuntimeError(f"{command[0]}: exit {done.returncode}: {stderr}")
        return provider.first_request_at - started, provider.requests[0]["body"], stderr
