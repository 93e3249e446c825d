"""Running the real ``pi`` with extensions against a scripted provider on 127.0.0.1.

Extensions under test live in ``fixtures/`` (and ``examples/extensions/``); the ones that
record what they saw write JSON lines to the file named by ``PI_TEST_RECORD``.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from tests.pi_coding_agent.e2e._harness import OUR_PI, Sandbox

FIXTURES = Path(__file__).resolve().parent / "fixtures"
EXAMPLES = Path(__file__).resolve().parents[4] / "examples" / "extensions"


def records(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def session_entries(box: Sandbox) -> list[dict[str, Any]]:
    (file,) = box.session_files()
    return [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines() if line.strip()]


def user_texts(body: dict[str, Any]) -> list[str]:
    """The text of every user message of an OpenAI-style request body."""
    texts = []
    for message in body["messages"]:
        if message["role"] != "user":
            continue
        content = message["content"]
        texts.append(content if isinstance(content, str) else "".join(p.get("text", "") for p in content))
    return texts


class RpcProcess:
    """``pi --mode rpc`` as a subprocess, line by line (a real client of the protocol)."""

    def __init__(self, box: Sandbox, *args: str, **env: str) -> None:
        self.process = subprocess.Popen(
            [str(OUR_PI), "--mode", "rpc", *args],
            cwd=box.work,
            env=box.env(**env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.seen: list[dict[str, Any]] = []

    def send(self, record: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(record) + "\n")
        self.process.stdin.flush()

    def read_until(self, predicate: Any, limit: int = 2000) -> dict[str, Any]:
        assert self.process.stdout is not None
        for _ in range(limit):
            line = self.process.stdout.readline()
            if not line:
                raise AssertionError(f"pi exited; seen {self.seen[-5:]}; stderr {self.stderr()}")
            record = json.loads(line)
            self.seen.append(record)
            if predicate(record):
                return record
        raise AssertionError("no matching record")

    def stderr(self) -> str:
        if self.process.poll() is None:
            return ""
        assert self.process.stderr is not None
        return self.process.stderr.read()

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        code = self.process.wait(timeout=60)
        return code


def env_with(record: Path, **extra: str) -> dict[str, str]:
    return {"PI_TEST_RECORD": str(record), **extra, "PATH": os.environ.get("PATH", "")}
