"""Each example of ``examples/extensions/`` through the real ``pi`` against a scripted provider."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.pi_coding_agent.customize.extensions._support import (
    EXAMPLES,
    RpcProcess,
    session_entries,
    user_texts,
)
from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Sandbox, oracle_context, run_ours, scrub
from tests.support.scripted_provider import ScriptedProvider

RM = {"tool_calls": [{"id": "call_rm", "name": "bash", "arguments": {"command": "rm -rf build"}}]}


def _tool_text(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


def test_permission_gate_blocks_without_a_user_to_ask(tmp_path: Path) -> None:
    with ScriptedProvider([RM, {"text": "ok"}]) as provider:
        box = Sandbox.create(tmp_path, provider.base_url)
        (box.work / "build").mkdir()
        done = run_ours(box, "--model", OPENAI_MODEL, "-e", str(EXAMPLES / "permission_gate.py"), "-p", "clean")
        second = provider.requests[1]["body"]
    assert done.returncode == 0, done.stderr
    assert _tool_text(second) == ["Blocked dangerous command (no user to confirm): rm -rf build"]
    assert (box.work / "build").is_dir()


def test_permission_gate_asks_the_rpc_client(tmp_path: Path) -> None:
    script = [RM, {"text": "first done"}, RM, {"text": "second done"}]
    with ScriptedProvider(script) as provider:
        box = Sandbox.create(tmp_path, provider.base_url)
        (box.work / "build").mkdir()
        rpc = RpcProcess(box, "--model", OPENAI_MODEL, "-e", str(EXAMPLES / "permission_gate.py"))
        try:
            for answer in (False, True):
                rpc.send({"id": f"p{answer}", "type": "prompt", "message": "clean"})
                request = rpc.read_until(lambda r: r.get("type") == "extension_ui_request")
                assert request["method"] == "confirm"
                assert request["title"] == "Dangerous command"
                assert request["message"] == "Allow `rm -rf build`?"
                rpc.send({"type": "extension_ui_response", "id": request["id"], "confirmed": answer})
                rpc.read_until(lambda r: r.get("type") == "agent_settled")
                if not answer:
                    assert (box.work / "build").is_dir()
        finally:
            code = rpc.close()
        bodies = [r["body"] for r in provider.requests]
    assert code == 0
    assert _tool_text(bodies[1]) == ["Blocked by user"]
    assert not (box.work / "build").exists()
    assert _tool_text(bodies[3])[-1] == "(no output)"


def test_plan_mode_flag_limits_tools_and_the_command_toggles_it(tmp_path: Path) -> None:
    edit = {"tool_calls": [{"id": "call_w", "name": "write", "arguments": {"path": "x.txt", "content": "x"}}]}
    with ScriptedProvider([edit, {"text": "1. read\n2. change"}, {"text": "changed"}]) as provider:
        box = Sandbox.create(tmp_path, provider.base_url)
        plan = str(EXAMPLES / "plan_mode")
        done = run_ours(box, "--model", OPENAI_MODEL, "-e", plan, "--plan", "-p", "make a plan")
        assert done.returncode == 0, done.stderr
        assert done.stdout == "1. read\n2. change\n"
        first = provider.requests[0]["body"]
        assert [t["function"]["name"] for t in first["tools"]] == ["read"]
        assert "PLAN MODE" in first["messages"][0]["content"]
        # write is not even offered: a model calling it anyway gets Pi's answer for an unknown tool
        assert _tool_text(provider.requests[1]["body"]) == ["Tool write not found"]
        assert not (box.work / "x.txt").exists()
        # resuming comes back in plan mode (stored in the session); /plan turns it off
        again = run_ours(box, "--model", OPENAI_MODEL, "-e", plan, "-c", "-p", "/plan", "now change it")
        assert again.returncode == 0, again.stderr
        last = provider.requests[-1]["body"]
    assert [t["function"]["name"] for t in last["tools"]] == ["read", "bash", "edit", "write"]
    assert "PLAN MODE" not in last["messages"][0]["content"]
    custom = [e for e in session_entries(box) if e["type"] == "custom"]
    assert [(e["customType"], e["data"]) for e in custom] == [
        ("plan-mode", {"enabled": True, "tools_before_plan": ["read", "bash", "edit", "write"]}),
        ("plan-mode", {"enabled": False}),
    ]


def test_todo_tool_keeps_its_list_in_details_and_renders_it(tmp_path: Path) -> None:
    calls = [
        {"tool_calls": [{"id": "t1", "name": "todo", "arguments": {"action": "add", "text": "write tests"}}]},
        {"tool_calls": [{"id": "t2", "name": "todo", "arguments": {"action": "done", "text": "1"}}]},
        {"text": "tracked"},
    ]
    with ScriptedProvider(calls) as provider:
        box = Sandbox.create(tmp_path, provider.base_url)
        done = run_ours(box, "--model", OPENAI_MODEL, "-e", str(EXAMPLES / "todo_tool.py"), "-p", "track")
        bodies = [r["body"] for r in provider.requests]
    assert done.returncode == 0, done.stderr
    tool = next(t for t in bodies[0]["tools"] if t["function"]["name"] == "todo")
    assert tool["function"]["parameters"]["required"] == ["action"]
    assert "Keep a todo list for multi-step work" in bodies[0]["messages"][0]["content"]
    assert _tool_text(bodies[2]) == ["1. [ ] write tests", "1. [x] write tests"]
    results = [e["message"] for e in session_entries(box) if e.get("message", {}).get("role") == "toolResult"]
    assert results[-1]["details"] == {"items": [{"text": "write tests", "done": True}]}
    # the renderers draw the stored result
    import asyncio

    from pi_agent import AgentToolResult
    from pi_coding_agent.customize.extensions import ExtensionRunner, load_extensions

    runner, errors = asyncio.run(load_extensions([str(EXAMPLES / "todo_tool.py")], str(box.work)))
    assert errors == [] and isinstance(runner, ExtensionRunner)
    definition, _ = runner.tools()[0]
    stored = AgentToolResult(content=[], details=results[-1]["details"])
    assert definition.render_call({"action": "add", "text": "x"}, {}) == ["todo add x"]
    assert definition.render_result(stored, {"expanded": True}, {}) == ["✓ 1/1 done", "  ✓ write tests"]


def test_notification_role_is_stored_shown_and_never_sent(tmp_path: Path) -> None:
    ls = {"tool_calls": [{"id": "l1", "name": "ls", "arguments": {}}]}
    with ScriptedProvider([ls, {"text": "listed"}, {"text": "resumed"}]) as provider:
        box = Sandbox.create(tmp_path, provider.base_url)
        ext = str(EXAMPLES / "notification.py")
        first = run_ours(box, "--model", OPENAI_MODEL, "--tools", "ls", "-e", ext, "-p", "list files")
        assert first.returncode == 0, first.stderr
        again = run_ours(box, "--model", OPENAI_MODEL, "--tools", "ls", "-e", ext, "-c", "-p", "and now?")
        assert again.returncode == 0, again.stderr
        bodies = [r["body"] for r in provider.requests]
    for body in bodies:
        assert not any("finished (" in text for text in user_texts(body)), body
    assert user_texts(bodies[2]) == ["list files", "and now?"]
    (file,) = box.session_files()
    entries = session_entries(box)
    notes = [e for e in entries if e["type"] == "custom_message"]
    assert [(n["customType"], n["content"], n["display"], n["details"]) for n in notes] == [
        ("notification", "Turn 1 finished (1 tool results)", True, {"tools": 1}),
        ("notification", "Turn 2 finished (0 tool results)", True, {"tools": 0}),
        ("notification", "Turn 1 finished (0 tool results)", True, {"tools": 0}),
    ]
    # the notification sits between the turns; Pi reads the same context from our file
    from pi_ai import to_builtins
    from pi_coding_agent.core.session import SessionManager

    ours = [to_builtins(m) for m in SessionManager.open(str(file)).build_session_context().messages]
    pi = oracle_context(file)
    assert scrub(pi["context"]["messages"], {}) == scrub(json.loads(json.dumps(ours)), {})
    assert [m["role"] for m in ours] == [
        "system", "user", "assistant", "toolResult", "custom", "assistant", "custom", "user", "assistant", "custom"
    ]


def test_context_filter_trims_what_the_model_sees_not_the_session(tmp_path: Path) -> None:
    ls = lambda n: {"tool_calls": [{"id": f"l{n}", "name": "ls", "arguments": {}}]}  # noqa: E731
    with ScriptedProvider([ls(1), ls(2), {"text": "done"}]) as provider:
        box = Sandbox.create(tmp_path, provider.base_url)
        (box.work / "a.txt").write_text("a", encoding="utf-8")
        done = run_ours(
            box, "--model", OPENAI_MODEL, "--tools", "ls", "-e", str(EXAMPLES / "context_filter.py"),
            "-p", "#private token=123", "list twice",
        )
        bodies = [r["body"] for r in provider.requests]
    assert done.returncode == 0, done.stderr
    assert user_texts(bodies[-1]) == ["list twice"]
    assert _tool_text(bodies[-1]) == ["[older tool output omitted by context_filter]", "a.txt"]
    stored = [e["message"] for e in session_entries(box) if e.get("message", {}).get("role") == "toolResult"]
    assert [m["content"][0]["text"] for m in stored] == ["a.txt", "a.txt"]


def test_provider_registered_by_an_extension_serves_the_run(tmp_path: Path) -> None:
    with ScriptedProvider([{"text": "from the extension's provider"}]) as provider:
        box = Sandbox.create(tmp_path, provider.base_url)
        (box.agent_dir / "models.json").unlink()
        done = run_ours(
            box, "-e", str(EXAMPLES / "local_provider.py"), "--model", "local-server/local-model", "-p", "hi",
            PI_EXAMPLE_BASE_URL=f"{provider.base_url}/v1",
        )
        (request,) = provider.requests
    assert done.returncode == 0, done.stderr
    assert done.stdout == "from the extension's provider\n"
    assert request["path"] == "/v1/chat/completions"
    assert request["body"]["model"] == "local-model"
