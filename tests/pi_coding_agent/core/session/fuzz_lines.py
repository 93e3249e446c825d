"""Session files made of odd lines, for the loader fuzz (``test_fuzz``).

A file is a header and lines drawn from three kinds:

* entries Pi writes, and the odd ones it reads all the same: missing or ``null`` fields,
  entries without ids, unknown types and roles, non-string roles and timestamps, labels
  on unknown targets, compactions keeping unknown entries, numbers out of range, lone
  surrogate escapes, NUL escapes, CRLF line ends, a BOM; and entries with a lone surrogate
  or a 400-digit number at any one of their keys or values (``odd_anywhere_lines``;
  ``odd_cases`` lists every position of one entry, for the exhaustive test);
* lines both Pi and we skip: blank, malformed JSON, raw control characters, torn tails;
* lines where we differ from Pi on purpose (``docs/sessions``): JSON that is not an entry
  (``42``, ``[1]``, a non-string ``id``/``parentId``/``type``), nesting deeper than Python
  can hold, invalid UTF-8, bad timestamps on summary entries.

``Line.pi_comparable`` says whether the live oracle must read a file holding that line as
we do. Ids are unique among lines that have one, so no ``parentId`` cycle can form (Pi
would loop forever on one; we cut it, which ``test_walk`` covers).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from pi_coding_agent.core.session._entries import ENTRY_TYPES

HEADER = {
    "type": "session",
    "version": 3,
    "id": "fuzz",
    "timestamp": "2026-01-01T00:00:00.000Z",
    "cwd": "/fuzz",
}


@dataclass(frozen=True)
class Line:
    raw: bytes
    pi_comparable: bool = True
    entry_id: str | None = None
    """The id this line gives an entry (for later lines to point at)."""
    without_id: bool = False
    without_parent: bool = False
    """No ``parentId`` key: with an entry without id in the same file, Pi's tree hangs it
    under that entry (both keys ``undefined``); ours makes it a root (docs/sessions)."""


def _json(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")


TIMESTAMPS = st.sampled_from(
    ["2026-01-01T00:00:01.000Z", "2026-01-01T00:00:00Z", "not a date", "", "2026-02-30T00:00:00.000Z"]
)
MESSAGE_STAMPS = st.one_of(
    st.integers(min_value=0, max_value=2**53),
    st.sampled_from([1e15, -1, 0.5, "1760000000000", None]),
)
TEXT = st.text(max_size=12)
CONTENT = st.one_of(
    TEXT,
    st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": TEXT}), max_size=2),
    st.none(),
    st.just([{"type": "image", "data": "aGk=", "mimeType": "image/png"}]),
)


def _maybe(mapping: dict[str, Any], draw: st.DrawFn, keys: list[str]) -> dict[str, Any]:
    """``mapping`` without some of ``keys``, or with some of them ``null``."""
    for key in keys:
        choice = draw(st.integers(0, 5))
        if choice == 0:
            mapping.pop(key, None)
        elif choice == 1:
            mapping[key] = None
    return mapping


@st.composite
def message_values(draw: st.DrawFn) -> Any:
    role = draw(
        st.sampled_from(
            ["user", "assistant", "toolResult", "bashExecution", "custom", "robot", "hookMessage"]
        )
    )
    stamp = draw(MESSAGE_STAMPS)
    if role == "user":
        value: dict[str, Any] = {"role": role, "content": draw(CONTENT), "timestamp": stamp}
        return _maybe(value, draw, ["content", "timestamp"])
    if role == "assistant":
        usage = {
            "input": 1,
            "output": 2,
            "cacheRead": 0,
            "cacheWrite": 0,
            "totalTokens": 3,
            "cost": {"input": 0.5, "total": 0.5},
        }
        value = {
            "role": role,
            "content": [{"type": "text", "text": draw(TEXT)}],
            "api": "anthropic-messages",
            "provider": draw(st.sampled_from(["anthropic", "openai"])),
            "model": draw(st.sampled_from(["m1", "m2"])),
            "usage": _maybe(usage, draw, ["totalTokens", "cost", "cacheWrite"]),
            "stopReason": draw(st.sampled_from(["stop", "toolUse", "injected", "error"])),
            "timestamp": stamp,
        }
        return _maybe(value, draw, ["api", "provider", "model", "usage", "stopReason"])
    if role == "toolResult":
        value = {
            "role": role,
            "toolCallId": "c1",
            "toolName": "ls",
            "content": [],
            "isError": False,
            "timestamp": stamp,
        }
        return _maybe(value, draw, ["isError", "toolName", "content"])
    if role == "bashExecution":
        value = {
            "role": role,
            "command": "ls",
            "output": draw(TEXT),
            "exitCode": 1,
            "cancelled": False,
            "truncated": False,
            "timestamp": stamp,
        }
        return _maybe(value, draw, ["cancelled", "truncated", "exitCode", "output"])
    if role == "custom":
        value = {"role": role, "customType": "x", "content": draw(TEXT), "display": True, "timestamp": stamp}
        return _maybe(value, draw, ["display", "details"])
    return {"role": draw(st.sampled_from([role, {}, [], 1])), "content": "x", "timestamp": stamp}


@st.composite
def entry_lines(draw: st.DrawFn, earlier: list[str], number: int) -> Line:
    others = sorted(ENTRY_TYPES - {"message"})
    kind = draw(st.sampled_from(["message"] * 6 + others + ["unknown"]))
    entry_id = f"e{number}"
    parents = [None, "missing-parent", *earlier[-6:]]
    entry: dict[str, Any] = {
        "type": kind,
        "id": entry_id,
        "parentId": draw(st.sampled_from(parents)) if earlier else None,
        "timestamp": draw(TIMESTAMPS),
    }
    comparable = True
    if kind == "message":
        entry["message"] = draw(message_values())
    elif kind == "thinking_level_change":
        entry["thinkingLevel"] = draw(st.sampled_from(["high", "off", None, 3]))
    elif kind == "model_change":
        entry.update(provider="openai", modelId="gpt-5")
        _maybe(entry, draw, ["provider", "modelId"])
    elif kind == "compaction":
        entry.update(
            summary=draw(TEXT),
            firstKeptEntryId=draw(st.sampled_from([*earlier[-4:], "nowhere"])),
            tokensBefore=5,
        )
        _maybe(entry, draw, ["firstKeptEntryId", "tokensBefore"])
        comparable = entry["timestamp"] == "2026-01-01T00:00:01.000Z"  # bad times: NaN in Pi, 0 here
    elif kind == "branch_summary":
        entry.update(fromId="root", summary=draw(st.sampled_from(["", "gone that way"])))
        comparable = entry["timestamp"] == "2026-01-01T00:00:01.000Z"
    elif kind == "custom":
        entry.update(customType="ext", data={"n": 1})
    elif kind == "custom_message":
        entry.update(customType="ext", content=draw(CONTENT), display=True)
        _maybe(entry, draw, ["display", "content"])
        comparable = entry["timestamp"] == "2026-01-01T00:00:01.000Z"
    elif kind == "label":
        entry.update(
            targetId=draw(st.sampled_from([*earlier[-4:], "nowhere"])), label=draw(st.sampled_from(["L", ""]))
        )
        _maybe(entry, draw, ["label"])
    elif kind == "session_info":
        entry["name"] = draw(st.sampled_from([" name ", "", 5]))
        comparable = isinstance(entry["name"], str)  # Pi's getSessionName throws on a number
    if draw(st.integers(0, 9)) == 0:
        del entry["id"]  # Pi keeps it, with an undefined id
        entry_id = None
    if draw(st.integers(0, 11)) == 0:
        del entry["parentId"]
    raw = _json(entry)
    return Line(raw, comparable, entry_id, "id" not in entry, "parentId" not in entry and "id" in entry)


ODD_VALUES = {
    "lone surrogate": b'"\\ud83d"',
    "out of range": b"1e400",
    "NUL escape": b'"a\\u0000b"',
    "big int": b"9007199254740993",
}


@st.composite
def odd_value_lines(draw: st.DrawFn, earlier: list[str], number: int) -> Line:
    """A user message whose text or timestamp holds a value only a careful parser reads."""
    value = draw(st.sampled_from(sorted(ODD_VALUES)))
    field = b"timestamp" if value in ("out of range", "big int") else b"content"
    other = b'"content":"x"' if field == b"timestamp" else b'"timestamp":1'
    parent = _json(earlier[-1]) if earlier else b"null"
    raw = (
        b'{"type":"message","id":"e%d","parentId":%s,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user",%s,"%s":%s}}'
        % (number, parent, other, field, ODD_VALUES[value])
    )
    # JavaScript reads 9007199254740993 as 9007199254740992; we keep the integer.
    return Line(raw, value != "big int", f"e{number}")


JUNK = [
    (b"", True),
    (b"   ", True),
    (b"{not json", True),
    (
        b'{"type":"message","id":"t","parentId":null,"timestamp":"x","message":{"role":"user","content":"a\tb"',
        True,
    ),
    (b'{"a":"raw\x01control"}', True),
    (b"null", True),
    (b"0", True),
    (b"42", False),
    (b"[1]", False),
    (b'"text"', False),
    (b'{"type":"message","id":7,"parentId":null,"timestamp":"x"}', False),
    (b'{"type":"message","id":"n","parentId":5,"timestamp":"x"}', False),
    (b'{"id":"notype","parentId":null}', False),
    (
        b'{"type":"message","id":"deep","parentId":null,"timestamp":"x","message":{"role":"user","content":"x","timestamp":1,"x":'
        + b"[" * 1200
        + b"]" * 1200
        + b"}}",
        False,
    ),
    (
        b'{"type":"message","id":"bad-utf8","parentId":null,"timestamp":"x","message":{"role":"user","content":"\xff\xfe","timestamp":1}}',
        False,
    ),
    (_json({**HEADER, "id": "second-header"}), True),
]


@st.composite
def session_files(draw: st.DrawFn, max_lines: int = 14) -> tuple[bytes, bool]:
    """(file bytes, whether the live oracle must read it as we do)."""
    header = _json(HEADER)
    comparable = True
    if draw(st.integers(0, 15)) == 0:
        header = b"\xef\xbb\xbf" + header  # a BOM: neither Pi nor we take the line as a header
    lines = [header]
    earlier: list[str] = []
    without_id = without_parent = False
    for number in range(draw(st.integers(0, max_lines))):
        choice = draw(st.integers(0, 10))
        if choice < 7:
            line = draw(entry_lines(earlier, number))
        elif choice < 8:
            line = draw(odd_value_lines(earlier, number))
        elif choice < 9:
            line = draw(odd_anywhere_lines(earlier, number))
        else:
            raw, same = draw(st.sampled_from(JUNK))
            line = Line(raw, same)
        comparable = comparable and line.pi_comparable
        without_id, without_parent = without_id or line.without_id, without_parent or line.without_parent
        if line.entry_id is not None:
            earlier.append(line.entry_id)
        lines.append(line.raw)
    comparable = comparable and not (without_id and without_parent)
    ending = draw(st.sampled_from([b"\n", b"\n", b"\r\n"]))
    text = ending.join(lines) + ending
    if draw(st.integers(0, 7)) == 0:
        text += b'{"type":"message","id":"torn","parentId":null,"timest'  # a write that never finished
    return text, comparable


# --------------------------------------------------------------------------- odd values anywhere

ODD_TOKENS = {
    "lone high surrogate": b'"\\ud800"',
    "lone low surrogate in text": b'"a\\udc00b"',
    "400-digit integer": b"9" * 400,
    "400-digit negative integer": b"-" + b"9" * 400,
    "overflowing float": b"1e400",
    "400-digit fraction": b"9" * 400 + b".5",
}
"""Values valid as JSON that strain a reader: Node writes lone surrogates (a string cut inside an
emoji), and any program may write a number no float holds."""
SURROGATE_KEY = b'"k\\ud83d"'


def has_odd_value(data: bytes) -> bool:
    """Whether a file holds a lone surrogate escape or a number no float holds (for the figures)."""
    return any(token in data for token in (b"\\ud8", b"\\udc", b"1e400", b"9" * 400))


_MARK = "\x00odd\x00"
_MARKED = _json(_MARK)


def _positions(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every position of ``value``: ``path`` to each value, and ``(*path, KEY)`` for each key."""
    found: list[tuple[Any, ...]] = [path] if path else []
    if isinstance(value, dict):
        for key, item in value.items():
            found.append((*path, key, KEY))
            found.extend(_positions(item, (*path, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_positions(item, (*path, index)))
    return found


KEY = object()
"""The last step of a position that names a key rather than a value."""


def with_odd_value(entry: dict[str, Any], position: tuple[Any, ...], token: bytes) -> bytes:
    """The line of ``entry`` with ``token`` at ``position`` (a key gets ``SURROGATE_KEY``)."""
    copy = json.loads(json.dumps(entry))
    *steps, last = position
    if last is KEY:
        *steps, name = steps
    target = copy
    for step in steps:
        target = target[step]
    if last is KEY:
        items = list(target.items())
        target.clear()
        target.update((_MARK if key == name else key, item) for key, item in items)
        return _json(copy).replace(_MARKED, SURROGATE_KEY, 1)
    target[last] = _MARK
    return _json(copy).replace(_MARKED, token, 1)


def _value_at(entry: dict[str, Any], position: tuple[Any, ...]) -> Any:
    value: Any = entry
    for step in position:
        value = value[step]
    return value


DATED_BY_ENTRY = frozenset({"compaction", "branch_summary", "custom_message"})
"""Entries whose message takes the entry's timestamp."""


def same_kind(entry: dict[str, Any], position: tuple[Any, ...], name: str) -> bool:
    """Whether the odd token keeps the JSON type of what it replaces (text for text, a number for
    a number): then the file differs from an ordinary one only in that text or number, and the
    live oracle must read it as we do. A 400-digit integer is never compared: JavaScript reads
    it as Infinity and writes ``null``; we keep the integer (docs/sessions)."""
    if position[-1] is KEY or "integer" in name:
        return False
    if position == ("timestamp",) and entry.get("type") in DATED_BY_ENTRY:
        return False  # not a date: Pi's message gets the timestamp NaN, ours 0 (docs/sessions)
    value = _value_at(entry, position)
    if "surrogate" in name:
        return isinstance(value, str)
    return isinstance(value, int | float) and not isinstance(value, bool)


def odd_cases(entry: dict[str, Any]) -> list[tuple[str, bytes, bool]]:
    """``entry`` with each odd token at each of its positions (keys: a lone surrogate only), and
    whether the token is of the same kind as the value it replaces (``same_kind``)."""
    cases = []
    for position in _positions(entry):
        where = "/".join("(key)" if step is KEY else str(step) for step in position)
        if position[-1] is KEY:
            cases.append((f"{where}: surrogate key", with_odd_value(entry, position, SURROGATE_KEY), False))
            continue
        cases.extend(
            (f"{where}: {name}", with_odd_value(entry, position, token), same_kind(entry, position, name))
            for name, token in ODD_TOKENS.items()
        )
    return cases


@st.composite
def odd_anywhere_lines(draw: st.DrawFn, earlier: list[str], number: int) -> Line:
    """An entry line with one odd token at a position drawn from all of its keys and values."""
    line = draw(entry_lines(earlier, number))
    entry = json.loads(line.raw)
    position = draw(st.sampled_from(_positions(entry)))
    name = draw(st.sampled_from(sorted(ODD_TOKENS)))
    raw = with_odd_value(entry, position, ODD_TOKENS[name])
    comparable = line.pi_comparable and same_kind(entry, position, name)
    kept_id = line.entry_id if position[0] != "id" else None
    return Line(raw, comparable, kept_id, line.without_id, line.without_parent)


_USAGE = {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 3, "cost": {"input": 0.5, "total": 0.5}}
SAMPLE_LINES: list[dict[str, Any]] = [
    HEADER,
    {"type": "message", "id": "u1", "parentId": None, "timestamp": "2026-01-01T00:00:01.000Z",
     "message": {"role": "user", "content": [{"type": "text", "text": "hi"},
                                             {"type": "image", "data": "aGk=", "mimeType": "image/png"}],
                 "timestamp": 1}},
    {"type": "message", "id": "a1", "parentId": "u1", "timestamp": "2026-01-01T00:00:01.000Z",
     "message": {"role": "assistant", "content": [{"type": "thinking", "thinking": "t"}, {"type": "text", "text": "ok"},
                                                  {"type": "toolCall", "id": "c1", "name": "ls", "arguments": {"path": "."}}],
                 "api": "anthropic-messages", "provider": "anthropic", "model": "m1", "usage": _USAGE,
                 "stopReason": "toolUse", "timestamp": 2}},
    {"type": "message", "id": "t1", "parentId": "a1", "timestamp": "2026-01-01T00:00:01.000Z",
     "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "ls", "content": [{"type": "text", "text": "f"}],
                 "isError": False, "timestamp": 3}},
    {"type": "message", "id": "b1", "parentId": "t1", "timestamp": "2026-01-01T00:00:01.000Z",
     "message": {"role": "bashExecution", "command": "ls", "output": "f", "exitCode": 0, "cancelled": False,
                 "truncated": False, "timestamp": 4}},
    {"type": "message", "id": "x1", "parentId": "b1", "timestamp": "2026-01-01T00:00:01.000Z",
     "message": {"role": "custom", "customType": "ext", "content": "c", "display": True, "timestamp": 5}},
    {"type": "thinking_level_change", "id": "l1", "parentId": "x1", "timestamp": "2026-01-01T00:00:01.000Z",
     "thinkingLevel": "high"},
    {"type": "model_change", "id": "m1", "parentId": "l1", "timestamp": "2026-01-01T00:00:01.000Z",
     "provider": "openai", "modelId": "gpt-5"},
    {"type": "compaction", "id": "c2", "parentId": "m1", "timestamp": "2026-01-01T00:00:01.000Z", "summary": "s",
     "firstKeptEntryId": "a1", "tokensBefore": 5, "details": {"readFiles": ["a"], "modifiedFiles": []}},
    {"type": "branch_summary", "id": "s1", "parentId": "c2", "timestamp": "2026-01-01T00:00:01.000Z",
     "fromId": "u1", "summary": "went"},
    {"type": "custom", "id": "k1", "parentId": "s1", "timestamp": "2026-01-01T00:00:01.000Z", "customType": "ext",
     "data": {"n": 1}},
    {"type": "custom_message", "id": "k2", "parentId": "k1", "timestamp": "2026-01-01T00:00:01.000Z",
     "customType": "ext", "content": [{"type": "text", "text": "c"}], "display": True},
    {"type": "label", "id": "g1", "parentId": "k2", "timestamp": "2026-01-01T00:00:01.000Z", "targetId": "u1",
     "label": "L"},
    {"type": "session_info", "id": "n1", "parentId": "g1", "timestamp": "2026-01-01T00:00:01.000Z", "name": "N"},
]
"""One line of each kind with every field it has (header first): a session whose lines, one at a
time, take each odd token at each position (``odd_cases``)."""
V1_LINES: list[dict[str, Any]] = [
    {key: value for key, value in HEADER.items() if key != "version"},
    {"type": "message", "timestamp": "2026-01-01T00:00:01.000Z", "message": {"role": "user", "content": "hi", "timestamp": 1}},
    {"type": "compaction", "timestamp": "2026-01-01T00:00:01.000Z", "summary": "s", "firstKeptEntryIndex": 1,
     "tokensBefore": 5},
    {"type": "message", "timestamp": "2026-01-01T00:00:01.000Z",
     "message": {"role": "hookMessage", "customType": "x", "content": "c", "display": True, "timestamp": 2}},
]
"""A version 1 file (migrated on open): the same, through the migration."""


def odd_files(lines: list[dict[str, Any]], *, numbers_compare: bool = True) -> list[tuple[str, bytes, bool]]:
    """``lines`` as a file once per odd case of each line (the other lines as they are), and
    whether the live oracle must read it as we do. ``numbers_compare=False`` for a v1 file: Pi
    keeps the migrated entries it holds in memory (``Infinity``), we read back the rewritten
    file (``null``, as both write it; docs/sessions)."""
    plain = [_json(line) for line in lines]
    files = []
    for number, line in enumerate(lines):
        for name, odd, comparable in odd_cases(line):
            text = b"\n".join([*plain[:number], odd, *plain[number + 1 :]]) + b"\n"
            compared = comparable and number > 0 and (numbers_compare or "surrogate" in name)
            files.append((f"line {number + 1} ({line['type']}) {name}", text, compared))
    return files
