"""Version 1 and 2 session files, brought to version 3 the way Pi 0.85 does it.

v1 -> v2: every entry gets a fresh ``id`` and ``parentId`` = the previous entry (keys added
at the end); a compaction's ``firstKeptEntryIndex`` (an index into the parsed lines,
header included) becomes ``firstKeptEntryId``. v2 -> v3: the ``hookMessage`` role becomes
``custom``. Every header line gets the new ``version``.

Unlike Pi, which rewrites the file from its parsed entries only (dropping lines it could
not parse), ``load_legacy`` keeps every non-blank line in place so the rewrite loses
nothing; the caller backs the original file up first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pi_coding_agent.core.session._entries import CURRENT_SESSION_VERSION
from pi_coding_agent.core.session._ids import generate_entry_id
from pi_coding_agent.core.session._lines import LineError, encode_line, parse_line


@dataclass(slots=True)
class LegacyFile:
    """A file read line by line: parsed objects, and the raw lines that are kept as they are."""

    lines: list[dict[str, Any] | bytes] = field(default_factory=list)
    """File order, blank lines dropped. A dict per parsed object, bytes for anything else."""

    def entries(self) -> list[dict[str, Any]]:
        return [line for line in self.lines if isinstance(line, dict)]

    def render(self) -> bytes:
        out = bytearray()
        for line in self.lines:
            out += encode_line(line) if isinstance(line, dict) else line
            out += b"\n"
        return bytes(out)


def load_legacy(data: bytes) -> LegacyFile:
    result = LegacyFile()
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        try:
            value = parse_line(raw)
        except LineError:
            result.lines.append(raw)
            continue
        result.lines.append(value if isinstance(value, dict) else raw)
    return result


def file_version(entries: list[dict[str, Any]]) -> Any:
    header = next((entry for entry in entries if entry.get("type") == "session"), None)
    if header is None:
        return None
    version = header.get("version")
    return 1 if version is None else version


def migrate_session_entries(entries: list[dict[str, Any]]) -> bool:
    """Bring parsed entries (header included) to version 3 in place. True if anything changed."""
    version = file_version(entries)
    if version is None:
        version = 1
    if not isinstance(version, int | float) or version >= CURRENT_SESSION_VERSION:
        return False
    if version < 2:
        _v1_to_v2(entries)
    _v2_to_v3(entries)
    return True


def _v1_to_v2(entries: list[dict[str, Any]]) -> None:
    # Pi checks new ids against a set it never fills; the ids are just random.
    nothing_taken: frozenset[str] = frozenset()
    previous: str | None = None
    for entry in entries:
        if entry.get("type") == "session":
            entry["version"] = 2
            continue
        entry["id"] = generate_entry_id(nothing_taken)
        entry["parentId"] = previous
        previous = entry["id"]
        value = entry.get("firstKeptEntryIndex")
        if (
            entry.get("type") == "compaction"
            and isinstance(value, int | float)
            and not isinstance(value, bool)
        ):
            index = _array_index(value)
            target = entries[index] if index is not None and index < len(entries) else None
            # A target later in the file has no id yet: Pi then writes no key.
            if target is not None and target.get("type") != "session" and "id" in target:
                entry["firstKeptEntryId"] = target["id"]
            del entry["firstKeptEntryIndex"]


def _array_index(value: int | float) -> int | None:
    """The index ``entries[value]`` reads in JavaScript, or ``None`` where that is ``undefined``
    (negative or fractional). A 400-digit number (``Infinity`` to JavaScript) stays the integer
    it is, beyond any array; converting it to a float would overflow."""
    if isinstance(value, float) and not value.is_integer():  # also inf and nan
        return None
    return int(value) if value >= 0 else None


def _v2_to_v3(entries: list[dict[str, Any]]) -> None:
    for entry in entries:
        if entry.get("type") == "session":
            entry["version"] = 3
            continue
        message = entry.get("message")
        if (
            entry.get("type") == "message"
            and isinstance(message, dict)
            and message.get("role") == "hookMessage"
        ):
            message["role"] = "custom"
