"""Our ``pi -p`` and Pi 0.85's against one Vertex AI server on 127.0.0.1 (``models.json``
points ``google-vertex`` there; express-mode key from ``GOOGLE_CLOUD_API_KEY``): a function
call (``read``), its response, the answer. Both must send the same requests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.pi_coding_agent.e2e._roundtrip import ANSWER, run_both
from tests.support.loopback import Recorded, Reply

MODEL = "google-vertex/gemini-2.5-flash"
SSE = {"content-type": "text/event-stream"}


def _sse(parts: list[Any]) -> bytes:
    chunk = {"candidates": [{"content": {"parts": parts, "role": "model"}, "finishReason": "STOP"}]}
    return f"data: {json.dumps(chunk)}\r\n\r\n".encode()


def _respond(recorded: Recorded) -> Reply:
    if b"functionResponse" in recorded.body:
        return Reply(200, SSE, body=_sse([{"text": ANSWER}]))
    return Reply(200, SSE, body=_sse([{"functionCall": {"name": "read", "args": {"path": "notes.txt"}}}]))


def _comparable(body: dict[str, Any]) -> dict[str, Any]:
    """Without the system prompt (date, folder, docs) and the tools (worded differently, docs/tools)."""
    return {key: value for key, value in body.items() if key not in ("systemInstruction", "tools")}


async def test_function_call_round_trip_matches_pi(tmp_path: Path) -> None:
    providers = {"google-vertex": {"baseUrl": "{base}/v1"}}
    ours, pi = await run_both(tmp_path, _respond, providers, MODEL, GOOGLE_CLOUD_API_KEY="vertex-e2e-key")
    assert (
        ours.requests[0].path == "/v1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    )
    for mine, theirs in zip(ours.requests, pi.requests, strict=True):
        assert mine.headers["x-goog-api-key"] == theirs.headers["x-goog-api-key"] == "vertex-e2e-key"
        assert _comparable(mine.json()) == _comparable(theirs.json())
