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
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import repeat
from operator import attrgetter, sub
from typing import Any, Literal

import msgspec

CHUNK_SIZE = 1 << 20
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


class _Probe(msgspec.Struct, gc=False):
    """The only fields read from every line when a file is indexed."""

    type: Any = None
    id: Any = None
    parentId: Any = None
    targetId: Any = None
    label: Any = None


_PROBE = msgspec.json.Decoder(_Probe)
_TYPE = attrgetter("type")
_ID = attrgetter("id")
_PARENT = attrgetter("parentId")
_KNOWN_TYPES = {
    name: name
    for name in (
        "message",
        "thinking_level_change",
        "model_change",
        "compaction",
        "branch_summary",
        "custom",
        "custom_message",
        "label",
        "session_info",
    )
}


@contextmanager
def no_gc() -> Iterator[None]:
    """Pause the cyclic collector during bulk decoding (it would rescan every new object)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class FileChangedError(RuntimeError):
    """The session file no longer holds the line an entry was indexed from."""


class FileIndex:
    """Entries of one session file in file order (header and bad lines excluded)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.header: dict[str, Any] | None = None
        self.not_a_session = False
        """The first parsed line is not a session header (Pi: not a valid session)."""
        self.ids: list[str] = []
        self.parents: list[str | None] = []
        self.types: list[str] = []
        self.starts = array("q")
        """File offset where each entry's line starts (-1: the entry exists only in memory)."""
        self.ends = array("q")
        """File offset of the newline (or end of file) after each entry's line."""
        self.line_runs: list[tuple[int, int]] = []
        """(first entry index, its line number) of each run of entries on consecutive lines."""
        self.labels: list[tuple[int, str, Any]] = []
        """(entry index, target id, label value) of every label line, in file order."""
        self.problems: list[SessionProblem] = []
        self.size = 0
        self.torn_tail = False
        """The file does not end with a newline."""

    # ------------------------------------------------------------------ reading

    def scan(self) -> FileIndex:
        with open(self.path, "rb", buffering=0) as file, no_gc():
            buffer = bytearray(CHUNK_SIZE)
            filled = 0
            offset = 0
            line = 1
            eof = False
            while not eof and not self.not_a_session:
                with memoryview(buffer) as view:
                    count = file.readinto(view[filled:])
                eof = not count
                filled += count or 0
                cut = buffer.rfind(b"\n", 0, filled) + 1
                end = filled if eof else cut
                if end == 0:
                    if filled == len(buffer):  # one line longer than the buffer
                        buffer = buffer + bytearray(len(buffer))
                    continue
                line += self._chunk(buffer, end, offset, line, final=eof)
                rest = filled - end
                buffer[0:rest] = buffer[end:filled]
                offset += end
                filled = rest
            self.size = offset
        return self

    def _chunk(self, buffer: bytearray, end: int, offset: int, first_line: int, final: bool) -> int:
        """Index the lines of ``buffer[:end]``; returns how many lines there were."""
        self.torn_tail = final and buffer[end - 1] != 0x0A
        if self.header is None or self.torn_tail:
            return self._slow(buffer, end, offset, first_line)
        lines = self._fast(buffer, end, offset, first_line)
        return lines if lines else self._slow(buffer, end, offset, first_line)

    def _fast(self, buffer: bytearray, end: int, offset: int, first_line: int) -> int:
        """All lines in one msgspec call; 0 (nothing recorded) if the chunk needs care."""
        starts: list[int] = []
        record = starts.append
        find = buffer.find
        position = 0
        while position < end:
            if buffer[position] != 0x7B:
                return 0  # a blank line, or a line not starting with "{"
            record(offset + position)
            position = find(b"\n", position, end) + 1
        try:
            with memoryview(buffer) as view, view[:end] as region:
                probes = _PROBE.decode_lines(region)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return 0
        lines = len(starts)
        if len(probes) != lines:
            return 0  # a line holding more than one JSON value, or one spread over lines
        types = list(map(_TYPE, probes))
        ids = list(map(_ID, probes))
        parents = list(map(_PARENT, probes))
        if (
            set(map(type, ids)) != {str}
            or not set(map(type, types)) <= {str}
            or not set(map(type, parents)) <= {str, type(None)}
            or "session" in types
        ):
            return 0
        base = len(self.ids)
        self.ids += ids
        self.parents += parents
        self.types += map(_KNOWN_TYPES.get, types, types)  # share one string per type
        self.starts.extend(starts)
        starts.append(offset + end)
        self.ends.extend(map(sub, starts[1:], repeat(1)))
        self.line_runs.append((base, first_line))
        if "label" in types:
            for position, kind in enumerate(types):
                if kind == "label":
                    self._remember(base + position, probes[position])
        return lines

    def _slow(self, buffer: bytearray, end: int, offset: int, first_line: int) -> int:
        start = 0
        number = first_line
        with memoryview(buffer) as view:
            while start < end and not self.not_a_session:
                newline = buffer.find(b"\n", start, end)
                stop = end if newline < 0 else newline
                with view[start:stop] as text:
                    self._line(text, offset + start, offset + stop, number, tail=newline < 0)
                start = stop + 1
                number += 1
        return number - first_line

    def _line(self, text: memoryview, start: int, stop: int, number: int, tail: bool) -> None:
        try:
            probe = _PROBE.decode(text)
        except msgspec.ValidationError:
            self._not_an_object(text, number)
            return
        except msgspec.DecodeError as error:
            if not bytes(text).strip():
                return  # blank lines are skipped, as Pi does
            if tail:
                self._problem(number, "torn", "incomplete last line (an append that did not finish)", text)
            else:
                self._problem(number, "malformed", f"not JSON ({error})", text)
            return
        if self.header is None:
            if probe.type == "session" and isinstance(probe.id, str):
                header = msgspec.json.decode(text)
                self.header = header
            else:
                self.not_a_session = True
            return
        if probe.type == "session":
            return  # a header line after the first is ignored, as Pi does
        if not (
            isinstance(probe.type, str)
            and isinstance(probe.id, str)
            and (probe.parentId is None or isinstance(probe.parentId, str))
        ):
            self._problem(number, "invalid", "not a session entry (needs string type, id and parentId)", text)
            return
        index = len(self.ids)
        self.ids.append(probe.id)
        self.parents.append(probe.parentId)
        self.types.append(_KNOWN_TYPES.get(probe.type, probe.type))
        self.starts.append(start)
        self.ends.append(stop)
        self.line_runs.append((index, number))
        if probe.type == "label":
            self._remember(index, probe)

    def _not_an_object(self, text: memoryview, number: int) -> None:
        value = msgspec.json.decode(text)
        if self.header is None:
            # Pi skips falsy JSON values; any other value where the header belongs is fatal.
            if value:
                self.not_a_session = True
            return
        self._problem(number, "invalid", f"not a session entry (a JSON {type(value).__name__})", text)

    def _remember(self, index: int, probe: _Probe) -> None:
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

    def lines(self, indices: Iterable[int]) -> Iterator[list[tuple[int, memoryview]]]:
        """The bytes of indexed entries, a list per read (entries near each other share one)."""
        starts, ends = self.starts, self.ends
        wanted = sorted((starts[index], index) for index in indices if starts[index] >= 0)
        if not wanted:
            return
        fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            first = 0
            while first < len(wanted):
                span_start = wanted[first][0]
                last = first
                while (
                    last + 1 < len(wanted)
                    and wanted[last + 1][0] - ends[wanted[last][1]] <= READ_GAP
                    and ends[wanted[last + 1][1]] - span_start <= READ_SPAN
                ):
                    last += 1
                span_end = ends[wanted[last][1]]
                data = os.pread(fd, span_end - span_start, span_start)
                if len(data) != span_end - span_start:
                    raise FileChangedError(f"{self.path} is shorter than when it was opened")
                view = memoryview(data)
                yield [
                    (index, view[start - span_start : ends[index] - span_start])
                    for start, index in wanted[first : last + 1]
                ]
                first = last + 1
        finally:
            os.close(fd)
