"""HTML export: a session as one self-contained page (``pi --export``, RPC ``export_html``).

The page needs nothing but itself: styles, script and images are inside it, and it never
loads anything from the network. It shows the whole session tree (every branch, with
labels) beside the active branch: user and assistant messages (text, thinking, tool calls),
tool results, bash runs, images, compactions and branch summaries. Clicking an entry of
the tree shows the branch that leads to it. See docs/export.md.
"""

from __future__ import annotations

import os

from pi_coding_agent.core.export._page import SessionPage, render_page
from pi_coding_agent.core.session import SessionManager


class ExportError(Exception):
    """The session cannot be exported (no such file, nothing written yet, in memory)."""


def _default_output(session_file: str) -> str:
    name = os.path.basename(session_file)
    stem = name[: -len(".jsonl")] if name.endswith(".jsonl") else name
    return f"pi-session-{stem}.html"


def _write(path: str, page: str) -> str:
    try:
        with open(path, "w", encoding="utf-8") as file:
            file.write(page)
    except OSError as error:
        raise ExportError(f"cannot write {path}: {error.strerror or error}") from None
    return path


def export_session(
    manager: SessionManager, output_path: str | None = None, *, system_prompt: str | None = None
) -> str:
    """Export the session ``manager`` holds; returns the path written."""
    session_file = manager.get_session_file()
    if not manager.is_persisted() or session_file is None:
        raise ExportError("Cannot export in-memory session to HTML")
    if not os.path.exists(session_file):
        raise ExportError("Nothing to export yet - start a conversation first")
    page = render_page(SessionPage.from_manager(manager, system_prompt=system_prompt))
    return _write(output_path or _default_output(session_file), page)


def export_file(input_path: str, output_path: str | None = None) -> str:
    """Export a session file (opened read-only: it is never changed); returns the path written."""
    from pi_coding_agent.core.session import SessionError

    resolved = os.path.abspath(os.path.expanduser(input_path))
    if not os.path.isfile(resolved):
        raise ExportError(f"File not found: {resolved}")
    try:
        manager = SessionManager.open(resolved, read_only=True)
    except (SessionError, OSError) as error:
        raise ExportError(str(error)) from None
    try:
        page = render_page(SessionPage.from_manager(manager))
    finally:
        manager.close()
    return _write(output_path or _default_output(resolved), page)


__all__ = ["ExportError", "SessionPage", "export_file", "export_session", "render_page"]
