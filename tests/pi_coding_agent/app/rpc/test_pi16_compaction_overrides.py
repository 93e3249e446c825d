"""``compaction.modelOverrides`` (Pi 1.6): per-model ``reserveTokens`` / ``keepRecentTokens``,
keyed by the exact ``provider/modelId``, each value falling back to the ordinary setting.
Ours and Pi 1.6's CLI (``pi-cli-current``) with the same settings and scripted provider on
127.0.0.1, driven by our RPC client: a manual compaction under a model without an override
keeps everything (nothing to compact), under the overriding model it keeps only the recent
tokens the override asks for, and the override's ``reserveTokens`` starts an automatic
compaction after an answer the ordinary reserve would let pass. The summary requests go to the
model in use, the one the override names."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pi_coding_agent.app.rpc import RpcClient
from tests.pi_coding_agent.app.rpc._support import (
    MODEL_ARGS,
    first_difference,
    make_sandbox,
    normalize,
    our_pi,
    pi_cli,
    tool_durations_checked,
    without_pending_elsewhere,
)
from tests.pi_coding_agent.app.rpc.python_driver import run_scenario
from tests.pi_coding_agent.app.rpc.test_differential import _sizes_folded
from tests.support import oracle
from tests.support.scripted_provider import ScriptedProvider

SETTINGS: dict[str, Any] = {
    "retry": {"enabled": False},
    "compaction": {
        "enabled": True,
        "keepRecentTokens": 20000,
        "modelOverrides": {"scripted-openai/thinker": {"keepRecentTokens": 5, "reserveTokens": 32000}},
    },
}
"""``thinker`` (a 64000-token window) compacts above 32000 tokens and keeps 5 recent tokens; the
other models keep 20000 and compact above 47616 (the default reserve, 16384). (A reserve of half
the window or more is fitted to the window by ours: docs/agent-session.md.)"""

TURNS = [
    {"text": "First answer."},
    {"text": "Second answer."},
    {"text": "Third answer.", "usage": {"input": 40000}},
]
SUMMARY = "The user said one and two."

STEPS: list[dict[str, Any]] = [
    {"call": "prompt", "args": ["one"]},
    {"waitFor": "agent_settled"},
    {"call": "prompt", "args": ["two"]},
    {"waitFor": "agent_settled"},
    {"call": "compact"},  # scripted-model: no override, 20000 recent tokens kept: nothing to compact
    {"call": "setModel", "args": ["scripted-openai", "thinker"]},
    {"call": "compact"},  # thinker: 5 recent tokens kept
    {"call": "getMessages"},
    {"call": "prompt", "args": ["three"]},  # 40000 tokens: above thinker's threshold only
    {"waitFor": "compaction_end"},
    {"call": "getMessages"},
    {"call": "getEntries"},
]


def _run(tmp_path: Path, name: str, command: list[str]) -> tuple[dict[str, Any], list[str]]:
    with ScriptedProvider(TURNS, summary=SUMMARY, sequential=True) as provider:
        box = make_sandbox(tmp_path / name, provider.base_url, SETTINGS)
        client = RpcClient(command, args=MODEL_ARGS, cwd=box.work, env=box.env())

        async def run() -> dict[str, Any]:
            async with client:
                return await run_scenario(client, STEPS)

        log = asyncio.run(run())
        summaries = [
            r["body"]["model"] for r in provider.requests if ScriptedProvider._is_summary_request(r["body"])
        ]
    comparable = _sizes_folded(
        tool_durations_checked(normalize(without_pending_elsewhere(log), box.root, pi16=True))
    )
    return comparable, summaries


def test_model_overrides_compact_like_pi_16(tmp_path: Path) -> None:
    oracle.require_live_oracle(current=True)
    ours, our_summaries = _run(tmp_path, "ours", [str(our_pi())])
    pis, pi_summaries = _run(tmp_path, "pi16", [str(pi_cli(current=True))])
    assert ours["results"] == pis["results"], first_difference(ours["results"], pis["results"])
    assert ours["stream"] == pis["stream"], first_difference(ours["stream"], pis["stream"])
    assert our_summaries == pi_summaries == ["thinker", "thinker"]
    results = [r for r in ours["results"] if r.get("call") == "compact"]
    assert "error" in results[0] and results[1]["result"]["summary"] == SUMMARY
    ends = [e for e in ours["stream"] if e["type"] == "compaction_end"]
    assert [(e["reason"], (e.get("result") or {}).get("summary", "")[: len(SUMMARY)]) for e in ends] == [
        ("manual", ""),
        ("manual", SUMMARY),
        ("threshold", SUMMARY),
    ]
    # The threshold compaction cuts at the model change (a turn split there, as in 1.6).
    assert "Turn Context (split turn)" in ends[2]["result"]["summary"]
