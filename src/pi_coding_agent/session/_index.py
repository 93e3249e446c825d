"""A byte-level index of a session file: what Pi would parse, without decoding it all.

Opening a long session only needs each line's ``type``, ``id`` and ``parentId`` (plus the
few fields of ``label`` and ``session_info`` lines) to rebuild the tree and find the leaf;
the full content is decoded later, and only for the entries that are asked for (the active
path of a context, say). The file is read once in chunks into a reusable buffer. A chunk
of well-formed lines is checked and probed by msgspec in one call (``decode_lines``);
anything unusual in a chunk (a blank or malformed line, a second header, a line holding two
JSON values) sends just that chunk through a line-by-line reader that applies Pi's rules
exactly and records each bad line with its number.

Each entry remembers which chunk it came from and its line position inside it, so its
bytes can be read back with one ``pread`` per chunk.
"""

from __future__ import annotations

import gc
import os
import sys
from array import array
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, Literal

import msgspec

CHUNK_SIZE = 1 << 20
_NEWLINE_BRACE = b"\n{"

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
    parentId: Any = None  # noqa: N815 - JSON key
    targetId: Any = None  # noqa: N815 - JSON key
    label: Any = None


_PROBE = msgspec.json.Decoder(_Probe)
_TYPE = attrgetter("type")
_ID = attrgetter("id")
_PARENT = attrgetter("parentId")
_intern = sys.intern


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
        self.chunk_of = array("l")
        self.slot_of = array("l")
        self.line_of = array("l")
        self.chunks: list[tuple[int, int, int]] = []
        """(file offset, byte length, first line number) of each chunk read."""
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
                self._chunk(buffer, end, offset, line, final=eof)
                line += buffer.count(b"\n", 0, end)
                rest = filled - end
                buffer[0:rest] = buffer[end:filled]
                offset += end
                filled = rest
            self.size = offset
        return self

    def _chunk(self, buffer: bytearray, end: int, offset: int, first_line: int, final: bool) -> None:
        chunk = len(self.chunks)
        self.chunks.append((offset, end, first_line))
        self.torn_tail = final and buffer[end - 1] != 0x0A
        if self.header is None or self.torn_tail or not self._fast(buffer, end, chunk, first_line):
            self._slow(buffer, end, chunk, first_line)

    def _fast(self, buffer: bytearray, end: int, chunk: int, first_line: int) -> bool:
        """All lines in one msgspec call; False (nothing recorded) if the chunk needs care."""
        lines = buffer.count(b"\n", 0, end)
        if buffer.count(_NEWLINE_BRACE, 0, end - 1) + (buffer[0] == 0x7B) != lines:
            return False  # a blank line, or a line not starting with "{"
        try:
            with memoryview(buffer) as view, view[:end] as region:
                probes = _PROBE.decode_lines(region)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return False
        if len(probes) != lines:
            return False  # a line holding more than one JSON value
        types = list(map(_TYPE, probes))
        ids = list(map(_ID, probes))
        parents = list(map(_PARENT, probes))
        if (
            set(map(type, ids)) != {str}
            or not set(map(type, types)) <= {str}
            or not set(map(type, parents)) <= {str, type(None)}
            or "session" in types
        ):
            return False
        base = len(self.ids)
        self.ids += map(_intern, ids)
        self.parents += [_intern(parent) if parent else parent for parent in parents]
        self.types += map(_intern, types)
        self.chunk_of.extend(array("l", [chunk]) * lines)
        self.slot_of.extend(range(lines))
        self.line_of.extend(range(first_line, first_line + lines))
        if "label" in types:
            for position, kind in enumerate(types):
                if kind == "label":
                    self._remember(base + position, probes[position])
        return True

    def _slow(self, buffer: bytearray, end: int, chunk: int, first_line: int) -> None:
        start = 0
        slot = 0
        with memoryview(buffer) as view:
            while start < end and not self.not_a_session:
                newline = buffer.find(b"\n", start, end)
                stop = end if newline < 0 else newline
                with view[start:stop] as text:
                    self._line(text, chunk, slot, first_line + slot, tail=newline < 0)
                start = stop + 1
                slot += 1

    def _line(self, text: memoryview, chunk: int, slot: int, number: int, tail: bool) -> None:
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
        self.ids.append(_intern(probe.id))
        self.parents.append(_intern(probe.parentId) if probe.parentId else probe.parentId)
        self.types.append(_intern(probe.type))
        self.chunk_of.append(chunk)
        self.slot_of.append(slot)
        self.line_of.append(number)
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

    # ------------------------------------------------------------------ reading entries back

    def lines(self, indices: Iterable[int]) -> Iterator[tuple[int, bytes]]:
        """The bytes of each indexed entry in ``indices``, grouped by chunk (file order)."""
        by_chunk: dict[int, list[int]] = {}
        chunk_of = self.chunk_of
        for index in indices:
            by_chunk.setdefault(chunk_of[index], []).append(index)
        if not by_chunk:
            return
        fd = os.open(self.path, os.O_RDONLY)
        try:
            for chunk in sorted(by_chunk):
                offset, length, _ = self.chunks[chunk]
                data = os.pread(fd, length, offset)
                if len(data) != length:
                    raise FileChangedError(f"{self.path} is shorter than when it was opened")
                split = data.split(b"\n")
                for index in by_chunk[chunk]:
                    yield index, split[self.slot_of[index]]
        finally:
            os.close(fd)
