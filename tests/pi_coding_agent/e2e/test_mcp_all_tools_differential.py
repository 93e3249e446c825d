"""``getAllTools()`` with MCP servers, checked against Pi 1.6's CLI (one run of each program): a
TypeScript extension writes what it returns when the run ends, with a server whose
tools have every exposure (``direct``, ``deferred``, ``codemode``, ``hidden``). Both list every
tool of the server with its exposure (``codemode`` ones as ``deferred``, as Pi registers them),
and each tool's ``promptGuidelines`` and ``sourceInfo``."""

from __future__ import annotations

import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, REPO, Sandbox, run_ours, run_pi
from tests.support.npm_packages import node_cache
from tests.support.scripted_provider import ScriptedProvider

TYPESCRIPT = """import { appendFileSync } from "node:fs";
export default function (pi: any) {
  pi.on("agent_end", () => {
    appendFileSync(process.env.PI_TEST_RECORD as string, JSON.stringify(pi.getAllTools()) + "\\n");
  });
}
"""

MCP_JSON = {
    "mcpServers": {
        "probe": {
            "command": sys.executable,
            "args": ["-m", "tests.support.mcp_server"],
            "cwd": str(REPO),
            "exposure": "direct",
            "toolExposure": {
                "echo": "deferred",
                "add": "codemode",
                "pid": "hidden",
                "long_*": "hidden",
                "fail": "deferred",
            },
        }
    }
}


def _run(tmp_path: Path, program: str) -> tuple[int, str, list[dict[str, Any]]]:
    with ScriptedProvider([{"text": "ok"}]) as provider:
        sandbox = Sandbox.create(tmp_path / program, provider.base_url)
        (sandbox.agent_dir / "mcp.json").write_text(json.dumps(MCP_JSON), encoding="utf-8")
        extension = sandbox.work / "all_tools.ts"
        extension.write_text(TYPESCRIPT, encoding="utf-8")
        record = tmp_path / f"{program}.jsonl"
        args = ("--model", OPENAI_MODEL, "--no-session", "-e", str(extension), "-p", "hi")
        env = {"PI_TEST_RECORD": str(record), "PI_NODE_CACHE": node_cache()}
        done = (
            run_pi(sandbox, *args, current=True, **env)
            if program == "pi"
            else run_ours(sandbox, *args, **env)
        )
        lines = record.read_text(encoding="utf-8").splitlines() if record.exists() else []
        return done.returncode, done.stderr, json.loads(lines[0]) if lines else []


def _shown(tools: list[dict[str, Any]]) -> list[tuple[str, str, bool, dict[str, Any]]]:
    """Each tool's name, exposure, whether it has guidelines (their words are our own) and source.
    Pi also lists ``powershell``, a tool we do not have."""
    return [
        (tool["name"], tool["exposure"], bool(tool.get("promptGuidelines")), tool["sourceInfo"])
        for tool in tools
        if tool["name"] != "powershell"
    ]


def test_get_all_tools_lists_every_mcp_tool_as_pi_1_6(tmp_path: Path) -> None:
    with ThreadPoolExecutor(2) as pool:
        pi_run, our_run = pool.map(lambda program: _run(tmp_path, program), ("pi", "ours"))
    assert (our_run[0], pi_run[0]) == (0, 0), (our_run[1], pi_run[1])
    pi_tools, our_tools = _shown(pi_run[2]), _shown(our_run[2])
    assert our_tools == pi_tools
    exposures = {name: exposure for name, exposure, _, _ in our_tools if name.startswith("mcp__")}
    assert {exposures[f"mcp__probe__{tool}"] for tool in ("echo", "add", "fail")} == {"deferred"}
    assert exposures["mcp__probe__pid"] == exposures["mcp__probe__long_text"] == "hidden"
    assert exposures["mcp__probe__picture"] == "direct"
