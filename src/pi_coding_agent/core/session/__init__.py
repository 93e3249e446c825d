"""Sessions: the JSONL tree of entries Pi 0.85 writes, and what a branch means to the model.

``SessionManager`` opens, creates, appends to, branches and forks session files that real
Pi opens (and the other way round). ``build_session_context`` turns a branch into the
agent's messages, model and thinking level. See ``docs/sessions`` for the file format and
for where this implementation deliberately differs from Pi.

Listing and migration are loaded on first use (PEP 562): resuming a session needs neither
(about 3 ms of its import, ~1% of a long resume in ``bench/session_resume.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_ai import lazy_attributes
from pi_coding_agent.core.paths import get_agent_dir
from pi_coding_agent.core.session._context import (
    SessionContext,
    SessionModel,
    build_context_entries,
    build_session_context,
    session_entry_to_context_messages,
)
from pi_coding_agent.core.session._entries import (
    CURRENT_SESSION_VERSION,
    BranchSummaryEntry,
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    ModelChangeEntry,
    OpaqueEntry,
    SessionEntry,
    SessionHeader,
    SessionInfoEntry,
    SessionMessageEntry,
    ThinkingLevelChangeEntry,
)
from pi_coding_agent.core.session._files import SessionError, SessionLockedError
from pi_coding_agent.core.session._header import read_header
from pi_coding_agent.core.session._ids import InvalidSessionIdError
from pi_coding_agent.core.session._index import SessionProblem
from pi_coding_agent.core.session._manager import (
    EntryNotFoundError,
    InvalidSessionError,
    ReadOnlySessionError,
    SessionManager,
    SessionTreeNode,
)
from pi_coding_agent.core.session._paths import (
    default_session_dir,
    encode_cwd,
    resolve_session_dir,
    sessions_dir,
)

if TYPE_CHECKING:
    from pi_coding_agent.core.session._listing import (
        SessionInfo,
        find_most_recent_session,
        list_all_sessions,
        list_sessions,
    )
    from pi_coding_agent.core.session._migrate import migrate_session_entries

_LAZY = {
    "SessionInfo": "pi_coding_agent.core.session._listing",
    "find_most_recent_session": "pi_coding_agent.core.session._listing",
    "list_all_sessions": "pi_coding_agent.core.session._listing",
    "list_sessions": "pi_coding_agent.core.session._listing",
    "migrate_session_entries": "pi_coding_agent.core.session._migrate",
}

__getattr__, __dir__ = lazy_attributes(globals(), _LAZY)


__all__ = [
    "CURRENT_SESSION_VERSION",
    "BranchSummaryEntry",
    "CompactionEntry",
    "CustomEntry",
    "CustomMessageEntry",
    "EntryNotFoundError",
    "InvalidSessionError",
    "InvalidSessionIdError",
    "LabelEntry",
    "ModelChangeEntry",
    "OpaqueEntry",
    "ReadOnlySessionError",
    "SessionContext",
    "SessionEntry",
    "SessionError",
    "SessionHeader",
    "SessionInfo",
    "SessionInfoEntry",
    "SessionLockedError",
    "SessionManager",
    "SessionMessageEntry",
    "SessionModel",
    "SessionProblem",
    "SessionTreeNode",
    "ThinkingLevelChangeEntry",
    "build_context_entries",
    "build_session_context",
    "default_session_dir",
    "encode_cwd",
    "find_most_recent_session",
    "get_agent_dir",
    "list_all_sessions",
    "list_sessions",
    "migrate_session_entries",
    "read_header",
    "resolve_session_dir",
    "session_entry_to_context_messages",
    "sessions_dir",
]
