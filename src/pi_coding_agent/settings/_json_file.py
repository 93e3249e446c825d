"""Reading and writing the small JSON files the user may edit (settings, auth, trust).

Readers report a bad file with its path, line and column and never touch it. Writers
replace a file atomically (temporary file + rename) so a crash cannot leave half a file.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any


class ConfigFileError(Exception):
    """A configuration file exists but cannot be used; the message names file and position."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def read_json_object(path: Path) -> dict[str, Any] | None:
    """The JSON object stored in ``path``; ``None`` when the file does not exist.

    An empty (or whitespace-only) file counts as ``{}``. A UTF-8 byte order mark is ignored.
    Raises ``ConfigFileError`` for unreadable files, invalid JSON and non-object values.
    """
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise ConfigFileError(path, f"cannot be read ({error.strerror or error})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ConfigFileError(path, f"is not valid UTF-8 (byte {error.start})") from None
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigFileError(
            path, f"invalid JSON at line {error.lineno} column {error.colno}: {error.msg}"
        ) from None
    if not isinstance(value, dict):
        raise ConfigFileError(path, f"expected a JSON object, found {_json_kind(value)}")
    return value


def write_json_atomic(path: Path, value: Any, *, mode: int | None = None) -> None:
    """Write ``value`` as indented JSON (2 spaces, like Pi) through a temporary file.

    ``mode`` applies only when the file is created; an existing file keeps its permissions.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        keep_mode: int | None = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        keep_mode = mode
    text = json.dumps(value, indent=2, ensure_ascii=False)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        if keep_mode is not None:
            os.chmod(tmp, keep_mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return "a number"
