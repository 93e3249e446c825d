"""Our ``pi -p`` and Pi 0.85's against one Mistral server on 127.0.0.1 (``models.json``
points ``mistral`` there, key from ``MISTRAL_API_KEY``): a tool call (``read``), its result,
the answer. Both must send the same requests (tool-call ids hashed to Mistral's nine
characters the same way, the session id as cache key and affinity)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.pi_coding_agent.e2e._roundtrip import ANSWER, run_both
from tests.support.loopback import Recorded, Reply

MODEL = "mistral/devstral-2512"
SSE = {"content-type": "text/event-stream"}


def _sse(delta: dict[str, Any], finish: str) -> bytes:
    chunk = {"id": "c-1", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()


def _respond(recorded: Recorded) -> Reply:
    if b'"role":"tool"' in recorded.body:
        return Reply(200, SSE, body=_sse({"content": ANSWER}, "stop"))
    call = {
        "id": "call_notes|1",
        "index": 0,
        "function": {"name": "read", "arguments": '{"path": "notes.txt"}'},
    }
    return Reply(200, SSE, body=_sse({"tool_calls": [call]}, "tool_calls"))


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
    providers = {"mistral": {"baseUrl": "{base}"}}
    ours, pi = await run_both(tmp_path, _respond, providers, MODEL, MISTRAL_API_KEY="mistral-e2e-key")
    assert [r.path for r in ours.requests] == ["/v1/chat/completions"] * 2
    for mine, theirs in zip(ours.requests, pi.requests, strict=True):
        assert mine.headers["authorization"] == theirs.headers["authorization"] == "Bearer mistral-e2e-key"
        for recorded in (mine, theirs):
            assert recorded.headers["x-affinity"] == recorded.json()["prompt_cache_key"]
        assert _comparable(mine.json()) == _comparable(theirs.json())
