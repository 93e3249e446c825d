"""A command replacing the session (``ctx.new_session`` with ``setup`` and ``with_session``,
``ctx.fork`` with ``with_session``): Pi's CLI with ``handoff.ts`` and ours with
``handoff.py`` on the same script, in print mode. The same events in the same order, the
same requests, the same session files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.customize.extensions._support import FIXTURES, RpcProcess, records, user_texts
from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Sandbox, run_ours, run_pi
from tests.support import oracle
from tests.support.scripted_provider import ScriptedProvider

SCRIPT = [{"text": "answer one"}, {"text": "answer two"}]


def _shape(path: Path) -> dict[str, Any]:
    """What a session file holds, without ids, times and paths."""
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    header, body = entries[0], entries[1:]
    kinds = []
    for entry in body:
        if entry["type"] == "message" and entry["message"]["role"] == "system":
            continue  # ours writes Pi 1.6's system messages, Pi 0.85 none
        if entry["type"] == "message":
            message = entry["message"]
            content = message["content"]
            text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content)
            kinds.append(f"{message['role']}:{text}")
        elif entry["type"] == "custom_message":
            kinds.append(f"custom:{entry['customType']}:{entry['content']}")
        elif entry["type"] not in ("model_change", "thinking_level_change"):
            kinds.append(entry["type"])
    return {"parent": "parentSession" in header, "entries": kinds}


@pytest.mark.timeout(300)
def test_new_session_and_fork_from_a_command_as_pi_does(tmp_path: Path) -> None:
    oracle.require_live_oracle()
    logs, files, bodies = {}, {}, {}
    for side, run, fixture in (("pi", run_pi, "handoff.ts"), ("ours", run_ours, "handoff.py")):
        with ScriptedProvider(SCRIPT) as provider:
            box = Sandbox.create(tmp_path / side, provider.base_url)
            record = tmp_path / f"{side}.jsonl"
            done = run(
                box, "--model", OPENAI_MODEL, "-e", str(FIXTURES / fixture), "-p", "/handoff the plan", "second",
                "/forkit", "/reloadit", PI_TEST_RECORD=str(record), PI_OFFLINE="1",
            )
            assert done.returncode == 0, (side, done.stderr)
            logs[side] = records(record)
            files[side] = sorted((_shape(path) for path in box.session_files()), key=json.dumps)
            bodies[side] = [user_texts(r["body"]) for r in provider.requests]
    assert logs["ours"] == logs["pi"]
    assert bodies["ours"] == bodies["pi"]
    assert files["ours"] == files["pi"]
    events = [r["event"] for r in logs["pi"]]
    assert events.index("setup") < events.index("with_session")
    assert bodies["pi"][0] == ["carried over: the plan", "kickoff"]
    assert [(r["event"], r.get("reason")) for r in logs["pi"]][-5:] == [
        ("session_shutdown", "reload"), ("session_start", "reload"), ("resources_discover", "reload"),
        ("reloaded", None), ("session_shutdown", "quit"),
    ]


def test_new_session_with_session_over_rpc(tmp_path: Path) -> None:
    """The same command through ``pi --mode rpc``: the client's next prompt and state are the
    new session's, and the kickoff prompt ran there."""
    record = tmp_path / "rpc.jsonl"
    with ScriptedProvider(SCRIPT) as provider:
        box = Sandbox.create(tmp_path / "box", provider.base_url)
        rpc = RpcProcess(box, "--model", OPENAI_MODEL, "-e", str(FIXTURES / "handoff.py"), PI_TEST_RECORD=str(record))
        try:
            rpc.send({"id": "s0", "type": "get_state"})
            before = rpc.read_until(lambda r: r.get("id") == "s0")["data"]
            rpc.send({"id": "h", "type": "prompt", "message": "/handoff over rpc"})
            assert rpc.read_until(lambda r: r.get("id") == "h")["success"] is True
            rpc.send({"id": "s1", "type": "get_state"})
            after = rpc.read_until(lambda r: r.get("id") == "s1")["data"]
            rpc.send({"id": "m", "type": "get_messages"})
            messages = rpc.read_until(lambda r: r.get("id") == "m")["data"]["messages"]
        finally:
            assert rpc.close() == 0
        bodies = [user_texts(r["body"]) for r in provider.requests]
    assert after["sessionFile"] != before["sessionFile"]
    assert [m["role"] for m in messages] == ["user", "system", "user", "assistant"]
    assert bodies == [["carried over: over rpc", "kickoff"]]
    assert [r["event"] for r in records(record) if r["event"] != "resources_discover"][:6] == [
        "session_start", "session_shutdown", "setup", "session_start", "with_session", "returned",
    ]
