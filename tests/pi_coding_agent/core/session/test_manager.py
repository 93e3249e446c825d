"""SessionManager: files, entries, tree, labels, names, branching, forking, migration."""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

import pytest

from pi_ai import Usage
from pi_coding_agent.core.messages import BashExecutionMessage, CompactionSummaryMessage, CustomRoleMessage
from pi_coding_agent.core.session import (
    EntryNotFoundError,
    InvalidSessionError,
    InvalidSessionIdError,
    LabelEntry,
    ReadOnlySessionError,
    SessionManager,
    SessionMessageEntry,
    build_session_context,
    encode_cwd,
)
from tests.pi_coding_agent.core.session.helpers import HEADER, assistant, lines, tool_turn, user, write

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
UUID7 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def test_new_session_is_written_with_the_first_assistant_message(tmp_path: Path) -> None:
    manager = SessionManager.create("/home/dev/project", str(tmp_path))
    path = manager.get_session_file()
    assert path is not None and UUID7.match(manager.get_session_id())
    assert os.path.basename(path).endswith(f"_{manager.get_session_id()}.jsonl")
    manager.append_model_change("anthropic", "claude-sonnet-4-5")
    manager.append_thinking_level_change("medium")
    first = manager.append_message(user("hi"))
    assert not os.path.exists(path)
    second = manager.append_message(assistant("hello"))
    rows = lines(path)
    assert [row["type"] for row in rows] == [
        "session",
        "model_change",
        "thinking_level_change",
        "message",
        "message",
    ]
    assert (
        rows[0]["cwd"] == "/home/dev/project" and rows[0]["version"] == 3 and "parentSession" not in rows[0]
    )
    assert list(rows[0]) == ["type", "version", "id", "timestamp", "cwd"]
    header_stamp = rows[0]["timestamp"]
    assert os.path.basename(path).startswith(header_stamp.replace(":", "-").replace(".", "-"))
    assert rows[3]["id"] == first and rows[4]["parentId"] == first and rows[4]["id"] == second
    manager.append_message(user("more"))
    assert len(lines(path)) == 6
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    manager.close()


def test_entry_key_order_and_omissions_match_pi(tmp_path: Path) -> None:
    manager = SessionManager.create("/p", str(tmp_path))
    manager.append_message(user("q"))
    manager.append_message(assistant("a"))
    manager.append_compaction("sum", "x", 5)
    manager.append_compaction("sum", "x", 5, details={"readFiles": []}, from_hook=False, usage=Usage(input=1))
    manager.append_custom_entry("state", {"n": 1})
    manager.append_custom_entry("empty")
    manager.append_custom_message_entry("ext", "text", True)
    manager.append_custom_message_entry("ext", "text", False, details={"d": 1})
    target = manager.get_leaf_id()
    assert target is not None
    manager.append_label_change(target, "L")
    manager.append_label_change(target)
    manager.append_session_info("  My\r\nname\n ")
    manager.branch_with_summary(None, "left")
    rows = lines(manager.get_session_file() or "")[3:]
    keys = [list(row) for row in rows]
    base = ["type", "id", "parentId", "timestamp"]
    assert keys == [
        [*base, "summary", "firstKeptEntryId", "tokensBefore"],
        [*base, "summary", "firstKeptEntryId", "tokensBefore", "details", "usage", "fromHook"],
        ["type", "customType", "data", "id", "parentId", "timestamp"],
        ["type", "customType", "id", "parentId", "timestamp"],
        ["type", "customType", "content", "display", "id", "parentId", "timestamp"],
        ["type", "customType", "content", "display", "details", "id", "parentId", "timestamp"],
        [*base, "targetId", "label"],
        [*base, "targetId"],
        [*base, "name"],
        [*base, "fromId", "summary"],
    ]
    assert rows[8]["name"] == "My name"
    assert rows[9]["parentId"] is None and rows[9]["fromId"] == rows[8]["id"]
    assert all(re.fullmatch(r"[0-9a-f]{8}", row["id"]) and ISO.match(row["timestamp"]) for row in rows)
    assert len({row["id"] for row in rows}) == len(rows)
    manager.close()


def test_labels_names_tree_and_navigation() -> None:
    manager = SessionManager.in_memory("/p")
    root = manager.append_message(user("one"))
    reply = manager.append_message(assistant("two"))
    manager.append_label_change(root, "start")
    assert manager.get_label(root) == "start"
    manager.append_session_info("First")
    manager.branch(root)
    side = manager.append_message(assistant("side"))
    manager.append_session_info("")
    assert manager.get_session_name() is None
    manager.append_session_info("Second")
    assert manager.get_session_name() == "Second"
    tree = manager.get_tree()
    assert len(tree) == 1 and tree[0].entry.id == root and tree[0].label == "start"
    assert tree[0].label_timestamp is not None
    assert [child.entry.id for child in tree[0].children] == [reply, side]
    assert [entry.id for entry in manager.get_children(root)] == [reply, side]
    assert [entry.id for entry in manager.get_branch()][:2] == [root, side]
    with pytest.raises(EntryNotFoundError, match="Entry nope not found"):
        manager.branch("nope")
    with pytest.raises(EntryNotFoundError):
        manager.append_label_change("nope", "x")
    manager.reset_leaf()
    assert manager.build_session_context().messages == []
    new_root = manager.append_message(user("again"))
    assert manager.get_entry(new_root).parent_id is None  # type: ignore[union-attr]
    assert len(manager.get_tree()) == 2
    manager.append_label_change(root, None)
    assert manager.get_label(root) is None


def test_context_restores_model_thinking_and_compaction() -> None:
    manager = SessionManager.in_memory("/p")
    manager.append_model_change("anthropic", "claude-sonnet-4-5")
    manager.append_thinking_level_change("high")
    manager.append_message(user("u1"))
    manager.append_message(assistant("a1"))
    kept = manager.append_message(user("u2"))
    manager.append_message(assistant("a2", provider="openai", model="gpt-5"))
    manager.append_message(
        BashExecutionMessage(
            command="ls", output="", cancelled=False, truncated=False, timestamp=9, exclude_from_context=True
        )
    )
    manager.append_compaction("summary", kept, 1234)
    manager.append_custom_message_entry("ext", "note", False)
    manager.append_custom_entry("state", 1)
    context = manager.build_session_context()
    assert context.thinking_level == "high"
    assert context.model is not None and (context.model.provider, context.model.model_id) == (
        "openai",
        "gpt-5",
    )
    roles = [message.role for message in context.messages]
    assert roles == ["compactionSummary", "user", "assistant", "bashExecution", "custom"]
    assert (
        isinstance(context.messages[0], CompactionSummaryMessage)
        and context.messages[0].tokens_before == 1234
    )
    assert isinstance(context.messages[4], CustomRoleMessage) and context.messages[4].display is False
    assert manager.build_context_entries()[0].type == "compaction"
    same = build_session_context(manager.get_entries())
    assert same == context


def test_reopen_keeps_everything_and_leaf_is_last_line(tmp_path: Path) -> None:
    manager = SessionManager.create("/p", str(tmp_path))
    first = manager.append_message(user("u"))
    manager.append_message(assistant("a"))
    call, result = tool_turn()
    manager.append_message(call)
    manager.append_message(result)
    manager.branch(first)
    last = manager.append_label_change(first, "here")
    path = manager.get_session_file()
    before = manager.build_session_context()
    manager.close()
    again = SessionManager.open(path or "")
    assert again.get_leaf_id() == last and again.get_label(first) == "here"
    assert again.get_session_id() == manager.get_session_id() and again.get_cwd() == "/p"
    assert [entry.id for entry in again.get_entries()] == [entry.id for entry in manager.get_entries()]
    assert again.build_session_context() == before
    assert isinstance(again.get_entries()[3], SessionMessageEntry)
    again.close()


def test_create_branched_session_drops_labels_from_the_path_and_reapplies_them(tmp_path: Path) -> None:
    manager = SessionManager.create("/p", str(tmp_path))
    question = manager.append_message(user("q"))
    manager.append_label_change(question, "L1")
    answer = manager.append_message(assistant("r"))
    old_file = manager.get_session_file()
    new_file = manager.create_branched_session(answer)
    assert new_file is not None and new_file != old_file and os.path.exists(new_file)
    rows = lines(new_file)
    assert rows[0]["parentSession"] == old_file
    assert [row["type"] for row in rows] == ["session", "message", "message", "label"]
    assert rows[2]["parentId"] == question and rows[1]["parentId"] is None
    assert rows[3]["parentId"] == answer and rows[3]["targetId"] == question and rows[3]["label"] == "L1"
    assert manager.get_label(question) == "L1" and manager.get_session_file() == new_file
    with pytest.raises(EntryNotFoundError):
        manager.create_branched_session("missing")
    manager.close()
    memory = SessionManager.in_memory("/p")
    memory.append_message(user("q"))
    assert memory.create_branched_session(memory.get_leaf_id() or "") is None


def test_fork_from_copies_the_whole_tree(tmp_path: Path) -> None:
    source = write(
        tmp_path / "src.jsonl",
        [
            HEADER,
            {
                "type": "message",
                "id": "a",
                "parentId": None,
                "timestamp": "2026-01-01T00:00:01.000Z",
                "message": {"role": "user", "content": "hi", "timestamp": 1},
            },
        ],
    )
    target_dir = tmp_path / "target"
    forked = SessionManager.fork_from(str(source), "/elsewhere", str(target_dir))
    rows = lines(forked.get_session_file() or "")
    assert rows[0]["cwd"] == "/elsewhere" and rows[0]["parentSession"] == str(source)
    assert rows[1] == lines(source)[1]
    forked.close()
    with pytest.raises(Exception, match="Cannot fork"):
        SessionManager.fork_from(str(tmp_path / "missing.jsonl"), "/x", str(target_dir))


def test_default_location_session_ids_and_continue_recent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    assert encode_cwd("/home/dev/project") == "--home-dev-project--"
    manager = SessionManager.create("/home/dev/project", session_id="my-id.1")
    assert manager.get_session_dir() == str(tmp_path / "agent" / "sessions" / "--home-dev-project--")
    assert stat.S_IMODE(os.stat(tmp_path / "agent").st_mode) == 0o700
    assert manager.uses_default_session_dir()
    manager.append_message(assistant("a"))
    manager.close()
    with pytest.raises(InvalidSessionIdError, match="Session id must be non-empty"):
        SessionManager.create("/home/dev/project", session_id="-bad")
    recent = SessionManager.continue_recent("/home/dev/project")
    assert recent.get_session_id() == "my-id.1"
    recent.close()
    fresh = SessionManager.continue_recent("/home/dev/other")
    assert fresh.get_entries() == [] and fresh.get_session_id() != "my-id.1"


def test_invalid_empty_and_missing_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type":"message","id":"x","parentId":null}\n')
    with pytest.raises(InvalidSessionError, match=f"Session file is not a valid pi session: {bad}"):
        SessionManager.open(str(bad))
    assert not os.path.exists(f"{bad}.lock")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    manager = SessionManager.open(str(empty))
    assert lines(empty)[0]["type"] == "session"
    manager.close()
    missing = tmp_path / "new.jsonl"
    manager = SessionManager.open(str(missing))
    manager.append_message(user("u"))
    assert not missing.exists()
    manager.append_message(assistant("a"))
    assert len(lines(missing)) == 3
    manager.close()


def test_bad_lines_are_reported_and_kept(tmp_path: Path) -> None:
    entry = {
        "type": "message",
        "id": "a",
        "parentId": None,
        "timestamp": "2026-01-01T00:00:01.000Z",
        "message": {"role": "user", "content": "hi", "timestamp": 1},
    }
    child = {
        **entry,
        "id": "b",
        "parentId": "a",
        "message": {"role": "user", "content": None, "timestamp": 2},
    }
    path = write(tmp_path / "s.jsonl", [HEADER, entry, "{broken", "", "[1,2]", child])
    original = path.read_bytes()
    manager = SessionManager.open(str(path))
    problems = [(problem.line, problem.kind) for problem in manager.problems]
    assert problems == [(3, "malformed"), (5, "invalid")]
    assert str(manager.problems[0]).startswith(f"{path}:3: ")
    assert manager.build_session_context().messages[1].content == []  # type: ignore[union-attr]
    manager.append_message(user("more"))
    assert path.read_bytes().startswith(original)
    manager.close()


def test_migration_backs_up_and_keeps_bad_lines(tmp_path: Path) -> None:
    header = {"type": "session", "id": "legacy", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/p"}
    rows: list[dict[str, object] | str] = [
        header,
        {
            "type": "message",
            "timestamp": "2025-01-01T00:00:01.000Z",
            "message": {"role": "user", "content": "hi", "timestamp": 1},
        },
        "{not json",
        {
            "type": "message",
            "timestamp": "2025-01-01T00:00:02.000Z",
            "message": {
                "role": "hookMessage",
                "customType": "x",
                "content": "c",
                "display": False,
                "timestamp": 2,
            },
        },
        {
            "type": "compaction",
            "timestamp": "2025-01-01T00:00:03.000Z",
            "summary": "s",
            "firstKeptEntryIndex": 1,
            "tokensBefore": 10,
        },
    ]
    path = write(tmp_path / "old.jsonl", rows)
    original = path.read_bytes()
    manager = SessionManager.open(str(path))
    assert len(manager.backups) == 1 and Path(manager.backups[0]).read_bytes() == original
    assert not manager.backups[0].endswith(".jsonl")
    text = path.read_text().splitlines()
    assert text[2] == "{not json"
    migrated = [json.loads(line) for index, line in enumerate(text) if index != 2]
    assert list(migrated[0]) == ["type", "id", "timestamp", "cwd", "version"] and migrated[0]["version"] == 3
    assert migrated[2]["message"]["role"] == "custom"
    assert migrated[3]["firstKeptEntryId"] == migrated[1]["id"] and "firstKeptEntryIndex" not in migrated[3]
    assert [row["parentId"] for row in migrated[1:]] == [None, migrated[1]["id"], migrated[2]["id"]]
    assert [problem.line for problem in manager.problems] == [3]
    manager.close()


def test_read_only_never_writes(tmp_path: Path) -> None:
    header = {
        "type": "session",
        "version": 2,
        "id": "v2",
        "timestamp": "2025-01-01T00:00:00.000Z",
        "cwd": "/p",
    }
    path = write(
        tmp_path / "v2.jsonl",
        [
            header,
            {
                "type": "message",
                "id": "a",
                "parentId": None,
                "timestamp": "t",
                "message": {
                    "role": "hookMessage",
                    "customType": "x",
                    "content": "c",
                    "display": True,
                    "timestamp": 1,
                },
            },
        ],
    )
    path.write_bytes(path.read_bytes() + b'{"type":"mess')
    before = path.read_bytes()
    manager = SessionManager.open(str(path), read_only=True)
    assert manager.build_session_context().messages[0].role == "custom"
    with pytest.raises(ReadOnlySessionError):
        manager.append_message(user("x"))
    assert path.read_bytes() == before and not os.path.exists(f"{path}.lock")


def test_entry_ids_never_collide() -> None:
    manager = SessionManager.in_memory("/p")
    ids = {manager.append_custom_entry("n", index) for index in range(3000)}
    assert len(ids) == 3000
    assert isinstance(manager.get_entries()[0], type(manager.get_entries()[1]))
    assert all(not isinstance(entry, LabelEntry) for entry in manager.get_entries())
