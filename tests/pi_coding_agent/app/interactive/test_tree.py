"""Moving around sessions (ours in-process, Pi's own TUI in tmux): ``/tree`` back to an
earlier point with a branch summary, ``/new``, ``/resume`` of the other session through the
picker's search, ``/fork`` and ``/clone``. Pi's live oracle reads every file left behind."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.app.interactive._play import Driven, play
from tests.pi_coding_agent.app.interactive._scenario import pi_reads_the_same

# Pi's TUI alone takes seconds to start on a loaded machine, so the suite-wide 120 s limit
# is too tight for its runs.
pytestmark = pytest.mark.timeout(600)

TURNS = [{"text": "answer one"}, {"text": "answer two"}, {"text": "answer three"}]
SUMMARY = "The abandoned branch asked a second question."


@pytest.fixture(params=["ours", "pi"])
def which(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_tree_summary_new_resume_fork_clone(tmp_path: Path, which: str) -> None:
    async def scenario(app: Driven) -> None:
        await app.submit("first q")
        await app.wait_for("answer one")
        await app.submit("second q")
        await app.wait_for("answer two")
        await app.wait_until_gone("Working")  # the answer is stored: the tree has it
        await _tree_back_to_first_answer(app)
        await app.submit("third q")
        screen = await app.wait_for("answer two")
        assert "second q" not in screen  # the transcript shows the new branch only
        await app.command("/new")
        await app.wait_for("New session started")
        await app.submit("other topic")
        await app.wait_for("answer one")
        await app.command("/resume")
        await app.wait_for("Resume Session")
        await app.type("third")
        await app.wait_until(lambda s: "other topic" not in s.split("Resume Session")[-1], "the search did not filter")
        await app.send("Enter")
        screen = await app.wait_for("third q")
        assert "[branch]" in screen and "other topic" not in screen
        await app.command("/clone")
        await app.wait_for("Cloned to new session")
        await app.command("/fork")
        screen = await app.wait_for("Fork from Message")
        count = int(re.findall(r"Message \d+ of (\d+)", screen)[-1])
        await app.send(*["Up"] * (count - 1))
        await app.wait_until(lambda s: "› first q" in s, "the fork list does not reach the first message")
        await app.send("Enter")
        await app.wait_for("Forked to new session")
        assert app.editor() == "first q"
        await app.send("Enter")
        await app.wait_for("answer one")
        await app.quit()

    app = play(tmp_path, which, TURNS, scenario, summary=SUMMARY, height=40)
    files = app.session_files()
    assert len(files) == 4  # the first, the new, the clone, the fork
    head = ["session", "model_change", "thinking_level_change"]
    kinds = sorted([e["type"] for e in app.entries(path)] for path in files)
    assert kinds == sorted([
        [*head, *["message"] * 4, "branch_summary", "message", "message"],  # the first
        [*head, "message", "message"],  # the new session
        [*head, "message", "message", "branch_summary", "message", "message"],  # the clone
        # The fork: Pi 0.85 starts its empty branch anew; ours copies the system message before the
        # first user message (what Pi 1.6 copies), so the session is not empty and goes on.
        [*head, "message", "message"] if app.ours else [*head, *head[1:], "message", "message"],
    ])  # fmt: skip
    with_summary = [path for path in files if any(e["type"] == "branch_summary" for e in app.entries(path))]
    assert len(with_summary) == 2  # the first session and its clone
    for path in with_summary:
        entries = app.entries(path)
        [summary] = [e for e in entries if e["type"] == "branch_summary"]
        assert summary["summary"].endswith(SUMMARY)
        by_text: dict[str, str] = {}
        for entry in entries:
            if entry["type"] == "message":
                by_text.setdefault(_content_text(entry), entry["id"])
        # Pi's entry: under the point navigated to, naming the leaf it left (which a clone lacks).
        assert summary["parentId"] == by_text["answer one"]
        if "second q" in by_text:
            assert summary["fromId"] == by_text["answer two"]
        else:
            assert summary["fromId"] not in {entry.get("id") for entry in entries}
    if app.ours:
        for context in pi_reads_the_same(files):
            roles = [m["role"] for m in context["context"]["messages"]]
            assert roles in (
                ["user", "assistant", "branchSummary", "user", "assistant"],  # the first and its clone
                ["user", "assistant"],  # the new session and the fork
            ), roles


async def _tree_back_to_first_answer(app: Driven) -> None:
    await app.command("/tree")
    await app.wait_for("Session Tree")
    await app.wait_for("› • assistant: answer two")
    await app.send("Up", "Up")
    await app.wait_for("› • assistant: answer one")
    await app.send("Enter")
    await app.wait_for("Summarize branch?")
    await app.send("Down")
    await app.wait_for("→ Summarize")
    await app.send("Enter")
    await app.wait_for("Navigated to selected point")
    screen = await app.wait_for("Branch summary (ctrl+o to expand)")
    assert "second q" not in screen and SUMMARY not in screen
    await app.send("C-o")
    await app.wait_for(SUMMARY)
    await app.send("C-o")
    await app.wait_until_gone(SUMMARY)


def _content_text(entry: dict[str, Any]) -> str:
    content = entry["message"].get("content")
    return content[0].get("text", "") if isinstance(content, list) and content else ""


def test_tree_labels_are_shown_filtered_and_stored(tmp_path: Path, which: str) -> None:
    async def scenario(app: Driven) -> None:
        await app.submit("first q")
        await app.wait_for("answer one")
        await app.submit("second q")
        await app.wait_for("answer two")
        await app.wait_until_gone("Working")  # the answer is stored: the tree has it
        await app.command("/tree")
        await app.wait_for("› • assistant: answer two")
        await app.send("Up", "Up")
        await app.wait_for("› • assistant: answer one")
        await app.type("L")  # Shift+L: the terminal sends the capital letter
        await app.wait_for("Label (empty to remove):")
        await app.type("checkpoint")
        await app.send("Enter")
        await app.wait_for("› • [checkpoint] assistant: answer one")
        await app.send("C-l")  # only labeled entries
        screen = await app.wait_until(lambda s: "answer two" not in s.split("Type to search")[-1],
                                 "the labeled-only filter kept other entries")  # fmt: skip
        assert "[checkpoint] assistant: answer one" in screen and "[labeled]" in screen
        await app.send("C-l")
        await app.wait_for("assistant: answer two")
        await app.send("Escape")
        await app.wait_until_gone("Session Tree")
        await app.command("/tree")  # the label is read back from the session
        await app.wait_for("[checkpoint] assistant: answer one")
        await app.send("Up", "Up")
        await app.wait_for("› • [checkpoint] assistant: answer one")
        await app.type("L")
        await app.wait_for("Label (empty to remove):")
        await app.send("C-k", "Enter")  # the cursor starts at the beginning: emptied, the label goes
        await app.wait_for("› • assistant: answer one")
        await app.send("Escape")
        await app.wait_until_gone("Session Tree")
        await app.quit()

    app = play(tmp_path, which, TURNS, scenario, height=40)
    entries = app.entries()
    by_text = {_content_text(e): e["id"] for e in entries if e["type"] == "message"}
    labels = [e for e in entries if e["type"] == "label"]
    assert [(e["targetId"], e.get("label")) for e in labels] == [
        (by_text["answer one"], "checkpoint"),
        (by_text["answer one"], None),
    ]
    assert all(e["parentId"] == by_text["answer two"] for e in labels[:1])  # appended at the leaf
    if app.ours:
        [context] = pi_reads_the_same(app.session_files())
        assert [m["role"] for m in context["context"]["messages"]] == ["user", "assistant"] * 2
