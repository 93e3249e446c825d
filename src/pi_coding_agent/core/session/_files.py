"""Writing session files safely: one writer at a time, whole lines only, private files.

* ``WriterLock``: an ``flock`` on ``<session>.jsonl.lock`` (the kernel drops it when the
  holder dies, so a crash never leaves a stale lock). The file records who holds it, so a
  second writer gets an error naming the holder. Readers never look at it. The lock file is
  opened with ``O_NOFOLLOW``: a symlink planted at its name is refused, never written through.
* ``Appender``: each entry is one ``write`` of the whole line on an ``O_APPEND`` descriptor
  (opened with ``O_NOFOLLOW``: a symlink at the session file's name is refused);
  a write that fails halfway is cut back off, so an entry is either wholly in the file or
  not at all. A process killed inside ``write`` can still leave a torn last line; the next
  open reports it and keeps it (see ``_index``).
* ``open_for_reading``: every read of a session path goes through it. A FIFO, a device, a
  directory or a socket is refused (``NotRegularFileError``) without blocking or reading it:
  the file is opened with ``O_NONBLOCK`` (a FIFO without a writer would block the open) and
  checked with ``fstat`` (the object opened, not the name, so nothing can be swapped in).
* ``write_new`` / ``replace``: whole-file writes go to a temporary file that is synced and
  then linked (new files: fails if the name exists) or renamed into place.

Durability: an append returns after ``fdatasync`` (``durable=True``, the default), so an
acknowledged entry survives a power loss; after a new file is linked or a rewrite renamed
into place the folder is synced too, so the name survives. ``bench/session_append.py``
measures what that costs per append.

Files are created ``0600``.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import io
import os
import stat
import time
from typing import Any, Literal, overload

import msgspec

from pi_coding_agent.core.messages import now_iso

FILE_MODE = 0o600


class SessionError(Exception):
    """Base class of the session errors."""


class NotRegularFileError(SessionError):
    """The session path names something other than a regular file (a FIFO, a device...)."""

    def __init__(self, path: str, kind: str) -> None:
        super().__init__(f"Session file {path} is not a regular file ({kind}); refusing to read it")
        self.path = path
        self.kind = kind


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str | None:
    """What a non-regular file is, or ``None`` for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "not a file")


@overload
def open_for_reading(path: str, buffering: Literal[0]) -> io.FileIO: ...
@overload
def open_for_reading(path: str) -> io.BufferedReader: ...
def open_for_reading(path: str, buffering: int = -1) -> io.FileIO | io.BufferedReader:
    """``open(path, "rb")`` for a regular file only (see the module docstring);
    ``NotRegularFileError`` for anything else, ``OSError`` as ``open`` raises it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError as error:
        if error.errno == errno.ENXIO:  # a socket (or a FIFO that may not be opened)
            kind = _kind(os.stat(path).st_mode)
            raise NotRegularFileError(path, kind or "cannot be opened") from None
        raise
    try:
        kind = _kind(os.fstat(fd).st_mode)
        if kind is not None:
            raise NotRegularFileError(path, kind)
        os.set_blocking(fd, True)
        file = io.FileIO(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    return file if buffering == 0 else io.BufferedReader(file)


class SessionLockedError(SessionError):
    """Another process holds the session open for writing."""

    def __init__(self, session_path: str, holder: dict[str, Any] | None) -> None:
        if holder:
            who = f"pid {holder.get('pid', '?')} on {holder.get('host', '?')}"
            since = f" since {holder['since']}" if holder.get("since") else ""
        else:
            who, since = "another process", ""
        super().__init__(
            f"Session file {session_path} is already open for writing by {who}{since} "
            f"(lock {session_path}.lock). Close it there first; reading it does not need the lock."
        )
        self.session_path = session_path
        self.holder = holder


class WriterLock:
    """The lock of the session file at ``session_path`` (``shown_as``: its name in messages)."""

    def __init__(self, session_path: str, shown_as: str | None = None) -> None:
        self.session_path = session_path
        self.shown_as = shown_as or session_path
        self.path = session_path + ".lock"
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> None:
        if self._fd is not None:
            return
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, FILE_MODE)
            except OSError as error:
                raise SessionError(
                    f"Cannot lock session file {self.shown_as}: {self.path} "
                    f"({'is a symlink' if os.path.islink(self.path) else error.strerror})"
                ) from None
            if not _take(fd):
                holder = _read_holder(fd)
                os.close(fd)
                raise SessionLockedError(self.shown_as, holder) from None
            # The previous holder may have removed the file between our open and flock:
            # then we locked an orphan and must retry on the file now at the path.
            try:
                current = os.stat(self.path)
            except FileNotFoundError:
                os.close(fd)
                continue
            mine = os.fstat(fd)
            if (current.st_dev, current.st_ino) != (mine.st_dev, mine.st_ino):
                os.close(fd)
                continue
            # uname's node name is what gethostname() returns (without importing socket).
            info = msgspec.json.encode({"pid": os.getpid(), "host": os.uname().nodename, "since": now_iso()})
            if mine.st_size:
                # Only a stale holder's text needs cutting: on ext4, truncating even an empty
                # file makes its close flush to disk (auto_da_alloc), 5 ms per session open.
                os.ftruncate(fd, 0)
            os.pwrite(fd, info, 0)
            self._fd = fd
            return

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        os.close(fd)


DYING_HOLDER_WAIT_S = 10.0
"""How long a writer waits for the lock of a holder that is being killed: the kernel drops
the lock only once the dying process has freed its memory and closes its files, which
takes a moment after ``kill -9`` (seconds for a process with a large model mapped)."""


HOLDER_ALIVE_CONFIRM_S = 0.05
"""How long the holder must look alive before a writer gives up: between the kernel taking
a pending SIGKILL off the queue and marking the process as exiting there is a moment in which
``/proc`` shows neither, so one look is not enough."""


def _take(fd: int) -> bool:
    """``flock`` the lock file; while the holder this host names in it is dying (killed,
    exiting, a zombie, gone), wait for the kernel to release its lock."""
    deadline = time.monotonic() + DYING_HOLDER_WAIT_S
    alive_since: float | None = None
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            now = time.monotonic()
            if _holder_dying(_read_holder(fd)):
                alive_since = None
            elif alive_since is None:
                alive_since = now
            if now > deadline or (alive_since is not None and now - alive_since >= HOLDER_ALIVE_CONFIRM_S):
                return False
        time.sleep(0.005)


_SIGKILL_BIT = 1 << (9 - 1)
_PF_EXITING = 0x4


def _holder_dying(holder: dict[str, Any] | None) -> bool:
    """Whether the process named in the lock file runs on this host and is on its way out:
    a SIGKILL pending, exiting (``PF_EXITING``), a zombie, or gone (Linux ``/proc``)."""
    pid = holder.get("pid") if holder else None
    if not holder or holder.get("host") != os.uname().nodename or not isinstance(pid, int):
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            fields = file.read().rsplit(b")", 1)[1].split()
        with open(f"/proc/{pid}/status", "rb") as file:
            status = dict(line.split(b":", 1) for line in file.read().splitlines() if b":" in line)
    except FileNotFoundError:
        return pid != os.getpid()
    except OSError:
        return False
    pending = int(status.get(b"ShdPnd", b"0").strip(), 16) | int(status.get(b"SigPnd", b"0").strip(), 16)
    return fields[0] in (b"Z", b"X", b"x") or bool(int(fields[6]) & _PF_EXITING) or bool(pending & _SIGKILL_BIT)


def _read_holder(fd: int) -> dict[str, Any] | None:
    try:
        data = os.pread(fd, 4096, 0)
        holder = msgspec.json.decode(data) if data else None
    except (OSError, ValueError):
        return None
    return holder if isinstance(holder, dict) else None


class Appender:
    """Appends whole lines to one file (synced before returning when ``durable``)."""

    def __init__(self, path: str, *, durable: bool = True) -> None:
        self.path = path
        self.durable = durable
        try:
            self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC | os.O_NOFOLLOW)
        except OSError as error:
            if error.errno != errno.ELOOP:
                raise
            raise SessionError(f"Cannot append to session file {path}: it is a symlink (not written through)") from None
        self._size = os.fstat(self._fd).st_size

    def append(self, data: bytes) -> None:
        """Write ``data`` (one or more complete lines) or, on failure, nothing."""
        view = memoryview(data)
        written = 0
        try:
            while written < len(data):
                written += os.write(self._fd, view[written:])
            if self.durable:
                os.fdatasync(self._fd)
        except BaseException:
            if written:
                with contextlib.suppress(OSError):
                    os.ftruncate(self._fd, self._size)
            raise
        self._size += written

    def close(self) -> None:
        fd, self._fd = self._fd, -1
        if fd >= 0:
            os.close(fd)


def _write_temp(directory: str, data: bytes) -> str:
    import tempfile

    fd, temp = tempfile.mkstemp(dir=directory, prefix=".pi-session-", suffix=".tmp")
    try:
        os.fchmod(fd, FILE_MODE)
        view = memoryview(data)
        written = 0
        while written < len(data):
            written += os.write(fd, view[written:])
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(temp)
        raise
    os.close(fd)
    return temp


def _sync_folder(directory: str) -> None:
    """Make a name just linked or renamed in ``directory`` survive a power loss."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_new(path: str, data: bytes) -> None:
    """Create ``path`` with ``data`` atomically; ``FileExistsError`` if it exists."""
    directory = os.path.dirname(path) or "."
    temp = _write_temp(directory, data)
    try:
        os.link(temp, path)
    finally:
        os.unlink(temp)
    _sync_folder(directory)


def replace(path: str, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically (readers see the old or the new file)."""
    directory = os.path.dirname(path) or "."
    temp = _write_temp(directory, data)
    try:
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise
    _sync_folder(directory)


def backup(path: str, suffix: str) -> str:
    """Copy ``path`` to ``<path>.<suffix>`` (``-1``, ``-2``... if taken); returns the copy's path."""
    with open_for_reading(path) as source:
        data = source.read()
    candidate = f"{path}.{suffix}"
    number = 0
    while True:
        try:
            write_new(candidate, data)
            return candidate
        except FileExistsError:
            number += 1
            candidate = f"{path}.{suffix}-{number}"
