"""``SessionManager``: a session as an append-only tree of entries in a JSONL file.

Behaves as Pi 0.85's ``SessionManager`` (same files, same tree, same leaf rules, same lazy
first write) with these differences, each written down in ``docs/sessions``:

* Opening a file indexes it instead of parsing every line (see ``_index``): entries are
  decoded when asked for, so resuming a long session costs what its active branch costs.
* One writer: opening for writing takes ``<file>.lock``; a second writer gets
  ``SessionLockedError`` naming the holder. ``read_only=True`` opens never lock and never
  modify the file.
* Bad lines are reported (``problems``, and a warning on the ``pi_coding_agent.session``
  logger) with their line numbers and never removed: a migration rewrite keeps them and
  backs the original file up first.
* Files are ``0600``, created folders ``0700``; new files and rewrites appear atomically.
* ``parentId`` cycles end a walk instead of hanging it.
"""

from __future__ import annotations

import builtins
import os
import re
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cmp_to_key
from itertools import filterfalse
from operator import attrgetter
from typing import TYPE_CHECKING, Any

import msgspec
from msgspec import UNSET, UnsetType

import pi_coding_agent.messages  # noqa: F401 - registers the coding agent's roles
from pi_agent import AgentMessage, OpaqueMessage
from pi_ai import AssistantMessage, DecodeError, ImageContent, TextContent, Usage, convert, encode
from pi_coding_agent.messages import iso_to_ms, now_iso
from pi_coding_agent.paths import resolve_path
from pi_coding_agent.session import _context
from pi_coding_agent.session._context import SessionContext
from pi_coding_agent.session._entries import (
    CURRENT_SESSION_VERSION,
    BranchSummaryEntry,
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
    SessionHeader,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
    decode_entry,
    entry_decoder,
    entry_from_dict,
    entry_to_dict,
)
from pi_coding_agent.session._files import (
    Appender,
    SessionError,
    WriterLock,
    backup,
    replace,
    write_new,
)
from pi_coding_agent.session._header import read_header
from pi_coding_agent.session._ids import check_session_id, generate_entry_id, new_session_id
from pi_coding_agent.session._index import FileChangedError, FileIndex, SessionProblem, no_gc
from pi_coding_agent.session._paths import (
    default_session_dir,
    default_session_dir_path,
    make_private_dirs,
    session_file_name,
)

_ENTRY_ID = attrgetter("id")

if TYPE_CHECKING:
    from pi_coding_agent.session._listing import SessionInfo

APP_NAME = "pi"


class InvalidSessionError(SessionError):
    """The file exists, is not empty, and its first parsed line is not a session header."""

    def __init__(self, path: str) -> None:
        super().__init__(f"Session file is not a valid {APP_NAME} session: {path}")
        self.path = path


class EntryNotFoundError(SessionError, LookupError):
    def __init__(self, entry_id: str | None) -> None:
        super().__init__(f"Entry {entry_id} not found")
        self.entry_id = entry_id


class ReadOnlySessionError(SessionError):
    def __init__(self, path: str | None) -> None:
        super().__init__(f"Session {path} was opened read-only")


@dataclass(eq=False, slots=True)
class SessionTreeNode:
    entry: SessionEntry
    children: list[SessionTreeNode] = field(default_factory=list)
    label: str | None = None
    label_timestamp: str | None = None


class _Entries:
    """All entries in file order: indexed from the file, then appended in memory."""

    def __init__(self, index: FileIndex) -> None:
        self.index = index
        self.objects: dict[int, SessionEntry] = index.decoded
        index.decoded = {}
        # Pi's byId map: the last entry with an id wins, in first-seen id order.
        self.by_id: dict[str, int] = dict(zip(index.ids, range(len(index.ids)), strict=True))
        self.problems: list[SessionProblem] = list(index.problems)
        self.raw_data: dict[int, dict[str, Any]] = {}
        """JSON data of in-memory entries that came from a file (written back as it was)."""
        self._links: _context.ParentLinks | None = None
        """Built on the first walk; kept up to date by ``add`` (or dropped, to be rebuilt)."""

    # EntryTree protocol -------------------------------------------------------------

    @property
    def ids(self) -> list[str]:
        return self.index.ids

    @property
    def parents(self) -> list[str | None]:
        return self.index.parents

    @property
    def types(self) -> list[str]:
        return self.index.types

    def count(self) -> int:
        return len(self.index.ids)

    def position(self, entry_id: str) -> int | None:
        return self.by_id.get(entry_id)

    def entries(self, indices: Sequence[int]) -> list[SessionEntry]:
        objects = self.objects
        missing = list(filterfalse(objects.__contains__, indices))
        if missing:
            self._decode(missing)
        return list(map(objects.__getitem__, indices))

    def parent_links(self) -> _context.ParentLinks:
        if self._links is None:
            self._links = _context.ParentLinks(self.index.ids, self.index.parents, self.by_id)
        return self._links

    # ---------------------------------------------------------------------------------

    def add(self, entry: SessionEntry, raw: dict[str, Any] | None = None) -> int:
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
            found[index] = msgspec.json.decode(line)
        return [found[index] if index in found else self.data_of(index) for index in indices]

    def data_of(self, index: int) -> dict[str, Any]:
        """JSON data of an in-memory entry."""
        raw = self.raw_data.get(index)
        return raw if raw is not None else entry_to_dict(self.objects[index])

    def _decode(self, missing: list[int]) -> None:
        index = self.index
        ids = index.ids
        decoder = entry_decoder()
        with no_gc():
            for first, stop, lines in index.runs(missing):
                try:
                    decoded: list[SessionEntry] = decoder.decode_lines(lines)
                except (msgspec.ValidationError, msgspec.DecodeError):
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
        _warn(problem)


def _warn(problem: SessionProblem) -> None:
    """A warning on the ``pi_coding_agent.session`` logger (``logging`` is loaded only then)."""
    import logging

    logging.getLogger("pi_coding_agent.session").warning("%s", problem)


def _line(entry: SessionEntry | dict[str, Any]) -> bytes:
    if isinstance(entry, dict | MessageEntry):
        data = entry if isinstance(entry, dict) else entry_to_dict(entry)
        return encode(data) + b"\n"
    return encode(entry) + b"\n"


def _is_assistant(entry: SessionEntry) -> bool:
    if not isinstance(entry, MessageEntry):
        return False
    message = entry.message
    return isinstance(message, AssistantMessage) or (
        isinstance(message, OpaqueMessage) and message.data.get("role") == "assistant"
    )


class _Handles:
    """The open file and lock of a manager, closed when it is closed or collected."""

    def __init__(self) -> None:
        self.lock: WriterLock | None = None
        self.appender: Appender | None = None

    def close(self) -> None:
        appender, self.appender = self.appender, None
        if appender is not None:
            appender.close()
        lock, self.lock = self.lock, None
        if lock is not None:
            lock.release()


class SessionManager:
    """A session tree stored as JSONL (or only in memory). Build one with the static methods."""

    def __init__(
        self,
        cwd: str,
        session_dir: str,
        session_file: str | None,
        persist: bool,
        *,
        session_id: str | None = None,
        parent_session: str | None = None,
        read_only: bool = False,
    ) -> None:
        self._cwd = resolve_path(cwd)
        self._session_dir = session_dir
        self._persist = persist
        self._read_only = read_only
        self._session_file: str | None = None
        self._session_id = ""
        self._flushed = False
        self._header: dict[str, Any] = {}
        self._entries = _Entries(FileIndex(""))
        self._labels: dict[str, str] = {}
        self._label_times: dict[str, str] = {}
        self._label_entry: dict[str, int] = {}
        self._leaf_id: str | None = None
        self._has_assistant = False
        self._handles = _Handles()
        weakref.finalize(self, self._handles.close)
        self.backups: list[str] = []
        """Copies of the original file made before a migration rewrote it."""
        if persist and session_dir and not os.path.isdir(session_dir):
            make_private_dirs(session_dir)
        if session_file:
            self._set_session_file(session_file)
        else:
            self.new_session(session_id=session_id, parent_session=parent_session)

    # ------------------------------------------------------------------ constructors

    @staticmethod
    def create(
        cwd: str,
        session_dir: str | None = None,
        *,
        session_id: str | None = None,
        parent_session: str | None = None,
    ) -> SessionManager:
        """A new session; its file is written when the first assistant message arrives."""
        folder = resolve_path(session_dir) if session_dir else default_session_dir(cwd)
        return SessionManager(cwd, folder, None, True, session_id=session_id, parent_session=parent_session)

    @staticmethod
    def open(
        path: str,
        session_dir: str | None = None,
        cwd_override: str | None = None,
        *,
        read_only: bool = False,
    ) -> SessionManager:
        """Open a session file (a missing file: a new session that will be written there).

        Writers take the file's lock (``SessionLockedError`` if another process has it);
        ``read_only`` never locks, migrates on disk, repairs or appends.
        """
        resolved = resolve_path(path)
        cwd = cwd_override
        if cwd is None and os.path.exists(resolved):
            header = read_header(resolved)
            if header is not None and isinstance(header.get("cwd"), str):
                cwd = header["cwd"]
        folder = resolve_path(session_dir) if session_dir else os.path.dirname(resolved)
        return SessionManager(cwd or os.getcwd(), folder, resolved, True, read_only=read_only)

    @staticmethod
    def continue_recent(cwd: str, session_dir: str | None = None) -> SessionManager:
        """The most recently modified session of ``cwd`` (by file time), else a new one."""
        folder = resolve_path(session_dir) if session_dir else default_session_dir(cwd)
        filter_cwd = session_dir is not None and folder != default_session_dir_path(cwd)
        from pi_coding_agent.session._listing import find_most_recent_session  # only here

        recent = find_most_recent_session(folder, cwd if filter_cwd else None)
        if recent is not None:
            return SessionManager(cwd, folder, recent, True)
        return SessionManager(cwd, folder, None, True)

    @staticmethod
    def in_memory(
        cwd: str | None = None,
        *,
        session_id: str | None = None,
        parent_session: str | None = None,
        entries: Sequence[SessionEntry | SessionHeader] | None = None,
    ) -> SessionManager:
        """A session that is never written anywhere (optionally starting from ``entries``)."""
        manager = SessionManager(
            cwd or os.getcwd(), "", None, False, session_id=session_id, parent_session=parent_session
        )
        if entries:
            manager._load_memory(list(entries))
        return manager

    @staticmethod
    def fork_from(
        source_path: str,
        target_cwd: str,
        session_dir: str | None = None,
        *,
        session_id: str | None = None,
    ) -> SessionManager:
        """Copy a whole session (every entry, ids kept) into a new file of ``target_cwd``."""
        source = resolve_path(source_path)
        target = resolve_path(target_cwd)
        lines = _load_source(source)
        folder = resolve_path(session_dir) if session_dir else default_session_dir(target)
        make_private_dirs(folder)
        if session_id is not None:
            check_session_id(session_id)
        new_id = session_id or new_session_id()
        timestamp = now_iso()
        path = os.path.join(folder, session_file_name(timestamp, new_id))
        header = {
            "type": "session",
            "version": CURRENT_SESSION_VERSION,
            "id": new_id,
            "timestamp": timestamp,
            "cwd": target,
            "parentSession": source,
        }
        write_new(path, encode(header) + b"\n" + b"".join(line + b"\n" for line in lines))
        return SessionManager(target, folder, path, True)

    # ------------------------------------------------------------------ loading

    def _set_session_file(self, path: str) -> None:
        self._close_files()
        self._session_file = resolve_path(path)
        if os.path.exists(self._session_file):
            if not self._read_only:
                self._take_lock()
            try:
                self._load_file()
            except BaseException:
                self._close_files()
                raise
        else:
            explicit = self._session_file
            self.new_session()
            self._session_file = explicit

    def set_session_file(self, path: str) -> None:
        """Switch to another session file (resume)."""
        self._set_session_file(path)

    def _load_file(self) -> None:
        path = self._session_file
        assert path is not None
        index = FileIndex(path).scan(decode_tail=True)
        if index.header is None:
            if os.path.getsize(path) > 0:
                raise InvalidSessionError(path)
            self.new_session()
            self._session_file = path
            self._rewrite_all()
            self._flushed = True
            return
        version = index.header.get("version")
        if version is None or (isinstance(version, int | float) and version < CURRENT_SESSION_VERSION):
            self._migrate_file(path, index, version)
        else:
            if index.torn_tail and not self._read_only:
                # Pi's repair: finish the torn line so later appends start on a fresh line.
                with open(path, "ab") as file:
                    file.write(b"\n")
            self._use_index(index)
        self._flushed = True
        for problem in self._entries.problems:
            _warn(problem)

    def _migrate_file(self, path: str, index: FileIndex, version: Any) -> None:
        from pi_coding_agent.session._migrate import load_legacy, migrate_entries  # old files only

        with open(path, "rb") as file:
            legacy = load_legacy(file.read())
        entries = legacy.entries()
        migrate_entries(entries)
        if not self._read_only:
            self.backups.append(backup(path, f"v{version or 1}.bak"))
            replace(path, legacy.render())
            self._use_index(FileIndex(path).scan())
            return
        # Read-only: the migrated entries live in memory; the file is left as it is.
        memory = FileIndex(path)
        memory.header = next(entry for entry in entries if entry.get("type") == "session")
        # Entries of old versions have no ids yet: only unparsable lines are problems here.
        memory.problems = [problem for problem in index.problems if problem.kind != "invalid"]
        self._use_index(memory)
        for data in entries:
            if data.get("type") != "session" and isinstance(data.get("id"), str):
                self._index_entry(entry_from_dict(data), data)

    def _use_index(self, index: FileIndex) -> None:
        assert index.header is not None
        self._header = index.header
        header_id = index.header.get("id")
        self._session_id = header_id if isinstance(header_id, str) else ""
        self._entries = _Entries(index)
        self._labels = {}
        self._label_times = {}
        self._label_entry = {}
        for position, target, label in index.labels:
            self._apply_label(target, label, position)
        self._leaf_id = index.ids[-1] if index.ids else None
        # Only consulted before the first write; a loaded file has been written.
        self._has_assistant = False

    def _apply_label(self, target: str, label: Any, position: int) -> None:
        if label:
            self._labels[target] = label if isinstance(label, str) else str(label)
            self._label_entry[target] = position
            self._label_times.pop(target, None)
        else:
            self._labels.pop(target, None)
            self._label_entry.pop(target, None)
            self._label_times.pop(target, None)

    def _label_time(self, target: str) -> str | None:
        if target in self._label_times:
            return self._label_times[target]
        position = self._label_entry.get(target)
        if position is None:
            return None
        stamp = self._entries.entries([position])[0].timestamp
        self._label_times[target] = stamp
        return stamp

    def _load_memory(self, items: list[SessionEntry | SessionHeader]) -> None:
        header = next((item for item in items if isinstance(item, SessionHeader)), None)
        entries = [item for item in items if not isinstance(item, SessionHeader)]
        if header is not None:
            self._header = msgspec.to_builtins(header)
            self._session_id = header.id
        self._reset_entries()
        for entry in entries:
            self._index_entry(entry)

    def _reset_entries(self) -> None:
        self._entries = _Entries(FileIndex(self._session_file or ""))
        self._labels = {}
        self._label_times = {}
        self._label_entry = {}
        self._leaf_id = None
        self._has_assistant = False

    def _index_entry(self, entry: SessionEntry, raw: dict[str, Any] | None = None) -> None:
        self._entries.add(entry, raw)
        self._leaf_id = entry.id
        if isinstance(entry, LabelEntry):
            self._apply_label(entry.target_id, entry.label if entry.label is not UNSET else None, -1)
            if entry.label:
                self._label_times[entry.target_id] = entry.timestamp
        if _is_assistant(entry):
            self._has_assistant = True

    # ------------------------------------------------------------------ new sessions

    def new_session(self, *, session_id: str | None = None, parent_session: str | None = None) -> str | None:
        """Start an empty session (new id and header); returns its future file path."""
        if session_id is not None:
            check_session_id(session_id)
        self._close_files()
        self._session_id = session_id or new_session_id()
        timestamp = now_iso()
        self._header = {
            "type": "session",
            "version": CURRENT_SESSION_VERSION,
            "id": self._session_id,
            "timestamp": timestamp,
            "cwd": self._cwd,
        }
        if parent_session is not None:
            self._header["parentSession"] = parent_session
        self._reset_entries()
        self._flushed = False
        if self._persist:
            self._session_file = os.path.join(
                self._session_dir, session_file_name(timestamp, self._session_id)
            )
        return self._session_file

    # ------------------------------------------------------------------ getters

    def is_persisted(self) -> bool:
        return self._persist

    def is_read_only(self) -> bool:
        return self._read_only

    def get_cwd(self) -> str:
        return self._cwd

    def get_session_dir(self) -> str:
        return self._session_dir

    def uses_default_session_dir(self) -> bool:
        return self._session_dir == default_session_dir_path(self._cwd)

    def get_session_id(self) -> str:
        return self._session_id

    def get_session_file(self) -> str | None:
        return self._session_file

    def get_header(self) -> SessionHeader | None:
        try:
            return convert(self._header, SessionHeader)
        except DecodeError:
            return None

    def get_header_data(self) -> dict[str, Any]:
        """The header exactly as it is in the file (unknown keys and key order kept)."""
        return dict(self._header)

    @property
    def problems(self) -> list[SessionProblem]:
        """Lines that are not usable entries (file and line numbers), found so far."""
        return list(self._entries.problems)

    def get_entries(self) -> list[SessionEntry]:
        """Every entry in file order (decodes any not decoded yet)."""
        return self._entries.all()

    def get_entries_data(self) -> list[dict[str, Any]]:
        """Every entry as JSON data, as stored (what Pi's ``getEntries`` serializes to)."""
        return self._entries.raw(range(self._entries.count()))

    def verify(self) -> list[SessionProblem]:
        """Decode every entry (validating it) and return all problems found."""
        self._entries.all()
        return self.problems

    def get_entry(self, entry_id: str) -> SessionEntry | None:
        position = self._entries.position(entry_id)
        return None if position is None else self._entries.entries([position])[0]

    def get_leaf_id(self) -> str | None:
        return self._leaf_id

    def get_leaf_entry(self) -> SessionEntry | None:
        return self.get_entry(self._leaf_id) if self._leaf_id else None

    def get_children(self, parent_id: str) -> list[SessionEntry]:
        """Direct children (one per id: the last entry with that id), in first-seen id order."""
        entries = self._entries
        parents = entries.index.parents
        positions = [position for position in entries.by_id.values() if parents[position] == parent_id]
        return entries.entries(positions)

    def get_label(self, entry_id: str) -> str | None:
        return self._labels.get(entry_id)

    def get_session_name(self) -> str | None:
        """The latest ``session_info`` name in file order (any branch); empty means none."""
        types = self._entries.index.types
        for position in range(len(types) - 1, -1, -1):
            if types[position] == "session_info":
                entry = self._entries.entries([position])[0]
                name = entry.name if isinstance(entry, SessionInfoEntry) else None
                return (name.strip() or None) if isinstance(name, str) else None
        return None

    # ------------------------------------------------------------------ tree

    def get_branch(self, from_id: str | None = None) -> list[SessionEntry]:
        """Entries from the root to ``from_id`` (default: the leaf); ``[]`` if unknown."""
        start_id = from_id if from_id is not None else self._leaf_id
        start = self._entries.position(start_id) if start_id else None
        if start is None:
            return []
        return self._entries.entries(_context.walk_up(self._entries, start))

    def build_context_entries(self) -> list[SessionEntry]:
        """The entries the context is built from (the latest compaction first)."""
        tree = self._entries
        return tree.entries(_context.context_positions(tree, _context.path_positions(tree, self._leaf_id)))

    def build_session_context(self) -> SessionContext:
        """Messages, thinking level and model of the current branch (Pi's ``buildSessionContext``)."""
        return _context.build_context(self._entries, self._leaf_id)

    def get_tree(self) -> list[SessionTreeNode]:
        """Roots (entries without a known parent) with their children, oldest first."""
        entries = self._entries.all()
        nodes: dict[str, SessionTreeNode] = {}
        for entry in entries:
            label = self._labels.get(entry.id)
            nodes[entry.id] = SessionTreeNode(
                entry, [], label, self._label_time(entry.id) if label is not None else None
            )
        roots: list[SessionTreeNode] = []
        for entry in entries:
            node = nodes[entry.id]
            parent_id = entry.parent_id
            parent = nodes.get(parent_id) if parent_id is not None and parent_id != entry.id else None
            (parent.children if parent is not None else roots).append(node)
        _sort_children(roots)
        return roots

    def branch(self, branch_from_id: str) -> None:
        """Move the leaf; the next append starts a new branch there. Nothing is written."""
        if self._entries.position(branch_from_id) is None:
            raise EntryNotFoundError(branch_from_id)
        self._leaf_id = branch_from_id

    def reset_leaf(self) -> None:
        """Put the leaf before the first entry: the next append is a new root."""
        self._leaf_id = None

    # ------------------------------------------------------------------ appending

    def _base(self) -> dict[str, Any]:
        return {
            "id": generate_entry_id(self._entries.by_id),
            "parent_id": self._leaf_id,
            "timestamp": now_iso(),
        }

    def _check_writable(self) -> None:
        if self._read_only:
            raise ReadOnlySessionError(self._session_file)

    def _append(self, entry: SessionEntry) -> str:
        self._index_entry(entry)
        self._persist_entry(entry)
        return entry.id

    def append_message(self, message: AgentMessage) -> str:
        """Append a message entry (summaries have their own entry types)."""
        self._check_writable()
        return self._append(MessageEntry(**self._base(), message=message))

    def append_thinking_level_change(self, thinking_level: str) -> str:
        self._check_writable()
        return self._append(ThinkingLevelChangeEntry(**self._base(), thinking_level=thinking_level))

    def append_model_change(self, provider: str, model_id: str) -> str:
        self._check_writable()
        return self._append(ModelChangeEntry(**self._base(), provider=provider, model_id=model_id))

    def append_compaction(
        self,
        summary: str,
        first_kept_entry_id: str,
        tokens_before: int,
        *,
        details: Any | UnsetType = UNSET,
        from_hook: bool | UnsetType = UNSET,
        usage: Usage | UnsetType = UNSET,
    ) -> str:
        self._check_writable()
        return self._append(
            CompactionEntry(
                **self._base(),
                summary=summary,
                first_kept_entry_id=first_kept_entry_id,
                tokens_before=tokens_before,
                details=details,
                usage=usage,
                from_hook=from_hook,
            )
        )

    def append_custom_entry(self, custom_type: str, data: Any | UnsetType = UNSET) -> str:
        """Extension state: in the tree, never in the model's context."""
        self._check_writable()
        return self._append(CustomEntry(**self._base(), custom_type=custom_type, data=data))

    def append_session_info(self, name: str) -> str:
        """Set the display name (line breaks become spaces; trimmed; empty clears it)."""
        self._check_writable()
        clean = _LINE_BREAKS.sub(" ", name).strip()
        return self._append(SessionInfoEntry(**self._base(), name=clean))

    def append_custom_message_entry(
        self,
        custom_type: str,
        content: str | list[TextContent | ImageContent],
        display: bool,
        details: Any | UnsetType = UNSET,
    ) -> str:
        """An extension message that enters the context as a ``custom`` message."""
        self._check_writable()
        return self._append(
            CustomMessageEntry(
                **self._base(), custom_type=custom_type, content=content, display=display, details=details
            )
        )

    def append_label_change(self, target_id: str, label: str | None = None) -> str:
        """Label an entry (``None`` or ``""`` clears its label)."""
        self._check_writable()
        if self._entries.position(target_id) is None:
            raise EntryNotFoundError(target_id)
        entry = LabelEntry(**self._base(), target_id=target_id, label=UNSET if label is None else label)
        return self._append(entry)

    def branch_with_summary(
        self,
        branch_from_id: str | None,
        summary: str,
        *,
        details: Any | UnsetType = UNSET,
        from_hook: bool | UnsetType = UNSET,
        usage: Usage | UnsetType = UNSET,
    ) -> str:
        """Move the leaf to ``branch_from_id`` and record a summary of the branch left behind."""
        self._check_writable()
        if branch_from_id is not None and self._entries.position(branch_from_id) is None:
            raise EntryNotFoundError(branch_from_id)
        from_id = self._leaf_id if self._leaf_id is not None else "root"
        self._leaf_id = branch_from_id
        base = self._base()
        return self._append(
            BranchSummaryEntry(
                **base,
                from_id=from_id,
                summary=summary,
                details=details,
                usage=usage,
                from_hook=from_hook,
            )
        )

    # ------------------------------------------------------------------ persistence

    def _persist_entry(self, entry: SessionEntry) -> None:
        if not self._persist or not self._session_file:
            return
        if not self._has_assistant:
            if self._flushed:
                self._append_bytes(_line(entry))
            return
        if not self._flushed:
            self._write_all(exclusive=True)
            self._flushed = True
        else:
            self._append_bytes(_line(entry))

    def _append_bytes(self, data: bytes) -> None:
        handles = self._handles
        if handles.appender is None:
            assert self._session_file is not None
            self._take_lock()
            handles.appender = Appender(self._session_file)
        handles.appender.append(data)

    def _render_all(self) -> bytes:
        entries = self._entries
        lines = [encode(self._header) + b"\n"]
        lines += [_line(entries.data_of(index)) for index in range(entries.count())]
        return b"".join(lines)

    def _write_all(self, exclusive: bool) -> None:
        assert self._session_file is not None
        self._take_lock()
        data = self._render_all()
        if exclusive:
            write_new(self._session_file, data)
        else:
            replace(self._session_file, data)
        handles = self._handles
        if handles.appender is not None:
            handles.appender.close()
        handles.appender = Appender(self._session_file)

    def _rewrite_all(self) -> None:
        if self._persist and self._session_file:
            self._write_all(exclusive=False)

    def _take_lock(self) -> None:
        assert self._session_file is not None
        handles = self._handles
        if handles.lock is not None and handles.lock.session_path != self._session_file:
            handles.close()
        if handles.lock is None:
            lock = WriterLock(self._session_file)
            lock.acquire()
            handles.lock = lock

    def _close_files(self) -> None:
        self._handles.close()

    def close(self) -> None:
        """Release the file and its writer lock. The manager must not be used afterwards."""
        self._close_files()

    def __enter__(self) -> SessionManager:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ forking

    def create_branched_session(self, leaf_id: str) -> str | None:
        """Make the branch ending at ``leaf_id`` a new session (labels re-applied at its end).

        Persisted sessions switch to the new file, which is written now if the branch holds an
        assistant message; returns its path. In memory: switches, returns ``None``.
        """
        previous_file = self._session_file
        start = self._entries.position(leaf_id)
        if start is None:
            raise EntryNotFoundError(leaf_id)
        path = _context.walk_up(self._entries, start)
        raw = self._entries.raw(path)
        kept: list[dict[str, Any]] = []
        replacement: dict[str, str] = {}
        pending: list[str] = []
        parent: str | None = None
        for data in raw:
            if data.get("type") == "label":
                pending.append(data["id"])
                continue
            for label_id in pending:
                replacement[label_id] = data["id"]
            pending.clear()
            copy = {**data, "parentId": parent}
            if data.get("type") == "compaction":
                first = data.get("firstKeptEntryId")
                copy["firstKeptEntryId"] = replacement.get(first, first) if isinstance(first, str) else first
                if "firstKeptEntryId" not in data and first is None:
                    del copy["firstKeptEntryId"]
            kept.append(copy)
            parent = data["id"]
        new_id = new_session_id()
        timestamp = now_iso()
        header: dict[str, Any] = {
            "type": "session",
            "version": CURRENT_SESSION_VERSION,
            "id": new_id,
            "timestamp": timestamp,
            "cwd": self._cwd,
        }
        if self._persist and previous_file is not None:
            header["parentSession"] = previous_file
        taken = {data["id"] for data in kept}
        labels: list[dict[str, Any]] = []
        label_parent = kept[-1]["id"] if kept else None
        for target, label in self._labels.items():
            if target in taken:
                label_entry = {
                    "type": "label",
                    "id": generate_entry_id(taken),
                    "parentId": label_parent,
                    "timestamp": self._label_time(target),
                    "targetId": target,
                    "label": label,
                }
                taken.add(label_entry["id"])
                labels.append(label_entry)
                label_parent = label_entry["id"]
        self._close_files()
        self._header = header
        self._session_id = new_id
        if self._persist:
            self._session_file = os.path.join(self._session_dir, session_file_name(timestamp, new_id))
        self._reset_entries()
        for data in kept + labels:
            self._index_entry(entry_from_dict(data), data)
        if not self._persist:
            return None
        if self._has_assistant:
            self._write_all(exclusive=True)
            self._flushed = True
        else:
            self._flushed = False
        return self._session_file

    # ------------------------------------------------------------------ listing

    @staticmethod
    def list(
        cwd: str,
        session_dir: str | None = None,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> builtins.list[SessionInfo]:
        """Sessions of ``cwd``, most recently modified first (see ``list_sessions``)."""
        from pi_coding_agent.session._listing import list_sessions  # listing is loaded on first use

        return list_sessions(cwd, session_dir, on_progress)

    @staticmethod
    def list_all(
        session_dir: str | None = None,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> builtins.list[SessionInfo]:
        """Sessions of every project (see ``list_all_sessions``)."""
        from pi_coding_agent.session._listing import list_all_sessions

        return list_all_sessions(session_dir, on_progress)


_LINE_BREAKS = re.compile(r"[\r\n]+")


def _sort_children(roots: list[SessionTreeNode]) -> None:
    """Children oldest first by entry time (stable; unparsable times compare equal, as in JS)."""

    def compare(a: SessionTreeNode, b: SessionTreeNode) -> int:
        first, second = iso_to_ms(a.entry.timestamp), iso_to_ms(b.entry.timestamp)
        if first is None or second is None:
            return 0
        return (first > second) - (first < second)

    key = cmp_to_key(compare)
    stack = list(roots)
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        node.children.sort(key=key)
        stack.extend(node.children)


def _load_source(path: str) -> list[bytes]:
    """Entry lines of a session to fork (migrated to v3 in memory if it is older)."""
    try:
        index = FileIndex(path).scan()
    except FileNotFoundError:
        index = FileIndex(path)
    if index.header is None:
        raise SessionError(f"Cannot fork: source session file is empty or invalid: {path}")
    version = index.header.get("version")
    if version is None or (isinstance(version, int | float) and version < CURRENT_SESSION_VERSION):
        from pi_coding_agent.session._migrate import load_legacy, migrate_entries  # old files only

        with open(path, "rb") as file:
            legacy = load_legacy(file.read())
        entries = legacy.entries()
        migrate_entries(entries)
        return [msgspec.json.encode(entry) for entry in entries if entry.get("type") != "session"]
    return [bytes(line) for _, line in index.lines(range(len(index.ids)))]
