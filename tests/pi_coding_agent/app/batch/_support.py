"""A batch sandbox: an agent folder whose models point at a scripted provider on 127.0.0.1,
and per-task scripts chosen from the task id written in each prompt (``[task:ID]``)."""

from __future__ import annotations

import json
import re
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.scripted_provider import ScriptedProvider, Turn
from tests.support.scripted_provider import models_json as scripted_models_json

MODEL = "scripted-openai/scripted-model"
PRICE = {"input": 1.0, "output": 2.0, "cacheRead": 0.0, "cacheWrite": 0.0}
"""Dollars per million tokens, so costs are exact: 10 input + 5 output tokens cost $0.00002."""

_MARK = re.compile(r"\[task:([^\]]+)\]")


def models_json(base_url: str) -> dict[str, Any]:
    """The scripted provider's OpenAI-style entry alone, with prices."""
    provider = scripted_models_json(base_url)["providers"]["scripted-openai"]
    provider["models"] = [{**model, "cost": PRICE} for model in provider["models"]]
    return {"providers": {"scripted-openai": provider}}


def _first_user_text(body: dict[str, Any]) -> str:
    for message in body.get("messages") or []:
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):
                return " ".join(part.get("text", "") for part in content if isinstance(part, dict))
            return str(content)
    return ""


@dataclass
class Scripts:
    """Scripts by task id; records which task asked for which turn."""

    by_task: dict[str, list[Turn]] = field(default_factory=dict)
    default: list[Turn] = field(default_factory=lambda: [{"text": "(no script)"}])
    before: Callable[[str, int], None] | None = None
    """Called on the request's thread with (task id, turn index) before answering."""
    requests: Counter[tuple[str, int]] = field(default_factory=Counter)
    log: list[tuple[float, str, int]] = field(default_factory=list)
    """(monotonic time, task, turn) of every request, in arrival order."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def route(self, body: dict[str, Any]) -> tuple[str, list[Turn]]:
        match = _MARK.search(_first_user_text(body))
        task = match.group(1) if match else ""
        turn = sum(1 for m in body.get("messages") or [] if m.get("role") == "assistant")
        with self.lock:
            self.requests[task, turn] += 1
            self.log.append((time.monotonic(), task, turn))
        if self.before is not None:
            self.before(task, turn)
        return task, self.by_task.get(task, self.default)

    def count(self, task: str, turn: int | None = None) -> int:
        with self.lock:
            return sum(n for (t, i), n in self.requests.items() if t == task and (turn is None or i == turn))


@dataclass
class Sandbox:
    root: Path
    agent_dir: Path
    work: Path
    provider: ScriptedProvider
    scripts: Scripts

    def write_settings(self, settings: dict[str, Any]) -> None:
        (self.agent_dir / "settings.json").write_text(json.dumps(settings), encoding="utf-8")

    def env(self) -> dict[str, str]:
        import os

        keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TMPDIR", "NODE_COMPILE_CACHE")}
        return {**keep, "HOME": str(self.root / "home"), "PI_CODING_AGENT_DIR": str(self.agent_dir)}


def make_sandbox(root: Path, scripts: Scripts, settings: dict[str, Any] | None = None) -> tuple[Sandbox, ScriptedProvider]:
    provider = ScriptedProvider([], route=scripts.route)
    agent_dir = root / "agent"
    work = root / "work"
    agent_dir.mkdir(parents=True)
    work.mkdir()
    (root / "home").mkdir()
    (agent_dir / "models.json").write_text(json.dumps(models_json(provider.base_url)), encoding="utf-8")
    sandbox = Sandbox(root, agent_dir, work, provider, scripts)
    sandbox.write_settings(settings if settings is not None else {"retry": {"enabled": False}})
    return sandbox, provider


def git_repo(path: Path, files: dict[str, str]) -> str:
    """A repository at ``path`` with one commit holding ``files``; returns the commit id."""
    path.mkdir(parents=True)
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text, encoding="utf-8")
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    import os

    full = {**os.environ, **env}
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=path, check=True, env=full)
    subprocess.run(["git", "add", "-A"], cwd=path, check=True, env=full)
    subprocess.run(["git", "commit", "-q", "-m", "start"], cwd=path, check=True, env=full)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=path, check=True, env=full, capture_output=True, text=True).stdout.strip()


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def oracle_session_contexts(files: list[Path]) -> list[Any]:
    """What the real Pi 0.85 reads from each session file (the oracle's session-context, all in
    one Node process): its answer, or ``{"error": ...}``."""
    from tests.support.oracle import run_oracle_many

    requests = [{"jsonl": path.read_text(encoding="utf-8")} for path in files]
    return [answer for _, answer in run_oracle_many("session-context", requests, timeout=600)]


def our_session_context(path: Path) -> Any:
    """Our answer to the same question (``tools/conformance.py session-context``, in process)."""
    import sys

    from tests.support.oracle import REPO

    if str(REPO / "tools") not in sys.path:
        sys.path.insert(0, str(REPO / "tools"))
    from conformance_cmds import session_context

    return session_context.run({"jsonl": path.read_text(encoding="utf-8")})


def assert_pi_reads_them_alike(files: list[Path]) -> None:
    """Every file read by the oracle gives exactly what we read from it (context included)."""
    from tests.support.oracle import run_oracle

    assert files
    answers = oracle_session_contexts(files)
    refused = [str(path) for path, answer in zip(files, answers, strict=True) if isinstance(answer, dict) and "error" in answer]
    assert refused == [], f"Pi could not read {len(refused)} of {len(files)} session files: {refused[:3]}"
    mismatched = [str(path) for path, answer in zip(files, answers, strict=True) if answer != our_session_context(path)]
    assert mismatched == [], f"{len(mismatched)} of {len(files)} session files read differently by Pi: {mismatched[:3]}"
    # The many-files driver is the oracle's own command: one file through the real wrapper agrees.
    code, direct = run_oracle("session-context", {"jsonl": files[0].read_text(encoding="utf-8")}, served=False)
    assert code == 0 and direct == answers[0]
