"""``SessionManager``: a session as an append-only tree of entries in a JSONL file.

Behaves as Pi 0.85's ``SessionManager`` (same files, same tree, same leaf rules, same lazy
first write). It puts together three parts, each in its own module:

* storage (``_storage``, ``_files``): the file, its writer lock, loading and migration,
  durable appends and atomic rewrites;
* the index (``_store``, ``_index``): entries in file order, decoded when asked for, so
  resuming a long session costs what its active branch costs;
* tree and branching (``_tree``): the leaf, labels, branches, the tree, branch copies.

Listing lives in ``_listing``. The differences from Pi (one writer at a time, bad lines
reported and kept, private files, cycles cut) are written down in ``docs/sessions``.
"""

from __future__ import annotations

import builtins
import os
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import msgspec
from msgspec import UNSET, UnsetType

import pi_coding_agent.core.messages  # noqa: F401 - registers the coding agent's roles
from pi_agent import AgentMessage, OpaqueMessage
from pi_ai import AssistantMessage, DecodeError, ImageContent, TextContent, Usage, convert, to_builtins
from pi_coding_agent.core.messages import current_system_message, iso_to_ms, now_iso
from pi_coding_agent.core.paths import make_private_dirs, resolve_path
from pi_coding_agent.core.session._context import SessionContext
from pi_coding_agent.core.session._entries import (
    CURRENT_SESSION_VERSION,
    BranchSummaryEntry,
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    ModelChangeEntry,
    OpaqueEntry,
    SessionEntry,
    SessionHeader,
    SessionInfoEntry,
    SessionMessageEntry,
    ThinkingLevelChangeEntry,
    entry_from_dict,
    entry_to_dict,
)
from pi_coding_agent.core.session._files import SessionError, open_for_reading, write_new
from pi_coding_agent.core.session._header import read_header
from pi_coding_agent.core.session._ids import check_session_id, generate_entry_id, new_session_id
from pi_coding_agent.core.session._index import FileIndex, SessionProblem
from pi_coding_agent.core.session._lines import encode_line
from pi_coding_agent.core.session._paths import (
    default_session_dir,
    default_session_dir_path,
    session_file_name,
)
from pi_coding_agent.core.session._storage import InvalidSessionError, SessionFile
from pi_coding_agent.core.session._store import EntryStore, warn
from pi_coding_agent.core.session._tree import EntryNotFoundError, SessionTree, SessionTreeNode

if TYPE_CHECKING:
    from pi_coding_agent.core.session._listing import SessionInfo

__all__ = [
    "EntryNotFoundError",
    "InvalidSessionError",
    "ReadOnlySessionError",
    "SessionManager",
    "SessionTreeNode",
]


class ReadOnlySessionError(SessionError):
    def __init__(self, path: str | None) -> None:
        super().__init__(f"Session {path} was opened read-only")


def _line(entry: SessionEntry | dict[str, Any]) -> bytes:
    if isinstance(entry, dict | SessionMessageEntry | OpaqueEntry):  # an opaque entry as its data
        data = entry if isinstance(entry, dict) else entry_to_dict(entry)
        return encode_line(data) + b"\n"
    return encode_line(entry) + b"\n"


def _is_assistant(entry: SessionEntry) -> bool:
    if not isinstance(entry, SessionMessageEntry):
        return False
    message = entry.message
    return isinstance(message, AssistantMessage) or (
        isinstance(message, OpaqueMessage) and message.data.get("role") == "assistant"
    )


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
        durable: bool = True,
    ) -> None:
        self._cwd = resolve_path(cwd)
        self._session_dir = session_dir
        self._persist = persist
        self._read_only = read_only
        self._durable = durable
        self._file: SessionFile | None = None
        self._session_id = ""
        self._header: dict[str, Any] = {}
        self._store = EntryStore(FileIndex(""))
        self._tree = SessionTree(self._store)
        self._has_assistant = False
        self.backups: list[str] = []
        """Copies of the original file made before a migration rewrote it."""
        if persist and session_dir and not read_only and not os.path.isdir(session_dir):
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
        durable: bool = True,
    ) -> SessionManager:
        """A new session; its file is written when the first assistant message arrives.

        ``durable=False`` skips syncing each append to disk (for bulk writers).
        """
        folder = resolve_path(session_dir) if session_dir else default_session_dir(cwd)
        return SessionManager(
            cwd, folder, None, True, session_id=session_id, parent_session=parent_session, durable=durable
        )

    @staticmethod
    def open(
        path: str,
        session_dir: str | None = None,
        cwd_override: str | None = None,
        *,
        read_only: bool = False,
        durable: bool = True,
    ) -> SessionManager:
        """Open a session file (a missing file: a new session that will be written there).

        Writers take the file's lock at once (``SessionLockedError`` if another writer has
        it, even when the file does not exist yet); ``read_only`` never locks, migrates on
        disk, repairs or appends.
        """
        resolved = resolve_path(path)
        cwd = cwd_override
        if cwd is None and os.path.exists(resolved):
            header = read_header(resolved)
            if header is not None and isinstance(header.get("cwd"), str):
                cwd = header["cwd"]
        folder = resolve_path(session_dir) if session_dir else os.path.dirname(resolved)
        return SessionManager(
            cwd or os.getcwd(), folder, resolved, True, read_only=read_only, durable=durable
        )

    @staticmethod
    def continue_recent(cwd: str, session_dir: str | None = None) -> SessionManager:
        """The most recently modified session of ``cwd`` (by file time), else a new one."""
        folder = resolve_path(session_dir) if session_dir else default_session_dir(cwd)
        filter_cwd = session_dir is not None and folder != default_session_dir_path(cwd)
        from pi_coding_agent.core.session._listing import find_most_recent_session  # only here

        recent = find_most_recent_session(folder, cwd if filter_cwd else None)
        return SessionManager(cwd, folder, recent, True)

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
        write_new(path, encode_line(header) + b"\n" + b"".join(line + b"\n" for line in lines))
        return SessionManager(target, folder, path, True)

    # ------------------------------------------------------------------ loading

    def _set_session_file(self, path: str) -> None:
        session_file = SessionFile(resolve_path(path), read_only=self._read_only, durable=self._durable)
        session_file.check_type()  # before anything changes: a refused path leaves this session as it was
        self._close_files()
        try:
            session_file.lock()
            loaded = session_file.load() if session_file.exists() else None
        except BaseException:
            session_file.close()
            raise
        if loaded is None:
            existed = session_file.exists()
            self._start_session()
            self._file = session_file
            if existed and not self._read_only:
                # An empty file: Pi writes the new session's header into it at once.
                session_file.write_all(self._render_all(), exclusive=False)
            return
        self._file = session_file
        self.backups = list(session_file.backups)
        self._use_index(loaded.header, loaded.index)
        for data in loaded.memory:
            self._index_entry(entry_from_dict(data), data)
        for problem in self._store.problems:
            warn(problem)

    def set_session_file(self, path: str) -> None:
        """Switch to another session file (resume)."""
        self._set_session_file(path)

    def _use_index(self, header: dict[str, Any], index: FileIndex) -> None:
        self._header = header
        header_id = header.get("id")
        self._session_id = header_id if isinstance(header_id, str) else ""
        self._store = EntryStore(index)
        self._tree = SessionTree.loaded(self._store, index.labels)
        # Only consulted before the first write; a loaded file has been written.
        self._has_assistant = False

    def _load_memory(self, items: list[SessionEntry | SessionHeader]) -> None:
        header = next((item for item in items if isinstance(item, SessionHeader)), None)
        if header is not None:
            self._header = msgspec.to_builtins(header)
            self._session_id = header.id
        self._reset_entries()
        for item in items:
            if not isinstance(item, SessionHeader):
                self._index_entry(item)

    def _reset_entries(self) -> None:
        self._store = EntryStore(FileIndex(self._file.path if self._file else ""))
        self._tree = SessionTree(self._store)
        self._has_assistant = False

    def _index_entry(self, entry: SessionEntry, raw: dict[str, Any] | None = None) -> None:
        position = self._store.add(entry, raw)
        self._tree.added(entry, position)
        if _is_assistant(entry):
            self._has_assistant = True

    # ------------------------------------------------------------------ new sessions

    def new_session(self, *, session_id: str | None = None, parent_session: str | None = None) -> str | None:
        """Start an empty session (new id and header); returns its future file path."""
        if session_id is not None:
            check_session_id(session_id)
        self._close_files()
        self._start_session(session_id, parent_session)
        if self._persist:
            timestamp = self._header["timestamp"]
            self._switch_file(os.path.join(self._session_dir, session_file_name(timestamp, self._session_id)))
        return self.get_session_file()

    def _start_session(self, session_id: str | None = None, parent_session: str | None = None) -> None:
        self._session_id = session_id or new_session_id()
        self._header = {
            "type": "session",
            "version": CURRENT_SESSION_VERSION,
            "id": self._session_id,
            "timestamp": now_iso(),
            "cwd": self._cwd,
        }
        if parent_session is not None:
            self._header["parentSession"] = parent_session
        self._reset_entries()

    def _switch_file(self, path: str) -> None:
        """A file that will be written from scratch; its lock is taken now."""
        self._close_files()
        session_file = SessionFile(path, read_only=self._read_only, durable=self._durable)
        session_file.lock()
        self._file = session_file

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
        return self._file.path if self._file is not None else None

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
        return list(self._store.problems)

    def get_entries(self) -> list[SessionEntry]:
        """Every entry in file order (decodes any not decoded yet)."""
        return self._store.all()

    def get_entries_data(self) -> list[dict[str, Any]]:
        """Every entry as JSON data, as stored (what Pi's ``getEntries`` serializes to)."""
        return self._store.raw(range(self._store.count()))

    def verify(self) -> list[SessionProblem]:
        """Decode every entry (validating it) and return all problems found."""
        self._store.all()
        return self.problems

    def get_entry(self, entry_id: str) -> SessionEntry | None:
        position = self._store.position(entry_id)
        return None if position is None else self._store.entries([position])[0]

    def get_leaf_id(self) -> str | None:
        """The leaf's id; ``None`` when the leaf was reset, or is an entry without an id."""
        return self._tree.leaf_id

    def get_leaf_entry(self) -> SessionEntry | None:
        leaf = self._tree.leaf_id
        return self.get_entry(leaf) if leaf else None

    def get_children(self, parent_id: str) -> list[SessionEntry]:
        """Direct children (one per id: the last entry with that id), in first-seen id order."""
        return self._tree.children(parent_id)

    def get_label(self, entry_id: str) -> str | None:
        return self._tree.labels.get(entry_id)

    def get_session_name(self) -> str | None:
        """The latest ``session_info`` name in file order (any branch); empty means none."""
        types = self._store.types
        for position in range(len(types) - 1, -1, -1):
            if types[position] == "session_info":
                entry = self._store.entries([position])[0]
                if isinstance(entry, SessionInfoEntry):
                    name: Any = entry.name
                else:  # read without validation (no id, say), as Pi reads it
                    name = entry.data.get("name") if isinstance(entry, OpaqueEntry) else None
                # A name that is no string: Pi's getSessionName throws; here there is none.
                return (name.strip() or None) if isinstance(name, str) else None
        return None

    # ------------------------------------------------------------------ tree

    def get_branch(self, from_id: str | None = None) -> list[SessionEntry]:
        """Entries from the root to ``from_id`` (default: the leaf); ``[]`` if unknown."""
        return self._tree.branch_entries(from_id)

    def build_context_entries(self) -> list[SessionEntry]:
        """The entries the context is built from (the latest compaction first)."""
        return self._tree.context_entries()

    def build_session_context(self) -> SessionContext:
        """Messages, thinking level and model of the current branch (Pi's ``buildSessionContext``)."""
        return self._tree.context()

    def get_tree(self) -> list[SessionTreeNode]:
        """Roots (entries without a known parent) with their children, oldest first."""
        return self._tree.nodes()

    def branch(self, branch_from_id: str) -> None:
        """Move the leaf; the next append starts a new branch there. Nothing is written."""
        self._tree.branch(branch_from_id)

    def reset_leaf(self) -> None:
        """Put the leaf before the first entry: the next append is a new root."""
        self._tree.reset_leaf()

    # ------------------------------------------------------------------ appending

    def _base(self) -> dict[str, Any]:
        return {
            "id": generate_entry_id(self._store.by_id),
            "parent_id": self._tree.leaf_id,
            "timestamp": now_iso(),
        }

    def _check_writable(self) -> None:
        if self._read_only:
            raise ReadOnlySessionError(self.get_session_file())

    def _append(self, entry: SessionEntry) -> str:
        self._index_entry(entry)
        if self._persist and self._file is not None:
            self._file.persist(_line(entry), self._render_all, self._has_assistant)
        assert entry.id is not None
        return entry.id

    def append_message(self, message: AgentMessage) -> str:
        """Append a message entry (summaries have their own entry types)."""
        self._check_writable()
        return self._append(SessionMessageEntry(**self._base(), message=message))

    def append_thinking_level_change(self, thinking_level: str) -> str:
        self._check_writable()
        return self._append(ThinkingLevelChangeEntry(**self._base(), thinking_level=thinking_level))

    def append_model_change(self, provider: str, model_id: str) -> str:
        self._check_writable()
        return self._append(ModelChangeEntry(**self._base(), provider=provider, model_id=model_id))

    def append_compaction(
        self,
        summary: str,
        first_kept_entry_id: str | None,
        tokens_before: int,
        *,
        details: Any | UnsetType = UNSET,
        from_hook: bool | UnsetType = UNSET,
        usage: Usage | UnsetType = UNSET,
    ) -> str:
        """A compaction summarising the branch before ``first_kept_entry_id``; ``None`` keeps
        nothing (Pi 1.6 then names the compaction itself as the first kept entry)."""
        self._check_writable()
        base = self._base()
        return self._append(
            CompactionEntry(
                **base,
                summary=summary,
                first_kept_entry_id=base["id"] if first_kept_entry_id is None else first_kept_entry_id,
                tokens_before=tokens_before,
                details=details,
                usage=usage,
                from_hook=from_hook,
                system_message=self._system_checkpoint(base["timestamp"]),
            )
        )

    def _system_checkpoint(self, timestamp: str) -> dict[str, Any] | UnsetType:
        """The prompt and tools the branch declares so far, replayed into one system message and
        stamped with the compaction's time (Pi 1.6's ``systemMessage``): the compacted context
        starts from it, so the declarations in the entries it summarises are not lost."""
        checkpoint = current_system_message(self.build_session_context().messages)
        if checkpoint is None:
            return UNSET
        built: dict[str, Any] = to_builtins(checkpoint)
        del built["timestamp"]  # written last, as Pi 1.6 orders the keys
        built["timestamp"] = iso_to_ms(timestamp) or checkpoint.timestamp
        return built

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

    def append_usage(
        self, kind: str, provider: str, model: str, usage: Usage | dict[str, Any], note: str | None = None
    ) -> str:
        """Billed usage that is no message (Pi 1.6's ``usage`` entry; ``kind`` e.g. ``cache_warm``):
        counted in the session's stats, never in the context."""
        self._check_writable()
        base = self._base()
        data = {"type": "usage", "id": base["id"], "parentId": base["parent_id"], "timestamp": base["timestamp"],
                "kind": kind, "provider": provider, "model": model, "usage": to_builtins(usage)}
        if note:
            data["note"] = note
        return self._append(OpaqueEntry(data))

    def append_context_edit(self, target_id: str, replacement: dict[str, Any] | None) -> str:
        """Hide (``None``) or replace the content of an earlier message on this branch in the
        context built from here on (Pi 1.6's ``context_edit``); the entry itself is untouched.
        A string ``content`` for an assistant or tool-result message is stored as one text block."""
        self._check_writable()
        content = replacement.get("content") if isinstance(replacement, dict) else None
        if replacement is not None and not isinstance(content, str | list):
            raise ValueError("a context edit's replacement is None or has string or list content")
        target = self.get_entry(target_id)
        if target is None:
            raise EntryNotFoundError(target_id)
        if all(entry.id != target_id for entry in self.get_branch()):
            raise ValueError(f"entry {target_id} is not on the current branch")
        role = "custom" if isinstance(target, CustomMessageEntry) else None
        if isinstance(target, SessionMessageEntry):
            role = target.message.role
        if role not in ("user", "assistant", "toolResult", "custom"):
            raise ValueError(f"entry {target_id} has no message content to edit")
        if role in ("assistant", "toolResult") and isinstance(content, str):
            replacement = {**(replacement or {}), "content": [{"type": "text", "text": content}]}
        base = self._base()
        data = {"type": "context_edit", "id": base["id"], "parentId": base["parent_id"],
                "timestamp": base["timestamp"], "targetId": target_id, "replacement": replacement}
        return self._append(OpaqueEntry(data))

    def append_label_change(self, target_id: str, label: str | None = None) -> str:
        """Label an entry (``None`` or ``""`` clears its label)."""
        self._check_writable()
        if self._store.position(target_id) is None:
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
        if branch_from_id is not None and self._store.position(branch_from_id) is None:
            raise EntryNotFoundError(branch_from_id)
        from_id = self._tree.leaf_id if self._tree.leaf_id is not None else "root"
        if branch_from_id is None:
            self._tree.reset_leaf()
        else:
            self._tree.branch(branch_from_id)
        return self._append(
            BranchSummaryEntry(
                **self._base(),
                from_id=from_id,
                summary=summary,
                details=details,
                usage=usage,
                from_hook=from_hook,
            )
        )

    # ------------------------------------------------------------------ files

    def _render_all(self) -> bytes:
        store = self._store
        lines = [encode_line(self._header) + b"\n"]
        lines += [_line(store.data_of(index)) for index in range(store.count())]
        return b"".join(lines)

    def _close_files(self) -> None:
        if self._file is not None:
            self._file.close()

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
        previous_file = self.get_session_file()
        kept, labels = self._tree.branch_copy(leaf_id)
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
        self._close_files()
        self._header = header
        self._session_id = new_id
        if self._persist:
            self._switch_file(os.path.join(self._session_dir, session_file_name(timestamp, new_id)))
        self._reset_entries()
        for data in kept + labels:
            self._index_entry(entry_from_dict(data), data)
        if self._file is None:
            return None
        if self._has_assistant:
            self._file.write_all(self._render_all(), exclusive=True)
        return self._file.path

    # ------------------------------------------------------------------ listing

    @staticmethod
    def list(
        cwd: str,
        session_dir: str | None = None,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> builtins.list[SessionInfo]:
        """Sessions of ``cwd``, most recently modified first (see ``list_sessions``)."""
        from pi_coding_agent.core.session._listing import list_sessions  # listing is loaded on first use

        return list_sessions(cwd, session_dir, on_progress)

    @staticmethod
    def list_all(
        session_dir: str | None = None,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> builtins.list[SessionInfo]:
        """Sessions of every project (see ``list_all_sessions``)."""
        from pi_coding_agent.core.session._listing import list_all_sessions

        return list_all_sessions(session_dir, on_progress)


_LINE_BREAKS = re.compile(r"[\r\n]+")


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
        from pi_coding_agent.core.session._migrate import (  # old files only
            load_legacy,
            migrate_session_entries,
        )

        with open_for_reading(path) as file:
            legacy = load_legacy(file.read())
        entries = legacy.entries()
        migrate_session_entries(entries)
        return [encode_line(entry) for entry in entries if entry.get("type") != "session"]
    return [bytes(line) for _, line in index.lines(range(len(index.ids)))]
