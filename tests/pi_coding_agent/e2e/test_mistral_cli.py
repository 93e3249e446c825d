"""Our ``pi -p`` and Pi 0.85's (the oracle's ``pi-cli``) against one Mistral server on
127.0.0.1 (``models.json`` points ``mistral`` there, key from ``MISTRAL_API_KEY``): a tool
call (``read``), its result, the answer. Both must print the same answer and send the same
requests (tool-call ids hashed to Mistral's nine characters the same way)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from tests.pi_coding_agent.e2e._harness import Completed, Sandbox, run_ours, run_pi
from tests.support import oracle
from tests.support.loopback import LoopbackServer, Recorded, Reply

MODEL = "mistral/devstral-2512"
SSE = {"content-type": "text/event-stream"}


def _sse(*deltas: tuple[dict[str, Any], str | None]) -> bytes:
    chunks = [{"id": "c-1", "choices": [{"index": 0, "delta": d, "finish_reason": f}]} for d, f in deltas]
    return ("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n").encode()


def _respond(recorded: Recorded) -> Reply:
    if b'"role":"tool"' in recorded.body:
        return Reply(200, SSE, body=_sse(({"content": "The notes say: buy milk."}, "stop")))
    call = {
        "id": "call_notes|1",
        "index": 0,
        "function": {"name": "read", "arguments": '{"path": "notes.txt"}'},
    }
    return Reply(200, SSE, body=_sse(({"tool_calls": [call]}, "tool_calls")))


async def _run(root: Path, runner: Any) -> tuple[Completed, list[Recorded]]:
    async with LoopbackServer(respond=_respond) as server:
        sandbox = Sandbox.create(root, server.url)
        models = {"providers": {"mistral": {"baseUrl": server.url}}}
        (sandbox.agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")
        (sandbox.work / "notes.txt").write_text("buy milk\n", encoding="utf-8")
        done = await asyncio.to_thread(
            runner,
            sandbox,
            "--model",
            MODEL,
            "-p",
            "What do my notes say?",
            MISTRAL_API_KEY="mistral-e2e-key",
        )
    return done, server.requests


def _comparable(body: dict[str, Any]) -> dict[str, Any]:
    """Without the system message (date, folder, docs), the tools (worded differently,
    docs/tools), ``max_tokens`` (the context window less the estimated prompt, so it follows
    the system prompt) and the cache key (each run's own session id)."""
    out = {
        key: value for key, value in body.items() if key not in ("tools", "prompt_cache_key", "max_tokens")
    }
    out["messages"] = [m for m in body["messages"] if m["role"] != "system"]
    return out


async def test_tool_round_trip_matches_pi(tmp_path: Path) -> None:
    oracle.require_live_oracle()
    ours, our_requests = await _run(tmp_path / "ours", run_ours)
    pi, pi_requests = await _run(tmp_path / "pi", run_pi)
    assert pi.returncode == 0, pi.stderr
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == pi.stdout == "The notes say: buy milk.\n"
    assert [r.path for r in our_requests] == [r.path for r in pi_requests] == ["/v1/chat/completions"] * 2
    for mine, theirs in zip(our_requests, pi_requests, strict=True):
        assert mine.headers["authorization"] == theirs.headers["authorization"] == "Bearer mistral-e2e-key"
        for recorded in (mine, theirs):  # the session id is the cache key and the affinity
            assert recorded.headers["x-affinity"] == recorded.json()["prompt_cache_key"]
        assert _comparable(mine.json()) == _comparable(theirs.json())
