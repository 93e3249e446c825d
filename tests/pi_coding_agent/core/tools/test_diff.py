"""The edit tool's diffs against Pi's (the ``diff`` npm package), on 150 recorded random edits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_coding_agent.core.tools._diff import diff_lines, display_diff, unified_patch

RECORDS: list[dict[str, Any]] = json.loads((Path(__file__).parent / "pi_diffs.json").read_text("utf-8"))


@pytest.mark.parametrize("record", RECORDS, ids=[str(i) for i in range(len(RECORDS))])
def test_display_diff_and_patch_match_pi(record: dict[str, Any]) -> None:
    text, first = display_diff(record["old"], record["new"])
    assert text == record["diff"]
    assert first == record["firstChangedLine"]
    assert unified_patch("f.txt", "f.txt", record["old"], record["new"]) == record["patch"]


def test_changes_rebuild_both_texts() -> None:
    for record in RECORDS:
        changes = diff_lines(record["old"], record["new"])
        assert "".join(c.value for c in changes if not c.added) == record["old"]
        assert "".join(c.value for c in changes if not c.removed) == record["new"]


def test_identical_texts_have_no_hunks() -> None:
    assert unified_patch("a", "a", "x\ny\n", "x\ny\n") == "--- a\n+++ a\n"
    assert display_diff("x\n", "x\n") == ("", None)
