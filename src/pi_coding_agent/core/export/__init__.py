"""HTML export: a session as one self-contained page (``pi --export``, ``/export``, RPC
``export_html``), in the colours of a theme.

The page needs nothing but itself: styles, script and images are inside it, and it never
loads anything from the network. It shows the session tree (every branch, with labels,
filters and a search) beside the active branch: Markdown rendered, code highlighted, tool
calls with their results as the TUI shows them, thinking, bash runs, images, compactions and
branch summaries. Clicking an entry of the tree shows the branch through it. See
docs/export.md.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Mapping
from typing import Any

from pi_coding_agent.core.export._page import SessionPage, render_page
from pi_coding_agent.core.session import SessionManager


class ExportError(Exception):
    """The session cannot be exported (no such file, nothing written yet, in memory)."""


def _default_output(session_file: str) -> str:
    name = os.path.basename(session_file)
    stem = name[: -len(".jsonl")] if name.endswith(".jsonl") else name
    return f"pi-session-{stem}.html"


def _write(path: str, page: str) -> str:
    """Write ``page`` to ``path`` whole or not at all: a temporary file beside it, renamed over
    it (through a symlink, to the file it names). A device or FIFO is written to directly."""
    data = page.encode("utf-8")
    target = os.path.realpath(path)
    try:
        if os.path.exists(target) and not os.path.isfile(target):
            with open(target, "wb") as stream:
                stream.write(data)
            return path
        temp = f"{target}.{os.getpid()}-{secrets.token_hex(4)}.tmp"
        # Created as open() creates a file (0666 less the umask), not 0600 as mkstemp would.
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(data)
            os.replace(temp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
    except OSError as error:
        raise ExportError(f"cannot write {path}: {error.strerror or error}") from None
    return path


def export_session(
    manager: SessionManager,
    output_path: str | None = None,
    *,
    palette: Mapping[str, str],
    system_prompt: str | None = None,
    tools: list[dict[str, Any]] | None = None,
) -> str:
    """Export the session ``manager`` holds, in the colours of ``palette`` (a theme's CSS
    colours by token); ``tools`` are the running session's (``name``, ``description``,
    ``parameters``). Returns the path written."""
    session_file = manager.get_session_file()
    if not manager.is_persisted() or session_file is None:
        raise ExportError("Cannot export in-memory session to HTML")
    if not os.path.exists(session_file):
        raise ExportError("Nothing to export yet - start a conversation first")
    page = render_page(SessionPage.from_manager(manager, palette, system_prompt=system_prompt, tools=tools))
    return _write(output_path or _default_output(session_file), page)


def export_file(input_path: str, output_path: str | None = None, *, palette: Mapping[str, str]) -> str:
    """Export a session file (opened read-only: it is never changed) in the colours of
    ``palette``; returns the path written."""
    from pi_coding_agent.core.session import SessionError

    resolved = os.path.abspath(os.path.expanduser(input_path))
    if not os.path.exists(resolved):
        raise ExportError(f"File not found: {resolved}")
    try:
        manager = SessionManager.open(resolved, read_only=True)
    except (SessionError, OSError) as error:
        raise ExportError(str(error)) from None
    try:
        page = render_page(SessionPage.from_manager(manager, palette))
    finally:
        manager.close()
    return _write(output_path or _default_output(resolved), page)


__all__ = ["ExportError", "SessionPage", "export_file", "export_session", "render_page"]
