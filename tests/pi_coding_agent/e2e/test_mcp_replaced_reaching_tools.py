"""An extension that replaces ``codemode`` and ``tool_search`` (Pi 1.6: a tool of the same name
replaces the built-in one): the MCP support turns the replacement on for its servers only when
it declares ``reachesTools``. With a server that has ``codemode`` and ``deferred`` tools, an
extension registering ``codemode`` without ``reachesTools`` and ``tool_search`` with it: Pi 1.6
offers ``tool_search`` and not ``codemode``; ours must offer the same tools, with the TypeScript
extension and with a Python one (``reaches_tools``). When the model calls the replacement
``tool_search``, its result comes back as Pi's."""

from __future__ import annotations

import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, REPO, Sandbox, run_ours, run_pi
from tests.support.npm_packages import node_cache
from tests.support.scripted_provider import ScriptedProvider

pytestmark = [pytest.mark.timeout(300), pytest.mark.usefixtures("forked_mcp_servers")]  # three probe starts

SCRIPT = [
    {"tool_calls": [{"id": "call_1", "name": "tool_search", "arguments": {"query": "add"}}]},
    {"text": "done"},
]
CONFIG = {
    "mcpServers": {
        "probe": {
            "command": sys.executable,
            "args": ["-m", "tests.support.mcp_server"],
            "cwd": str(REPO),
            "exposure": "codemode",
            "toolExposure": {"add": "deferred"},
        }
    }
}
TYPESCRIPT = """export default function (pi: any) {
  const replacement = (name: string, reaches: boolean) => ({
    name,
    label: name,
    description: `Replacement ${name}`,
    parameters: { type: "object", properties: { query: { type: "string" }, code: { type: "string" } } },
    exposure: "model-only",
    defaultActive: false,
    ...(reaches ? { reachesTools: () => "all" } : {}),
    async execute() {
      return { content: [{ type: "text", text: `replacement ${name} ran` }], details: {} };
    },
  });
  pi.registerTool(replacement("codemode", false));
  pi.registerTool(replacement("tool_search", true));
}
"""
PYTHON = """
def setup(pi):
    def replacement(name, reaches):
        return dict(
            name=name,
            description=f"Replacement {name}",
            parameters={"type": "object", "properties": {"query": {"type": "string"}, "code": {"type": "string"}}},
            exposure="model-only",
            default_active=False,
            reaches_tools=(lambda params: "all") if reaches else None,
            execute=lambda *args: {"content": [{"type": "text", "text": f"replacement {name} ran"}], "details": {}},
        )

    pi.register_tool(**replacement("codemode", False))
    pi.register_tool(**replacement("tool_search", True))
"""


def _run(tmp_path: Path, program: str, extension_name: str) -> list[dict[str, Any]]:
    with ScriptedProvider(SCRIPT) as provider:
        sandbox = Sandbox.create(tmp_path / f"{program}-{extension_name}", provider.base_url)
        (sandbox.agent_dir / "mcp.json").write_text(json.dumps(CONFIG), encoding="utf-8")
        extension = sandbox.root / extension_name
        extension.write_text(TYPESCRIPT if extension_name.endswith(".ts") else PYTHON, encoding="utf-8")
        args = ("--model", OPENAI_MODEL, "--no-session", "-e", str(extension), "-p", "go")
        if program == "pi16":
            done = run_pi(sandbox, *args, current=True)
        else:
            done = run_ours(sandbox, *args, PI_NODE_CACHE=node_cache())
        assert done.returncode == 0, (program, done.stderr)
        return [request["body"] for request in provider.requests]


def _tools(body: dict[str, Any]) -> dict[str, str]:
    return {tool["function"]["name"]: tool["function"]["description"] for tool in body.get("tools", [])}


def _results(body: dict[str, Any]) -> list[Any]:
    return [message["content"] for message in body["messages"] if message.get("role") == "tool"]


def test_only_a_replacement_declaring_reaches_tools_is_turned_on_as_in_pi_1_6(tmp_path: Path) -> None:
    runs = (("pi16", "replace.ts"), ("ours", "replace.ts"), ("ours", "replace.py"))
    with ThreadPoolExecutor(max_workers=2) as pool:
        pi_bodies, *ours = pool.map(lambda run: _run(tmp_path, *run), runs)
    assert len(pi_bodies) == 2
    offered = _tools(pi_bodies[0])
    assert offered.get("tool_search") == "Replacement tool_search" and "codemode" not in offered
    assert _results(pi_bodies[1]) == ["replacement tool_search ran"]
    for our_bodies in ours:
        assert len(our_bodies) == 2
        assert sorted(_tools(our_bodies[0])) == sorted(offered)
        assert _tools(our_bodies[0])["tool_search"] == offered["tool_search"]
        assert _results(our_bodies[1]) == _results(pi_bodies[1])
