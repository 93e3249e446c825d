"""A tool round trip run by our ``pi -p`` and by Pi 0.85's (the oracle's ``pi-cli``) against
one provider server on 127.0.0.1: the model asks to ``read`` notes.txt, gets the file, answers.
The provider tests (Bedrock, Vertex, Mistral) script the server's answers and compare what
each CLI sent."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.pi_coding_agent.e2e._harness import Completed, Sandbox, run_ours, run_pi
from tests.support import oracle
from tests.support.loopback import LoopbackServer, Recorded, Reply

QUESTION = "What do my notes say?"
ANSWER = "The notes say: buy milk."


@dataclass
class Run:
    done: Completed
    requests: list[Recorded]


async def _run(
    root: Path,
    runner: Any,
    respond: Callable[[Recorded], Reply],
    *,
    providers: dict[str, Any],
    model: str,
    env: dict[str, str],
) -> Run:
    async with LoopbackServer(respond=respond) as server:
        sandbox = Sandbox.create(root, server.url)
        text = json.dumps({"providers": providers}).replace("{base}", server.url)
        (sandbox.agent_dir / "models.json").write_text(text, encoding="utf-8")
        (sandbox.work / "notes.txt").write_text("buy milk\n", encoding="utf-8")
        done = await asyncio.to_thread(runner, sandbox, "--model", model, "-p", QUESTION, **env)
    return Run(done, server.requests)


async def run_both(
    tmp_path: Path,
    respond: Callable[[Recorded], Reply],
    providers: dict[str, Any],
    model: str,
    **env: str,
) -> tuple[Run, Run]:
    """(ours, Pi's): both must have succeeded, printed the answer, made the same requests."""
    oracle.require_live_oracle()
    ours = await _run(tmp_path / "ours", run_ours, respond, providers=providers, model=model, env=env)
    pi = await _run(tmp_path / "pi", run_pi, respond, providers=providers, model=model, env=env)
    assert pi.done.returncode == 0, pi.done.stderr
    assert ours.done.returncode == 0, ours.done.stderr
    assert ours.done.stdout == pi.done.stdout == ANSWER + "\n"
    assert [r.path for r in ours.requests] == [r.path for r in pi.requests]
    assert len(ours.requests) == 2
    return ours, pi
