"""Changing one key of a ``settings.json`` without touching the rest of the file.

The file is read again just before it is written (other keys kept as they are), written
to a temporary file beside it and moved into place, so a crash never leaves half a file.
A file that is not valid JSON is never overwritten: the change is refused with the reason.
Formatting is Pi's (``JSON.stringify(value, null, 2)``).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from pi_ai.js_json import stringify
from pi_coding_agent.core.paths import make_private_dirs
from pi_coding_agent.core.settings import ConfigFileError, read_json_object


class SettingsWriteError(Exception):
    """The settings file cannot be changed (invalid JSON, no permission, ...)."""


def read_settings(path: Path) -> dict[str, Any]:
    try:
        return read_json_object(path) or {}
    except ConfigFileError as error:
        raise SettingsWriteError(f"{error}; fix the file first (it was left unchanged)") from None


def update_setting(path: Path, key: str, value: Any) -> None:
    """Set (or, with ``value`` None, remove) ``key`` in the settings file at ``path``."""
    data = read_settings(path)
    if value is None:
        data.pop(key, None)
    else:
        data[key] = value
    text = stringify(data, 2)
    try:
        make_private_dirs(str(path.parent))
        handle, temp = tempfile.mkstemp(prefix=".settings-", suffix=".json", dir=path.parent)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        if path.exists():
            os.chmod(temp, path.stat().st_mode & 0o777)
        os.replace(temp, path)
    except OSError as error:
        raise SettingsWriteError(f"cannot write {path}: {error.strerror or error}") from None
