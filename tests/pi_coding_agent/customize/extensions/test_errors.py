"""A throwing extension in every event leaves the agent working and says where it failed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pi_coding_agent.customize.extensions._support import FIXTURES, session_entries
from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Sandbox, run_ours, run_pi

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


@pytest.mark.timeout(300)
def test_an_extension_that_cannot_load_stops_the_start_as_in_pi(tmp_path: Path) -> None:
    """Pi 0.85 does not start when an extension fails to load (whatever the mode): one
    ``Error: Failed to load extension "<path>": <reason>`` line each, then a hint, exit 1;
    nothing is sent to the model."""
    from tests.support import oracle
    from tests.support.scripted_provider import ScriptedProvider

    oracle.require_live_oracle()
    sources = {
        "ts": ("export default function (pi: any) { throw new Error('bad config'); }\n",
               "export const notAFactory = 1;\n"),
        "py": ("def setup(pi):\n    raise ValueError('bad config')\n", "NOT_A_SETUP = 1\n"),
    }  # fmt: skip
    seen = {}
    with ScriptedProvider([{"text": "ok"}]) as provider:
        for side, run, suffix in (("pi", run_pi, "ts"), ("ours", run_ours, "py")):
            box = Sandbox.create(tmp_path / side, provider.base_url)
            failing, empty = tmp_path / f"failing.{suffix}", tmp_path / f"empty.{suffix}"
            failing.write_text(sources[suffix][0], encoding="utf-8")
            empty.write_text(sources[suffix][1], encoding="utf-8")
            for mode in (("-p", "hi"), ("--mode", "json", "hi"), ("--mode", "rpc")):
                done = run(box, "--model", OPENAI_MODEL, "-e", str(failing), "-e", str(empty), *mode, PI_OFFLINE="1")
                seen[side, mode] = (done.returncode, done.stdout, done.stderr.replace(str(tmp_path), "<dir>"))
        assert provider.requests == []
    for mode in (("-p", "hi"), ("--mode", "json", "hi"), ("--mode", "rpc")):
        code, stdout, stderr = seen["ours", mode]
        assert (code, stdout) == seen["pi", mode][:2] == (1, "")
        lines = stderr.splitlines()
        assert lines[0] == seen["pi", mode][2].splitlines()[0].replace(".ts", ".py")
        assert lines[0] == 'Error: Failed to load extension "<dir>/failing.py": Failed to load extension: bad config'
        assert lines[1] == 'Error: Failed to load extension "<dir>/empty.py": Extension does not define a setup(pi) function: <dir>/empty.py'
        assert lines[2:] == seen["pi", mode][2].splitlines()[2:] == ['Hint: Start without extensions using "pi -ne".']


def test_a_module_that_cannot_be_imported_is_named_with_its_line(tmp_path: Path) -> None:
    broken = tmp_path / "syntax.py"
    broken.write_text("def setup(pi)\n", encoding="utf-8")
    box = Sandbox.create(tmp_path / "box", "http://127.0.0.1:9")
    done = run_ours(box, "--model", OPENAI_MODEL, "-e", str(broken), "-p", "hi")
    assert done.returncode == 1
    first, hint = done.stderr.splitlines()
    assert first.startswith(f'Error: Failed to load extension "{broken}": Failed to load extension: ') and "line 1" in first
    assert hint == 'Hint: Start without extensions using "pi -ne".'


@pytest.mark.timeout(300)
def test_two_extensions_with_one_tool_or_flag_stop_the_start_as_in_pi(tmp_path: Path) -> None:
    """Pi 0.85 counts a tool or flag an earlier extension registered as a load failure of the
    later extension (``Tool "<name>" conflicts with <path>``): the start stops, exit 1."""
    from tests.support import oracle

    oracle.require_live_oracle()
    sources = {
        "ts": ("export default function (pi: any) {\n"
               "  pi.registerTool({ name: 'twin', label: 'Twin', description: 'Twin', parameters: { type: 'object', properties: {} },\n"
               "    execute: async () => ({ content: [{ type: 'text', text: 'x' }] }) });\n"
               "  pi.registerFlag('same', { type: 'boolean', description: 'A flag' });\n}\n"),
        "py": ("def setup(pi):\n"
               "    pi.register_tool(name='twin', label='Twin', description='Twin', parameters={'type': 'object', 'properties': {}},\n"
               "                     execute=lambda *args: 'x')\n"
               "    pi.register_flag('same', type='boolean', description='A flag')\n"),
    }  # fmt: skip
    seen = {}
    for side, run, suffix in (("pi", run_pi, "ts"), ("ours", run_ours, "py")):
        box = Sandbox.create(tmp_path / side, "http://127.0.0.1:9")
        first, second = tmp_path / f"first.{suffix}", tmp_path / f"second.{suffix}"
        for path in (first, second):
            path.write_text(sources[suffix], encoding="utf-8")
        done = run(box, "--model", OPENAI_MODEL, "-e", str(first), "-e", str(second), "-p", "hi", PI_OFFLINE="1")
        seen[side] = (done.returncode, done.stdout, done.stderr.replace(str(tmp_path), "<dir>").replace(f".{suffix}", ".EXT"))
    assert seen["ours"] == seen["pi"]
    code, _, stderr = seen["ours"]
    assert code == 1 and stderr.splitlines() == [
        'Error: Failed to load extension "<dir>/second.EXT": Tool "twin" conflicts with <dir>/first.EXT',
        'Error: Failed to load extension "<dir>/second.EXT": Flag "--same" conflicts with <dir>/first.EXT',
        'Hint: Start without extensions using "pi -ne".',
    ]
