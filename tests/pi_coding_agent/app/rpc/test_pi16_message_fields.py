"""Pi 1.6's message fields, as ours and Pi 1.6 (``pi-cli-current``) write them in ``--mode json``
and in the session file, against the same scripted provider on 127.0.0.1.

A turn with two tool calls whose argument text is no JSON object (a syntax error; an array):
the call keeps ``arguments: {}`` and an ``argumentsError`` (V8's ``JSON.parse`` message, then
the text received), the tool result says ``Invalid arguments for tool "read": ...`` and has no
``durationMs`` (the tool never ran); then a call that runs (its result has ``durationMs``) with
a thinking model at ``--thinking low`` (the answers' ``thinkingLevel``). Every assistant
message has ``durationMs`` and a ``usage.cost.totalFromProvider`` of ``false``. Durations are
checked to be whole milliseconds, then folded.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.pi_coding_agent.app.rpc._support import (
    first_difference,
    make_sandbox,
    normalize,
    tool_durations_checked,
    without_pending_elsewhere,
)
from tests.pi_coding_agent.e2e._harness import run_ours, run_pi
from tests.support import oracle
from tests.support.scripted_provider import ScriptedProvider

TURNS = [
    {
        "tool_calls": [
            {"id": "call_1", "name": "read", "arguments_json": '{"path": "notes.txt", oops}'},
            {"id": "call_2", "name": "read", "arguments_json": "[1, 2]"},
        ]
    },
    {"tool_calls": [{"id": "call_3", "name": "read", "arguments": {"path": "notes.txt"}}]},
    {"text": "It says hi."},
]
ARGS = ("--mode", "json", "--model", "scripted-openai/thinker", "--thinking", "low", "Read notes.txt")


def _run(tmp_path: Path, name: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]], Path]:
    with ScriptedProvider(TURNS, sequential=True) as provider:
        box = make_sandbox(tmp_path / name, provider.base_url, {"retry": {"enabled": False}})
        (box.work / "notes.txt").write_text("hi\n", encoding="utf-8")
        done = run_ours(box, *ARGS) if name == "ours" else run_pi(box, *ARGS, current=True)
    assert done.returncode == 0, done.stderr
    _, *events = done.json_lines()
    (session,) = box.session_files()
    entries = [json.loads(line) for line in session.read_text(encoding="utf-8").splitlines()[1:]]
    return events, entries, box.root


def _comparable(events: list[dict[str, Any]], entries: list[dict[str, Any]], root: Path) -> dict[str, Any]:
    log = without_pending_elsewhere({"stream": events, "results": [{"result": entries}]})
    return dict(tool_durations_checked(normalize(log, root, pi16=True)))


def test_message_fields_and_unreadable_arguments_like_pi_16(tmp_path: Path) -> None:
    oracle.require_live_oracle(current=True)
    ours, pis = _run(tmp_path, "ours"), _run(tmp_path, "pi16")
    mine, theirs = _comparable(*ours), _comparable(*pis)
    assert mine["stream"] == theirs["stream"], first_difference(mine["stream"], theirs["stream"])
    assert mine["results"] == theirs["results"]
    written = [entry["message"] for entry in ours[1] if entry["type"] == "message"]
    answers = [m for m in written if m["role"] == "assistant"]
    assert [m["thinkingLevel"] for m in answers] == ["low"] * 3
    assert all(
        isinstance(m["durationMs"], int) and m["usage"]["cost"]["totalFromProvider"] is False for m in answers
    )
    calls = answers[0]["content"]
    assert [(c["arguments"], c["argumentsError"].split("\n")[0]) for c in calls] == [
        ({}, "Expected double-quoted property name in JSON at position 22 (line 1 column 23)"),
        ({}, "Tool arguments must be a JSON object"),
    ]
    results = [m for m in written if m["role"] == "toolResult"]
    assert [r["content"][0]["text"].split(":")[0] for r in results[:2]] == [
        'Invalid arguments for tool "read"'
    ] * 2
    assert ["durationMs" in r for r in results] == [False, False, True]
