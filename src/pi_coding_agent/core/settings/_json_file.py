"""Reading the small JSON files the user may edit (settings, auth, trust).

A bad file is reported with its path, line and column; it is never touched.
"""

from __future__ import annotations

import json
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
