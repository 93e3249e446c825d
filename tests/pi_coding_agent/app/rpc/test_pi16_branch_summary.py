"""Branch summaries and summary requests as Pi 1.6 sends them.

The session of test_pi16_compaction_edits.py (four turns; one ``context_edit`` hides the
second question, one replaces the third answer) is resumed by ours and by Pi 1.6's CLI
(``pi-cli-current``) against the same scripted provider on 127.0.0.1, with a reasoning model
at thinking level ``high``. Each compacts it by RPC, then ``/back a1`` (an extension command
in each language, ``tree_back.ts`` / ``tree_back.py``) moves the leaf to the first answer and
summarizes the branch left behind: the edited turns and the compaction just made.

Compared: every summary request body (compaction, split-turn prefix, branch summary) with
the prompt's instructions cut away (our own words, docs/pi-1.6/tools-and-compaction.md) and
the system prompt left out. So the transcripts must match (the hidden question absent, the
replaced answer in its replacement words), every request carries the model's output limit
(no cap of its own), and each carries the session's reasoning level, the branch summary's
included (ours sent none there before).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from pi_coding_agent.app.rpc import RpcClient
from tests.pi_coding_agent.app.rpc._support import first_difference, make_sandbox, our_pi, pi_cli
from tests.pi_coding_agent.app.rpc.test_pi16_compaction_edits import (
    HIDDEN,
    REPLACEMENT,
    SETTINGS,
    SUMMARY,
    _conversation,
    _session_lines,
)
from tests.support import oracle
from tests.support.scripted_provider import ScriptedProvider

HERE = Path(__file__).resolve().parent
ARGS = ["--model", "scripted-openai/thinker", "--thinking", "high"]


OUTPUT_LIMIT = 30000
"""The reasoning model's ``maxTokens`` here: above every cap the summaries had before (80% and
50% of ``reserveTokens``, 4,096 for a branch summary), so the request shows which applies."""


def _comparable(body: dict[str, Any]) -> dict[str, Any]:
    """A summary request without its words of instruction: the transcript stands for the
    prompt. The output cap's field is ``max_tokens`` in both: ours sends that name to servers
    on this machine, where 1.6 sends ``max_completion_tokens`` (docs/providers/local.md)."""
    messages = [m for m in body["messages"] if m.get("role") not in ("system", "developer")]
    (user,) = messages
    rest = {key: value for key, value in body.items() if key not in ("max_tokens", "max_completion_tokens")}
    cap = body.get("max_tokens", body.get("max_completion_tokens"))
    return {**rest, "max_tokens": cap, "messages": [{"role": "user", "conversation": _conversation(body)}],
            "_user_keys": sorted(user)}  # fmt: skip


def _with_output_limit(agent_dir: Path) -> None:
    path = agent_dir / "models.json"
    models = json.loads(path.read_text(encoding="utf-8"))
    for model in models["providers"]["scripted-openai"]["models"]:
        if model["id"] == "thinker":
            model["maxTokens"] = OUTPUT_LIMIT
    path.write_text(json.dumps(models), encoding="utf-8")


async def _entries_until_branch_summary(client: RpcClient) -> list[dict[str, Any]]:
    """The session's entries once the branch summary is written (the command runs after the
    prompt's answer in one Pi, before it in the other)."""
    async with asyncio.timeout(60):
        while True:
            entries = list((await client.get_entries())["entries"])
            if any(entry.get("type") == "branch_summary" for entry in entries):
                return entries
            await asyncio.sleep(0.05)


def _run(tmp_path: Path, side: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    program = pi_cli(current=True) if side == "pi" else our_pi()
    fixture = HERE / ("tree_back.ts" if side == "pi" else "tree_back.py")
    with ScriptedProvider([], summary=SUMMARY) as provider:
        box = make_sandbox(tmp_path / side, provider.base_url, SETTINGS)
        _with_output_limit(box.agent_dir)
        session = box.root / "edited.jsonl"
        session.write_text(
            "".join(json.dumps(line) + "\n" for line in _session_lines(box.work)), encoding="utf-8"
        )
        client = RpcClient(
            [str(program)],
            args=[*ARGS, "--session", str(session), "-e", str(fixture)],
            cwd=box.work,
            env=box.env(),
        )

        async def run() -> list[dict[str, Any]]:
            async with client:
                await client.compact()
                await client.prompt("/back a1")
                return await _entries_until_branch_summary(client)

        entries = asyncio.run(run())
        bodies = [r["body"] for r in provider.requests if ScriptedProvider._is_summary_request(r["body"])]
    (summary,) = [entry for entry in entries if entry.get("type") == "branch_summary"]
    (compaction,) = [entry for entry in entries if entry.get("type") == "compaction"]
    assert summary["fromId"] == compaction["id"], side  # the leaf left: the compaction just made
    return [_comparable(body) for body in bodies], summary


def test_summary_requests_and_the_branch_summary_follow_pi_16(tmp_path: Path) -> None:
    oracle.require_live_oracle(current=True)
    ours, our_entry = _run(tmp_path, "ours")
    pis, pi_entry = _run(tmp_path, "pi")
    assert ours == pis, first_difference(ours, pis)
    assert len(ours) == 3  # history, split-turn prefix, branch summary
    branch = ours[-1]["messages"][0]["conversation"]
    assert "First question" not in branch  # before the common ancestor a1
    assert REPLACEMENT in branch and SUMMARY in branch  # the edited answer, the compaction's summary
    assert HIDDEN not in branch and "ORIGINAL-ANSWER" not in branch
    # No cap of our own: the model's output limit, as much of it as the window leaves.
    assert all(body["max_tokens"] > 13107 for body in ours)
    assert [body.get("reasoning_effort") for body in ours] == ["high", "high", "high"]
    assert our_entry["parentId"] == pi_entry["parentId"] == "a1"
    assert our_entry["details"] == pi_entry["details"]
