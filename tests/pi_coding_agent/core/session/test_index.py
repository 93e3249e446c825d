"""The file index: the fast path (whole chunks in one msgspec call) sees exactly what a
line-by-line reader sees, whatever the mix of good and bad lines and wherever chunks end."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pi_coding_agent.core.session import SessionManager, build_session_context
from pi_coding_agent.core.session import _index as index_module
from pi_coding_agent.core.session._entries import decode_entry, entry_to_dict
from pi_coding_agent.core.session._index import FileIndex
from tests.pi_coding_agent.core.session.helpers import assistant, user

HEADER = '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}'


def _message(entry_id: str, parent: str | None, text: str = "hi") -> str:
    return json.dumps(
        {
            "type": "message",
            "id": entry_id,
            "parentId": parent,
            "timestamp": "2026-01-01T00:00:01.000Z",
            "message": {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1},
        },
        separators=(",", ":"),
        ensure_ascii=False,
    )


def _compaction(entry_id: str, parent: str | None, first_kept: str | None) -> str:
    data = {
        "type": "compaction",
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2026-01-01T00:00:03.000Z",
        "summary": "so far",
        "firstKeptEntryId": first_kept,
        "tokensBefore": 5,
    }
    return json.dumps(data, separators=(",", ":"))


# Each kind makes one or more lines from (entry id, parent id).
LINE_KINDS: dict[str, Any] = {
    "message": _message,
    "long": lambda i, p: _message(i, p, "x" * 700),
    "unicode": lambda i, p: _message(i, p, 'é\\n✓ "quoted" \\\\ \u2028'),
    "label": lambda i, p: (
        f'{{"type":"label","id":"{i}","parentId":{json.dumps(p)},'
        f'"timestamp":"2026-01-01T00:00:02.000Z","targetId":"{p}","label":"L{i}"}}'
    ),
    "label_cleared": lambda i, p: (
        f'{{"type":"label","id":"{i}","parentId":{json.dumps(p)},"timestamp":"t","targetId":"{p}"}}'
    ),
    "model": lambda i, p: (
        f'{{"type":"model_change","id":"{i}","parentId":{json.dumps(p)},"timestamp":"t",'
        '"provider":"openai","modelId":"gpt-5"}'
    ),
    "unknown_type": lambda i, p: f'{{"type":"from_the_future","id":"{i}","parentId":{json.dumps(p)}}}',
    "no_parent_key": lambda i, p: f'{{"type":"custom","customType":"x","id":"{i}","timestamp":"t"}}',
    "leading_space": lambda i, p: "  " + _message(i, p),
    "trailing_space": lambda i, p: _message(i, p) + " \t",
    "crlf": lambda i, p: _message(i, p) + "\r",
    "blank": lambda i, p: "",
    "spaces_only": lambda i, p: "   ",
    "malformed": lambda i, p: '{"type":"message","id":',
    "two_values": lambda i, p: _message(i, p) + " " + _message(i + "b", i),
    "spread": lambda i, p: '{"type":"message",\n"id":"' + i + '","parentId":null}',
    # With a "two_values" line in the same chunk, the counts of lines and values agree.
    "spread_object": lambda i, p: '{"type":"message","id":"' + i + '","x":\n{"parentId":null}}',
    "array": lambda i, p: "[1,2]",
    "number": lambda i, p: "42",
    "null": lambda i, p: "null",
    "second_header": lambda i, p: HEADER,
    "numeric_id": lambda i, p: f'{{"type":"message","id":7,"parentId":{json.dumps(p)}}}',
    "numeric_parent": lambda i, p: f'{{"type":"message","id":"{i}","parentId":3}}',
    "numeric_type": lambda i, p: f'{{"type":1,"id":"{i}","parentId":null}}',
    "duplicate_id": lambda i, p: _message("dup", p),
    "compaction": lambda i, p: _compaction(i, p, p),
    "compaction_first": lambda i, p: _compaction(i, p, "e0000"),
    "compaction_unknown": lambda i, p: _compaction(i, p, "nowhere"),
    "empty_parent": lambda i, p: _message(i, ""),
}


def _scan(path: Path, *, fast: bool, monkeypatch: pytest.MonkeyPatch) -> FileIndex:
    with monkeypatch.context() as patch:
        if not fast:
            patch.setattr(FileIndex, "_fast", lambda *args: 0)
        return FileIndex(str(path)).scan()


def _fields(index: FileIndex) -> dict[str, Any]:
    return {
        "header": index.header,
        "not_a_session": index.not_a_session,
        "ids": index.ids,
        "parents": index.parents,
        "types": index.types,
        "starts": list(index.starts),
        "ends": [index.end(position) for position in range(len(index.ids))],
        "lines": [index.line_of(position) for position in range(len(index.ids))],
        "labels": index.labels,
        "problems": [(p.line, p.kind, p.text) for p in index.problems],
        "size": index.size,
        "torn_tail": index.torn_tail,
    }


def _reference(data: bytes) -> list[tuple[int, str, Any]]:
    """(line number, id, parentId) of each line a plain per-line JSON reader accepts as an entry."""
    found: list[tuple[int, str, Any]] = []
    header_seen = False
    for number, line in enumerate(data.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if not header_seen:
            header_seen = True
            continue
        if not isinstance(value, dict) or value.get("type") == "session":
            continue
        if (
            isinstance(value.get("type"), str)
            and isinstance(value.get("id"), str)
            and (value.get("parentId") is None or isinstance(value.get("parentId"), str))
        ):
            found.append((number, value["id"], value.get("parentId")))
    return found


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    kinds=st.lists(st.sampled_from(sorted(LINE_KINDS)), max_size=40),
    chunk=st.sampled_from([64, 200, 512, 4096, 1 << 20]),
    torn=st.booleans(),
    before_header=st.sampled_from(["", "\n", "  \n\n", "null\n", "0\n"]),
)
def test_fast_scan_matches_line_by_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    *,
    kinds: list[str],
    chunk: int,
    torn: bool,
    before_header: str,
) -> None:
    rows = [HEADER]
    parent: str | None = None
    for number, kind in enumerate(kinds):
        entry_id = f"e{number:04d}"
        rows.append(LINE_KINDS[kind](entry_id, parent))
        parent = entry_id
    text = before_header + "".join(row + "\n" for row in rows)
    if torn:
        text += _message("torn", parent)[:30]
    path = tmp_path / "s.jsonl"
    path.write_bytes(text.encode())
    monkeypatch.setattr(index_module, "CHUNK_SIZE", chunk)

    fast = _scan(path, fast=True, monkeypatch=monkeypatch)
    slow = _scan(path, fast=False, monkeypatch=monkeypatch)
    assert _fields(fast) == _fields(slow)
    assert [(fast.line_of(i), fast.ids[i], fast.parents[i]) for i in range(len(fast.ids))] == _reference(
        text.encode()
    )
    # Decoding the tail while scanning changes nothing about the index, and each entry it
    # decoded is its own line.
    data = text.encode()
    tail = FileIndex(str(path)).scan(decode_tail=True)
    assert _fields(tail) == _fields(slow)
    for position, entry in tail.decoded.items():
        assert entry_to_dict(entry) == json.loads(data[tail.starts[position] : tail.end(position)])
    # Reading entries back gives each entry's own line, whichever entries are asked for.
    for wanted in (range(len(fast.ids)), range(0, len(fast.ids), 3)):
        assert [(i, bytes(line)) for i, line in fast.lines(wanted)] == [
            (i, data[fast.starts[i] : fast.end(i)]) for i in wanted
        ]


def test_reading_back_in_runs_and_spans(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries are decoded per run of adjacent lines; bad lines between them, entries that
    do not validate and tiny read spans change nothing about what is decoded."""
    rows = [HEADER]
    parent: str | None = None
    for number in range(300):
        entry_id = f"e{number:04d}"
        if number % 37 == 5:
            rows.append("{broken")
        if number % 53 == 7:  # a message that does not validate (no timestamp): kept, reported
            rows.append(
                f'{{"type":"message","id":"{entry_id}","parentId":{json.dumps(parent)},"message":{{}}}}'
            )
        else:
            rows.append(_message(entry_id, parent, "text " * (number % 9)))
        parent = entry_id
    path = tmp_path / "s.jsonl"
    path.write_text("".join(row + "\n" for row in rows))
    expected = [
        entry_to_dict(decode_entry(line)) for line in path.read_text().splitlines()[1:] if line != "{broken"
    ]
    for gap, span in ((64 * 1024, 4 << 20), (0, 1), (300, 2000)):
        monkeypatch.setattr(index_module, "READ_GAP", gap)
        monkeypatch.setattr(index_module, "READ_SPAN", span)
        manager = SessionManager.open(str(path), read_only=True)
        # Ask for a scattered subset first, then everything.
        manager._store.entries(list(range(0, 300, 7)))
        assert [entry_to_dict(entry) for entry in manager.get_entries()] == expected
        reported = sorted(problem.line for problem in manager.problems if problem.kind == "invalid")
        assert reported == [number + 2 + (number - 5) // 37 + 1 for number in range(300) if number % 53 == 7]
        assert manager.build_session_context() == build_session_context(
            [decode_entry(line) for line in path.read_text().splitlines()[1:] if line != "{broken"]
        )


def test_lines_that_only_together_look_like_one_value_per_line(tmp_path: Path) -> None:
    """One line holding two values and one value spread over two lines: as many values as
    lines, yet none of these lines is an entry on its own (Pi skips all three)."""
    rows = [
        HEADER,
        _message("a", None),
        LINE_KINDS["two_values"]("b", "a"),
        LINE_KINDS["spread_object"]("c", "a"),
        _message("d", "a"),
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(row + "\n" for row in rows))
    index = FileIndex(str(path)).scan()
    assert [(index.line_of(i), index.ids[i]) for i in range(len(index.ids))] == [(2, "a"), (6, "d")]
    assert [(problem.line, problem.kind) for problem in index.problems] == [
        (3, "malformed"),
        (4, "malformed"),
        (5, "malformed"),
    ]


def test_bulk_decoding_leaves_the_collector_as_it_found_it(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("".join(row + "\n" for row in [HEADER, _message("a", None), _message("b", "a")]))
    was_enabled = gc.isenabled()
    try:
        gc.enable()
        assert len(SessionManager.open(str(path), read_only=True).build_session_context().messages) == 2
        assert gc.isenabled() and gc.get_freeze_count() == 0

        gc.disable()  # the program's choice is kept
        SessionManager.open(str(path), read_only=True).build_session_context()
        assert not gc.isenabled()

        gc.enable()
        gc.freeze()  # objects the program froze stay frozen
        assert gc.get_freeze_count() > 0
        SessionManager.open(str(path), read_only=True).build_session_context()
        # Not thawed (an unfreeze would empty the permanent generation). The exact count is no
        # measure: a frozen object whose last reference goes (another test's leftovers) is freed.
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        if was_enabled:
            gc.enable()
        else:
            gc.disable()


def test_tail_pass_decodes_back_to_the_latest_compactions_first_kept_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [HEADER]
    parent: str | None = None
    for number in range(400):
        entry_id = f"e{number:04d}"
        if number == 300:
            rows.append(_compaction(entry_id, parent, "e0100"))  # an older compaction
        elif number == 350:
            rows.append(_compaction(entry_id, parent, "e0340"))
        else:
            rows.append(_message(entry_id, parent, "x" * 50))
        parent = entry_id
    path = tmp_path / "s.jsonl"
    path.write_text("".join(row + "\n" for row in rows))
    monkeypatch.setattr(index_module, "CHUNK_SIZE", 2000)
    index = FileIndex(str(path)).scan(decode_tail=True)
    decoded = sorted(index.decoded)
    # Everything from the block holding e0340 to the end, and not much more.
    assert decoded == list(range(decoded[0], 400))
    assert 340 - 2000 // 100 <= decoded[0] <= 340
    assert _fields(index) == _fields(_scan(path, fast=False, monkeypatch=monkeypatch))

    # No compaction: the tail pass stops after TAIL_LIMIT bytes.
    path.write_text("".join(row + "\n" for row in rows[:300]))
    monkeypatch.setattr(index_module, "TAIL_LIMIT", 5000)
    index = FileIndex(str(path)).scan(decode_tail=True)
    assert 0 < len(index.decoded) <= 5000 // 100 + 2000 // 100
    assert sorted(index.decoded)[-1] == 298


def test_resume_is_the_same_with_and_without_the_tail_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session written by SessionManager (branches, labels, names, a compaction, model and
    thinking changes) reopens to the same context, entries, labels and tree whether its end
    was decoded while scanning (tiny blocks) or not (one block holds the whole file)."""
    manager = SessionManager.create("/home/dev/project", str(tmp_path))
    manager.append_model_change("anthropic", "claude-sonnet-4-5")
    ids = []
    for number in range(60):
        ids.append(manager.append_message(user(f"question {number} " + "x" * (number % 7) * 30)))
        ids.append(manager.append_message(assistant(f"answer {number}", timestamp=number)))
        if number == 20:
            manager.append_thinking_level_change("high")
        if number == 30:
            manager.append_label_change(ids[5], "start")
            manager.append_session_info("a name")
        if number == 40:
            back = manager.get_leaf_id()
            manager.branch(ids[-6])
            manager.append_message(user("a detour"))
            manager.branch_with_summary(back, "tried something else")
        if number == 45:
            manager.append_compaction("summary so far", ids[-8], 1234)
    path = manager.get_session_file()
    assert path is not None
    manager.close()

    def snapshot() -> tuple[Any, ...]:
        opened = SessionManager.open(path, read_only=True)
        tree = opened.get_tree()
        return (
            opened.build_session_context(),
            [entry_to_dict(entry) for entry in opened.get_entries()],
            opened.get_leaf_id(),
            opened.get_label(ids[5]),
            opened.get_session_name(),
            [(node.entry.id, node.label, len(node.children)) for node in tree],
            opened.problems,
        )

    whole = snapshot()
    monkeypatch.setattr(index_module, "CHUNK_SIZE", 300)
    tailed = snapshot()
    assert tailed == whole
    assert len(whole[0].messages) > 10


def test_tail_pass_with_lines_longer_than_a_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [HEADER] + [_message(f"a{number}", f"a{number - 1}" if number else None) for number in range(200)]
    rows += [_message("b", "a199", "y" * 20_000), _message("c", "b"), _message("d", "c")]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(row + "\n" for row in rows))
    monkeypatch.setattr(index_module, "CHUNK_SIZE", 100)
    index = FileIndex(str(path)).scan(decode_tail=True)
    assert sorted(index.decoded)[-3:] == [200, 201, 202]  # b, the long one, included
    assert sorted(index.decoded) == list(range(min(index.decoded), 203))
    assert _fields(index) == _fields(_scan(path, fast=False, monkeypatch=monkeypatch))
    monkeypatch.setattr(index_module, "TAIL_LIMIT", 1000)  # stops inside the long line
    index = FileIndex(str(path)).scan(decode_tail=True)
    assert sorted(index.decoded) == [201, 202]
    assert _fields(index) == _fields(_scan(path, fast=False, monkeypatch=monkeypatch))


@pytest.mark.parametrize(
    ("line", "kind"),
    [("null", "null"), ("[1]", "array"), ("5", "number"), ('"x"', "string"), ("true", "boolean")],
)
def test_a_line_that_is_no_object_is_reported_in_json_terms(tmp_path: Path, line: str, kind: str) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("".join(row + "\n" for row in [HEADER, line, _message("a", None)]))
    manager = SessionManager.open(str(path), read_only=True)
    assert [(problem.line, problem.message) for problem in manager.problems] == [
        (2, f"not a session entry (a JSON {kind})")
    ]
