"""What Pi 1.6 records, hides and retries when answers fail (its ``_omitRecoveryAttempt`` and
``_checkCompaction`` bookkeeping), ours against Pi 1.6's CLI (``pi-cli-current``) driven by our RPC
client with one scripted provider and one TypeScript extension (``compact_failed.ts``, recording
each ``session_compact_failed`` event as an entry):

* a transient error, retried: the failed answer is hidden by a ``context_edit`` (announced with
  ``entry_appended``) and the retry answers;
* a context overflow: the answer is hidden, the branch compacted and the turn retried once; the
  retry overflows too, so recovery gives up (``compaction_end`` with the error, and the
  extension's ``session_compact_failed``), and that second answer stays visible;
* the next prompt finds that unrecovered overflow still last: 1.6 reports the failed recovery
  again before it sends the prompt, which then answers.

Compared: the stream (events, entries appended) and the entries, as they are (sizes only checked
to be positive, the system prompt's words folded)."""

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
from tests.support.npm_packages import node_cache
from tests.support.scripted_provider import ScriptedProvider

HERE = Path(__file__).resolve().parent
OVERFLOW = {
    "status": 400,
    "body": {
        "error": {
            "message": "This model's maximum context length is 64000 tokens. However, your messages resulted "
            "in 91000 tokens. Please reduce the length of the messages.",
            "type": "invalid_request_error",
            "code": "context_length_exceeded",
        }
    },
}
BUSY = {"status": 503, "body": {"error": {"message": "The server is overloaded", "type": "server_error"}}}
TURNS = [
    {"fail": [BUSY], "text": "First answer."},
    {"fail": [OVERFLOW, OVERFLOW], "text": "Third answer."},
]
SUMMARY = "The user said one."
SETTINGS = {
    "retry": {"enabled": True, "maxRetries": 2, "baseDelayMs": 1},
    "compaction": {"enabled": True, "keepRecentTokens": 1},
}
STEPS: list[dict[str, Any]] = [
    {"call": "prompt", "args": ["one"]},
    {"waitFor": "agent_settled"},
    {"call": "prompt", "args": ["two"]},
    {"waitFor": "agent_settled"},
    {"call": "prompt", "args": ["three"]},
    {"waitFor": "agent_settled"},
    {"call": "getMessages"},
    {"call": "getEntries"},
]


def _run(tmp_path: Path, name: str, command: list[str]) -> dict[str, Any]:
    with ScriptedProvider(TURNS, summary=SUMMARY, sequential=True) as provider:
        box = make_sandbox(tmp_path / name, provider.base_url, SETTINGS)
        client = RpcClient(
            command,
            args=[*MODEL_ARGS, "-e", str(HERE / "compact_failed.ts")],
            cwd=box.work,
            env=box.env(PI_NODE_CACHE=node_cache()),
        )

        async def run() -> dict[str, Any]:
            async with client:
                return await run_scenario(client, STEPS)

        log = asyncio.run(run())
    return dict(
        _sizes_folded(tool_durations_checked(normalize(without_pending_elsewhere(log), box.root, pi16=True)))
    )


def test_failed_answers_are_hidden_and_retried_as_in_pi_16(tmp_path: Path) -> None:
    oracle.require_live_oracle(current=True)
    from pi_coding_agent.core.node_runtime import ensure_node_runtime

    ensure_node_runtime()
    ours = _run(tmp_path, "ours", [str(our_pi())])
    pis = _run(tmp_path, "pi16", [str(pi_cli(current=True))])
    assert ours["stream"] == pis["stream"], first_difference(ours["stream"], pis["stream"])
    assert ours["results"] == pis["results"], first_difference(ours["results"], pis["results"])
    stream = ours["stream"]
    hidden = [
        e["entry"] for e in stream if e["type"] == "entry_appended" and e["entry"]["type"] == "context_edit"
    ]
    assert [edit["replacement"] for edit in hidden] == [None, None]  # the busy answer, the first overflow
    ends = [(e.get("willRetry"), "errorMessage" in e) for e in stream if e["type"] == "compaction_end"]
    assert ends == [(True, False), (False, True), (False, True)]  # recovered; gave up; reported again
    failed = [
        e
        for e in stream
        if e["type"] == "entry_appended" and e["entry"].get("customType") == "compact-failed"
    ]
    assert [e["entry"]["data"]["reason"] for e in failed] == ["overflow", "overflow"]
    messages = next(r["result"] for r in ours["results"] if r["call"] == "getMessages")
    answers = [m for m in messages if m["role"] == "assistant"]
    assert [m["stopReason"] for m in answers] == ["error", "stop"]  # the unrecovered overflow stays
    assert answers[-1]["content"][0]["text"] == "Third answer."
