"""MCP servers registered by Python extensions (``pi.register_mcp_server``) through our CLI: a
server registered in ``setup`` is ``direct`` and its tools are offered in the first request; a
``deferred`` one registered in ``session_start`` connects at once and turns ``tool_search`` on;
another extension cannot take a registered name; unregistering from a ``tool_result`` handler
withdraws the tools from the next request; ``mcp_servers_change`` and ``get_mcp_servers``
report every change. A name ``mcp.json`` defines wins over a registration."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, REPO, Sandbox
from tests.pi_coding_agent.e2e._rpc_session import notices, rpc_session
from tests.support.scripted_provider import ScriptedProvider

pytestmark = pytest.mark.usefixtures("forked_mcp_servers")  # several stdio starts of the probe

PROBE = {"command": sys.executable, "args": ["-m", "tests.support.mcp_server"], "cwd": str(REPO)}
OWNER = """import json, os

PROBE = json.loads(os.environ["PROBE_SERVER"])


def _write(record):
    with open(os.environ["PI_TEST_RECORD"], "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record) + "\\n")


def setup(pi):
    pi.register_mcp_server("probe", {**PROBE, "exposure": "direct", "toolExposure": {"pid": "hidden", "long_*": "hidden"}})
    try:
        pi.register_mcp_server("bad name", {"command": "x"})
    except ValueError as error:
        _write({"refused": str(error).replace(__file__, "<owner>")})

    def started(event, ctx):
        pi.register_mcp_server("late", {**PROBE, "exposure": "deferred"})

    def changed(event, ctx):
        _write({"change": [s.name for s in event.servers], "listed": [s.name for s in pi.get_mcp_servers()]})

    def result(event, ctx):
        if event.tool_name == "mcp__probe__add":
            pi.unregister_mcp_server("probe")

    pi.on("session_start", started)
    pi.on("mcp_servers_change", changed)
    pi.on("tool_result", result)
"""
THIEF = """import json, os


def setup(pi):
    try:
        pi.register_mcp_server("probe", {"command": "x"})
    except ValueError as error:
        with open(os.environ["PI_TEST_RECORD"], "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"taken": str(error).split(" by ")[0]}) + "\\n")
"""
SCRIPT = [
    {"tool_calls": [{"id": "call_1", "name": "mcp__probe__add", "arguments": {"a": 2, "b": 40}}]},
    {"tool_calls": [{"id": "call_2", "name": "read", "arguments": {"path": "note.txt"}}]},
    {"text": "done"},
]


def _run(
    root: Path, mcp_json: dict[str, Any] | None = None
) -> tuple[list[Any], list[dict[str, Any]], list[Any]]:
    """``/mcp`` (which waits until every server settled), then the prompt: ``/mcp``'s notices,
    the request bodies, the extensions' record."""
    with ScriptedProvider(SCRIPT) as provider:
        sandbox = Sandbox.create(root, provider.base_url)
        (sandbox.work / "note.txt").write_text("a note\n", encoding="utf-8")
        if mcp_json is not None:
            (sandbox.agent_dir / "mcp.json").write_text(json.dumps(mcp_json), encoding="utf-8")
        (root / "owner.py").write_text(OWNER, encoding="utf-8")
        (root / "thief.py").write_text(THIEF, encoding="utf-8")
        record = root / "record.jsonl"
        env = sandbox.env(PI_TEST_RECORD=str(record), PROBE_SERVER=json.dumps(PROBE))
        args = (
            "--model",
            OPENAI_MODEL,
            "--no-session",
            "-e",
            str(root / "owner.py"),
            "-e",
            str(root / "thief.py"),
        )
        answers = rpc_session("ours", sandbox.work, env, args, ["/mcp", "add"])
        lines = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
        return notices(answers[0]), [request["body"] for request in provider.requests], lines


def _names(body: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools", [])]


def test_python_extension_registers_and_unregisters_a_server(tmp_path: Path) -> None:
    listed, bodies, record = _run(tmp_path)
    assert listed == [("info", "probe: connected, 11 tools (direct)\nlate: connected, 11 tools (deferred)")]
    assert len(bodies) == 3
    first = _names(bodies[0])
    assert "mcp__probe__add" in first and "mcp__probe__pid" not in first
    assert "tool_search" in first and not [name for name in first if name.startswith("mcp__late")]
    result = [m for m in bodies[1]["messages"] if m.get("role") == "tool"]
    assert "42" in json.dumps(result)
    assert not [name for name in _names(bodies[2]) if name.startswith("mcp__probe")]
    assert record == [
        {"refused": 'Invalid MCP server registered by extension "<owner>": invalid server name "bad name" (use letters, digits, "_" and "-")'},
        {"taken": 'MCP server "probe" is already registered'},
        {"change": ["probe", "late"], "listed": ["probe", "late"]},
        {"change": ["late"], "listed": ["late"]},
    ]  # fmt: skip


def test_a_server_in_mcp_json_wins_over_a_registration(tmp_path: Path) -> None:
    """``mcp.json``'s ``probe`` is ``hidden``: the registered ``direct`` one is not connected."""
    listed, bodies, _record = _run(tmp_path, {"mcpServers": {"probe": {**PROBE, "exposure": "hidden"}}})
    assert listed[0][1].startswith("probe: connected, ") and listed[0][1].split("\n")[0].endswith("(hidden)")
    assert not [name for name in _names(bodies[0]) if name.startswith("mcp__probe")]

