"""``AgentSession``: the agent bound to a session file, settings, credentials and tools."""

from pi_coding_agent.agent_session._create import CreatedSession, SessionOptions, create_agent_session
from pi_coding_agent.agent_session._events import (
    AgentSettledEvent,
    AutoRetryEndEvent,
    AutoRetryStartEvent,
    BashExecutionUpdateEvent,
    QueueUpdateEvent,
    SessionAgentEndEvent,
    SessionEvent,
    ThinkingLevelChangedEvent,
    session_event_to_json,
)
from pi_coding_agent.agent_session._retry import is_retryable_error
from pi_coding_agent.agent_session._session import (
    NO_MODEL_MESSAGE,
    AgentSession,
    SessionError,
    SessionListener,
)

__all__ = [
    "NO_MODEL_MESSAGE",
    "AgentSession",
    "AgentSettledEvent",
    "AutoRetryEndEvent",
    "AutoRetryStartEvent",
    "BashExecutionUpdateEvent",
    "CreatedSession",
    "QueueUpdateEvent",
    "SessionAgentEndEvent",
    "SessionError",
    "SessionEvent",
    "SessionListener",
    "SessionOptions",
    "ThinkingLevelChangedEvent",
    "create_agent_session",
    "is_retryable_error",
    "session_event_to_json",
]
