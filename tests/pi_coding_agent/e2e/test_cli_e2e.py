"""The real ``pi`` CLI end to end against scripted OpenAI-style and Anthropic-style servers.

The script makes the agent read a file, fix it with ``edit``, run the test with ``bash``
and answer. Checked: the file on disk, the printed answer, every request the server got,
and the session JSONL, which the real Pi 0.85 (oracle) must open to the same context
that we build from it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_ai import to_builtins
from pi_coding_agent.core.session import SessionManager
from tests.pi_coding_agent.e2e._harness import (
    ANTHROPIC_MODEL,
    OPENAI_MODEL,
    Sandbox,
    oracle_context,
    run_ours,
    scrub,
)
from tests.support.scripted_provider import ScriptedProvider

BUGGY = "def add(a, b):\n    return a - b\n"
TEST = "from calc import add\n\nassert add(2, 3) == 5, add(2, 3)\nprint('tests passed')\n"
ANSWER = "Fixed add() in calc.py; the test passes."

FIX_SCRIPT: list[dict[str, Any]] = [
    {"tool_calls": [{"id": "call_read", "name": "read", "arguments": {"path": "calc.py"}}]},
    {
        "text": "The subtraction is the bug.",
        "tool_calls": [
            {
                "id": "call_edit",
                "name": "edit",
                "arguments": {"path": "calc.py", "edits": [{"oldText": "return a - b", "newText": "return a + b"}]},
            }
        ],
    },
    {"tool_calls": [{"id": "call_bash", "name": "bash", "arguments": {"command": "python3 test_calc.py"}}]},
    {"text": ANSWER},
]


def _prepare(tmp_path: Path, provider: ScriptedProvider) -> Sandbox:
    sandbox = Sandbox.create(tmp_path, provider.base_url)
    (sandbox.work / "calc.py").write_text(BUGGY, encoding="utf-8")
    (sandbox.work / "test_calc.py").write_text(TEST, encoding="utf-8")
    return sandbox


@pytest.mark.parametrize("model", [OPENAI_MODEL, ANTHROPIC_MODEL], ids=["openai-completions", "anthropic-messages"])
def test_read_edit_bash_answer(tmp_path: Path, model: str) -> None:
    with ScriptedProvider(FIX_SCRIPT) as provider:
        sandbox = _prepare(tmp_path, provider)
        result = run_ours(sandbox, "--model", model, "-p", "Fix the failing test in this project.")
    assert result.returncode == 0, result.stderr
    assert result.stdout == ANSWER + "\n"
    assert (sandbox.work / "calc.py").read_text(encoding="utf-8") == "def add(a, b):\n    return a + b\n"

    # Four model calls; each carries the tools and, from the second on, the previous results.
    assert len(provider.requests) == 4
    first = provider.requests[0]["body"]
    tool_names = sorted(
        (tool.get("function", tool)).get("name") for tool in first["tools"]  # openai nests under "function"
    )
    assert tool_names == ["bash", "edit", "read", "write"]
    last = json.dumps(provider.requests[3]["body"])
    assert "tests passed" in last and "Successfully replaced" in last and "return a - b" in last

    files = sandbox.session_files()
    assert len(files) == 1
    lines = [json.loads(line) for line in files[0].read_text(encoding="utf-8").splitlines()]
    assert [line["type"] for line in lines[:3]] == ["session", "model_change", "thinking_level_change"]
    roles = [line["message"]["role"] for line in lines if line["type"] == "message"]
    assert roles == ["system", "user", "assistant", "toolResult", "assistant", "toolResult", "assistant", "toolResult",
                     "assistant"]
    results = [line["message"] for line in lines if line["type"] == "message" and line["message"]["role"] == "toolResult"]
    assert [r["toolName"] for r in results] == ["read", "edit", "bash"]
    assert not any(r["isError"] for r in results)
    assert results[0]["content"][0]["text"] == BUGGY
    assert "tests passed" in results[2]["content"][0]["text"]
    assert "diff" in results[1]["details"]

    # The real Pi opens our file and sees exactly the conversation we see.
    theirs = oracle_context(files[0])
    assert theirs["fileRewritten"] is False
    ours = SessionManager.open(str(files[0]), read_only=True).build_session_context()
    assert theirs["context"]["messages"] == to_builtins(ours.messages)
    assert theirs["context"]["thinkingLevel"] == ours.thinking_level == "off"
    provider_name, model_id = model.split("/")
    assert theirs["context"]["model"] == {"provider": provider_name, "modelId": model_id}
    assert scrub(theirs["header"], {}) == scrub(lines[0], {})


def test_json_mode_streams_header_then_events(tmp_path: Path) -> None:
    with ScriptedProvider(FIX_SCRIPT) as provider:
        sandbox = _prepare(tmp_path, provider)
        result = run_ours(sandbox, "--mode", "json", "--model", ANTHROPIC_MODEL, "Fix it")
    assert result.returncode == 0, result.stderr
    events = result.json_lines()
    header = events[0]
    assert header["type"] == "session" and header["version"] == 3 and header["cwd"] == str(sandbox.work)
    types = [event["type"] for event in events[1:]]
    assert types[:3] == ["agent_start", "turn_start", "message_start"]
    assert types[-2:] == ["agent_end", "agent_settled"]
    assert types.count("tool_execution_start") == 3 and types.count("turn_end") == 4
    updates = [event for event in events if event["type"] == "message_update"]
    assert all(set(event) == {"type", "usage", "assistantMessageEvent"} for event in updates)
    assert all("partial" not in event["assistantMessageEvent"] for event in updates)
    starts = [e["assistantMessageEvent"] for e in updates if e["assistantMessageEvent"]["type"] == "toolcall_start"]
    assert [(s["id"], s["toolName"]) for s in starts] == [("call_read", "read"), ("call_edit", "edit"),
                                                           ("call_bash", "bash")]
    assert events[-2]["willRetry"] is False
    final = events[-2]["messages"][-1]
    assert final["content"] == [{"type": "text", "text": ANSWER}]
    assert header["id"] in sandbox.session_files()[0].name


def test_stdin_files_and_several_messages(tmp_path: Path) -> None:
    script = [{"text": "first answer"}, {"text": "second answer"}]
    with ScriptedProvider(script) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url)
        (sandbox.work / "notes.md").write_text("remember the milk", encoding="utf-8")
        result = run_ours(
            sandbox, "--model", OPENAI_MODEL, "-p", "@notes.md", "summarize", "and again", stdin="from stdin\n"
        )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "second answer\n"
    bodies = [request["body"] for request in provider.requests]
    first_user = next(m for m in bodies[0]["messages"] if m["role"] == "user")["content"]
    text = first_user if isinstance(first_user, str) else first_user[0]["text"]
    path = sandbox.work / "notes.md"
    assert text == f'from stdin<file name="{path}">\nremember the milk\n</file>\nsummarize'
    second_users = [m for m in bodies[1]["messages"] if m["role"] == "user"]
    assert len(second_users) == 2


def test_continue_resumes_the_last_session(tmp_path: Path) -> None:
    script = [{"text": "one"}, {"text": "two"}]
    with ScriptedProvider(script) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url)
        first = run_ours(sandbox, "--model", OPENAI_MODEL, "-p", "hello")
        second = run_ours(sandbox, "-c", "-p", "and now?")
    assert (first.returncode, second.returncode) == (0, 0), second.stderr
    assert second.stdout == "two\n"
    files = sandbox.session_files()
    assert len(files) == 1
    lines = [json.loads(line) for line in files[0].read_text(encoding="utf-8").splitlines()]
    # The model was restored from the file: no new model_change for the resumed run.
    assert [line["type"] for line in lines].count("model_change") == 1
    assert [line["message"]["role"] for line in lines if line["type"] == "message"] == [
        "system",
        "user", "assistant", "user", "assistant"
    ]
    assert len(provider.requests[1]["body"]["messages"]) >= 3


def test_session_by_id_prefix_and_no_session(tmp_path: Path) -> None:
    with ScriptedProvider([{"text": "one"}, {"text": "two"}]) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url)
        assert run_ours(sandbox, "--model", OPENAI_MODEL, "-p", "hello").returncode == 0
        session_id = sandbox.session_files()[0].stem.split("_", 1)[1]
        resumed = run_ours(sandbox, "--session", session_id[:13], "-p", "more")
        ephemeral = run_ours(sandbox, "--no-session", "--model", OPENAI_MODEL, "-p", "x")
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout == "two\n"
    assert ephemeral.returncode == 0
    assert len(sandbox.session_files()) == 1


def test_list_models(tmp_path: Path) -> None:
    sandbox = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    result = run_ours(sandbox, "--list-models")
    assert result.returncode == 0, result.stderr
    # The embedded models are always there (no key needed): our addition to Pi's table.
    assert result.stdout.splitlines() == [
        "provider            model               context  max-out  thinking  images",
        "local               qwen2.5-coder-0.5b  32.8K    8.2K     no        no    ",
        "local               qwen2.5-coder-1.5b  32.8K    8.2K     no        no    ",
        "scripted-anthropic  scripted-claude     64K      4.1K     no        no    ",
        "scripted-openai     scripted-model      64K      4.1K     no        no    ",
    ]
    searched = run_ours(sandbox, "--list-models", "claude")
    assert searched.stdout.splitlines()[1:] == [
        "scripted-anthropic  scripted-claude  64K      4.1K     no        no    "
    ]
