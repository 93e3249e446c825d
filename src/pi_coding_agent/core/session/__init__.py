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
from pi_coding_agent.core.paths import get_agent_dir as get_agent_dir
from pi_coding_agent.core.session._cache_misses import CACHE_TTL_MS as CACHE_TTL_MS
from pi_coding_agent.core.session._cache_misses import CacheMiss as CacheMiss
from pi_coding_agent.core.session._cache_misses import cache_miss_of as cache_miss_of
from pi_coding_agent.core.session._cache_misses import cache_misses as cache_misses
from pi_coding_agent.core.session._context import ProjectedEntry as ProjectedEntry
from pi_coding_agent.core.session._context import SessionContext as SessionContext
from pi_coding_agent.core.session._context import SessionModel as SessionModel
from pi_coding_agent.core.session._context import build_context_entries as build_context_entries
from pi_coding_agent.core.session._context import build_session_context as build_session_context
from pi_coding_agent.core.session._context import build_session_projection as build_session_projection
from pi_coding_agent.core.session._context import context_edits_of as context_edits_of
from pi_coding_agent.core.session._context import project_context_entry as project_context_entry
from pi_coding_agent.core.session._context import (
    session_entry_to_context_messages as session_entry_to_context_messages,
)
from pi_coding_agent.core.session._entries import CURRENT_SESSION_VERSION as CURRENT_SESSION_VERSION
from pi_coding_agent.core.session._entries import BranchSummaryEntry as BranchSummaryEntry
from pi_coding_agent.core.session._entries import CompactionEntry as CompactionEntry
from pi_coding_agent.core.session._entries import CustomEntry as CustomEntry
from pi_coding_agent.core.session._entries import CustomMessageEntry as CustomMessageEntry
from pi_coding_agent.core.session._entries import LabelEntry as LabelEntry
from pi_coding_agent.core.session._entries import ModelChangeEntry as ModelChangeEntry
from pi_coding_agent.core.session._entries import OpaqueEntry as OpaqueEntry
from pi_coding_agent.core.session._entries import SessionEntry as SessionEntry
from pi_coding_agent.core.session._entries import SessionHeader as SessionHeader
from pi_coding_agent.core.session._entries import SessionInfoEntry as SessionInfoEntry
from pi_coding_agent.core.session._entries import SessionMessageEntry as SessionMessageEntry
from pi_coding_agent.core.session._entries import ThinkingLevelChangeEntry as ThinkingLevelChangeEntry
from pi_coding_agent.core.session._entries import entry_to_dict as entry_to_dict
from pi_coding_agent.core.session._files import NotRegularFileError as NotRegularFileError
from pi_coding_agent.core.session._files import SessionError as SessionError
from pi_coding_agent.core.session._files import SessionLockedError as SessionLockedError
from pi_coding_agent.core.session._header import read_header as read_header
from pi_coding_agent.core.session._ids import InvalidSessionIdError as InvalidSessionIdError
from pi_coding_agent.core.session._index import SessionProblem as SessionProblem
from pi_coding_agent.core.session._manager import EntryNotFoundError as EntryNotFoundError
from pi_coding_agent.core.session._manager import InvalidSessionError as InvalidSessionError
from pi_coding_agent.core.session._manager import ReadOnlySessionError as ReadOnlySessionError
from pi_coding_agent.core.session._manager import SessionManager as SessionManager
from pi_coding_agent.core.session._manager import SessionTreeNode as SessionTreeNode
from pi_coding_agent.core.session._paths import default_session_dir as default_session_dir
from pi_coding_agent.core.session._paths import encode_cwd as encode_cwd
from pi_coding_agent.core.session._paths import resolve_session_dir as resolve_session_dir
from pi_coding_agent.core.session._paths import sessions_dir as sessions_dir

if TYPE_CHECKING:
    from pi_coding_agent.core.session._listing import SessionInfo as SessionInfo
    from pi_coding_agent.core.session._listing import find_most_recent_session as find_most_recent_session
    from pi_coding_agent.core.session._listing import list_all_sessions as list_all_sessions
    from pi_coding_agent.core.session._listing import list_sessions as list_sessions
    from pi_coding_agent.core.session._migrate import migrate_session_entries as migrate_session_entries


__getattr__, __dir__ = lazy_attributes(globals())
