"""An extension that registers ``/mcp`` replaces the built-in MCP support, ours as Pi 1.6's CLI:
a TypeScript extension (run by both) registers ``/mcp`` beside an ``mcp.json`` with a ``direct``
probe server. Its ``/mcp`` answers, ``get_commands`` lists only its ``/mcp``, and no MCP tool
reaches the model; without the extension ours has its built-in ``/mcp``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.app.interactive._scenario import pi_command
from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, REPO, Sandbox, run_ours, run_pi
from tests.support.npm_packages import node_cache
from tests.support.scripted_provider import ScriptedProvider

pytestmark = pytest.mark.timeout(600)

EXTENSION = """export default function (pi: any) {
  pi.registerCommand("mcp", {
    description: "Adapter's MCP manager",
    handler: async (args: string, ctx: any) => { ctx.ui.notify(`adapter:${args}`, "info"); },
  });
}
"""
CONFIG = {
    "mcpServers": {
        "probe": {
            "command": sys.executable,
            "args": ["-m", "tests.support.mcp_server", "stdio"],
            "cwd": str(REPO),
            "exposure": "direct",
        }
    }
}


@pytest.fixture(scope="module", autouse=True)
def _node_runtime_ready() -> None:
    from pi_coding_agent.core.node_runtime import ensure_node_runtime

    ensure_node_runtime()


def _sandbox(root: Path, base_url: str) -> tuple[Sandbox, Path]:
    sandbox = Sandbox.create(root, base_url)
    (sandbox.agent_dir / "mcp.json").write_text(json.dumps(CONFIG), encoding="utf-8")
    extension = root / "adapter.ts"
    extension.write_text(EXTENSION, encoding="utf-8")
    return sandbox, extension


def _tools(requests: list[dict[str, Any]]) -> list[str]:
    return [tool["function"]["name"] for tool in requests[0]["body"].get("tools") or []]


def _rpc(sandbox: Sandbox, which: str, extension: Path | None) -> tuple[list[str], list[tuple[str, str]]]:
    """``get_commands``' ``mcp`` entries (where from) and ``/mcp now``'s notices."""
    command = pi_command(which, "--mode", "rpc", *(("-e", str(extension)) if extension else ()))
    process = subprocess.Popen(command, cwd=sandbox.work, env=sandbox.env(PI_NODE_CACHE=node_cache()),
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    seen: list[dict[str, Any]] = []
    try:
        for record in (
            {"id": "c", "type": "get_commands"},
            {"id": "m", "type": "prompt", "message": "/mcp now"},
        ):
            process.stdin.write(json.dumps(record) + "\n")
            process.stdin.flush()
            while (line := json.loads(process.stdout.readline())).get("id") != record["id"]:
                seen.append(line)
            seen.append(line)
    finally:
        process.stdin.close()
        process.wait(timeout=60)
    commands = next(r for r in seen if r.get("id") == "c")["data"]["commands"]
    sources = [c["sourceInfo"]["path"] for c in commands if c["name"] == "mcp"]
    notices = [(r["notifyType"], r["message"]) for r in seen if r.get("method") == "notify"]
    return sources, notices


def test_an_extension_registering_mcp_replaces_the_builtin_support(tmp_path: Path) -> None:
    found = {}
    for which in ("pi16", "ours"):
        with ScriptedProvider([{"text": "ok"}]) as provider:
            sandbox, extension = _sandbox(tmp_path / which, provider.base_url)
            args = ("--model", OPENAI_MODEL, "-e", str(extension), "-p", "hello")
            env = {"PI_NODE_CACHE": node_cache()}
            done = run_pi(sandbox, *args, current=True, timeout=180, **env) if which == "pi16" else run_ours(
                sandbox, *args, timeout=180, **env)  # fmt: skip
            assert done.returncode == 0, done.stderr
            found[which] = (_tools(list(provider.requests)), _rpc(sandbox, which, extension))
    assert found["ours"][0] == found["pi16"][0]
    assert not [name for name in found["ours"][0] if name.startswith("mcp__")]
    (our_sources, our_notices), (their_sources, their_notices) = found["ours"][1], found["pi16"][1]
    assert our_notices == their_notices == [("info", "adapter:now")]
    assert len(our_sources) == len(their_sources) == 1 and not our_sources[0].startswith("builtin:")
    sandbox, _ = _sandbox(tmp_path / "plain", "http://127.0.0.1:9")  # without it: the built-in /mcp
    sources, notices = _rpc(sandbox, "ours", None)
    assert sources == ["builtin:mcp"] and notices == [
        ("warning", "Usage: /mcp, /mcp login [server], /mcp logout [server], /mcp reconnect [server]")
    ]
