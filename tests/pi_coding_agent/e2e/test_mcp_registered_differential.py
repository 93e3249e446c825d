"""MCP servers registered by an extension (Pi 1.6's ``pi.registerMcpServer``), ours against
Pi 1.6's CLI in RPC mode: the same TypeScript extension registers PyPI's ``mcp-server-time`` as a
``direct`` server while it loads, and unregisters it once the model called one of its tools.
``/mcp`` (which waits for the servers) lists it the same; the tools offered, the tool result the
model gets, the tools offered after the removal and what the extension's ``mcp_servers_change``
handler and ``getMcpServers()`` saw must be the same."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Sandbox
from tests.pi_coding_agent.e2e._rpc_session import notices, rpc_session
from tests.support.mcp_reference import time_server
from tests.support.npm_packages import node_cache
from tests.support.scripted_provider import ScriptedProvider

pytestmark = pytest.mark.timeout(600)

CALL = {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}
SCRIPT = [
    {"tool_calls": [{"id": "call_1", "name": "mcp__clock__convert_time", "arguments": CALL}]},
    {"tool_calls": [{"id": "call_2", "name": "read", "arguments": {"path": "note.txt"}}]},
    {"text": "done"},
]

EXTENSION = """import * as fs from "node:fs";

export default function (pi: any) {
  const log = (entry: unknown) => fs.appendFileSync(process.env.MCP_EVENTS_LOG!, JSON.stringify(entry) + "\\n");
  pi.registerMcpServer("clock", { command: %(command)s, args: ["--local-timezone", "UTC"], exposure: "direct" });
  try {
    pi.registerMcpServer("bad name", { command: "x" });
  } catch (error) {
    log({ refused: (error as Error).message.replace(/"[^"]*adapter.ts"/, "<ext>") });
  }
  pi.on("mcp_servers_change", (event: any) => {
    log({ change: event.servers.map((s: any) => s.name), listed: pi.getMcpServers().map((s: any) => [s.name, s.config.exposure]) });
  });
  pi.on("session_start", () => {
    log({ start: pi.getMcpServers().map((s: any) => [s.name, s.config.command === %(command)s]) });
  });
  pi.on("tool_result", (event: any) => {
    if (event.toolName === "mcp__clock__convert_time") pi.unregisterMcpServer("clock");
  });
}
"""


@pytest.fixture(scope="module", autouse=True)
def _node_runtime_ready() -> None:
    from pi_coding_agent.core.node_runtime import ensure_node_runtime

    ensure_node_runtime()


def _run(tmp_path: Path, program: str) -> tuple[list[tuple[str, str]], list[dict[str, Any]], list[Any]]:
    """``/mcp`` (which waits for the server), then the prompt: ``/mcp``'s notices, the request
    bodies, what the extension logged."""
    with ScriptedProvider(SCRIPT) as provider:
        sandbox = Sandbox.create(tmp_path / program, provider.base_url)
        (sandbox.work / "note.txt").write_text("a note\n", encoding="utf-8")
        extension = sandbox.root / "adapter.ts"
        extension.write_text(EXTENSION % {"command": json.dumps(time_server()[0])}, encoding="utf-8")
        events = sandbox.root / "events.jsonl"
        env = sandbox.env(MCP_EVENTS_LOG=str(events), PI_NODE_CACHE=node_cache())
        args = ("--model", OPENAI_MODEL, "--no-session", "-e", str(extension))
        answers = rpc_session(program, sandbox.work, env, args, ["/mcp", "what time is it in Tokyo"])
        logged = (
            [json.loads(line) for line in events.read_text(encoding="utf-8").splitlines()]
            if events.exists()
            else []
        )
        return notices(answers[0]), [request["body"] for request in provider.requests], logged


def _tool_names(body: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools", [])]


def _results(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [message for message in body["messages"] if message.get("role") == "tool"]


def test_registered_server_matches_pi_1_6(tmp_path: Path) -> None:
    time_server()  # installed once, before both runs start it
    with ThreadPoolExecutor(max_workers=2) as pool:
        (pi_notices, pi_bodies, pi_log), (our_notices, our_bodies, our_log) = pool.map(
            lambda program: _run(tmp_path, program), ("pi16", "ours")
        )
    assert our_notices == pi_notices == [("info", "clock: connected, 2 tools (direct)")]
    assert len(our_bodies) == len(pi_bodies) == 3
    first = _tool_names(our_bodies[0])
    assert "mcp__clock__convert_time" in first and "mcp__clock__get_current_time" in first
    assert first == _tool_names(pi_bodies[0])
    assert [t for t in our_bodies[0]["tools"] if t["function"]["name"].startswith("mcp__")] == [
        t for t in pi_bodies[0]["tools"] if t["function"]["name"].startswith("mcp__")
    ]
    ours_result, pi_result = _results(our_bodies[1]), _results(pi_bodies[1])
    assert ours_result == pi_result
    assert "Asia/Tokyo" in json.dumps(ours_result)
    after = _tool_names(our_bodies[2])
    assert not any(name.startswith("mcp__clock") for name in after)
    assert after == _tool_names(pi_bodies[2])
    assert our_log == pi_log
    assert {"change": [], "listed": []} in our_log
