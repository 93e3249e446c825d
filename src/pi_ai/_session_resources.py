"""What providers keep per session (Anthropic thread state, ...) and its release when a session
ends: ``cleanup_session_resources(session_id)``, or every session's with ``None``."""

from __future__ import annotations

from collections.abc import Callable

SessionCleanup = Callable[[str | None], None]
_cleanups: list[SessionCleanup] = []


def register_session_cleanup(cleanup: SessionCleanup) -> None:
    """Run ``cleanup`` whenever a session's resources are released."""
    _cleanups.append(cleanup)


def cleanup_session_resources(session_id: str | None = None) -> None:
    """Release what every provider keeps for ``session_id`` (all sessions with ``None``)."""
    for cleanup in list(_cleanups):
        cleanup(session_id)
