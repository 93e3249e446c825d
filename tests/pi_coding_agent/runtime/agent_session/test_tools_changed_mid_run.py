"""Tools changed by an extension in the middle of a run reach the next turn, as in Pi 1.6: the
request after the change offers the new set, and the session file records the change as a system
message at that turn boundary. One TypeScript extension, run by ours (its Node host) and by
Pi 1.6's CLI against the same scripted provider."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Sandbox, run_ours, run_pi
from tests.support import oracle
from tests.support.npm_packages import node_cache
from tests.support.scripted_provider import ScriptedProvider

NARROWING = """
export default function (pi) {
  pi.on("tool_result", async () => {
    pi.setActiveTools(["read"]);
  });
}
"""


def _tool_names(request: dict[str, Any]) -> list[str]:
    return sorted(tool["function"]["name"] for tool in request["body"].get("tools") or [])


def _system_entries(box: Sandbox) -> list[dict[str, Any]]:
    """Each system message of the run's session file: the tools it adds and removes, and the role
    of the message before it."""
    (session,) = box.session_files()
    messages = [
        json.loads(line)["message"]
        for line in session.read_text(encoding="utf-8").splitlines()[1:]
        if json.loads(line)["type"] == "message"
    ]
    return [
        {
            "after": messages[i - 1]["role"] if i else None,
            "added": sorted(t["name"] for t in m.get("toolsAdded", [])),
            "removed": sorted(t["name"] for t in m.get("toolsRemoved", [])),
        }
        for i, m in enumerate(messages)
        if m["role"] == "system"
    ]


def test_an_extension_narrowing_the_tools_mid_run_is_declared_at_the_next_turn(tmp_path: Path) -> None:
    oracle.require_live_oracle(current=True)
    from pi_coding_agent.core.node_runtime import ensure_node_runtime

    ensure_node_runtime()
    extension = tmp_path / "narrow.ts"
    extension.write_text(NARROWING, encoding="utf-8")
    turns = [{"tool_calls": [{"id": "c1", "name": "read", "arguments": {"path": "a.txt"}}]}, {"text": "done"}]
    seen = {}
    for who in ("ours", "pi"):
        with ScriptedProvider(turns) as provider:
            box = Sandbox.create(tmp_path / who, provider.base_url)
            (box.work / "a.txt").write_text("hello\n", encoding="utf-8")
            args = ("--model", OPENAI_MODEL, "-e", str(extension), "-p", "read a.txt")
            if who == "ours":
                done = run_ours(box, *args, timeout=180, PI_NODE_CACHE=node_cache())
            else:
                done = run_pi(box, *args, timeout=180, current=True, PI_NODE_CACHE=node_cache())
            assert done.returncode == 0, (who, done.stderr)
            requests = list(provider.requests)
            seen[who] = {
                "tools": [_tool_names(request) for request in requests],
                "system": _system_entries(box),
                "answer": done.stdout.strip(),
            }
    assert seen["ours"] == seen["pi"]
    assert seen["ours"]["tools"][1] == ["read"]
    assert seen["ours"]["system"][-1]["after"] == "toolResult"
