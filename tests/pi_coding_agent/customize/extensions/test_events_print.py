"""Events, their order and what handlers return, through the real ``pi -p`` / ``--mode json``
against a scripted provider on 127.0.0.1: what the provider receives, what the session file holds."""

from __future__ import annotations

from pathlib import Path

from tests.pi_coding_agent.customize.extensions._support import FIXTURES, records, session_entries, user_texts
from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Sandbox, run_ours
from tests.support.scripted_provider import ScriptedProvider

READ_THEN_ANSWER = [
    {"tool_calls": [{"id": "call_1", "name": "read", "arguments": {"path": "notes.txt"}}]},
    {"text": "All read."},
]


def test_every_agent_event_reaches_the_extension_in_pis_order(tmp_path: Path) -> None:
    record = tmp_path / "events.jsonl"
    with ScriptedProvider(READ_THEN_ANSWER) as provider:
        box = Sandbox.create(tmp_path / "box", provider.base_url)
        (box.work / "notes.txt").write_text("secret notes\n", encoding="utf-8")
        done = run_ours(
            box, "--model", OPENAI_MODEL, "-e", str(FIXTURES / "recorder.py"), "-p", "?quick read notes.txt",
            PI_TEST_RECORD=str(record),
        )
        requests = provider.requests
    assert done.returncode == 0, done.stderr
    assert done.stdout == "All read.\n"
    seen = records(record)
    types = [r["type"] for r in seen]
    assert types[:2] == ["session_start", "resources_discover"]
    assert seen[0]["reason"] == "startup"
    assert {r["mode"] for r in seen} == {"print"} and not any(r["has_ui"] for r in seen)
    assert seen[2] == {"type": "input", "text": "?quick read notes.txt", "source": "interactive", "mode": "print", "has_ui": False}
    assert types[3:5] == ["before_agent_start", "agent_start"]
    turn = [t for t in types[types.index("turn_start") :] if not t.startswith("message_")]
    assert turn[:5] == ["turn_start", "context", "before_provider_headers", "before_provider_request", "after_provider_response"]
    # the run opens with Pi 1.6's system message (the prompt and tools), then the user's
    assert [(r["type"], r["role"]) for r in seen if r["type"] == "message_end"] == [
        ("message_end", "system"), ("message_end", "user"), ("message_end", "assistant"), ("message_end", "toolResult"), ("message_end", "assistant")
    ]
    # one tool call: start, tool_call (may block), tool_result (may patch), end
    tool = [t for t in types if t.startswith("tool_")]
    assert tool == ["tool_execution_start", "tool_call", "tool_result", "tool_execution_end"]
    assert [r["turn_index"] for r in seen if r["type"] in ("turn_start", "turn_end")] == [0, 0, 1, 1]
    assert types[-4:] == ["turn_end", "agent_end", "agent_settled", "session_shutdown"]
    assert seen[-1]["reason"] == "quit"
    # what the provider received: transformed input, hooked headers, payload and system prompt
    first, second = (r["body"] for r in requests)
    assert user_texts(first) == ["Respond briefly: read notes.txt"]
    assert all(r["headers"].get("x-from-extension") == "yes" for r in requests)
    assert first["temperature"] == 0.25
    assert first["messages"][0]["content"].endswith("RECORDER WAS HERE")
    tool_message = next(m for m in second["messages"] if m["role"] == "tool")
    assert tool_message["content"] == "patched by tool_result"
    # the session file stores the patched result too
    results = [e for e in session_entries(box) if e.get("message", {}).get("role") == "toolResult"]
    assert [block["text"] for block in results[0]["message"]["content"]] == ["patched by tool_result"]


def test_context_handlers_chain_in_order_and_a_failing_one_is_skipped(tmp_path: Path) -> None:
    record = tmp_path / "context.jsonl"
    with ScriptedProvider([{"text": "first"}, {"text": "second"}]) as provider:
        box = Sandbox.create(tmp_path / "box", provider.base_url)
        done = run_ours(
            box, "--model", OPENAI_MODEL, "-e", str(FIXTURES / "context_chain.py"),
            "-p", "please DROP this", "keep this one",
            PI_TEST_RECORD=str(record),
        )
        bodies = [r["body"] for r in provider.requests]
    assert done.returncode == 0, done.stderr
    assert done.stdout == "second\n"
    fixture = FIXTURES / "context_chain.py"
    assert done.stderr.splitlines() == [f"Extension error ({fixture}): context handler failed on purpose"] * 2
    # the third handler got the first one's result (the DROP message gone), not the raw context
    assert records(record) == [{"count": 0}, {"count": 2}]
    assert user_texts(bodies[0]) == ["appended by context"]
    assert user_texts(bodies[1]) == ["keep this one", "appended by context"]
    # the handlers never saw the system message, yet the changed context still carries the prompt
    assert all(b["messages"][0]["role"] in ("system", "developer") and "<cwd>" in b["messages"][0]["content"] for b in bodies)
    # the transcript itself is untouched: the session keeps every message
    stored = [e["message"] for e in session_entries(box) if e["type"] == "message" and e["message"]["role"] == "user"]
    assert [m["content"][0]["text"] for m in stored] == ["please DROP this", "keep this one"]


def test_json_mode_events_come_with_extension_errors_on_stderr(tmp_path: Path) -> None:
    with ScriptedProvider([{"text": "fine"}]) as provider:
        box = Sandbox.create(tmp_path / "box", provider.base_url)
        ext = box.root / "thrower.py"
        ext.write_text(
            "def setup(pi):\n"
            "    def boom(event, ctx):\n"
            "        raise RuntimeError(f'broke in {event.type}')\n"
            "    for name in ('session_start', 'agent_start', 'turn_start', 'message_end', 'turn_end', 'agent_end'):\n"
            "        pi.on(name, boom)\n",
            encoding="utf-8",
        )
        done = run_ours(box, "--model", OPENAI_MODEL, "-e", str(ext), "--mode", "json", "hello")
    assert done.returncode == 0, done.stderr
    events = done.json_lines()
    assert events[0]["type"] == "session"
    assert [e["type"] for e in events][-2:] == ["agent_end", "agent_settled"]
    assert [e["message"]["content"][0]["text"] for e in events if e["type"] == "message_end" and e["message"]["role"] == "assistant"] == ["fine"]
    errors = done.stderr.splitlines()
    # message_end three times: the system message (Pi 1.6), the user's, the answer
    expected = ["session_start", "agent_start", "turn_start", *["message_end"] * 3, "turn_end", "agent_end"]
    assert errors == [f"Extension error ({ext}): broke in {name}" for name in expected]
