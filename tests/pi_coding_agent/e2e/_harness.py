"""Running ``pi`` (ours, and Pi 0.85 / 1.6 through the oracle's ``pi-cli`` / ``pi-cli-current``) in
a throwaway home.

Each run gets its own ``HOME`` and ``PI_CODING_AGENT_DIR`` with a ``models.json`` pointing
at a scripted provider on 127.0.0.1, and a working directory with the files the script
expects. Nothing outside the temporary folder is read or written.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support import oracle
from tests.support.scripted_provider import models_json

REPO = Path(__file__).resolve().parents[3]
OUR_PI = REPO / ".venv" / "bin" / "pi"
OPENAI_MODEL = "scripted-openai/scripted-model"
ANTHROPIC_MODEL = "scripted-anthropic/scripted-claude"


@dataclass
class Sandbox:
    root: Path
    home: Path
    agent_dir: Path
    work: Path

    @classmethod
    def create(cls, root: Path, base_url: str, settings: dict[str, Any] | None = None) -> Sandbox:
        home = root / "home"
        agent_dir = home / ".pi" / "agent"
        work = root / "work"
        agent_dir.mkdir(parents=True)
        work.mkdir()
        (agent_dir / "models.json").write_text(json.dumps(models_json(base_url)), encoding="utf-8")
        (agent_dir / "settings.json").write_text(
            json.dumps(settings if settings is not None else {"retry": {"enabled": False}}), encoding="utf-8"
        )
        return cls(root, home, agent_dir, work)

    def env(self, **extra: str) -> dict[str, str]:
        keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT", "NODE_COMPILE_CACHE")}
        return {
            **keep,
            "HOME": str(self.home),
            "PI_CODING_AGENT_DIR": str(self.agent_dir),
            "PI_ORACLE_HOME": str(oracle.oracle_home()),
            "PI_CURRENT_HOME": str(oracle.current_home()),  # pi-cli-current looks under $HOME otherwise
            **extra,
        }

    def session_files(self) -> list[Path]:
        return sorted((self.agent_dir / "sessions").rglob("*.jsonl"))


@dataclass
class Completed:
    returncode: int
    stdout: str
    stderr: str

    def json_lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.stdout.splitlines() if line.strip()]


def run_ours(sandbox: Sandbox, *args: str, stdin: str | None = None, timeout: float = 60, **env: str) -> Completed:
    done = subprocess.run(
        [str(OUR_PI), *args],
        cwd=sandbox.work,
        env=sandbox.env(**env),
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return Completed(done.returncode, done.stdout, done.stderr)


def run_pi(
    sandbox: Sandbox, *args: str, stdin: str | None = None, timeout: float = 90, current: bool = False, **env: str
) -> Completed:
    """Pi 0.85 itself (``current``: Pi 1.6), only through the oracle's loopback-guarded ``pi-cli``
    / ``pi-cli-current`` (which unset the proxy variables)."""
    folder = oracle.require_live_oracle(current)
    done = subprocess.run(
        [str(folder / ("pi-cli-current" if current else "pi-cli")), *args],
        cwd=sandbox.work,
        env=sandbox.env(**env),
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return Completed(done.returncode, done.stdout, done.stderr)


def oracle_context(session_file: Path) -> dict[str, Any]:
    """What the real Pi builds from a session file (``SessionManager.open`` + context)."""
    code, answer = oracle.run_oracle("session-context", {"jsonl": session_file.read_text(encoding="utf-8")})
    assert code == 0, answer
    return dict(answer)


_VOLATILE_KEYS = {"timestamp", "id", "parentId"}


def scrub(value: Any, replacements: dict[str, str]) -> Any:
    """Timestamps and generated ids zeroed, machine paths replaced by placeholders."""
    if isinstance(value, dict):
        return {k: (0 if k in _VOLATILE_KEYS and not isinstance(v, (dict, list)) else scrub(v, replacements))
                for k, v in value.items()}
    if isinstance(value, list):
        return [scrub(item, replacements) for item in value]
    if isinstance(value, str):
        for old, new in replacements.items():
            value = value.replace(old, new)
        return re.sub(r"pi-bash-[0-9a-f]{16}\.log", "pi-bash-<hex>.log", value)
    return value
