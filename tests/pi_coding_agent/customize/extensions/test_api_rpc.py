"""``pi.*`` and ``ctx.*`` through the real ``pi --mode rpc``: the session file, the provider's
requests and what the RPC client sees (commands, extension_error, extension UI requests)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.pi_coding_agent.customize.extensions._support import (
    FIXTURES,
    RpcProcess,
    records,
    session_entries,
    user_texts,
)
from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Sandbox
from tests.support.scripted_provider import ScriptedProvider


def _answer(rpc: RpcProcess, command_id: str) -> dict[str, Any]:
    return rpc.read_until(lambda r: r.get("type") == "response" and r.get("id") == command_id)


def test_the_api_acts_on_the_session_and_the_client_sees_it(tmp_path: Path) -> None:
    record = tmp_path / "api.jsonl"
    with ScriptedProvider([{"text": "answered"}]) as provider:
        box = Sandbox.create(tmp_path / "box", provider.base_url)
        rpc = RpcProcess(box, "--model", OPENAI_MODEL, "-e", str(FIXTURES / "api_user.py"), PI_TEST_RECORD=str(record))
        try:
            rpc.send({"id": "c", "type": "get_commands"})
            commands = _answer(rpc, "c")["data"]["commands"]
            rpc.send({"id": "x", "type": "prompt", "message": "/exercise 42"})
            # as in Pi, a command's prompt is answered once the command returned (its run included)
            assert _answer(rpc, "x")["success"] is True
            assert "agent_settled" in [r["type"] for r in rpc.seen]
            rpc.send({"id": "f", "type": "prompt", "message": "/fail"})
            error = rpc.read_until(lambda r: r.get("type") == "extension_error")
            rpc.send({"id": "n", "type": "new_session"})
            vetoed = _answer(rpc, "n")
            rpc.send({"id": "s", "type": "get_state"})
            state = _answer(rpc, "s")["data"]
        finally:
            assert rpc.close() == 0
        (request,) = provider.requests
    assert [(c["name"], c["source"]) for c in commands] == [
        ("llama", "extension"), ("mcp", "extension"), ("exercise", "extension"), ("fail", "extension"),
        ("ask", "extension"),
    ]  # Pi's built-in /llama and /mcp first
    assert error == {
        "type": "extension_error", "extensionPath": "command:fail", "event": "command", "error": "command went wrong",
    }
    assert vetoed["data"] == {"cancelled": True}
    seen = records(record)
    assert seen[0] == {"renamed": "Named by ext"}
    assert seen[1] == {"ping": "42"}
    used = seen[2]
    assert used["commands"][:3] == [["exercise", "extension"], ["fail", "extension"], ["ask", "extension"]]
    assert used["exec"] == {"stdout": "hi\n", "stderr": "err\n", "code": 3, "killed": False}
    assert used["active"] == ["read", "greet"]
    # every built-in tool the run allows, active or not (Pi 1.6 registers them all), then the extension's
    assert used["all"] == ["read", "bash", "edit", "write", "grep", "find", "ls", "codemode", "tool_search", "greet"]
    assert used["name"] == "Named by ext" and used["thinking"] == "off" and used["cwd_ok"]
    assert used["idle"] is True and used["model"] == "scripted-model"
    # send_user_message goes through input (source "extension"); the hidden note reaches the model
    assert seen[3] == {"input": "from the extension", "source": "extension"}
    body = request["body"]
    assert user_texts(body) == ["hidden context for the model", "from the extension"]
    assert [t["function"]["name"] for t in body["tools"]] == ["read", "greet"]
    assert state["sessionName"] == "Named by ext"
    entries = session_entries(box)
    custom = next(e for e in entries if e["type"] == "custom")
    assert (custom["customType"], custom["data"]) == ("state", {"n": 1})
    label = next(e for e in entries if e["type"] == "label")
    assert (label["targetId"], label["label"]) == (custom["id"], "bookmark")
    note = next(e for e in entries if e["type"] == "custom_message")
    assert (note["customType"], note["display"]) == ("note", False)


def test_ctx_ui_dialogs_are_extension_ui_requests(tmp_path: Path) -> None:
    with ScriptedProvider([{"text": "unused"}]) as provider:
        box = Sandbox.create(tmp_path / "box", provider.base_url)
        rpc = RpcProcess(box, "--model", OPENAI_MODEL, "-e", str(FIXTURES / "api_user.py"), PI_TEST_RECORD=str(tmp_path / "r"))
        try:
            rpc.send({"id": "a", "type": "prompt", "message": "/ask"})
            select = rpc.read_until(lambda r: r.get("type") == "extension_ui_request")
            assert (select["method"], select["title"], select["options"]) == ("select", "Pick", ["a", "b"])
            rpc.send({"type": "extension_ui_response", "id": select["id"], "value": "b"})
            ask = rpc.read_until(lambda r: r.get("type") == "extension_ui_request")
            assert (ask["method"], ask["title"], ask["placeholder"]) == ("input", "Name?", "placeholder")
            rpc.send({"type": "extension_ui_response", "id": ask["id"], "value": "Ada"})
            notify = rpc.read_until(lambda r: r.get("type") == "extension_ui_request" and r["method"] == "notify")
            status = rpc.read_until(lambda r: r.get("type") == "extension_ui_request")
        finally:
            assert rpc.close() == 0
        assert provider.requests == []
    assert (notify["message"], notify["notifyType"]) == ("picked b and Ada", "info")
    assert (status["method"], status["statusKey"], status["statusText"]) == ("setStatus", "ext", "busy")
