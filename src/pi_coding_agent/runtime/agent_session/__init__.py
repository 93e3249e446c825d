"""``AgentSession``: the agent bound to a session file, settings, credentials and tools.

Every run mode drives one ``AgentSession`` (see ``docs/agent-session.md``); an
``AgentSessionRuntime`` replaces it for a new session, a resumed file, a fork or a clone.
``SessionAssembly`` builds them, the same way for every entry point.
"""

from pi_coding_agent.runtime.agent_session._assembly import (
    ResourceChoice,
    RunResources,
    SessionAssembly,
    create_agent_session,
    load_resource_files,
    load_run_resources,
    scoped_choice,
    trusted_settings,
    with_prompt_sources,
    with_resources,
)
from pi_coding_agent.runtime.agent_session._compaction import CompactionError
from pi_coding_agent.runtime.agent_session._create import (
    CreateAgentSessionOptions,
    CreateAgentSessionResult,
    resource_commands,
)
from pi_coding_agent.runtime.agent_session._events import (
    AgentSessionEvent,
    AgentSettledEvent,
    AutoRetryEndEvent,
    AutoRetryStartEvent,
    BashExecutionUpdateEvent,
    CompactionEndEvent,
    CompactionStartEvent,
    QueueUpdateEvent,
    SessionAgentEndEvent,
    SessionInfoChangedEvent,
    SummarizationRetryEvent,
    ThinkingLevelChangedEvent,
    session_event_to_json,
)
from pi_coding_agent.runtime.agent_session._hooks import StreamLimit
from pi_coding_agent.runtime.agent_session._listeners import AgentSessionEventListener
from pi_coding_agent.runtime.agent_session._model_control import ModelChangeError, ModelCycleResult
from pi_coding_agent.runtime.agent_session._parts import NO_MODEL_MESSAGE, SessionError, SlashCommand
from pi_coding_agent.runtime.agent_session._retry import is_retryable_error
from pi_coding_agent.runtime.agent_session._runtime import (
    AgentSessionRuntime,
    ForkPosition,
    MissingSessionCwdError,
    ReplaceResult,
    SessionFactory,
    SessionImportFileNotFoundError,
)
from pi_coding_agent.runtime.agent_session._session import AgentSession, StreamingBehavior
from pi_coding_agent.runtime.agent_session._stats import ContextUsage, ForkPoint, SessionStats, TokenTotals
from pi_coding_agent.runtime.agent_session._tree import NavigationResult, TreeError

__all__ = [
    "NO_MODEL_MESSAGE",
    "AgentSession",
    "AgentSessionEvent",
    "AgentSessionEventListener",
    "AgentSessionRuntime",
    "AgentSettledEvent",
    "AutoRetryEndEvent",
    "AutoRetryStartEvent",
    "BashExecutionUpdateEvent",
    "CompactionEndEvent",
    "CompactionError",
    "CompactionStartEvent",
    "ContextUsage",
    "CreateAgentSessionOptions",
    "CreateAgentSessionResult",
    "ForkPoint",
    "ForkPosition",
    "MissingSessionCwdError",
    "ModelChangeError",
    "ModelCycleResult",
    "NavigationResult",
    "QueueUpdateEvent",
    "ReplaceResult",
    "ResourceChoice",
    "RunResources",
    "SessionAgentEndEvent",
    "SessionAssembly",
    "SessionError",
    "SessionFactory",
    "SessionImportFileNotFoundError",
    "SessionInfoChangedEvent",
    "SessionStats",
    "SlashCommand",
    "StreamLimit",
    "StreamingBehavior",
    "SummarizationRetryEvent",
    "ThinkingLevelChangedEvent",
    "TokenTotals",
    "TreeError",
    "create_agent_session",
    "is_retryable_error",
    "load_resource_files",
    "load_run_resources",
    "resource_commands",
    "scoped_choice",
    "session_event_to_json",
    "trusted_settings",
    "with_prompt_sources",
    "with_resources",
]
