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

from pi_agent import Agent, AgentMessage
from pi_ai import AssistantMessage, ToolCall, ToolResultMessage
from pi_coding_agent.core.session import SessionManager, SessionMessageEntry
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
