"""Storage: the JSONL file behind a ``SessionManager``.

``SessionFile`` loads a file (scan, Pi's torn-line repair, migration of v1/v2 files with a
backup first), holds the writer lock, and writes entries the way Pi does: nothing until
the session has an assistant message, then the whole file at once (created exclusively),
then one appended line per entry. Files, the lock and backups follow ``_files``' rules
(private, atomic, synced: see ``docs/sessions``).

A symlinked session file is read through the link, but never written through it: a writer
is refused at its open (``SymlinkedSessionError``; Pi follows the link, docs/security.md), and
appends open the file with ``O_NOFOLLOW`` in case a link is planted later. A file opened
``read_only`` is never written, repaired, migrated on disk or locked.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pi_coding_agent.core.session._entries import CURRENT_SESSION_VERSION
from pi_coding_agent.core.session._files import (
    Appender,
    SessionError,
    WriterLock,
    backup,
    open_for_reading,
    replace,
    write_new,
)
from pi_coding_agent.core.session._index import FileIndex

APP_NAME = "pi"


def _backup_suffix(version: Any) -> str:
    """``v1.bak`` for a version 1 file; a version too long for a file name (a 400-digit number)
    gives ``vold.bak``."""
    label = f"v{version or 1}"
    return f"{label if len(label) <= 24 else 'vold'}.bak"


class InvalidSessionError(SessionError):
    """The file exists, is not empty, and its first parsed line is not a session header."""

    def __init__(self, path: str) -> None:
        super().__init__(f"Session file is not a valid {APP_NAME} session: {path}")
        self.path = path


class SymlinkedSessionError(SessionError):
    """A session file to be written is a symlink: it is not written through."""

    def __init__(self, path: str) -> None:
        super().__init__(
            f"Session file {path} is a symlink (to {os.readlink(path)}); pi does not write sessions "
            "through a link: open the file it points to"
        )
        self.path = path


@dataclass(slots=True)
class Loaded:
    """What ``SessionFile.load`` found."""

    header: dict[str, Any]
    index: FileIndex
    memory: list[dict[str, Any]] = field(default_factory=list)
    """Entries that exist only in memory: a read-only open of a v1/v2 file migrates there."""


class _Handles:
    """The open file and lock of a session file, closed when it is closed or collected."""

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


class SessionFile:
    """One session file: see the module docstring. ``path`` is kept as given (resolved)."""

    def __init__(self, path: str, *, read_only: bool, durable: bool = True) -> None:
        self.path = path
        self.real_path = os.path.realpath(path)
        """Where reads and writes go: the file a symlink points to."""
        self.read_only = read_only
        self.durable = durable
        self.flushed = False
        """Whether the file has been written (a loaded file has)."""
        self.backups: list[str] = []
        self._handles = _Handles()
        weakref.finalize(self, self._handles.close)

    def exists(self) -> bool:
        return os.path.exists(self.path)

    def check_type(self) -> None:
        """``NotRegularFileError`` if the path exists and is no regular file: checked before the
        lock, so no ``.lock`` file is made beside a device, a FIFO or a directory."""
        if self.exists():
            open_for_reading(self.path).close()

    # ------------------------------------------------------------------ the lock

    def lock(self) -> None:
        """Take the writer lock (``SessionLockedError`` if another writer has it).

        Writers take it as soon as they know their file, before it exists: two managers
        creating the same new session get the same error as two opening one file.
        """
        if self.read_only or self._handles.lock is not None:
            return
        if os.path.islink(self.path):
            raise SymlinkedSessionError(self.path)
        lock = WriterLock(self.real_path, shown_as=self.path)
        lock.acquire()
        self._handles.lock = lock

    def close(self) -> None:
        self._handles.close()

    # ------------------------------------------------------------------ loading

    def load(self) -> Loaded | None:
        """Index the file; ``None`` if it is empty (the caller starts a session in it)."""
        index = FileIndex(self.path).scan(decode_tail=True)
        if index.header is None:
            if os.path.getsize(self.path) > 0:
                raise InvalidSessionError(self.path)
            return None
        self.flushed = True
        version = index.header.get("version")
        if version is None or (isinstance(version, int | float) and version < CURRENT_SESSION_VERSION):
            return self._migrate(index, version)
        if index.torn_tail and not self.read_only:
            # Pi's repair: finish the torn line so later appends start on a fresh line.
            self._appender().append(b"\n")
        return Loaded(index.header, index)

    def _migrate(self, index: FileIndex, version: Any) -> Loaded:
        from pi_coding_agent.core.session._migrate import (  # old files only
            load_legacy,
            migrate_session_entries,
        )

        with open_for_reading(self.path) as file:
            legacy = load_legacy(file.read())
        entries = legacy.entries()
        migrate_session_entries(entries)
        if not self.read_only:
            self.backups.append(backup(self.real_path, _backup_suffix(version)))
            self._close_appender()
            replace(self.real_path, legacy.render())
            migrated = FileIndex(self.path).scan()
            assert migrated.header is not None
            return Loaded(migrated.header, migrated)
        # Read-only: the migrated entries live in memory; the file is left as it is.
        memory = FileIndex(self.path)
        memory.header = next(entry for entry in entries if entry.get("type") == "session")
        # Entries of old versions have no ids yet: only unparsable lines are problems here.
        memory.problems = [problem for problem in index.problems if problem.kind != "invalid"]
        kept = [data for data in entries if data.get("type") != "session" and isinstance(data.get("id"), str)]
        return Loaded(memory.header, memory, kept)

    # ------------------------------------------------------------------ writing

    def persist(self, line: bytes, render_all: Callable[[], bytes], has_assistant: bool) -> None:
        """Write one new entry as Pi does (``render_all``: the whole file, for the first write)."""
        if not has_assistant:
            if self.flushed:
                self._appender().append(line)
            return
        if not self.flushed:
            self.write_all(render_all(), exclusive=True)
        else:
            self._appender().append(line)

    def write_all(self, data: bytes, *, exclusive: bool) -> None:
        """Write the whole file: created (``exclusive``: it must not exist yet) or replaced."""
        self.lock()
        self._close_appender()
        if exclusive:
            write_new(self.real_path, data)
        else:
            replace(self.real_path, data)
        self.flushed = True

    def _appender(self) -> Appender:
        handles = self._handles
        if handles.appender is None:
            self.lock()
            handles.appender = Appender(self.real_path, durable=self.durable)
        return handles.appender

    def _close_appender(self) -> None:
        appender, self._handles.appender = self._handles.appender, None
        if appender is not None:
            appender.close()
