"""A compaction written by ours carries the branch's prompt and tools as Pi 1.6's does
(``systemMessage``): at each leaf of a Pi 1.6 file, the checkpoint ours appends equals the one
Pi 1.6's own ``SessionManager.appendCompaction`` appends there, and Pi 1.6 builds the same context
from the file ours wrote as ours does."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from msgspec import UNSET

from pi_ai import UserMessage
from pi_coding_agent.core.messages import iso_to_ms
from pi_coding_agent.core.session import SessionManager
from tests.support import oracle

REPO = Path(__file__).resolve().parents[4]
CASE = REPO / "tests" / "conformance" / "cases" / "session-context" / "pi16_second_root.json"


def _driver(request: dict[str, Any]) -> Any:
    sys.path.insert(0, str(REPO / "tools"))
    from gen_pi16_sessions import run_driver

    return run_driver(request)


def _last_compaction(path: Path) -> dict[str, Any]:
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:]]
    (entry,) = [e for e in entries[-1:] if e["type"] == "compaction"]
    return entry


def _checkpoint(entry: dict[str, Any]) -> dict[str, Any] | None:
    """The checkpoint without its time, after checking the time is the entry's own."""
    checkpoint = entry.get("systemMessage")
    if checkpoint is None:
        return None
    assert checkpoint["timestamp"] == iso_to_ms(entry["timestamp"])
    return {key: value for key, value in checkpoint.items() if key != "timestamp"}


def _leaves() -> list[str]:
    """Entries of the file to compact at: each message entry (system messages included)."""
    lines = json.loads(CASE.read_text(encoding="utf-8"))["jsonl"].splitlines()[1:]
    return [json.loads(line)["id"] for line in lines if json.loads(line)["type"] == "message"]


@pytest.mark.parametrize(("position", "declared"), [(0, True), (3, True), (-5, True), (-1, False)])
def test_the_checkpoint_is_pi_16s_at_each_leaf(tmp_path: Path, position: int, declared: bool) -> None:
    """The last leaf is the file's second root, whose branch declares nothing: no checkpoint."""
    oracle.require_live_oracle(current=True)
    text = json.loads(CASE.read_text(encoding="utf-8"))["jsonl"]
    leaf = _leaves()[position]
    pi_file, our_file = tmp_path / "pi.jsonl", tmp_path / "ours.jsonl"
    pi_file.write_text(text, encoding="utf-8")
    our_file.write_text(text, encoding="utf-8")

    _driver(
        {
            "file": str(pi_file),
            "ops": [{"op": "branch", "id": leaf}, {"op": "compaction", "summary": "s", "firstKept": leaf, "tokensBefore": 7}],
        }
    )
    ours = SessionManager.open(str(our_file))
    ours.branch(leaf)
    ours.append_compaction("s", leaf, 7)

    pi_entry, our_entry = _last_compaction(pi_file), _last_compaction(our_file)
    assert list(our_entry) == list(pi_entry)
    assert _checkpoint(our_entry) == _checkpoint(pi_entry)
    assert (_checkpoint(our_entry) is not None) == declared
    # The same file read by Pi 1.6 and by ours: the context at the new compaction.
    contexts = _driver({"file": str(our_file), "contexts": True})
    _, built = oracle.conformance_in_process(
        "session-context", {"jsonl": our_file.read_text(encoding="utf-8"), "leafId": our_entry["id"]}
    )
    assert built["context"] == contexts[our_entry["id"]]


def test_a_branch_without_system_messages_gets_no_checkpoint(tmp_path: Path) -> None:
    """0.85 files and our older ones: nothing declared, nothing written (as Pi 1.6)."""
    manager = SessionManager.create(str(tmp_path), str(tmp_path / "sessions"))
    kept = manager.append_message(UserMessage(content="q", timestamp=1))
    manager.append_compaction("s", kept, 3)
    assert manager.get_entries()[-1].system_message is UNSET
