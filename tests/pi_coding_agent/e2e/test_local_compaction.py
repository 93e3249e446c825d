"""A long session with the embedded 0.5B model on a 1 280-token window (set in ``models.json``):
turn 2 reuses the evaluated prompt prefix, the session compacts, the model's summary fits the
window (docs/agent-session.md, "Small context windows"), and the session goes on after it.

The window is that small, and each note about 320 tokens, because every token of the run is
evaluated on the CPU: the run evaluates about 2 000 prompt tokens and 200 summary tokens. A
2 048 window with 530-token notes evaluated about 4 900 prompt tokens for the same checks (141
CPU-seconds against 88, measured one after the other at load 11 on one thread); a 4 096 window
with 1 300-token notes cost 2.4 times that again.

The sizes keep margins (the system prompt, without tools and without the docs section the
in-process model leaves out, is about 110 tokens; measured 2026-12-07): turn 2 ends about 200
tokens under the compaction threshold (960, three quarters of the window), turn 3 about 120 over
it and 200 under the window. The last two notes (about 550 tokens by the
four-characters estimate) are more than the quarter of the window compaction keeps, so the
first note is what gets summarized. Words rather than digits keep that estimate close to the
real token count. The window is not smaller because the summary's cap is 0.8 of the reserved
quarter: 256 tokens here, and the model's summary takes about 200 (on a 1 024 window its 190
tokens came within 14 of the cap, and a summary cut at the cap fails)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.pi_coding_agent.e2e._harness import Sandbox, run_ours
from tests.support.local_model import SMALL_MODEL, cache_env, model_file, require_runtime

WINDOW = 1280
FACTS_PER_NOTE = 18
COLORS = ("red", "green", "blue", "yellow", "white", "black", "orange", "purple")
ROOMS = ("kitchen", "garden", "library", "garage", "attic", "hallway", "bedroom")


def _notes(part: int) -> str:
    """About 320 tokens of varied facts to remember: three of them pass three quarters of the window."""
    lines = [
        f"In part {part}, the {COLORS[n % 8]} basket in the {ROOMS[n % 7]} holds {n * 3 + part} apples."
        for n in range(FACTS_PER_NOTE)
    ]
    return "Remember these facts for later.\n" + "\n".join(lines) + "\nReply with OK only."


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_long_session_compacts_within_a_small_window(tmp_path: Path) -> None:
    require_runtime()
    sandbox = Sandbox.create(tmp_path, "http://127.0.0.1:9", {"retry": {"enabled": False}})
    models = {"providers": {"tiny": {"api": "local", "baseUrl": str(model_file(SMALL_MODEL)), "models": [
        {"id": "qwen-0.5b-1280", "contextWindow": WINDOW, "maxTokens": 512, "input": ["text"]}
    ]}}}
    (sandbox.agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")
    prompts = [_notes(1), _notes(2), _notes(3), "How many apples are in the red basket in part 3? Reply with the number."]
    result = run_ours(sandbox, "--model", "tiny/qwen-0.5b-1280", "--no-tools", "--mode", "json", *prompts, timeout=900,
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
