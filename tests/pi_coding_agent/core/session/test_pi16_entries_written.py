"""The Pi 1.6 entries our ``SessionManager`` writes (``context_edit``, ``usage``, a compaction
that keeps nothing) are the lines Pi 1.6's own ``SessionManager`` wrote for the same calls: the
session recorded by ``tools/gen_pi16_sessions.py`` is replayed up to each such entry and the
same call is made on our manager."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_coding_agent.core.session import EntryNotFoundError, SessionManager
from tests.pi_coding_agent.core.session.helpers import user

CASE = (
    Path(__file__).resolve().parents[3]
    / "conformance"
    / "cases"
    / "session-context"
    / "pi16_edits_and_usage.json"
)


def _pi_lines() -> list[dict[str, Any]]:
    return [json.loads(line) for line in json.loads(CASE.read_text(encoding="utf-8"))["jsonl"].splitlines()]


def _written_by_us(lines: list[dict[str, Any]], index: int, tmp_path: Path) -> dict[str, Any]:
    """Line ``index`` of Pi's file, as ours writes it after the lines before it."""
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines[:index]), encoding="utf-8")
    manager = SessionManager.open(str(path))
    theirs = lines[index]
    manager.branch(theirs["parentId"])
    if theirs["type"] == "context_edit":
        manager.append_context_edit(theirs["targetId"], theirs["replacement"])
    elif theirs["type"] == "usage":
        manager.append_usage(theirs["kind"], theirs["provider"], theirs["model"], theirs["usage"])
    else:
        manager.append_compaction(theirs["summary"], None, theirs["tokensBefore"])
    manager.close()
    return dict(json.loads(path.read_text(encoding="utf-8").splitlines()[-1]))


def _folded(entry: dict[str, Any]) -> dict[str, Any]:
    """Generated values folded: the entry's id (also where the entry names itself), time."""
    text = json.dumps(entry).replace(entry["id"], "<id>")
    folded = dict(json.loads(text))
    folded["timestamp"] = "<time>"
    if "systemMessage" in folded:
        folded["systemMessage"]["timestamp"] = "<time>"
    return folded


@pytest.mark.parametrize("kind", ["context_edit", "usage", "compaction"])
def test_lines_equal_pi_16s(kind: str, tmp_path: Path) -> None:
    lines = _pi_lines()
    found = [
        i
        for i, line in enumerate(lines)
        if line["type"] == kind and (kind != "compaction" or line["firstKeptEntryId"] == line["id"])
    ]
    assert found, f"the recorded session has no {kind} entry"
    for index in found:
        ours = _written_by_us(lines, index, tmp_path)
        assert list(ours) == list(lines[index])  # Pi's key order
        assert _folded(ours) == _folded(lines[index])


def test_context_edit_refuses_what_pi_16_refuses() -> None:
    """A missing target, one off the branch, one without message content, a bad replacement."""
    manager = SessionManager.in_memory("/p")
    first = manager.append_message(user("hi"))
    manager.append_thinking_level_change("low")
    level = manager.get_leaf_id()
    assert level is not None
    manager.branch_with_summary(None, "elsewhere")
    with pytest.raises(ValueError, match="not on the current branch"):
        manager.append_context_edit(first, None)
    manager.branch(level)
    with pytest.raises(EntryNotFoundError):
        manager.append_context_edit("missing", None)
    with pytest.raises(ValueError, match="no message content"):
        manager.append_context_edit(level, None)
    with pytest.raises(ValueError, match="string or list content"):
        manager.append_context_edit(first, {"text": "x"})
    manager.append_context_edit(first, {"content": "hello"})
    assert [m.content for m in manager.build_session_context().messages] == ["hello"]
