"""Ctrl+G: edit the prompt in ``externalEditor``, ``$VISUAL``, ``$EDITOR`` or ``nano``."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile


def edit_externally(text: str, configured: object) -> str | None:
    """The edited text, or ``None`` when the editor failed (non-zero exit, not found)."""
    command = (
        configured
        if isinstance(configured, str) and configured.strip()
        else (os.environ.get("VISUAL") or os.environ.get("EDITOR") or "nano")
    )
    handle, path = tempfile.mkstemp(prefix="pi-prompt-", suffix=".md")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        try:
            status = subprocess.call([*shlex.split(command), path])
        except OSError:
            return None
        if status != 0:
            return None
        with open(path, encoding="utf-8") as file:
            return file.read()
    finally:
        os.unlink(path)
