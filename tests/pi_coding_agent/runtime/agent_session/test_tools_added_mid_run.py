"""A tool that turns another tool on while it runs (Pi 1.6's dynamic tool loading; what Pi 0.85
recorded as the tool result's ``addedToolNames``), as Pi 1.6 does it: the tool result carries no
``addedToolNames``; the next turn starts with a system message whose ``toolsAdded`` declares the
new tool, written to the session file after the tool results; the next request offers it (in the
request's tools, or in place as a ``{"role": "system", "tools": [...]}`` message for a model whose
compat allows mid-conversation tool additions); a resumed session keeps it. One TypeScript
extension (``dynamic_tools.ts``), run by ours (its Node host) and by Pi 1.6's CLI against the same
scripted provider, with ``--mode json``."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tests.pi_coding_agent.e2e._harness import Sandbox, run_ours, run_pi
from tests.support import oracle
from tests.support.npm_packages import node_cache
from tests.support.scripted_provider import ScriptedProvider

HERE = Path(__file__).resolve().parent
TURNS = [
    {"tool_calls": [{"id": "c1", "name": "loader", "arguments": {}}]},
    {"tool_calls": [{"id": "c2", "name": "lookup", "arguments": {"word": "pi"}}]},
    {"text": "done"},
    {"text": "resumed"},
]
IN_PLACE = {"supportsMidConvoSystemMessages": True, "supportsMidConvoToolAdditions": True}


def _message_view(message: dict[str, Any]) -> str:
    """A request message as its role, and the tools a system message declares in place."""
    tools = message.get("tools")
    return message["role"] + (f" +{','.join(t['function']['name'] for t in tools)}" if tools else "")


def _request_view(request: dict[str, Any]) -> dict[str, Any]:
    body = request["body"]
    return {
        "tools": sorted(tool["function"]["name"] for tool in body.get("tools") or []),
        "messages": [_message_view(m) for m in body["messages"]],
    }


def _file_view(box: Sandbox) -> list[dict[str, Any]]:
    """The session file's messages: role, the tools a system message adds or removes, the keys of
    a tool result."""
    (session,) = box.session_files()
    lines = [json.loads(line) for line in session.read_text(encoding="utf-8").splitlines()[1:]]
    view = []
    for message in (line["message"] for line in lines if line["type"] == "message"):
        item: dict[str, Any] = {"role": message["role"]}
        if message["role"] == "system":
            item["added"] = [t["name"] for t in message.get("toolsAdded", [])]
            item["removed"] = [t["name"] for t in message.get("toolsRemoved", [])]
        if message["role"] == "toolResult":
            item["keys"] = sorted(set(message) - {"timestamp", "durationMs"})
        view.append(item)
    return view


def _stream_view(lines: list[dict[str, Any]]) -> list[str]:
    """The roles of the messages the JSON stream ends, and whether a tool result names added tools."""
    return [
        event["message"]["role"] + (" addedToolNames" if "addedToolNames" in event["message"] else "")
        for event in lines
        if event.get("type") == "message_end"
    ]


def _run(root: Path, who: str, model: str, *, resume: bool) -> dict[str, Any]:
    extension = HERE / "dynamic_tools.ts"
    runner = run_ours if who == "ours" else run_pi
    extra = {} if who == "ours" else {"current": True}
    with ScriptedProvider(TURNS) as provider:
        box = Sandbox.create(root, provider.base_url)
        models = json.loads((box.agent_dir / "models.json").read_text(encoding="utf-8"))
        models["providers"]["scripted-openai"]["models"].append(
            {
                "id": "in-place",
                "name": "In place",
                "contextWindow": 64000,
                "maxTokens": 4096,
                "compat": IN_PLACE,
            }
        )
        (box.agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")
        args = ("--model", f"scripted-openai/{model}", "-e", str(extension), "--mode", "json")
        done = runner(box, *args, "look pi up", timeout=180, PI_NODE_CACHE=node_cache(), **extra)  # type: ignore[operator]
        assert done.returncode == 0, (who, done.stderr[-3000:])
        stream = _stream_view(done.json_lines())
        if resume:
            again = runner(box, *args, "-c", "again", timeout=180, PI_NODE_CACHE=node_cache(), **extra)  # type: ignore[operator]
            assert again.returncode == 0, (who, again.stderr[-3000:])
        requests = [_request_view(request) for request in provider.requests]
        return {"requests": requests, "file": _file_view(box), "stream": stream}


def test_a_tool_added_by_a_tool_is_declared_at_the_next_turn_as_in_pi_16(tmp_path: Path) -> None:
    oracle.require_live_oracle(current=True)
    from pi_coding_agent.core.node_runtime import ensure_node_runtime

    ensure_node_runtime()
    for model, resume in (("scripted-model", True), ("in-place", False)):
        with ThreadPoolExecutor(2) as pool:  # each side its own provider and home: run them together
            runs = {
                who: pool.submit(_run, tmp_path / f"{who}-{model}", who, model, resume=resume)
                for who in ("ours", "pi")
            }
            seen = {who: run.result() for who, run in runs.items()}
        assert seen["ours"] == seen["pi"], model
        ours = seen["ours"]
        assert "toolResult addedToolNames" not in ours["stream"]
        assert all(
            item["keys"] == ["content", "details", "isError", "role", "toolCallId", "toolName"]
            for item in ours["file"]
            if item["role"] == "toolResult"
        )
        systems = [(i, item) for i, item in enumerate(ours["file"]) if item["role"] == "system"]
        assert len(systems) == 2  # the first declaration, the addition (the resume declares nothing new)
        index, added = systems[1]
        assert ours["file"][index - 1]["role"] == "toolResult" and added["added"] == ["lookup"]
        first, second = ours["requests"][0], ours["requests"][1]
        assert "lookup" not in first["tools"]
        if model == "in-place":
            assert "lookup" not in second["tools"] and second["messages"][-1] == "system +lookup"
        else:
            assert "lookup" in second["tools"] and "system" not in second["messages"][1:]
        if resume:
            assert "lookup" in ours["requests"][-1]["tools"]
