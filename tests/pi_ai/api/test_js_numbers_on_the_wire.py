"""Numbers as JavaScript writes them wherever we write Pi's bytes: request payloads of the four
wire APIs, streamed tool-call deltas and session files (``3``, not ``3.0``; ``0.000015``, not
``1.5e-05``). Real HTTP on 127.0.0.1 and a real session file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from msgspec.structs import replace

import pi_ai
from pi_ai import AssistantMessage, Context, StreamOptions, ToolCall, Usage, UserMessage
from pi_ai.models import get_model
from pi_coding_agent.core.session import SessionManager
from tests.support.loopback import LoopbackServer, Reply

ARGUMENTS: dict[str, Any] = {"count": 3.0, "ratio": 0.000015, "tiny": 2.5e-06, "huge": 1e21, "zero": -0.0}
WRITTEN = '{"count":3,"ratio":0.000015,"tiny":0.0000025,"huge":1e+21,"zero":0}'

REFS = {
    "anthropic-messages": ("anthropic", "claude-sonnet-4-5"),
    "openai-completions": ("openai", "gpt-4o-mini"),
    "openai-responses": ("openai", "gpt-4.1-mini"),
    "google-generative-ai": ("google", "gemini-2.5-flash"),
}


def _history() -> Context:
    call = ToolCall(id="call_1", name="measure", arguments=dict(ARGUMENTS))
    answer = AssistantMessage(
        content=[call], api="x", provider="x", model="x", usage=Usage(), stop_reason="toolUse", timestamp=1
    )
    result = pi_ai.ToolResultMessage(
        tool_call_id="call_1", tool_name="measure", content=[pi_ai.TextContent(text="ok")], is_error=False, timestamp=2
    )
    return Context(messages=[UserMessage(content="go", timestamp=0), answer, result])


@pytest.mark.parametrize("api", list(REFS))
async def test_payload_numbers_are_javascripts(api: str) -> None:
    provider, model_id = REFS[api]
    model = get_model(provider, model_id)
    assert model is not None
    async with LoopbackServer([Reply(status=400, chunks=[b"{}"])]) as server:
        suffix = "/v1beta" if api == "google-generative-ai" else ""
        stream = pi_ai.stream(replace(model, base_url=server.url + suffix), _history(), StreamOptions(api_key="k"))
        await stream.result()
    body = server.requests[0].body.decode()
    assert "3.0" not in body and "e-05" not in body and "e-06" not in body
    if api in ("openai-completions", "openai-responses"):
        assert json.dumps(WRITTEN) in body  # arguments sent as JSON text (JSON.stringify of them)
    else:
        assert WRITTEN[1:-1] in body  # the arguments object, inline


async def test_streamed_gemini_arguments_are_javascripts() -> None:
    model = get_model("google", "gemini-2.5-flash")
    assert model is not None
    chunk = {
        "candidates": [
            {"content": {"parts": [{"functionCall": {"name": "measure", "args": {"count": 3.0}}}]}, "finishReason": "STOP"}
        ]
    }
    body = f"data: {json.dumps(chunk)}\r\n\r\n".encode()
    async with LoopbackServer([Reply(chunks=[body])]) as server:
        stream = pi_ai.stream(replace(model, base_url=server.url + "/v1beta"), _history(), StreamOptions(api_key="k"))
        deltas = [event.delta async for event in stream if event.type == "toolcall_delta"]
    assert deltas == ['{"count":3}']


def test_session_file_numbers_are_javascripts(tmp_path: Path) -> None:
    manager = SessionManager.create("/home/dev/project", str(tmp_path))
    for message in _history().messages:
        manager.append_message(message)
    path = manager.get_session_file()
    assert path is not None
    text = Path(path).read_text()
    manager.close()
    assert WRITTEN in text and "3.0" not in text
