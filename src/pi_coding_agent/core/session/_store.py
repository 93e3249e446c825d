"""The index of a session's entries: file order, ids, parents, and entries decoded on demand.

``EntryStore`` starts from a ``FileIndex`` (what a scan of the file found, plus whatever
the scan already decoded) and grows as entries are appended in memory. An entry that has
not been decoded yet is read back from the file when asked for (``entries``), in runs of
adjacent lines, so resuming a long session decodes only its active branch.

It is the ``EntryTree`` that ``_context`` walks: ids, parents and types are plain lists,
``by_id`` is Pi's ``byId`` map (the last entry with an id wins, in first-seen id order;
``None`` is the key of entries without an id, as ``undefined`` is in Pi's map).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import filterfalse
from operator import attrgetter
from typing import Any

import msgspec

from pi_coding_agent.core.session._context import ParentLinks
from pi_coding_agent.core.session._entries import (
    SessionEntry,
    decode_entry,
    decode_entry_lines,
    entry_to_dict,
)
from pi_coding_agent.core.session._index import FileChangedError, FileIndex, SessionProblem, no_gc
from pi_coding_agent.core.session._lines import parse_line

_ENTRY_ID = attrgetter("id")


class EntryStore:
    """All entries in file order: indexed from the file, then appended in memory."""

    def __init__(self, index: FileIndex) -> None:
        self.index = index
        self.objects: dict[int, SessionEntry] = index.decoded
        index.decoded = {}
        self.by_id: dict[str | None, int] = dict(zip(index.ids, range(len(index.ids)), strict=True))
        self.problems: list[SessionProblem] = list(index.problems)
        self.raw_data: dict[int, dict[str, Any]] = {}
        """JSON data of in-memory entries that came from a file (written back as it was)."""
        self._links: ParentLinks | None = None
        """Built on the first walk; kept up to date by ``add`` (or dropped, to be rebuilt)."""

    # EntryTree protocol -------------------------------------------------------------

    @property
    def ids(self) -> list[str | None]:
        return self.index.ids

    @property
    def parents(self) -> list[str | None]:
        return self.index.parents

    @property
    def types(self) -> list[str]:
        return self.index.types

    def entries(self, indices: Sequence[int]) -> list[SessionEntry]:
        objects = self.objects
        missing = list(filterfalse(objects.__contains__, indices))
        if missing:
            self._decode(missing)
        return list(map(objects.__getitem__, indices))

    def parent_links(self) -> ParentLinks:
        if self._links is None:
            self._links = ParentLinks(self.index.ids, self.index.parents, self.by_id)
        return self._links

    # ---------------------------------------------------------------------------------

    def count(self) -> int:
        return len(self.index.ids)

    def position(self, entry_id: str | None) -> int | None:
        return self.by_id.get(entry_id)

    def last_id(self) -> str | None:
        return self.index.ids[-1] if self.index.ids else None

    def add(self, entry: SessionEntry, raw: dict[str, Any] | None = None) -> int:
        """Append ``entry`` (``raw``: the JSON it was read from, written back as it is)."""
        index = self.index
        position = len(index.ids)
        links = self._links
        if links is not None and not links.appended(
            position,
            entry.id,
            entry.parent_id,
            previous_id=index.ids[-1] if position else None,
            known=entry.id in self.by_id,
        ):
            self._links = None
        index.ids.append(entry.id)
        index.parents.append(entry.parent_id)
        index.types.append(entry.type)
        index.starts.append(-1)
        self.objects[position] = entry
        if raw is not None:
            self.raw_data[position] = raw
        self.by_id[entry.id] = position
        return position

    def all(self) -> list[SessionEntry]:
        return self.entries(range(self.count()))

    def raw(self, indices: Sequence[int]) -> list[dict[str, Any]]:
        """JSON data of entries as written in the file (key order and unknown keys kept)."""
        found: dict[int, dict[str, Any]] = {}
        for index, line in self.index.lines(indices):
            found[index] = parse_line(line)
        return [found[index] if index in found else self.data_of(index) for index in indices]

    def data_of(self, index: int) -> dict[str, Any]:
        """JSON data of an in-memory entry."""
        raw = self.raw_data.get(index)
        return raw if raw is not None else entry_to_dict(self.objects[index])

    def _decode(self, missing: list[int]) -> None:
        index = self.index
        ids = index.ids
        with no_gc():
            for first, stop, lines in index.runs(missing):
                try:
                    decoded: list[SessionEntry] = decode_entry_lines(lines)
                except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
                    decoded = []
                if len(decoded) != stop - first:
                    decoded = self._decode_carefully(first, stop, lines)
                if list(map(_ENTRY_ID, decoded)) != ids[first:stop]:
                    position = next(
                        position
                        for position, entry in zip(range(first, stop), decoded, strict=True)
                        if entry.id != ids[position]
                    )
                    raise FileChangedError(
                        f"{index.path}:{index.line_of(position)} no longer holds entry {ids[position]}; "
                        "the file was changed by someone else since it was opened"
                    )
                self.objects.update(zip(range(first, stop), decoded, strict=True))

    def _decode_carefully(self, first: int, stop: int, lines: memoryview) -> list[SessionEntry]:
        """Entries of a run one line at a time: lines that do not validate are reported."""
        index = self.index
        base = index.starts[first]
        decoded: list[SessionEntry] = []
        for position in range(first, stop):
            line = lines[index.starts[position] - base : index.end(position) - base]
            reasons: list[str] = []
            decoded.append(decode_entry(line, reasons))
            for reason in reasons:
                self._report(position, reason, line)
        return decoded

    def _report(self, position: int, reason: str, line: bytes | memoryview) -> None:
        problem = SessionProblem(
            self.index.path,
            self.index.line_of(position),
            "invalid",
            reason,
            bytes(line[:200]).decode("utf-8", "replace"),
        )
        self.problems.append(problem)
        warn(problem)


def warn(problem: SessionProblem) -> None:
    """A warning on the ``pi_coding_agent.core.session`` logger (``logging`` is loaded only then:
    a few ms off a clean resume, bench/session_resume.py)."""
    import logging

    logging.getLogger("pi_coding_agent.core.session").warning("%s", problem)
