"""``structuredContent`` of tool results where Pi 1.6 puts it: on ``tool_execution_end``'s
``result`` in JSON mode (the whole ``CallToolResult`` of an MCP tool, without ``_meta`` and
without defaults the server did not send), never in the tool result message. Checked on the
published reference server ``@modelcontextprotocol/server-everything`` (its
``get-structured-content`` tool returns structured content with an output schema) through our
``pi --mode json`` and Pi 1.6's, plus ``read``'s structured content (the file's text)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Sandbox, run_ours, run_pi
from tests.support.npm_packages import npm_package
from tests.support.scripted_provider import ScriptedProvider

pytestmark = pytest.mark.timeout(600)

EVERYTHING_VERSION = "2026.8.31"

SCRIPT = [
    {
        "tool_calls": [
            {"id": "call_1", "name": "mcp__every__get_structured_content", "arguments": {"location": "Chicago"}},
            {"id": "call_2", "name": "mcp__every__echo", "arguments": {"message": "hey"}},
            {"id": "call_3", "name": "read", "arguments": {"path": "notes.txt"}},
        ]
    },
    {"text": "done"},
]


def _everything() -> list[str]:
    package = npm_package("@modelcontextprotocol/server-everything", EVERYTHING_VERSION)
    return [str(package / "dist" / "index.js"), "stdio"]


def _run(tmp_path: Path, program: str, server_args: list[str]) -> tuple[int, list[dict[str, Any]], str]:
    with ScriptedProvider(SCRIPT) as provider:
        sandbox = Sandbox.create(tmp_path / program, provider.base_url)
        (sandbox.work / "notes.txt").write_text("first line\nsecond line\n", encoding="utf-8")
        config = {"mcpServers": {"every": {"command": "node", "args": server_args, "exposure": "direct"}}}
        (sandbox.agent_dir / "mcp.json").write_text(json.dumps(config), encoding="utf-8")
        args = ("--model", OPENAI_MODEL, "--no-session", "--mode", "json", "go")
        done = run_pi(sandbox, *args, current=True) if program == "pi" else run_ours(sandbox, *args)
        return done.returncode, done.json_lines(), done.stderr


def _ends(events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """``tool_execution_end`` by call id, its time left out."""
    return {
        event["toolCallId"]: {key: value for key, value in event.items() if key != "durationMs"}
        for event in events
        if event.get("type") == "tool_execution_end"
    }


def _result_messages(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {key: value for key, value in event["message"].items() if key not in ("timestamp", "durationMs")}
        for event in events
        if event.get("type") == "message_end" and event["message"].get("role") == "toolResult"
    ]


def test_structured_content_reaches_json_mode_as_in_pi_1_6(tmp_path: Path) -> None:
    server = _everything()
    pi_code, pi_events, pi_err = _run(tmp_path, "pi", server)
    our_code, our_events, our_err = _run(tmp_path, "ours", server)
    assert (our_code, pi_code) == (0, 0), (our_err, pi_err)
    ours, theirs = _ends(our_events), _ends(pi_events)
    assert ours == theirs
    weather = {"temperature": 36, "conditions": "Light rain / drizzle", "humidity": 82}
    assert ours["call_1"]["result"]["structuredContent"] == {
        "content": [{"type": "text", "text": json.dumps(weather, separators=(",", ":"))}],
        "structuredContent": weather,
    }
    assert ours["call_2"]["result"]["structuredContent"] == {"content": [{"type": "text", "text": "Echo: hey"}]}
    assert ours["call_3"]["result"]["structuredContent"] == "first line\nsecond line\n"
    # The tool result messages (what the session keeps) carry no structured content.
    assert _result_messages(our_events) == _result_messages(pi_events)
    assert all("structuredContent" not in message for message in _result_messages(our_events))
