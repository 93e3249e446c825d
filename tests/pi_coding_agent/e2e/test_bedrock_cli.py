"""Our ``pi -p`` and Pi 0.85's against one Amazon Bedrock server on 127.0.0.1 speaking
ConverseStream's binary event stream: a tool call (``read``), its result sent back, the final
answer. Both must send the same requests (bodies equal as JSON, SigV4-signed with the keys
from the environment for the region it names)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.pi_coding_agent.e2e._roundtrip import ANSWER, run_both
from tests.support import aws_eventstream as es
from tests.support.loopback import Recorded, Reply

MODEL = "amazon-bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0"
STREAM = {"content-type": "application/vnd.amazon.eventstream", "x-amzn-requestid": "r-1"}
AWS = {
    "AWS_ACCESS_KEY_ID": "AKIDE2E",
    "AWS_SECRET_ACCESS_KEY": "e2e-secret",
    "AWS_REGION": "us-west-2",
    "AWS_BEDROCK_FORCE_HTTP1": "1",  # Pi's SDK speaks HTTP/2 unless told otherwise
}


def _tool_call() -> bytes:
    start = {"contentBlockIndex": 1, "start": {"toolUse": {"toolUseId": "tooluse_e2e", "name": "read"}}}
    return b"".join(
        [
            es.event("messageStart", {"role": "assistant"}),
            es.event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Reading it."}}),
            es.event("contentBlockStop", {"contentBlockIndex": 0}),
            es.event("contentBlockStart", start),
            es.event(
                "contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolUse": {"input": '{"path":'}}}
            ),
            es.event(
                "contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolUse": {"input": '"notes.txt"}'}}}
            ),
            es.event("contentBlockStop", {"contentBlockIndex": 1}),
            es.event("messageStop", {"stopReason": "tool_use"}),
            es.event("metadata", {"usage": {"inputTokens": 40, "outputTokens": 9, "totalTokens": 49}}),
        ]
    )


def _respond(recorded: Recorded) -> Reply:
    if b"toolResult" in recorded.body:
        return Reply(200, STREAM, body=es.text_stream(ANSWER))
    return Reply(200, STREAM, body=_tool_call())


def _comparable(body: dict[str, Any]) -> dict[str, Any]:
    """The body without the system prompt (it names the date, the folder and Pi's docs); of
    the tools only the names (ours word descriptions and schemas differently, docs/tools)."""
    out = {key: value for key, value in body.items() if key != "system"}
    out["toolConfig"] = [tool["toolSpec"]["name"] for tool in out["toolConfig"]["tools"]]
    return out


async def test_tool_round_trip_matches_pi(tmp_path: Path) -> None:
    providers = {"amazon-bedrock": {"baseUrl": "{base}"}}
    ours, pi = await run_both(tmp_path, _respond, providers, MODEL, **AWS)
    for mine, theirs in zip(ours.requests, pi.requests, strict=True):
        assert _comparable(mine.json()) == _comparable(theirs.json())
        for recorded in (mine, theirs):
            auth = recorded.headers["authorization"]
            assert auth.startswith("AWS4-HMAC-SHA256 Credential=AKIDE2E/")
            assert "/us-west-2/bedrock/aws4_request" in auth
    result = ours.requests[1].json()["messages"][-1]["content"][0]["toolResult"]
    assert result["toolUseId"] == "tooluse_e2e"
    assert result["content"][0]["text"] == "buy milk\n"
