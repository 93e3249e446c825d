"""The session and application commands in the real ``pi`` in tmux (ours and Pi's own):
``/copy`` (OSC 52 into tmux's buffer), ``/export`` to HTML and JSONL, ``/compact`` with
instructions (the card, the footer's unknown context), ``/import`` of the exported file,
``/reload``, ``/settings`` (a change saved at once), ``/trust`` (saved in ``trust.json``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.pi_coding_agent.app.interactive._scenario import launch, pi_reads_the_same

# A scenario drives a whole session in a terminal; Pi's TUI alone takes seconds to start
# on a loaded machine, so the suite-wide 120 s limit is too tight here.
pytestmark = pytest.mark.timeout(600)

TURNS = [{"text": "answer one"}, {"text": "answer two"}]
SUMMARY = "They said hello twice."


@pytest.fixture(params=["ours", "pi"])
def which(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_copy_export_compact_import_reload_settings(tmp_path: Path, which: str) -> None:
    settings = {"compaction": {"keepRecentTokens": 1}}
    with launch(tmp_path, which, TURNS, settings=settings, summary=SUMMARY) as run:
        pane, work = run.pane, run.sandbox.work
        run.submit("hello")
        pane.wait_for("answer one")
        run.submit("again")
        pane.wait_for("answer two")
        run.command("/copy")
        pane.wait_for("Copied last agent message to clipboard")
        pane.wait_until(lambda _: pane.clipboard() == "answer two", "the clipboard does not hold the answer")
        run.command("/export out.html")
        pane.wait_for("Session exported to: out.html")
        assert (work / "out.html").read_text(encoding="utf-8").lower().startswith("<!doctype html>")
        run.command("/export out.jsonl")
        exported = f"Session exported to: {work / 'out.jsonl'}"
        pane.wait_until(lambda s: exported in " ".join(s.split()), "the JSONL export is not reported")
        # The branch under a header of its own (same id and cwd, the export's time).
        [header, *entries] = run.entries(work / "out.jsonl")
        [original, *stored] = run.entries()
        assert entries == stored
        assert {k: header[k] for k in ("type", "version", "id", "cwd")} == {
            k: original[k] for k in ("type", "version", "id", "cwd")
        }
        run.command("/compact keep it short")
        screen = pane.wait_for("Compacted from")
        assert screen.index("answer two") < screen.index("[compaction]")  # the card comes last, as in Pi
        pane.wait_for("?/64k (auto)")
        summary_requests = [json.dumps(r["body"]) for r in run.provider.requests[2:]]
        assert summary_requests and any("keep it short" in body for body in summary_requests)
        run.command("/import out.jsonl")
        pane.wait_for("Replace current session with out.jsonl?")
        pane.send("Enter")
        screen = pane.wait_for("Session imported from: out.jsonl")
        assert "[compaction]" not in screen and "answer one" in screen
        run.command("/reload")
        pane.wait_for("Reloaded keybindings, extensions, skills, prompts, themes, and context files")
        run.command("/settings")
        pane.wait_for("Type to search · Enter/Space to change · Esc to cancel")
        pane.type("Hide thinking")
        pane.wait_for("→ Hide thinking")
        pane.send("Enter")
        pane.wait_until(lambda _: run.settings_file().get("hideThinkingBlock") is True, "the change was not saved")
        pane.send("Escape")
        pane.wait_until_gone("Type to search")
        run.command("/trust")
        pane.wait_for("→ ")
        pane.send("Enter")
        pane.wait_for("Saved trust decision: ")
        trust = json.loads((run.sandbox.agent_dir / "trust.json").read_text(encoding="utf-8"))
        assert str(work) in trust or any(str(work).startswith(folder) for folder in trust)
        run.quit()
    files = run.session_files()
    assert len(files) == 2  # the compacted session and the imported copy
    kinds = sorted([entry["type"] for entry in run.entries(path)] for path in files)
    head = ["session", "model_change", "thinking_level_change", "message", "message", "message", "message"]
    assert kinds == [head, [*head, "compaction"]]
    if run.ours:
        contexts = pi_reads_the_same(files)
        roles = sorted([m["role"] for m in c["context"]["messages"]] for c in contexts)
        assert roles[0][0] == "compactionSummary" and roles[1] == ["user", "assistant", "user", "assistant"]
