"""The session and application commands (ours in-process, Pi's own TUI in tmux):
``/copy`` (OSC 52 into the terminal's clipboard), ``/export`` to HTML and JSONL, ``/compact`` with
instructions (the card, the footer's unknown context), ``/import`` of the exported file,
``/reload``, ``/settings`` (a change saved at once), ``/trust`` (saved in ``trust.json``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.pi_coding_agent.app.interactive._play import Driven, play
from tests.pi_coding_agent.app.interactive._scenario import pi_reads_the_same

# Pi's TUI alone takes seconds to start on a loaded machine, so the suite-wide 120 s limit
# is too tight for its runs.
pytestmark = pytest.mark.timeout(600)

TURNS = [{"text": "answer one"}, {"text": "answer two"}]
SUMMARY = "They said hello twice."


@pytest.fixture(params=["ours", "pi"])
def which(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def _copy_export_compact_import_reload_settings(app: Driven) -> None:
    work = app.sandbox.work
    await app.submit("hello")
    await app.wait_for("answer one")
    await app.submit("again")
    await app.wait_for("answer two")
    await app.wait_until_gone("Working")  # the answer is stored before it is copied
    await app.command("/copy")
    await app.wait_for("Copied last agent message to clipboard")
    await app.wait_until(lambda _: app.clipboard() == "answer two", "the clipboard does not hold the answer")
    await app.command("/export out.html")
    await app.wait_for("Session exported to: out.html")
    assert (work / "out.html").read_text(encoding="utf-8").lower().startswith("<!doctype html>")
    await app.command("/export out.jsonl")
    exported = f"Session exported to: {work / 'out.jsonl'}"
    await app.wait_until(lambda s: exported in " ".join(s.split()), "the JSONL export is not reported")
    # The branch under a header of its own (same id and cwd, the export's time).
    [header, *entries] = app.entries(work / "out.jsonl")
    [original, *stored] = app.entries()
    assert entries == stored
    assert {k: header[k] for k in ("type", "version", "id", "cwd")} == {
        k: original[k] for k in ("type", "version", "id", "cwd")
    }
    await app.command("/compact keep it short")
    screen = await app.wait_for("Compacted from")
    assert screen.index("answer two") < screen.index("[compaction]")  # the card comes last, as in Pi
    await app.wait_for("?/64k (auto)")
    summary_requests = [json.dumps(r["body"]) for r in app.provider.requests[2:]]
    assert summary_requests and any("keep it short" in body for body in summary_requests)
    await app.command("/import out.jsonl")
    await app.wait_for("Replace current session with out.jsonl?")
    await app.send("Enter")
    screen = await app.wait_for("Session imported from: out.jsonl")
    assert "[compaction]" not in screen and "answer one" in screen
    await app.command("/reload")
    await app.wait_for("Reloaded keybindings, extensions, skills, prompts, themes, and context files")
    await app.command("/settings")
    await app.wait_for("Type to search · Enter/Space to change · Esc to cancel")
    await app.type("Hide thinking")
    await app.wait_for("→ Hide thinking")
    await app.send("Enter")
    await app.wait_until(lambda _: app.settings_file().get("hideThinkingBlock") is True, "the change was not saved")
    await app.send("Escape")
    await app.wait_until_gone("Type to search")
    await app.command("/trust")
    await app.wait_for("→ ")
    await app.send("Enter")
    await app.wait_for("Saved trust decision: ")
    trust = json.loads((app.sandbox.agent_dir / "trust.json").read_text(encoding="utf-8"))
    assert str(work) in trust or any(str(work).startswith(folder) for folder in trust)
    await app.quit()


def test_copy_export_compact_import_reload_settings(tmp_path: Path, which: str) -> None:
    settings = {"compaction": {"keepRecentTokens": 1}}
    app = play(tmp_path, which, TURNS, _copy_export_compact_import_reload_settings, settings=settings, summary=SUMMARY)
    files = app.session_files()
    assert len(files) == 2  # the compacted session and the imported copy
    kinds = sorted([entry["type"] for entry in app.entries(path)] for path in files)
    head = ["session", "model_change", "thinking_level_change", "message", "message", "message", "message"]
    assert kinds == [head, [*head, "compaction"]]
    if app.ours:
        contexts = pi_reads_the_same(files)
        roles = sorted([m["role"] for m in c["context"]["messages"]] for c in contexts)
        assert roles[0][0] == "compactionSummary" and roles[1] == ["user", "assistant", "user", "assistant"]
