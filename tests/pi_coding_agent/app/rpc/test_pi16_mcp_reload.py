"""``codemode`` and ``tool_search`` after ``/reload`` with MCP servers that need them, ours against
Pi 1.6 itself (``pi --mode rpc`` with ``tool_reload.ts`` / ``tool_reload.py``): both tools are
turned off (``/off NAME``), the session reloads (``/reload-now``), and the next request declares
them again, as Pi 1.6's MCP extension turns them on at every session start. The servers need not
connect: the configuration (a ``codemode`` and a ``deferred`` server) decides."""

from __future__ import annotations

import json
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.pi_coding_agent.app.rpc.test_pi16_tool_reload import HERE, _send, _wait_for
from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, OUR_PI, Sandbox
from tests.support import oracle
from tests.support.scripted_provider import ScriptedProvider

CONFIG = {
    "mcpServers": {
        "scripts": {"command": "/nonexistent/scripts-server"},
        "later": {"command": "/nonexistent/later-server", "exposure": "deferred"},
    }
}


def _tools_after(root: Path, side: str, steps: list[str]) -> list[str]:
    with ScriptedProvider([{"text": "ok"}]) as provider:
        box = Sandbox.create(root / side, provider.base_url, {"retry": {"enabled": False}})
        (box.agent_dir / "mcp.json").write_text(json.dumps(CONFIG), encoding="utf-8")
        program = (
            [str(oracle.require_live_oracle(True) / "pi-cli-current")] if side == "pi" else [str(OUR_PI)]
        )
        fixture = HERE / ("tool_reload.ts" if side == "pi" else "tool_reload.py")
        command = [*program, "--mode", "rpc", "--no-session", "--model", OPENAI_MODEL, "-e", str(fixture)]
        process = subprocess.Popen(command, cwd=box.work, env=box.env(), stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)  # fmt: skip
        try:
            for number, step in enumerate(steps):
                _send(process, {"id": str(number), "type": "prompt", "message": step})
                _wait_for(
                    process,
                    lambda line, n=str(number): line.get("id") == n and line.get("type") == "response",
                )
            _send(process, {"id": "last", "type": "prompt", "message": "hi"})
            _wait_for(process, lambda line: line.get("type") == "agent_end")
        finally:
            assert process.stdin is not None
            process.stdin.close()
            process.wait(timeout=30)
        requests = provider.requests
    return [tool["function"]["name"] for tool in requests[0]["body"].get("tools", [])]


@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    "steps",
    [["/off codemode", "/off tool_search", "/reload-now"], ["/off codemode", "/off tool_search"]],
    ids=["reloaded", "not-reloaded"],
)
def test_codemode_and_tool_search_return_after_reload_as_in_pi_1_6(tmp_path: Path, steps: list[str]) -> None:
    with ThreadPoolExecutor(2) as pool:
        theirs, ours = pool.map(lambda side: _tools_after(tmp_path, side, steps), ("pi", "ours"))
    assert ours == [name for name in theirs if name != "powershell"]
    assert ("codemode" in ours and "tool_search" in ours) == (steps[-1] == "/reload-now"), ours
