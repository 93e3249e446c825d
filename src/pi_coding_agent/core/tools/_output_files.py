"""Where full command outputs are saved, who can read them, and when they are removed.

When a command's output is cut for the model (the ``bash`` tool) or for display (user
``!cmd``), every byte goes to a file whose path the result reports. Such output can hold
secrets (an ``env`` dump, a token printed by a script), so, unlike Pi (``<tmpdir>/pi-bash-
<hex>.log`` with the umask's mode, never removed):

* the files live in a private folder ``<tmpdir>/pi-<uid>/`` (mode ``0700``; one we did not
  create, a symlink, or a folder owned by someone else is never used: a fresh ``mkdtemp``
  folder replaces it for this process), and are created ``0600`` with ``O_EXCL | O_NOFOLLOW``;
* a file that a session file refers to (the result is stored in a persisted session, where a
  resumed conversation can still read it) is *kept* in that folder, and removed by a later
  sweep once it is older than ``KEEP_SECONDS`` (seven days: secrets do not linger forever, and
  a temp folder is cleared on reboot anyway);
* a file nothing durable refers to (``--no-session``, an in-memory session) is *ephemeral*:
  it lives in ``run-<pid>/`` under that folder and is removed when the process exits; if the
  process was killed before it could clean up, the next sweep removes the folder of a pid that
  is no longer running.

The sweep runs once per process, when it saves its first full output (not at startup, which
stays free of file-system work).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import stat
import time

KEEP_SECONDS = 7 * 24 * 3600
"""How long a kept full-output file survives (by modification time)."""
PRIVATE_MODE = 0o700
FILE_MODE = 0o600
_RUN_PREFIX = "run-"

_root: str | None = None
_run_dir: str | None = None


def create_output_file(prefix: str, *, keep: bool) -> tuple[str, int]:
    """A new private file ``<prefix>-<16 hex>.log``: its path and a descriptor open for writing.

    ``keep``: the path will be stored in a session file (kept until the sweep); otherwise the
    file is removed when this process exits.
    """
    import secrets  # loaded with the first full output, not at startup

    folder = output_root() if keep else _ephemeral_dir()
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    while True:
        path = os.path.join(folder, f"{prefix}-{secrets.token_hex(8)}.log")
        try:
            return path, os.open(path, flags, FILE_MODE)
        except FileExistsError:
            continue


def output_root() -> str:
    """The private folder for this user (created, checked and swept on first use)."""
    global _root
    if _root is None:
        import tempfile

        uid = os.getuid()
        candidate = os.path.join(tempfile.gettempdir(), f"pi-{uid}")
        if _claim_private_dir(candidate, uid):
            _sweep(candidate)
            _root = candidate
        else:
            _root = tempfile.mkdtemp(prefix=f"pi-{uid}-")
    return _root


def _ephemeral_dir() -> str:
    global _run_dir
    if _run_dir is None:
        folder = os.path.join(output_root(), f"{_RUN_PREFIX}{os.getpid()}")
        if not _claim_private_dir(folder, os.getuid()):
            import tempfile

            folder = tempfile.mkdtemp(prefix=_RUN_PREFIX, dir=output_root())
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        _run_dir = folder
    return _run_dir


def _claim_private_dir(path: str, uid: int) -> bool:
    """Create ``path`` as ``0700``, or accept an existing real folder of ``uid`` (made ``0700``)."""
    try:
        os.mkdir(path, PRIVATE_MODE)
    except FileExistsError:
        pass
    except OSError:
        return False
    try:
        info = os.lstat(path)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != uid:
            return False
        if stat.S_IMODE(info.st_mode) != PRIVATE_MODE:
            os.chmod(path, PRIVATE_MODE, follow_symlinks=False)
    except OSError:
        return False
    return True


def _sweep(root: str) -> None:
    """Remove kept files past ``KEEP_SECONDS`` and run folders of processes that are gone."""
    cutoff = time.time() - KEEP_SECONDS
    try:
        entries = list(os.scandir(root))
    except OSError:
        return
    for entry in entries:
        with contextlib.suppress(OSError):
            if entry.is_dir(follow_symlinks=False) and entry.name.startswith(_RUN_PREFIX):
                pid = entry.name[len(_RUN_PREFIX) :]
                if pid.isdigit() and not _running(int(pid)):
                    shutil.rmtree(entry.path, ignore_errors=True)
            elif entry.is_file(follow_symlinks=False) and entry.stat(follow_symlinks=False).st_mtime < cutoff:
                os.unlink(entry.path)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
