"""A long session with the embedded 0.5B model on a 2 048-token window (set in ``models.json``):
turn 2 reuses the evaluated prompt prefix, the session compacts, the model's summary fits the
window (docs/agent-session.md, "Small context windows"), and the session goes on after it.

The window is that small, and each note about 530 tokens, because every token of the run is
evaluated on the CPU: on a 4 096 window with 1 300-token notes the run cost 2.4 times as much
(178 CPU-seconds against 73) for the same checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.pi_coding_agent.e2e._harness import Sandbox, run_ours
from tests.support.local_model import SMALL_MODEL, cache_env, model_file, require_runtime

WINDOW = 2048
FACTS_PER_NOTE = 25
COLORS = ("red", "green", "blue", "yellow", "white", "black", "orange", "purple")


def _notes(part: int) -> str:
    """About 530 tokens of varied facts to remember: three of them pass three quarters of the window."""
    lines = [
        f"Fact {part}.{n}: the {COLORS[n % 8]} box on shelf {n % 7} holds {n * 3 + part} marbles."
        for n in range(FACTS_PER_NOTE)
    ]
    return "Remember these facts for later.\n" + "\n".join(lines) + "\nReply with OK only."


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_long_session_compacts_within_a_small_window(tmp_path: Path) -> None:
    require_runtime()
    sandbox = Sandbox.create(tmp_path, "http://127.0.0.1:9", {"retry": {"enabled": False}})
    models = {"providers": {"tiny": {"api": "local", "baseUrl": str(model_file(SMALL_MODEL)), "models": [
        {"id": "qwen-0.5b-2k", "contextWindow": WINDOW, "maxTokens": 512, "input": ["text"]}
    ]}}}
    (sandbox.agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")
    prompts = [_notes(1), _notes(2), _notes(3), "How many marbles are in the red box on shelf 0 in part 3? Reply with the number."]
    result = run_ours(sandbox, "--model", "tiny/qwen-0.5b-2k", "--no-tools", "--mode", "json", *prompts, timeout=900,
                      **cache_env())
    assert result.returncode == 0, result.stderr
    events = result.json_lines()
    answers = [e["message"] for e in events if e["type"] == "message_end" and e["message"]["role"] == "assistant"]
    assert len(answers) == 4 and all(a["stopReason"] == "stop" for a in answers), [a.get("errorMessage") for a in answers]
    # The system prompt and the first exchange were evaluated once: turn 2 reads them from the cache.
    first, second = answers[0]["usage"], answers[1]["usage"]
    assert second["cacheRead"] >= first["input"] > 0
    ends = [e for e in events if e["type"] == "compaction_end"]
    assert ends and all(not e.get("errorMessage") for e in ends), ends
    summary = ends[0]["result"]["summary"]
    assert summary.strip() and ends[0]["result"]["tokensBefore"] > WINDOW * 3 // 4
    (session,) = sandbox.session_files()
    entries = [json.loads(line) for line in session.read_text(encoding="utf-8").splitlines()]
    compactions = [entry for entry in entries if entry["type"] == "compaction"]
    assert compactions and compactions[0]["summary"] == summary
    # The turn after the compaction fits the window again.
    last = answers[-1]["usage"]
    assert last["input"] + last["cacheRead"] + last["output"] <= WINDOW
