"""Differential: the scenario of ``scenario.py`` (every RPC command) against our ``pi --mode rpc``
and Pi 0.85's, each with its own copy of the same scripted provider on 127.0.0.1.

Driven twice: by Pi's own ``RpcClient`` (Node, through a shim ``CLI_PATH``) and by our Python
``RpcClient``. Answers and event sequences must be equal after ``_support.normalize``; the
settings the commands wrote and the session files (read by the live oracle) must agree too.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from pi_coding_agent.rpc import RpcClient
from tests.pi_coding_agent.e2e._harness import Sandbox, oracle_context, scrub
from tests.pi_coding_agent.rpc import scenario
from tests.pi_coding_agent.rpc._support import (
    MODEL_ARGS,
    first_difference,
    make_sandbox,
    normalize,
    our_pi,
    pi_cli,
    run_pi_client,
)
from tests.pi_coding_agent.rpc.python_driver import run_scenario
from tests.support import oracle
from tests.support.scripted_provider import ScriptedProvider


def _provider() -> ScriptedProvider:
    return ScriptedProvider(scenario.SCRIPT, summary=scenario.SUMMARY, sequential=True)


def _compare(ours: dict[str, Any], theirs: dict[str, Any], ours_box: Sandbox, pi_box: Sandbox) -> None:
    mine, pis = normalize(ours, ours_box.root), normalize(theirs, pi_box.root)
    assert mine["results"] == pis["results"], first_difference(mine["results"], pis["results"])
    assert mine["stream"] == pis["stream"], first_difference(mine["stream"], pis["stream"])
    # What the commands wrote: the global settings, and each session file as Pi reads it.
    settings = [json.loads((box.agent_dir / "settings.json").read_text(encoding="utf-8")) for box in (ours_box, pi_box)]
    assert settings[0] == settings[1]
    assert _contexts(ours_box) == _contexts(pi_box)
    exported = [sorted(p.name[:11] for p in box.work.glob("pi-session-*.html")) for box in (ours_box, pi_box)]
    assert exported[0] == exported[1] == ["pi-session-"]


def _contexts(box: Sandbox) -> list[dict[str, Any]]:
    """Every session file as the live oracle reads it (sorted by their first user message)."""
    answers = []
    for path in box.session_files():
        answer = oracle_context(path)
        replacements = {str(box.root): "<root>"}
        answers.append(
            {
                "name": answer["sessionName"],
                "entryTypes": [entry["type"] for entry in answer["entries"]],
                "context": scrub(answer["context"], replacements),
                "parent": "parentSession" in answer["header"],
            }
        )
    return sorted(answers, key=lambda a: json.dumps(a["context"]["messages"][:1]) + str(len(a["entryTypes"])))


def test_pi_rpc_client_sees_the_same_protocol(tmp_path: Path) -> None:
    oracle.require_live_oracle()
    scenario_file = tmp_path / "scenario.json"
    scenario_file.write_text(json.dumps(scenario.scenario()), encoding="utf-8")
    with _provider() as ours_provider, _provider() as pi_provider:
        ours_box = make_sandbox(tmp_path / "ours", ours_provider.base_url, scenario.SETTINGS)
        pi_box = make_sandbox(tmp_path / "pi", pi_provider.base_url, scenario.SETTINGS)
        ours = run_pi_client(ours_box, our_pi(), scenario_file)
        theirs = run_pi_client(pi_box, pi_cli(), scenario_file)
    _compare(ours, theirs, ours_box, pi_box)


async def _python_client(box: Sandbox, command: list[str]) -> dict[str, Any]:
    client = RpcClient(command, args=MODEL_ARGS, cwd=box.work, env=box.env())
    async with client:
        return await run_scenario(client, scenario.STEPS)


def test_python_rpc_client_drives_ours_and_pi_alike(tmp_path: Path) -> None:
    oracle.require_live_oracle()
    with _provider() as ours_provider, _provider() as pi_provider:
        ours_box = make_sandbox(tmp_path / "ours", ours_provider.base_url, scenario.SETTINGS)
        pi_box = make_sandbox(tmp_path / "pi", pi_provider.base_url, scenario.SETTINGS)
        ours = asyncio.run(_python_client(ours_box, [str(our_pi())]))
        theirs = asyncio.run(_python_client(pi_box, [str(pi_cli())]))
    _compare(ours, theirs, ours_box, pi_box)
