"""Our ``pi -p`` and Pi 0.85's (the oracle's ``pi-cli``) against one Vertex AI server on
127.0.0.1 (``models.json`` points ``google-vertex`` there; express-mode key from
``GOOGLE_CLOUD_API_KEY``): a function call (``read``), its response, the answer. Both must
print the same answer and send the same requests."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from tests.pi_coding_agent.e2e._harness import Completed, Sandbox, run_ours, run_pi
from tests.support import oracle
from tests.support.loopback import LoopbackServer, Recorded, Reply

MODEL = "google-vertex/gemini-2.5-flash"
SSE = {"content-type": "text/event-stream"}


def _sse(*chunks: Any) -> bytes:
    return "".join(f"data: {json.dumps(chunk)}\r\n\r\n" for chunk in chunks).encode()


def _respond(recorded: Recorded) -> Reply:
    if b"functionResponse" in recorded.body:
        answer = {
            "candidates": [
                {
                    "content": {"parts": [{"text": "The notes say: buy milk."}], "role": "model"},
                    "finishReason": "STOP",
                }
            ]
        }
        return Reply(200, SSE, body=_sse(answer))
    call = {"functionCall": {"name": "read", "args": {"path": "notes.txt"}}}
    return Reply(
        200,
        SSE,
        body=_sse({"candidates": [{"content": {"parts": [call], "role": "model"}, "finishReason": "STOP"}]}),
    )


async def _run(root: Path, runner: Any) -> tuple[Completed, list[Recorded]]:
    async with LoopbackServer(respond=_respond) as server:
        sandbox = Sandbox.create(root, server.url)
        models = {"providers": {"google-vertex": {"baseUrl": server.url + "/v1"}}}
        (sandbox.agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")
        (sandbox.work / "notes.txt").write_text("buy milk\n", encoding="utf-8")
        done = await asyncio.to_thread(
            runner,
            sandbox,
            "--model",
            MODEL,
            "-p",
            "What do my notes say?",
            GOOGLE_CLOUD_API_KEY="vertex-e2e-key",
        )
    return done, server.requests


def _comparable(body: dict[str, Any]) -> dict[str, Any]:
    """Without the system prompt (date, folder, docs) and the tools (worded differently, docs/tools)."""
    return {key: value for key, value in body.items() if key not in ("systemInstruction", "tools")}


async def test_function_call_round_trip_matches_pi(tmp_path: Path) -> None:
    oracle.require_live_oracle()
    ours, our_requests = await _run(tmp_path / "ours", run_ours)
    pi, pi_requests = await _run(tmp_path / "pi", run_pi)
    assert pi.returncode == 0, pi.stderr
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == pi.stdout == "The notes say: buy milk.\n"
    assert [r.path for r in our_requests] == [r.path for r in pi_requests]
    assert (
        our_requests[0].path == "/v1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    )
    for mine, theirs in zip(our_requests, pi_requests, strict=True):
        assert mine.headers["x-goog-api-key"] == theirs.headers["x-goog-api-key"] == "vertex-e2e-key"
        assert _comparable(mine.json()) == _comparable(theirs.json())
    assert len(our_requests) == 2
