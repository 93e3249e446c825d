"""File system errors worded the way Node reports them, since the model reads those words.

Pi's tools let Node's own errors through (``ENOENT: no such file or directory, access
'/x'``); a model that has learnt to react to them should see the same text here.
"""

from __future__ import annotations

import errno
import os

_UV_MESSAGES = {
    errno.ENOENT: "no such file or directory",
    errno.EACCES: "permission denied",
    errno.EISDIR: "illegal operation on a directory",
    errno.ENOTDIR: "not a directory",
    errno.ELOOP: "too many symbolic links encountered",
    errno.ENAMETOOLONG: "name too long",
    errno.EPERM: "operation not permitted",
    errno.EEXIST: "file already exists",
    errno.EROFS: "read-only file system",
    errno.ENOSPC: "no space left on device",
    errno.EMFILE: "too many open files",
    errno.EIO: "i/o error",
    errno.EBUSY: "resource busy or locked",
}


def error_code(error: OSError) -> str:
    """``ENOENT`` style name of an OS error (``EIO`` when the number is unknown)."""
    return errno.errorcode.get(error.errno or errno.EIO, "EIO")


def node_error_message(path: str | None, syscall: str, error: OSError | None = None) -> str:
    """``CODE: description, syscall 'path'`` (no path part when ``path`` is None)."""
    if error is None:
        error = access_error(path or "", os.R_OK) or OSError(errno.EACCES, "")
    number = error.errno or errno.EIO
    text = _UV_MESSAGES.get(number) or os.strerror(number).lower()
    where = f"{syscall} '{path}'" if path is not None else syscall
    return f"{error_code(error)}: {text}, {where}"


def access_error(path: str, mode: int) -> OSError | None:
    """Why ``path`` cannot be used with ``mode`` (``os.R_OK`` ...), or ``None`` if it can."""
    try:
        os.stat(path)
    except OSError as error:
        return error
    if mode != os.F_OK and not os.access(path, mode):
        return OSError(errno.EACCES, "permission denied")
    return None
