"""Compaction, tree and user-bash hooks through the real ``pi --mode rpc``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.pi_coding_agent.customize.extensions._support import FIXTURES, RpcProcess, records, session_entries
from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Sandbox
from tests.support.scripted_provider import ScriptedProvider


def _answer(rpc: RpcProcess, command_id: str) -> dict[str, Any]:
    return rpc.read_until(lambda r: r.get("type") == "response" and r.get("id") == command_id)


def test_an_extension_writes_the_compaction_and_answers_user_bash(tmp_path: Path) -> None:
    record = tmp_path / "hooks.jsonl"
    script = [{"text": "one " * 50}, {"text": "two " * 50}, {"text": "three"}]
    with ScriptedProvider(script, summary="SUMMARY BY THE MODEL") as provider:
        box = Sandbox.create(tmp_path / "box", provider.base_url, {"retry": {"enabled": False}, "compaction": {"keepRecentTokens": 1}})
        rpc = RpcProcess(box, "--model", OPENAI_MODEL, "-e", str(FIXTURES / "session_hooks.py"), PI_TEST_RECORD=str(record))
        try:
            for index in range(2):
                rpc.send({"id": f"p{index}", "type": "prompt", "message": f"question {index}"})
                rpc.read_until(lambda r: r.get("type") == "agent_settled")
            rpc.send({"id": "c", "type": "compact"})
            compacted = _answer(rpc, "c")
            rpc.send({"id": "b", "type": "bash", "command": "fake hello"})
            bash = _answer(rpc, "b")
            rpc.send({"id": "r", "type": "bash", "command": "echo real"})
            real = _answer(rpc, "r")
        finally:
            assert rpc.close() == 0
        summary_requests = [r for r in provider.requests if "SUMMARY" in str(r["body"])]
    assert compacted["success"] is True, compacted
    assert compacted["data"]["summary"] == "SUMMARY BY EXTENSION"
    assert summary_requests == []  # the model was not asked for a summary
    assert bash["data"]["output"] == "faked: hello" and bash["data"]["exitCode"] == 0
    assert real["data"]["output"] == "real\n"
    seen = records(record)
    assert [r["type"] for r in seen] == ["session_before_compact", "session_compact", "user_bash", "user_bash"]
    assert seen[1] == {"type": "session_compact", "from_extension": True, "summary": "SUMMARY BY EXTENSION"}
    entries = session_entries(box)
    compaction = next(e for e in entries if e["type"] == "compaction")
    assert (compaction["summary"], compaction["fromHook"]) == ("SUMMARY BY EXTENSION", True)
    runs = [e["message"] for e in entries if e.get("message", {}).get("role") == "bashExecution"]
    assert [(m["command"], m["output"]) for m in runs] == [("fake hello", "faked: hello"), ("echo real", "real\n")]


def test_an_extension_can_cancel_tree_navigation(tmp_path: Path) -> None:
    record = tmp_path / "hooks.jsonl"
    with ScriptedProvider([{"text": "first"}, {"text": "second"}]) as provider:
        box = Sandbox.create(tmp_path / "box", provider.base_url)
        rpc = RpcProcess(
            box, "--model", OPENAI_MODEL, "-e", str(FIXTURES / "session_hooks.py"),
            PI_TEST_RECORD=str(record), CANCEL_TREE="1",
        )
        try:
            for index in range(2):
                rpc.send({"id": f"p{index}", "type": "prompt", "message": f"question {index}"})
                rpc.read_until(lambda r: r.get("type") == "agent_settled")
            rpc.send({"id": "t", "type": "get_tree"})
            tree = _answer(rpc, "t")["data"]
            first_user = _first_user_id(tree)
            rpc.send({"id": "n", "type": "navigate_tree", "targetId": first_user})
            navigated = _answer(rpc, "n")
        finally:
            assert rpc.close() == 0
    assert navigated["data"]["cancelled"] is True
    assert records(record) == [{"type": "session_before_tree", "target": first_user}]
    assert [e["type"] for e in session_entries(box)].count("branch_summary") == 0


def _first_user_id(tree: Any) -> str:
    def walk(nodes: list[Any]) -> Any:
        for node in nodes:
            entry = node["entry"]
            if entry.get("type") == "message" and entry["message"]["role"] == "user":
                return entry["id"]
            found = walk(node.get("children", []))
            if found:
                return found
        return None

    found = walk(tree["tree"] if isinstance(tree, dict) else tree)
    assert found
    return str(found)
