"""A throwing extension in every event leaves the agent working and says where it failed."""

from __future__ import annotations

from pathlib import Path

from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Sandbox, run_ours
from tests.pi_coding_agent.extensions._support import FIXTURES, session_entries

SCRIPT = [
    {"tool_calls": [{"id": "c1", "name": "ls", "arguments": {}}, {"id": "c2", "name": "broken", "arguments": {}}]},
    {"text": "Still here."},
]


def test_errors_in_every_event_are_reported_and_the_run_goes_on(tmp_path: Path) -> None:
    from tests.support.scripted_provider import ScriptedProvider

    thrower = FIXTURES / "thrower.py"
    with ScriptedProvider(SCRIPT) as provider:
        box = Sandbox.create(tmp_path, provider.base_url)
        (box.work / "a.txt").write_text("a", encoding="utf-8")
        done = run_ours(box, "--model", OPENAI_MODEL, "--tools", "ls,broken", "-e", str(thrower), "-p", "go")
        bodies = [r["body"] for r in provider.requests]
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Still here.\n"
    failed = {line.rsplit("failed in ", 1)[1] for line in done.stderr.splitlines() if "failed in " in line}
    assert all(line.startswith(f"Extension error ({thrower}): ") for line in done.stderr.splitlines())
    expected = {
        "session_start", "resources_discover", "input", "before_agent_start", "agent_start", "turn_start",
        "message_start", "message_update", "message_end", "context", "before_provider_headers",
        "before_provider_request", "after_provider_response", "tool_execution_start", "tool_call",
        "tool_execution_end", "turn_end", "agent_end", "agent_settled", "session_shutdown",
    }
    assert expected <= failed, expected - failed
    # a raising tool_call handler blocks the call (Pi's fail-safe); the error is the result's text
    tool_results = [m["content"] for m in bodies[1]["messages"] if m["role"] == "tool"]
    assert tool_results == ["failed in tool_call", "failed in tool_call"]
    stored = [e for e in session_entries(box) if e.get("message", {}).get("role") == "toolResult"]
    assert all(e["message"]["isError"] for e in stored)


def test_a_failing_tool_is_an_error_result_not_a_crash(tmp_path: Path) -> None:
    from tests.support.scripted_provider import ScriptedProvider

    ext = tmp_path / "tool_only.py"
    ext.write_text(
        "def setup(pi):\n"
        "    def run(i, p, s, u, c):\n"
        "        raise RuntimeError('the tool itself failed')\n"
        "    pi.register_tool(name='broken', description='fails', parameters={'type': 'object'}, execute=run)\n",
        encoding="utf-8",
    )
    with ScriptedProvider(SCRIPT) as provider:
        box = Sandbox.create(tmp_path / "box", provider.base_url)
        done = run_ours(box, "--model", OPENAI_MODEL, "--tools", "ls,broken", "-e", str(ext), "-p", "go")
        bodies = [r["body"] for r in provider.requests]
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert [m["content"] for m in bodies[1]["messages"] if m["role"] == "tool"][1] == "the tool itself failed"


def test_an_extension_that_cannot_load_is_named_and_the_others_still_load(tmp_path: Path) -> None:
    from tests.support.scripted_provider import ScriptedProvider

    broken = tmp_path / "syntax.py"
    broken.write_text("def setup(pi)\n", encoding="utf-8")
    failing = tmp_path / "setup_fails.py"
    failing.write_text("def setup(pi):\n    raise ValueError('bad config')\n", encoding="utf-8")
    good = tmp_path / "good.py"
    good.write_text("def setup(pi):\n    pi.register_flag('good')\n", encoding="utf-8")
    with ScriptedProvider([{"text": "ok"}]) as provider:
        box = Sandbox.create(tmp_path / "box", provider.base_url)
        done = run_ours(
            box, "--model", OPENAI_MODEL, "-e", str(broken), "-e", str(failing), "-e", str(good), "--good", "-p", "hi"
        )
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0].startswith(f"Extension error ({broken}): Failed to load extension: ")
    assert "line 1" in lines[0]
    assert lines[1] == f"Extension error ({failing}): bad config"
    assert len(lines) == 2
