"""Pi's CLI and ours with equivalent extensions (TypeScript and Python) on the same script:
the same events reach the extension, in the same order, with the same payload fields."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.customize.extensions._support import FIXTURES, records
from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Sandbox, run_ours, run_pi
from tests.support import oracle
from tests.support.scripted_provider import ScriptedProvider

SCRIPT = [
    {"tool_calls": [{"id": "call_1", "name": "ls", "arguments": {}}, {"id": "call_2", "name": "read", "arguments": {"path": "a.txt"}}]},
    {"text": "Seen."},
]


@pytest.mark.timeout(300)
def test_events_reach_extensions_in_pis_order(tmp_path: Path) -> None:
    oracle.require_live_oracle()
    logs = {}
    with ScriptedProvider(SCRIPT) as provider:
        for side, run, fixture in (("pi", run_pi, "recorder_types.ts"), ("ours", run_ours, "recorder_types.py")):
            pi16: dict[str, Any] = {"current": True} if side == "pi" else {}  # Pi 1.6: the system message's events
            box = Sandbox.create(tmp_path / side, provider.base_url)
            (box.work / "a.txt").write_text("alpha\n", encoding="utf-8")
            record = tmp_path / f"{side}.jsonl"
            done = run(
                box, "--model", OPENAI_MODEL, "--no-session", "-e", str(FIXTURES / fixture), "-p", "look",
                PI_TEST_RECORD=str(record), PI_OFFLINE="1", **pi16,
            )
            assert done.returncode == 0, (side, done.stderr)
            assert done.stdout == "Seen.\n", side
            logs[side] = records(record)
    assert logs["ours"] == logs["pi"]
    types = [r["type"] for r in logs["pi"]]
    # ls is not an active tool (the defaults are read, bash, edit, write): no tool_call for it
    assert types.count("tool_execution_start") == 2 and types.count("tool_call") == 1
    assert types.count("context") == 2 and types[-1] == "session_shutdown"


@pytest.mark.timeout(300)  # six CLI runs, Pi's take seconds each on a loaded machine
def test_tool_flags_select_extension_tools_as_pi_does(tmp_path: Path) -> None:
    oracle.require_live_oracle()
    flag_sets: list[list[str]] = [["--tools", "ls,greet"], ["--no-builtin-tools"], ["--no-tools"]]
    offered: dict[str, list[list[str]]] = {"pi": [], "ours": []}
    for index, flags in enumerate(flag_sets):
        for side, run, fixture in (("pi", run_pi, "greet_tool.ts"), ("ours", run_ours, "greet_tool.py")):
            with ScriptedProvider([{"text": "x"}]) as provider:
                box = Sandbox.create(tmp_path / f"{side}{index}", provider.base_url)
                done = run(box, "--model", OPENAI_MODEL, *flags, "-e", str(FIXTURES / fixture), "-p", "hi", PI_OFFLINE="1")
                assert done.returncode == 0, (side, flags, done.stderr)
                offered[side].append([t["function"]["name"] for t in provider.requests[0]["body"].get("tools", [])])
    assert offered["ours"] == offered["pi"]
    assert offered["pi"] == [["ls", "greet"], ["greet"], []]
