"""A byte-level index of a session file: what Pi would parse, without decoding it all.

Opening a long session only needs each line's ``type``, ``id`` and ``parentId`` (plus the
few fields of ``label`` and ``session_info`` lines) to rebuild the tree and find the leaf;
the full content is decoded later, and only for the entries that are asked for (the active
path of a context, say). The file is read once in chunks into a reusable buffer. A chunk
of well-formed lines is checked and probed by msgspec in one call (``decode_lines``);
anything unusual in a chunk (a blank or malformed line, a second header, a line holding two
JSON values) sends just that chunk through a line-by-line reader that applies Pi's rules
exactly and records each bad line with its number.

Each entry remembers where its line starts and ends in the file, so the bytes of many
entries can be read back with a few ``pread`` calls.
"""

from __future__ import annotations

import gc
import os
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import compress, repeat
from operator import add, attrgetter, ne
from typing import Any, Literal, get_args

import msgspec

from pi_coding_agent.core.session._entries import decode_entry_lines, entry_type_names
from pi_coding_agent.core.session._files import open_for_reading
from pi_coding_agent.core.session._lines import LineError, parse_line

CHUNK_SIZE = 1 << 20
TAIL_LIMIT = 64 << 20
"""At most this much of the file's end is decoded whole while scanning (``scan(decode_tail=True)``)."""
READ_GAP = 64 * 1024
"""Entries closer than this in the file are read back with one call."""
READ_SPAN = 4 << 20

ProblemKind = Literal["malformed", "invalid", "torn"]


@dataclass(frozen=True, slots=True)
class SessionProblem:
    """A line that is not a usable session entry. The line stays in the file unchanged."""

    path: str
    line: int
    kind: ProblemKind
    """``malformed``: not JSON; ``invalid``: JSON that is not a valid entry; ``torn``: the last
    line is incomplete (an append that never finished)."""
    message: str
    text: str
    """The start of the line, for the report."""

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


_EntryType = Literal[
    "message",
    "thinking_level_change",
    "model_change",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "session_info",
]


class _Probe(msgspec.Struct, gc=False):
    """The only fields read from a line that needs a closer look (see ``_line``)."""

    type: Any = None
    id: Any = msgspec.UNSET
    """``UNSET`` when the line has no ``id`` (Pi keeps such an entry, with an undefined id)."""
    parentId: Any = None
    targetId: Any = None
    label: Any = None


class _EntryProbe(msgspec.Struct, gc=False):
    """The fields read from every line of a well-formed chunk.

    Typed, so msgspec itself checks what ``_line`` checks by hand: a line that is not an
    entry of a known type with a string ``id`` and a string or null ``parentId`` fails the
    whole chunk, which is then read line by line. A known ``type`` decodes to the one
    string object of the ``Literal``, so 100,000 entries share nine type strings (less
    memory and no per-line checks in Python: ``bench/session_resume.py``).
    """

    type: _EntryType
    id: str
    parentId: str | None = None
    targetId: Any = None
    label: Any = None


_PROBE = msgspec.json.Decoder(_Probe)
_ENTRY_PROBES = msgspec.json.Decoder(_EntryProbe)
_TYPE = attrgetter("type")
_ID = attrgetter("id")
_PARENT = attrgetter("parentId")
_PARENT_ID = attrgetter("parent_id")
_KNOWN_TYPES = {name: name for name in get_args(_EntryType)}


@contextmanager
def no_gc() -> Iterator[None]:
    """Pause the cyclic collector during bulk decoding, then file what was made as old.

    While paused, the collector would rescan every new object again and again. Afterwards
    the decoded entries are long-lived, but all of them are still in the youngest
    generation, so the next young collection would walk every one of them (tens of
    milliseconds for a long session's context). ``gc.freeze()`` + ``gc.unfreeze()`` moves
    every tracked object to the oldest generation at once instead: young garbage cycles
    made before this point are then found by the next full collection rather than a young
    one. Skipped when the program froze objects itself (``unfreeze`` would thaw them).
    ``bench/session_resume.py``: about 60 ms of CPU less on a 100,000-entry resume.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


class FileChangedError(RuntimeError):
    """The session file no longer holds the line an entry was indexed from."""


class _Tail:
    """The tail pass of ``FileIndex.scan``: well-formed entries decoded from the end backwards.

    ``blocks`` holds ``(entries, ids, types, line starts, end)`` from the last block back;
    ``start`` is where the tail begins (the rest of the file is indexed forwards).
    """

    def __init__(self, file: Any, size: int) -> None:
        self.blocks: list[tuple[list[Any], list[str], list[str], list[int], int]] = []
        self.start = size
        if size == 0:
            return
        file.seek(size - 1)
        if file.read(1) != b"\n":
            return  # a torn last line: the careful forward reader reports it
        wanted: str | msgspec.UnsetType | None = msgspec.UNSET
        """The latest compaction's firstKeptEntryId (UNSET: no compaction seen yet)."""
        buffer = bytearray(CHUNK_SIZE)
        carry = b""
        """The start of the line that began before the last block read (with its newline)."""
        low = size
        while size - low < TAIL_LIMIT:
            # Read at least as much as is carried over: a very long line costs O(its size).
            new_low = max(0, low - max(CHUNK_SIZE, len(carry)))
            if new_low == 0:
                return  # the first line (the header) is the forward reader's
            count = low - new_low
            if len(buffer) < count + len(carry):
                buffer = bytearray(count + len(carry))
            with memoryview(buffer) as view:
                file.seek(new_low)
                if file.readinto(view[:count]) != count:
                    return
                view[count : count + len(carry)] = carry
            low = new_low
            end = count + len(carry)
            cut = buffer.find(10, 0, end) + 1
            if cut == 0 or cut == end:
                carry = bytes(buffer[:end])  # no complete line yet: read further back
                continue
            decoded = _decode_block(buffer, cut, end, low)
            if decoded is None:
                return
            entries, starts = decoded
            ids = list(map(_ID, entries))
            types = entry_type_names(entries)
            self.blocks.append((entries, ids, types, starts, self.start))
            self.start = low + cut
            carry = bytes(buffer[:cut])
            if wanted is msgspec.UNSET:
                if "compaction" not in types:
                    continue
                latest = entries[len(types) - 1 - types[::-1].index("compaction")]
                first_kept = getattr(latest, "first_kept_entry_id", None)
                if not isinstance(first_kept, str):
                    return  # only what follows the compaction is kept: all decoded
                wanted = first_kept
                if any(wanted in block[1] for block in self.blocks):
                    return
            elif wanted in ids:
                return


def _decode_block(data: bytearray, begin: int, end: int, offset: int) -> tuple[list[Any], list[int]] | None:
    """Whole entries of the lines ``data[begin:end]`` (each ending with a newline), or
    ``None`` if any line is not a well-formed entry of a known type."""
    starts: list[int] = []
    record = starts.append
    find = data.find
    position = begin
    while position < end:  # the same line checks as FileIndex._fast
        if data[position] != 0x7B:
            return None
        record(position + offset)
        position = find(10, position) + 1
        if data[position - 2] != 0x7D:
            return None
    try:
        with memoryview(data) as view, view[begin:end] as region:
            entries: list[Any] = decode_entry_lines(region)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None
    if len(entries) != len(starts):
        return None
    return entries, starts


class FileIndex:
    """Entries of one session file in file order (header and bad lines excluded)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.header: dict[str, Any] | None = None
        self.not_a_session = False
        """The first parsed line is not a session header (Pi: not a valid session)."""
        self.ids: list[str | None] = []
        """Entry ids in file order; ``None`` for an entry without one (see ``_Probe.id``)."""
        self.parents: list[str | None] = []
        self.types: list[str] = []
        self.starts: list[int] = []
        """File offset where each entry's line starts (-1: the entry exists only in memory)."""
        self.gap_ends: dict[int, int] = {}
        """Where the line ends (its newline, or the end of the file) of each indexed entry
        whose line is not directly followed by the next entry's; every other line ends
        where the next one starts (see ``end``)."""
        self.line_runs: list[tuple[int, int]] = []
        """(first entry index, its line number) of each run of entries on consecutive lines."""
        self.labels: list[tuple[int, str, Any]] = []
        """(entry index, target id, label value) of every label line, in file order."""
        self.problems: list[SessionProblem] = []
        self.size = 0
        self.torn_tail = False
        """The file does not end with a newline."""
        self.indexed = 0
        """How many entries (the first ones) were read from the file by ``scan``."""
        self.decoded: dict[int, Any] = {}
        """Entries decoded whole while scanning (``scan(decode_tail=True)``), by index."""

    # ------------------------------------------------------------------ reading

    def scan(self, *, decode_tail: bool = False) -> FileIndex:
        """Index the file. ``decode_tail`` also decodes the entries a resume needs first.

        Resuming a session decodes the branch from the latest compaction's first kept
        entry to the end, which is nearly always the end of the file. With ``decode_tail``
        the file is first read backwards from its end, decoding whole entries (which
        validates them as the probe would) until the latest compaction's first kept entry
        has been seen, or ``TAIL_LIMIT`` bytes, or a block that is not made only of
        well-formed entries; the rest is indexed forwards as usual. Those lines are then
        parsed once instead of twice (probed here, decoded again later).
        """
        with open_for_reading(self.path, buffering=0) as file, no_gc():
            size = os.fstat(file.fileno()).st_size
            tail = _Tail(file, size) if decode_tail else None
            if tail is not None and not tail.blocks:
                tail = None
            head = tail.start if tail is not None else -1  # where reading forwards stops (-1: the end)
            buffer = bytearray(CHUNK_SIZE)
            filled = 0
            offset = 0
            line = 1
            eof = False
            while not self.not_a_session:
                if eof:
                    if tail is None or self.header is not None:
                        break
                    # No header before the tail (only blank lines, and more than a block of
                    # them): read on forwards as if there were no tail pass.
                    tail, head, eof = None, -1, False
                with memoryview(buffer) as view:
                    file.seek(offset + filled)
                    limit = len(buffer) if head < 0 else min(len(buffer), head - offset)
                    count = file.readinto(view[filled:limit])
                eof = not count
                filled += count or 0
                cut = buffer.rfind(b"\n", 0, filled) + 1
                end = filled if eof else cut
                if end == 0:
                    if filled == len(buffer):  # one line longer than the buffer
                        buffer = buffer + bytearray(len(buffer))
                    continue
                line += self._chunk(buffer, end, offset, line, final=eof and head < 0)
                rest = filled - end
                buffer[0:rest] = buffer[end:filled]
                offset += end
                filled = rest
            self.size = offset
            if tail is not None and not self.not_a_session:
                self._take_tail(tail, line)
                self.size = size
        self.indexed = len(self.ids)
        return self

    def _take_tail(self, tail: _Tail, line: int) -> None:
        """Append the entries the tail pass decoded (all on consecutive lines after the head)."""
        self.line_runs.append((len(self.ids), line))
        for entries, ids, types, starts, end in reversed(tail.blocks):
            base = len(self.ids)
            self.ids += ids
            self.parents += map(_PARENT_ID, entries)
            self.types += types
            self.starts += starts
            self.decoded.update(zip(range(base, base + len(entries)), entries, strict=True))
            if "label" in types:
                for position, kind in enumerate(types):
                    if kind == "label":
                        entry = entries[position]
                        label = None if entry.label is msgspec.UNSET else entry.label
                        self.labels.append((base + position, entry.target_id, label))
            self.gap_ends[base + len(entries) - 1] = end - 1

    def _chunk(self, buffer: bytearray, end: int, offset: int, first_line: int, final: bool) -> int:
        """Index the lines of ``buffer[:end]``; returns how many lines there were."""
        self.torn_tail = final and buffer[end - 1] != 0x0A
        begin, line = 0, first_line
        if self.header is None:
            begin, line = self._slow(buffer, 0, end, offset, line, until_header=True)
        # A torn last line has no newline: it is left to the careful reader.
        cut = buffer.rfind(b"\n", begin, end) + 1 if self.torn_tail else end
        if begin < cut and not self.not_a_session:
            lines = self._fast(buffer, begin, cut, offset, line)
            if lines:
                begin, line = cut, line + lines
        if begin < end and not self.not_a_session:
            begin, line = self._slow(buffer, begin, end, offset, line)
        return line - first_line

    def _fast(self, buffer: bytearray, begin: int, end: int, offset: int, first_line: int) -> int:
        """All lines of ``buffer[begin:end]`` (each ending with a newline) in one msgspec call.

        Returns how many lines there were, or 0 (nothing recorded) if the chunk needs care.
        """
        # Every line must start with "{" and end with "}". Then no value can run on into
        # the next line ("}" then "{" never follows inside JSON), so as many values as
        # lines means exactly one value on each line.
        starts: list[int] = []
        record = starts.append
        find = buffer.find
        position = begin
        while position < end:  # (the chunk ends with a newline: find never runs past it)
            if buffer[position] != 0x7B:
                return 0  # a blank line, or a line not starting with "{"
            record(position)
            position = find(10, position) + 1
            if buffer[position - 2] != 0x7D:
                return 0  # a line not ending with "}" (trailing space or "\r", or not JSON)
        try:
            with memoryview(buffer) as view, view[begin:end] as region:
                probes = _ENTRY_PROBES.decode_lines(region)
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            return 0
        lines = len(starts)
        if len(probes) != lines:
            return 0  # a line holding more than one JSON value, or one spread over lines
        base = len(self.ids)
        self.ids += map(_ID, probes)
        self.parents += map(_PARENT, probes)
        types = list(map(_TYPE, probes))
        self.types += types
        if offset:
            starts = list(map(add, starts, repeat(offset)))
        self.starts += starts
        self.gap_ends[base + lines - 1] = offset + end - 1
        self.line_runs.append((base, first_line))
        if "label" in types:
            for position, kind in enumerate(types):
                if kind == "label":
                    self._remember(base + position, probes[position])
        return lines

    def _slow(
        self,
        buffer: bytearray,
        begin: int,
        end: int,
        offset: int,
        first_line: int,
        *,
        until_header: bool = False,
    ) -> tuple[int, int]:
        """Index ``buffer[begin:end]`` line by line; returns where it stopped and the next line number.

        ``until_header`` stops after the line that decided what the file is.
        """
        start = begin
        number = first_line
        with memoryview(buffer) as view:
            while start < end and not self.not_a_session:
                newline = buffer.find(b"\n", start, end)
                stop = end if newline < 0 else newline
                with view[start:stop] as text:
                    self._line(text, offset + start, offset + stop, number, tail=newline < 0)
                start = stop + 1
                number += 1
                if until_header and (self.header is not None or self.not_a_session):
                    break
        return min(start, end), number

    def _line(self, text: memoryview, start: int, stop: int, number: int, tail: bool) -> None:
        try:
            probe = _PROBE.decode(text)
        except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
            # Not an object, or a line only the careful parser reads (see ``_lines``).
            try:
                value = parse_line(text)
            except LineError as error:
                self._unparsable(text, number, tail, error)
                return
            if not isinstance(value, dict):
                self._not_an_object(value, text, number)
                return
            probe = _Probe(
                type=value.get("type"),
                id=value.get("id", msgspec.UNSET),
                parentId=value.get("parentId"),
                targetId=value.get("targetId"),
                label=value.get("label"),
            )
        if self.header is None:
            if probe.type == "session" and isinstance(probe.id, str):
                self.header = parse_line(text)
            else:
                self.not_a_session = True
            return
        if probe.type == "session":
            return  # a header line after the first is ignored, as Pi does
        entry_id = None if probe.id is msgspec.UNSET else probe.id
        if not (
            isinstance(probe.type, str)
            and (entry_id is None or isinstance(entry_id, str))
            and (probe.parentId is None or isinstance(probe.parentId, str))
        ):
            self._problem(number, "invalid", "not a session entry (needs string type, id and parentId)", text)
            return
        index = len(self.ids)
        self.ids.append(entry_id)
        self.parents.append(probe.parentId)
        self.types.append(_KNOWN_TYPES.get(probe.type, probe.type))
        self.starts.append(start)
        self.gap_ends[index] = stop
        self.line_runs.append((index, number))
        if probe.type == "label":
            self._remember(index, probe)

    def _unparsable(self, text: memoryview, number: int, tail: bool, error: Exception) -> None:
        if not bytes(text).strip():
            return  # blank lines are skipped, as Pi does
        if tail:
            self._problem(number, "torn", "incomplete last line (an append that did not finish)", text)
        else:
            self._problem(number, "malformed", f"not JSON ({error})", text)

    def _not_an_object(self, value: Any, text: memoryview, number: int) -> None:
        if self.header is None:
            # Pi skips falsy JSON values; any other value where the header belongs is fatal.
            if value:
                self.not_a_session = True
            return
        self._problem(number, "invalid", f"not a session entry (a JSON {_json_kind(value)})", text)

    def _remember(self, index: int, probe: _Probe | _EntryProbe) -> None:
        if isinstance(probe.targetId, str):
            self.labels.append((index, probe.targetId, probe.label))

    def _problem(self, number: int, kind: ProblemKind, message: str, text: memoryview) -> None:
        preview = bytes(text[:200]).decode("utf-8", "replace")
        self.problems.append(SessionProblem(self.path, number, kind, message, preview))

    def line_of(self, index: int) -> int:
        """The line number of an indexed entry (0 for entries that exist only in memory)."""
        if self.starts[index] < 0:
            return 0
        run = bisect_right(self.line_runs, (index, 1 << 62)) - 1
        first_index, first_line = self.line_runs[run]
        return first_line + index - first_index

    # ------------------------------------------------------------------ reading entries back

    def runs(self, indices: Iterable[int]) -> Iterator[tuple[int, int, memoryview]]:
        """The bytes of indexed entries, as ``(first, stop, lines)`` in file order.

        Each run is entries ``first .. stop - 1`` on adjacent lines, so ``lines`` is exactly
        their lines (newlines between them, none at the end) and can be decoded in one call.
        Runs near each other in the file share one read of about ``READ_SPAN`` bytes at most
        (a longer run is cut into pieces). Entries that exist only in memory are left out.
        ``lines`` is only valid until the next run is asked for: reads reuse one buffer.
        """
        wanted = sorted(set(indices))
        wanted = wanted[: bisect_left(wanted, self.indexed)]
        if not wanted:
            return
        count = len(wanted)
        starts = list(map(self.starts.__getitem__, wanted))
        # A run ends where the next wanted entry is not the next entry, or where this
        # entry's line is not followed by the next entry's (only those have a gap end).
        cuts = set(compress(range(1, count), map(ne, wanted[1:], map(add, wanted, repeat(1)))))
        for index in self.gap_ends:
            at = bisect_left(wanted, index)
            if at + 1 < count and wanted[at] == index:
                cuts.add(at + 1)
        pieces: list[tuple[int, int, int]] = []  # (first, stop, end offset) in ``wanted``
        first = 0
        for stop in (*sorted(cuts), count):
            while first < stop:
                # Cut a long run where entries start more than READ_SPAN into it.
                cut = max(bisect_right(starts, starts[first] + READ_SPAN, first + 1, stop), first + 1)
                pieces.append((first, cut, starts[cut] - 1 if cut < stop else self.end(wanted[cut - 1])))
                first = cut
        buffer = bytearray()
        with open_for_reading(self.path, buffering=0) as file:
            at = 0
            while at < len(pieces):
                span = [pieces[at]]
                span_start = starts[pieces[at][0]]
                at += 1
                while at < len(pieces):
                    first, stop, end = pieces[at]
                    if starts[first] - span[-1][2] > READ_GAP or end - span_start > READ_SPAN:
                        break
                    span.append(pieces[at])
                    at += 1
                size = span[-1][2] - span_start
                if len(buffer) < size:
                    buffer = bytearray(size)
                view = memoryview(buffer)
                file.seek(span_start)
                if file.readinto(view[:size]) != size:
                    raise FileChangedError(f"{self.path} is shorter than when it was opened")
                for first, stop, end in span:
                    yield (
                        wanted[first],
                        wanted[stop - 1] + 1,
                        view[starts[first] - span_start : end - span_start],
                    )

    def lines(self, indices: Iterable[int]) -> Iterator[tuple[int, memoryview]]:
        """``(index, bytes of its line)`` of indexed entries, in file order."""
        starts = self.starts
        for first, stop, view in self.runs(indices):
            base = starts[first]
            for index in range(first, stop):
                yield index, view[starts[index] - base : self.end(index) - base]

    def end(self, index: int) -> int:
        """Where the line of an indexed entry ends (the offset of its newline)."""
        found = self.gap_ends.get(index)
        return self.starts[index + 1] - 1 if found is None else found


def _json_kind(value: Any) -> str:
    """What JSON calls ``value``'s type (``null``, ``array``...), for messages users read."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"
