"""``codemode`` through our ``pi -p`` and Pi 1.6's CLI on the same scripted provider: the script's
result as the model receives it, the events of the calls it made (``parentToolCallId``),
``store()`` across calls (and the ``codemode-store`` entries written), and which tools are
declared in ``codemode.mode: only``.

The wall time in the header is the only part that differs (it is measured); it is blanked."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Completed, Sandbox, run_ours, run_pi
from tests.support.scripted_provider import ScriptedProvider, models_json

pytestmark = pytest.mark.oracle

PARALLEL_SCRIPT = """const [notes, listing] = await Promise.all([
  tools.read({ path: "notes.txt" }),
  tools.bash({ command: "printf 'b.py\\\\na.py\\\\nREADME\\\\n'; exit 2" }),
]);
console.log("notes has", notes.split("\\n").length, "lines");
text(notes.split("\\n").filter((line) => line.startsWith("TODO")));
const files = listing.output.trim().split("\\n").filter((name) => name.endsWith(".py")).sort();
return { files, exit: listing.exit_code, truncated: listing.truncated };"""


def _run(tmp_path: Path, name: str, turns: list[dict[str, Any]], settings: dict[str, Any], current: bool) -> tuple[Completed, Sandbox, list[dict[str, Any]]]:
    with ScriptedProvider(turns) as provider:
        sandbox = Sandbox.create(tmp_path / name, provider.base_url, {"retry": {"enabled": False}, **settings})
        (sandbox.work / "notes.txt").write_text("TODO: tests\ndone: code\nTODO: docs\n", encoding="utf-8")
        args = ["--model", OPENAI_MODEL, "--no-mcp", "--mode", "json", "-p", "go"]
        completed = run_pi(sandbox, *args, current=True) if current else run_ours(sandbox, *args)
        requests = [request["body"] for request in provider.requests]
    assert completed.returncode == 0, completed.stderr
    return completed, sandbox, requests


def _codemode_results(completed: Completed) -> list[tuple[list[str], bool]]:
    """Each codemode result's text blocks (wall time blanked) and whether it is an error."""
    results = []
    for event in completed.json_lines():
        if event.get("type") == "tool_execution_end" and event.get("toolName") == "codemode":
            texts = [re.sub(r"Wall time [0-9.]+ seconds", "Wall time N seconds", block["text"])
                     for block in event["result"]["content"] if block["type"] == "text"]  # fmt: skip
            results.append((texts, bool(event.get("isError"))))
    return results


def _store_entries(sandbox: Sandbox) -> list[Any]:
    entries = []
    for path in sandbox.session_files():
        for line in path.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            if entry.get("type") == "custom" and entry.get("customType") == "codemode-store":
                entries.append(entry["data"])
    return entries


def _both(tmp_path: Path, turns: list[dict[str, Any]], settings: dict[str, Any]) -> tuple[Any, Any]:
    theirs = _run(tmp_path, "pi", turns, settings, current=True)
    ours = _run(tmp_path, "ours", turns, settings, current=False)
    return theirs, ours


def test_parallel_read_and_bash_filtered_by_the_script(tmp_path: Path) -> None:
    turns = [{"tool_calls": [{"id": "call_1", "name": "codemode", "arguments": {"code": PARALLEL_SCRIPT}}]}, {"text": "ok"}]
    (theirs, pi_box, _), (ours, our_box, _) = _both(tmp_path, turns, {"defaultTools": ["+codemode"]})
    assert _nested_record(our_box) == _nested_record(pi_box) == {
        "calls": [
            {"id": "call_1/1", "name": "read", "status": "ok", "arguments": {"path": "notes.txt"}},
            {"id": "call_1/2", "name": "bash", "status": "error", "arguments": {"command": "printf 'b.py\\na.py\\nREADME\\n'; exit 2"},
             "error": "b.py\na.py\nREADME\n\n\nCommand exited with code 2"},
        ],
        "complete": True,
    }  # fmt: skip
    expected = _codemode_results(theirs)
    assert expected and expected[0][0][1].startswith('==> text 1/2 <==\n["TODO: tests","TODO: docs"]')
    assert _codemode_results(ours) == expected
    assert _nested_events(ours) == _nested_events(theirs) == {
        ("tool_execution_start", "call_1/1", "read", "call_1", None),
        ("tool_execution_start", "call_1/2", "bash", "call_1", None),
        ("tool_execution_end", "call_1/1", "read", "call_1", False),
        ("tool_execution_end", "call_1/2", "bash", "call_1", True),
    }


def _nested_record(sandbox: Sandbox) -> Any:
    """The ``nestedCalls`` of the codemode result in the session file, durations left out."""
    for path in sandbox.session_files():
        for line in path.read_text(encoding="utf-8").splitlines():
            message = json.loads(line).get("message") or {}
            if message.get("role") == "toolResult" and "nestedCalls" in message:
                record = message["nestedCalls"]
                for call in record["calls"]:
                    call.pop("durationMs", None)
                return record
    return None


def _nested_events(completed: Completed) -> set[tuple[str, str, str, str, bool | None]]:
    """The start and end events of the calls the script made (their order depends on timing)."""
    return {
        (event["type"], event["toolCallId"], event["toolName"], event["parentToolCallId"], event.get("isError"))
        for event in completed.json_lines()
        if event.get("type") in ("tool_execution_start", "tool_execution_end") and "parentToolCallId" in event
    }


def test_store_carries_values_to_the_next_call_and_into_the_session(tmp_path: Path) -> None:
    turns = [
        {"tool_calls": [{"id": "call_1", "name": "codemode", "arguments": {"code": 'store("seen", ["a"]); store("tmp", 1); return "stored"'}}]},
        {"tool_calls": [{"id": "call_2", "name": "codemode", "arguments": {"code": 'store("tmp", undefined); const s = load("seen"); s.push("b"); store("seen", s); return [s, load("tmp")]'}}]},
        {"tool_calls": [{"id": "call_3", "name": "codemode", "arguments": {"code": 'store("seen", 1); throw new Error("not kept")'}}]},
        {"tool_calls": [{"id": "call_4", "name": "codemode", "arguments": {"code": "return load(\"seen\")"}}]},
        {"text": "ok"},
    ]
    (theirs, pi_box, _), (ours, our_box, _) = _both(tmp_path, turns, {"defaultTools": ["+codemode"]})
    expected, actual = _codemode_results(theirs), _codemode_results(ours)
    for index in (0, 1, 3):
        assert actual[index] == expected[index]
    assert expected[3][0][1] == '["a","b"]'
    assert actual[2][1] and expected[2][1]  # the failing script: an error in both (its wording is ours)
    assert _store_entries(our_box) == _store_entries(pi_box) == [
        {"set": {"seen": ["a"], "tmp": 1}, "delete": []},
        {"set": {"seen": ["a", "b"]}, "delete": ["tmp"]},
    ]


@pytest.mark.parametrize("mode", ["on", "only"])
def test_declared_tools_in_each_mode(tmp_path: Path, mode: str) -> None:
    turns = [{"text": "ok"}]
    settings = {"defaultTools": ["+codemode", "+grep"], "codemode": {"mode": mode}}
    (_, _, pi_requests), (_, _, our_requests) = _both(tmp_path, turns, settings)

    def declared(requests: list[dict[str, Any]]) -> list[str]:
        return [tool["function"]["name"] for tool in requests[0].get("tools", [])]

    assert declared(our_requests) == declared(pi_requests)
    if mode == "only":
        assert declared(pi_requests) == ["codemode"]


def test_a_pi_16_session_with_codemode_resumes_here_with_its_tool_and_values(tmp_path: Path) -> None:
    """Pi 1.6 runs a script that stores a value, in a session file; ours resumes that file: the
    branch's declared tools bring codemode back (no ``--tools`` here), and ``load()`` reads the
    value from Pi's ``codemode-store`` entry."""
    first = [{"tool_calls": [{"id": "call_1", "name": "codemode", "arguments": {"code": 'store("cursor", {page: 3}); return "ok"'}}]}, {"text": "stored"}]
    # The provider answers by the number of assistant messages in the request: the resumed
    # conversation has two already.
    second = [*first, {"tool_calls": [{"id": "call_2", "name": "codemode", "arguments": {"code": 'return load("cursor").page + 1'}}]}, {"text": "read"}]
    with ScriptedProvider(first) as provider:
        sandbox = Sandbox.create(tmp_path / "box", provider.base_url, {"retry": {"enabled": False}})
        session = sandbox.root / "session.jsonl"
        done = run_pi(sandbox, "--model", OPENAI_MODEL, "--no-mcp", "--tools", "+codemode", "--session", str(session), "-p", "go", current=True)
        assert done.returncode == 0, done.stderr
    with ScriptedProvider(second) as provider:
        sandbox = Sandbox(sandbox.root, sandbox.home, sandbox.agent_dir, sandbox.work)
        (sandbox.agent_dir / "models.json").write_text(json.dumps(models_json(provider.base_url)), encoding="utf-8")
        resumed = run_ours(sandbox, "--model", OPENAI_MODEL, "--session", str(session), "--mode", "json", "-p", "again")
        assert resumed.returncode == 0, resumed.stderr
        declared = [tool["function"]["name"] for tool in provider.requests[0]["body"].get("tools", [])]
    assert "codemode" in declared
    results = _codemode_results(resumed)
    assert results == [(["Script completed\nWall time N seconds\nOutput:\n", "4"], False)]
