"""Hiding a failed attempt before it is tried again (Pi 1.6's ``_omitRecoveryAttempt``).

A retried error, or an answer that overflowed the context and is compacted and retried, stays
in the session file but must not reach the model again. Pi 0.85 only dropped it from the live
context, so a resumed session sent it; Pi 1.6 writes a ``context_edit`` entry with
``replacement: null`` for the failed answer and for the results of its tool calls (a result
without its call would fail the next request), tells clients with ``entry_appended``, and the
live context loses them too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pi_agent import Agent, AgentMessage
from pi_ai import AssistantMessage, ToolCall, ToolResultMessage
from pi_coding_agent.core.session import (
    CompactionEntry,
    OpaqueEntry,
    SessionEntry,
    SessionManager,
    SessionMessageEntry,
)
from pi_coding_agent.runtime.agent_session._events import AgentSessionEvent, EntryAppendedEvent


def omit_recovery_attempt(
    agent: Agent,
    manager: SessionManager,
    message: AssistantMessage,
    emit: Callable[[AgentSessionEvent], None],
) -> None:
    """Hide ``message`` and its tool results from the context, in the file and live."""
    messages = agent.state.messages
    targets: list[AgentMessage] = [message]
    index = next((i for i in range(len(messages) - 1, -1, -1) if messages[i] is message), None)
    if index is not None:
        call_ids = {block.id for block in message.content if isinstance(block, ToolCall)}
        for later in messages[index + 1 :]:
            if isinstance(later, AssistantMessage):
                break
            if isinstance(later, ToolResultMessage) and later.tool_call_id in call_ids:
                targets.append(later)
    entry_ids = _entry_ids(manager, targets)
    for target in targets:
        entry_id = entry_ids.get(id(target))
        if entry_id is None:
            continue
        entry = manager.get_entry(manager.append_context_edit(entry_id, None))
        if entry is not None:
            emit(EntryAppendedEvent(entry))
    agent.state.messages = [m for m in messages if not any(m is target for target in targets)]


def _entry_ids(manager: SessionManager, targets: list[AgentMessage]) -> dict[int, str]:
    """The entries on the branch that hold ``targets`` (the same objects: the manager keeps
    the message it was given, and contexts are built from the entries' messages)."""
    wanted = {id(target) for target in targets}
    found: dict[int, str] = {}
    for entry in reversed(manager.get_branch()):
        if isinstance(entry, SessionMessageEntry) and id(entry.message) in wanted and entry.id is not None:
            found.setdefault(id(entry.message), entry.id)
            if len(found) == len(wanted):
                break
    return found


@dataclass(frozen=True)
class AnswerStanding:
    """Where an answer stands in its branch, for deciding whether to recover from it (the facts
    Pi 1.6's ``_checkCompaction`` reads before compacting for an overflowed or truncated answer)."""

    projected: bool
    """The model still sees it: no later ``context_edit`` hides it, no compaction cut it away."""
    retained: bool
    """An explicit overflow error may still be recovered: no compaction after it, not hidden."""
    edited_after: bool
    """A ``context_edit`` follows it, so its usage no longer measures the context."""
    edits_in_context: bool
    """The branch's context holds a ``context_edit`` (sizes are then estimated over the edits)."""


def answer_standing(manager: SessionManager, message: AssistantMessage) -> AnswerStanding:
    """Where ``message`` stands on the current branch (an answer not found in the file, such as one
    that is not saved, stands in the context)."""
    from pi_coding_agent.core.session import build_session_projection

    branch = manager.get_branch()
    projection = build_session_projection(branch)
    edits_in_context = any(entry.source.type == "context_edit" for entry in projection)
    index = _entry_index(branch, message)
    if index is None:
        return AnswerStanding(True, True, False, edits_in_context)
    entry_id = branch[index].id
    after = branch[index + 1 :]
    own = [entry for entry in after if entry.type == "context_edit" and _target(entry) == entry_id]
    hidden = bool(own) and _replacement(own[-1]) is None
    retained = not hidden and not any(isinstance(entry, CompactionEntry) for entry in after)
    projected = any(
        entry.source.id == entry_id and any(isinstance(m, AssistantMessage) for m in entry.messages)
        for entry in projection
    )
    edited_after = any(entry.type == "context_edit" for entry in after)
    return AnswerStanding(projected, retained, edited_after, edits_in_context)


def _entry_index(branch: list[SessionEntry], message: AssistantMessage) -> int | None:
    for index in range(len(branch) - 1, -1, -1):
        entry = branch[index]
        if isinstance(entry, SessionMessageEntry) and entry.message is message:
            return index
    return None


def _target(entry: SessionEntry) -> Any:
    return entry.data.get("targetId") if isinstance(entry, OpaqueEntry) else None


def _replacement(entry: SessionEntry) -> Any:
    return entry.data.get("replacement") if isinstance(entry, OpaqueEntry) else None
