"""An MCP server registered in ``session_start`` by a run that started without any (no
``mcp.json``, nothing registered while extensions loaded) connects and offers its tools, as in
Pi 1.6. Pi 1.6's CLI in RPC mode runs a TypeScript extension registering PyPI's
``mcp-server-time`` (``direct``, one tool ``deferred``); ours runs the same extension, and a
Python one doing the same with ``pi.register_mcp_server``. ``/mcp`` (which waits for the servers) lists the server the same; the
tools offered in the first request (``tool_search`` turned on), the servers the ``mcp_servers`` section of the system prompt lists and the
tool result the model gets must be Pi 1.6's."""

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
    {"text": "done"},
]
CONFIG = (
    '{ command: process.env.CLOCK_COMMAND, args: ["--local-timezone", "UTC"], exposure: "direct",'
    ' description: "Converts times between zones", toolExposure: { get_current_time: "deferred" } }'
)
TYPESCRIPT = (
    "export default function (pi: any) {\n"
    f'  pi.on("session_start", () => pi.registerMcpServer("clock", {CONFIG}));\n'
    "}\n"
)
PYTHON = """import os


def setup(pi):
    config = {
        "command": os.environ["CLOCK_COMMAND"],
        "args": ["--local-timezone", "UTC"],
        "exposure": "direct",
        "description": "Converts times between zones",
        "toolExposure": {"get_current_time": "deferred"},
    }
    pi.on("session_start", lambda event, ctx: pi.register_mcp_server("clock", config))
"""


@pytest.fixture(scope="module", autouse=True)
def _node_runtime_ready() -> None:
    from pi_coding_agent.core.node_runtime import ensure_node_runtime

    ensure_node_runtime()


def _run(
    tmp_path: Path, program: str, extension_name: str
) -> tuple[list[tuple[str, str]], list[dict[str, Any]]]:
    """``/mcp``, then the prompt: ``/mcp``'s notices and the request bodies."""
    with ScriptedProvider(SCRIPT) as provider:
        sandbox = Sandbox.create(tmp_path / f"{program}-{extension_name}", provider.base_url)
        extension = sandbox.root / extension_name
        extension.write_text(TYPESCRIPT if extension_name.endswith(".ts") else PYTHON, encoding="utf-8")
        env = sandbox.env(CLOCK_COMMAND=time_server()[0], PI_NODE_CACHE=node_cache())
        args = ("--model", OPENAI_MODEL, "--no-session", "-e", str(extension))
        answers = rpc_session(program, sandbox.work, env, args, ["/mcp", "what time is it in Tokyo"])
        return notices(answers[0]), [request["body"] for request in provider.requests]


def _mcp_tools(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [tool for tool in body.get("tools", []) if tool["function"]["name"].startswith("mcp__")]


def _names(body: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools", [])]


def _results(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [message for message in body["messages"] if message.get("role") == "tool"]


def _listed_servers(body: dict[str, Any]) -> list[str]:
    """The server lines of the ``mcp_servers`` section (its introduction is in our words)."""
    system = next(m["content"] for m in body["messages"] if m.get("role") in ("system", "developer"))
    text = system if isinstance(system, str) else "".join(part.get("text", "") for part in system)
    start = text.find("<mcp_servers>")
    section = text[start : text.find("</mcp_servers>")] if start >= 0 else ""
    return [line for line in section.splitlines() if line.startswith("- ")]


def test_a_server_registered_in_session_start_connects_as_in_pi_1_6(tmp_path: Path) -> None:
    time_server()  # installed once, before the runs start it
    runs = (("pi16", "late.ts"), ("ours", "late.ts"), ("ours", "late.py"))
    with ThreadPoolExecutor(max_workers=2) as pool:
        (pi_notices, pi_bodies), *ours = pool.map(lambda run: _run(tmp_path, *run), runs)
    assert pi_notices == [("info", "clock: connected, 2 tools (direct)")]
    assert len(pi_bodies) == 2
    offered = _names(pi_bodies[0])
    assert "mcp__clock__convert_time" in offered and "tool_search" in offered
    assert "mcp__clock__get_current_time" not in offered
    assert "Asia/Tokyo" in json.dumps(_results(pi_bodies[1]))
    for our_notices, our_bodies in ours:
        assert our_notices == pi_notices
        assert len(our_bodies) == 2
        assert _names(our_bodies[0]) == _names(pi_bodies[0])
        assert _mcp_tools(our_bodies[0]) == _mcp_tools(pi_bodies[0])
        assert _listed_servers(our_bodies[0]) == _listed_servers(pi_bodies[0]) != []
        assert _results(our_bodies[1]) == _results(pi_bodies[1])
