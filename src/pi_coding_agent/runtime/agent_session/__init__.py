"""``AgentSession``: the agent bound to a session file, settings, credentials and tools.

Every run mode drives one ``AgentSession`` (see ``docs/agent-session.md``); an
``AgentSessionRuntime`` replaces it for a new session, a resumed file, a fork or a clone.
``SessionAssembly`` builds them, the same way for every entry point.
"""

from pi_ai import lazy_attributes
from pi_coding_agent.runtime.agent_session._assembly import ResourceChoice as ResourceChoice
from pi_coding_agent.runtime.agent_session._assembly import RunResources as RunResources
from pi_coding_agent.runtime.agent_session._assembly import SessionAssembly as SessionAssembly
from pi_coding_agent.runtime.agent_session._assembly import create_agent_session as create_agent_session
from pi_coding_agent.runtime.agent_session._assembly import load_resource_files as load_resource_files
from pi_coding_agent.runtime.agent_session._assembly import load_run_resources as load_run_resources
from pi_coding_agent.runtime.agent_session._assembly import scoped_choice as scoped_choice
from pi_coding_agent.runtime.agent_session._assembly import trusted_settings as trusted_settings
from pi_coding_agent.runtime.agent_session._assembly import with_prompt_sources as with_prompt_sources
from pi_coding_agent.runtime.agent_session._assembly import with_resources as with_resources
from pi_coding_agent.runtime.agent_session._compaction import CompactionError as CompactionError
from pi_coding_agent.runtime.agent_session._create import (
    CreateAgentSessionOptions as CreateAgentSessionOptions,
)
from pi_coding_agent.runtime.agent_session._create import CreateAgentSessionResult as CreateAgentSessionResult
from pi_coding_agent.runtime.agent_session._create import resource_commands as resource_commands
from pi_coding_agent.runtime.agent_session._events import AgentSessionEvent as AgentSessionEvent
from pi_coding_agent.runtime.agent_session._events import AgentSettledEvent as AgentSettledEvent
from pi_coding_agent.runtime.agent_session._events import AutoRetryEndEvent as AutoRetryEndEvent
from pi_coding_agent.runtime.agent_session._events import AutoRetryStartEvent as AutoRetryStartEvent
from pi_coding_agent.runtime.agent_session._events import BashExecutionUpdateEvent as BashExecutionUpdateEvent
from pi_coding_agent.runtime.agent_session._events import CompactionEndEvent as CompactionEndEvent
from pi_coding_agent.runtime.agent_session._events import CompactionStartEvent as CompactionStartEvent
from pi_coding_agent.runtime.agent_session._events import EntryAppendedEvent as EntryAppendedEvent
from pi_coding_agent.runtime.agent_session._events import QueueUpdateEvent as QueueUpdateEvent
from pi_coding_agent.runtime.agent_session._events import SessionAgentEndEvent as SessionAgentEndEvent
from pi_coding_agent.runtime.agent_session._events import SessionInfoChangedEvent as SessionInfoChangedEvent
from pi_coding_agent.runtime.agent_session._events import SummarizationRetryEvent as SummarizationRetryEvent
from pi_coding_agent.runtime.agent_session._events import (
    ThinkingLevelChangedEvent as ThinkingLevelChangedEvent,
)
from pi_coding_agent.runtime.agent_session._events import session_event_to_json as session_event_to_json
from pi_coding_agent.runtime.agent_session._hooks import StreamLimit as StreamLimit
from pi_coding_agent.runtime.agent_session._listeners import (
    AgentSessionEventListener as AgentSessionEventListener,
)
from pi_coding_agent.runtime.agent_session._model_control import ModelChangeError as ModelChangeError
from pi_coding_agent.runtime.agent_session._model_control import ModelCycleResult as ModelCycleResult
from pi_coding_agent.runtime.agent_session._parts import NO_MODEL_MESSAGE as NO_MODEL_MESSAGE
from pi_coding_agent.runtime.agent_session._parts import SessionError as SessionError
from pi_coding_agent.runtime.agent_session._parts import SlashCommand as SlashCommand
from pi_coding_agent.runtime.agent_session._retry import is_retryable_error as is_retryable_error
from pi_coding_agent.runtime.agent_session._runtime import AgentSessionRuntime as AgentSessionRuntime
from pi_coding_agent.runtime.agent_session._runtime import ForkPosition as ForkPosition
from pi_coding_agent.runtime.agent_session._runtime import MissingSessionCwdError as MissingSessionCwdError
from pi_coding_agent.runtime.agent_session._runtime import ReplaceResult as ReplaceResult
from pi_coding_agent.runtime.agent_session._runtime import SessionFactory as SessionFactory
from pi_coding_agent.runtime.agent_session._runtime import (
    SessionImportFileNotFoundError as SessionImportFileNotFoundError,
)
from pi_coding_agent.runtime.agent_session._session import AgentSession as AgentSession
from pi_coding_agent.runtime.agent_session._session import StreamingBehavior as StreamingBehavior
from pi_coding_agent.runtime.agent_session._stats import ContextUsage as ContextUsage
from pi_coding_agent.runtime.agent_session._stats import ForkPoint as ForkPoint
from pi_coding_agent.runtime.agent_session._stats import SessionStats as SessionStats
from pi_coding_agent.runtime.agent_session._stats import TokenTotals as TokenTotals
from pi_coding_agent.runtime.agent_session._tree import NavigationResult as NavigationResult
from pi_coding_agent.runtime.agent_session._tree import TreeError as TreeError

__getattr__, __dir__ = lazy_attributes(globals())
