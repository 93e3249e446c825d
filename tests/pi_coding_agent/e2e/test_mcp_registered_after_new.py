"""An MCP server an extension registers first in the ``session_start`` of ``/new`` (the run
started with no ``mcp.json`` and nothing registered, so MCP was not set up) reaches that new
session itself, as in Pi 1.6: ``/mcp`` lists it, its ``direct`` tool is offered in the new
session's first request with ``tool_search`` turned on for its ``deferred`` one, and a call's
result comes back. Pi 1.6's CLI in RPC mode runs a TypeScript extension registering PyPI's
``mcp-server-time``; ours runs the same extension, and a Python one doing the same."""

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
    '  pi.on("session_start", (event: any) => {\n'
    f'    if (event.reason === "new") pi.registerMcpServer("clock", {CONFIG});\n'
    "  });\n"
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

    def started(event, ctx):
        if event.reason == "new":
            pi.register_mcp_server("clock", config)

    pi.on("session_start", started)
"""


@pytest.fixture(scope="module", autouse=True)
def _node_runtime_ready() -> None:
    from pi_coding_agent.core.node_runtime import ensure_node_runtime

    ensure_node_runtime()


def _run(
    tmp_path: Path, program: str, extension_name: str
) -> tuple[list[tuple[str, str]], list[dict[str, Any]]]:
    """``new_session``, ``/mcp``, then the prompt: ``/mcp``'s notices and the request bodies."""
    with ScriptedProvider(SCRIPT) as provider:
        sandbox = Sandbox.create(tmp_path / f"{program}-{extension_name}", provider.base_url)
        extension = sandbox.root / extension_name
        extension.write_text(TYPESCRIPT if extension_name.endswith(".ts") else PYTHON, encoding="utf-8")
        env = sandbox.env(CLOCK_COMMAND=time_server()[0], PI_NODE_CACHE=node_cache())
        args = ("--model", OPENAI_MODEL, "-e", str(extension))
        messages: list[str | dict[str, Any]] = [{"type": "new_session"}, "/mcp", "what time is it in Tokyo"]
        answers = rpc_session(program, sandbox.work, env, args, messages)
        return notices(answers[1]), [request["body"] for request in provider.requests]


def _names(body: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools", [])]


def _mcp_tools(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [tool for tool in body.get("tools", []) if tool["function"]["name"].startswith("mcp__")]


def _results(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [message for message in body["messages"] if message.get("role") == "tool"]


def test_a_server_registered_at_new_reaches_the_new_session_as_in_pi_1_6(tmp_path: Path) -> None:
    time_server()  # installed once, before the runs start it
    runs = (("pi16", "fresh.ts"), ("ours", "fresh.ts"), ("ours", "fresh.py"))
    with ThreadPoolExecutor(max_workers=2) as pool:
        (pi_notices, pi_bodies), *ours = pool.map(lambda run: _run(tmp_path, *run), runs)
    assert pi_notices == [("info", "clock: connected, 2 tools (direct)")]
    assert len(pi_bodies) == 2
    offered = _names(pi_bodies[0])
    assert "mcp__clock__convert_time" in offered and "tool_search" in offered
    assert "Asia/Tokyo" in json.dumps(_results(pi_bodies[1]))
    for our_notices, our_bodies in ours:
        assert our_notices == pi_notices
        assert len(our_bodies) == 2
        assert _names(our_bodies[0]) == offered
        assert _mcp_tools(our_bodies[0]) == _mcp_tools(pi_bodies[0])
        assert _results(our_bodies[1]) == _results(pi_bodies[1])
