"""Events an ``AgentSession`` emits besides the agent's own (Pi's ``AgentSessionEvent``).

The agent's events are passed on unchanged, except ``agent_end``, which gains
``willRetry`` (whether an automatic retry follows). JSON forms use Pi's keys, in Pi's order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from pi_agent import AgentEndEvent, AgentEvent, AgentMessage, agent_event_to_json
from pi_ai import to_builtins
from pi_coding_agent.core.session import SessionEntry, entry_to_dict


@dataclass(slots=True)
class SessionAgentEndEvent:
    """``agent_end`` as the session reports it."""

    messages: list[AgentMessage]
    will_retry: bool
    type: Literal["agent_end"] = "agent_end"


@dataclass(slots=True)
class AgentSettledEvent:
    """The run, its retries and every queued insertion are done; the session is idle.
    ``aborted``: the run ended because ``abort`` was called during it (Pi 1.6)."""

    aborted: bool = False
    type: Literal["agent_settled"] = "agent_settled"


@dataclass(slots=True)
class AutoRetryStartEvent:
    attempt: int
    max_attempts: int
    delay_ms: int
    error_message: str
    type: Literal["auto_retry_start"] = "auto_retry_start"


@dataclass(slots=True)
class AutoRetryEndEvent:
    success: bool
    attempt: int
    final_error: str | None = None
    type: Literal["auto_retry_end"] = "auto_retry_end"


@dataclass(slots=True)
class ThinkingLevelChangedEvent:
    level: str
    type: Literal["thinking_level_changed"] = "thinking_level_changed"


@dataclass(slots=True)
class QueueUpdateEvent:
    steering: list[str]
    follow_up: list[str]
    type: Literal["queue_update"] = "queue_update"


@dataclass(slots=True)
class SessionInfoChangedEvent:
    """The session's display name changed (``None``: cleared)."""

    name: str | None
    type: Literal["session_info_changed"] = "session_info_changed"


@dataclass(slots=True)
class EntryAppendedEvent:
    """An extension appended a ``custom`` entry (``pi.appendEntry``); Pi 1.6 tells every
    client, JSON and RPC included."""

    entry: SessionEntry
    type: Literal["entry_appended"] = "entry_appended"


@dataclass(slots=True)
class BashExecutionUpdateEvent:
    delta: str
    id: str | None = None
    type: Literal["bash_execution_update"] = "bash_execution_update"


@dataclass(slots=True)
class CompactionStartEvent:
    reason: str
    """``manual``, ``threshold`` (the context grew near the window) or ``overflow`` (the provider refused it)."""
    type: Literal["compaction_start"] = "compaction_start"


@dataclass(slots=True)
class CompactionEndEvent:
    reason: str
    result: dict[str, Any] | None
    """``{summary, firstKeptEntryId, tokensBefore, estimatedTokensAfter, usage, details}``; ``None`` on failure."""
    aborted: bool
    will_retry: bool
    error_message: str | None = None
    type: Literal["compaction_end"] = "compaction_end"


@dataclass(slots=True)
class SummarizationRetryEvent:
    """``summarization_retry_scheduled`` / ``_attempt_start`` / ``_finished`` with their fields."""

    kind: str
    fields: dict[str, Any]

    @property
    def type(self) -> str:
        return self.kind


SessionOwnEvent: TypeAlias = (
    SessionAgentEndEvent
    | AgentSettledEvent
    | AutoRetryStartEvent
    | AutoRetryEndEvent
    | ThinkingLevelChangedEvent
    | QueueUpdateEvent
    | SessionInfoChangedEvent
    | EntryAppendedEvent
    | BashExecutionUpdateEvent
    | CompactionStartEvent
    | CompactionEndEvent
    | SummarizationRetryEvent
)
AgentSessionEvent: TypeAlias = AgentEvent | SessionOwnEvent


def session_event_to_json(event: AgentSessionEvent) -> dict[str, Any]:
    """The event as Pi writes it (``message_update`` with its full partial message)."""
    if isinstance(event, SessionAgentEndEvent):
        return {"type": "agent_end", "messages": to_builtins(event.messages), "willRetry": event.will_retry}
    if isinstance(event, AgentSettledEvent):
        return {"type": event.type, "aborted": event.aborted}
    if isinstance(event, AutoRetryStartEvent):
        return {
            "type": event.type,
            "attempt": event.attempt,
            "maxAttempts": event.max_attempts,
            "delayMs": event.delay_ms,
            "errorMessage": event.error_message,
        }
    if isinstance(event, AutoRetryEndEvent):
        data: dict[str, Any] = {"type": event.type, "success": event.success, "attempt": event.attempt}
        if event.final_error is not None:
            data["finalError"] = event.final_error
        return data
    if isinstance(event, ThinkingLevelChangedEvent):
        return {"type": event.type, "level": event.level}
    if isinstance(event, QueueUpdateEvent):
        return {"type": event.type, "steering": list(event.steering), "followUp": list(event.follow_up)}
    if isinstance(event, SessionInfoChangedEvent):
        return {"type": event.type} if event.name is None else {"type": event.type, "name": event.name}
    if isinstance(event, EntryAppendedEvent):
        return {"type": event.type, "entry": entry_to_dict(event.entry)}
    if isinstance(event, BashExecutionUpdateEvent):
        data = {"type": event.type}
        if event.id is not None:
            data["id"] = event.id
        data["delta"] = event.delta
        return data
    if isinstance(event, CompactionStartEvent):
        return {"type": event.type, "reason": event.reason}
    if isinstance(event, CompactionEndEvent):
        data = {"type": event.type, "reason": event.reason}
        if event.result is not None:
            data["result"] = event.result
        data["aborted"] = event.aborted
        data["willRetry"] = event.will_retry
        if event.error_message is not None:
            data["errorMessage"] = event.error_message
        return data
    if isinstance(event, SummarizationRetryEvent):
        return {"type": event.kind, **event.fields}
    if isinstance(event, AgentEndEvent):
        return {**agent_event_to_json(event), "willRetry": False}
    return agent_event_to_json(event)
