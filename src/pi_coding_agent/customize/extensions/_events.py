"""The events an extension may subscribe to that the agent layer does not define itself.

Agent events (``agent_start``, ``message_*``, ``tool_execution_*``, ``agent_end``) reach
handlers as the ``pi_agent`` event objects; ``turn_start``/``turn_end`` gain Pi's
``turn_index``. Every other event is one of the dataclasses below, with Pi's payload in
snake_case (``toolCallId`` is ``tool_call_id``). What a handler may return is documented
per event in ``docs/extensions.md``; results are plain dicts with snake_case keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pi_agent import AgentMessage
from pi_ai import ImageContent, ToolResultMessage

EVENT_NAMES = frozenset(
    {
        "project_trust",
        "resources_discover",
        "mcp_servers_change",
        "session_start",
        "session_info_changed",
        "session_before_switch",
        "session_before_fork",
        "session_before_compact",
        "session_compact",
        "session_compact_failed",
        "session_before_tree",
        "session_tree",
        "session_shutdown",
        "before_agent_start",
        "agent_start",
        "agent_end",
        "agent_settled",
        "ui_prompt_start",
        "ui_prompt_end",
        "turn_start",
        "turn_end",
        "message_start",
        "message_update",
        "message_end",
        "tool_execution_start",
        "tool_execution_update",
        "tool_execution_end",
        "context",
        "before_provider_headers",
        "before_provider_request",
        "after_provider_response",
        "model_select",
        "thinking_level_select",
        "tool_call",
        "tool_result",
        "user_bash",
        "input",
    }
)
"""Every event of Pi 0.85's extensions.md; ``pi.on`` refuses other names."""


@dataclass
class Event:
    """An event with its name; the subclasses add the payload."""

    type: str


@dataclass
class ProjectTrustEvent(Event):
    cwd: str


@dataclass
class ResourcesDiscoverEvent(Event):
    cwd: str
    reason: str


@dataclass
class SessionStartEvent(Event):
    reason: str
    previous_session_file: str | None = None


@dataclass
class SessionShutdownEvent(Event):
    reason: str
    target_session_file: str | None = None


@dataclass
class SessionInfoChangedEvent(Event):
    name: str | None


@dataclass
class SessionBeforeSwitchEvent(Event):
    reason: str
    target_session_file: str | None = None


@dataclass
class SessionBeforeForkEvent(Event):
    entry_id: str
    position: str


@dataclass
class SessionBeforeCompactEvent(Event):
    reason: str
    custom_instructions: str | None
    will_retry: bool
    branch_entries: list[Any] = field(default_factory=list)
    preparation: Any = None
    """What will be summarized (``first_kept_entry_id``, ``tokens_before``, ``messages_to_summarize``...)."""


@dataclass
class SessionCompactEvent(Event):
    compaction_entry: Any
    from_extension: bool
    reason: str
    will_retry: bool


@dataclass
class SessionCompactFailedEvent(Event):
    reason: str
    error_message: str | None
    aborted: bool
    will_retry: bool
    from_extension: bool


@dataclass
class SessionBeforeTreeEvent(Event):
    target_id: str
    old_leaf_id: str | None
    summarize: bool


@dataclass
class SessionTreeEvent(Event):
    new_leaf_id: str | None
    old_leaf_id: str | None
    summary_entry: Any = None
    from_extension: bool = False


@dataclass
class BeforeAgentStartEvent(Event):
    prompt: str
    images: list[ImageContent] | None
    system_prompt: str
    system_prompt_options: dict[str, Any]


@dataclass
class AgentSettledEvent(Event):
    aborted: bool = False
    """The run ended because it was aborted (Pi 1.6)."""


@dataclass
class UiPromptEvent(Event):
    kind: str
    title: str | None
    reason: str = "ui_prompt"


@dataclass
class TurnStartEvent(Event):
    turn_index: int
    timestamp: int


@dataclass
class TurnEndEvent(Event):
    turn_index: int
    message: AgentMessage
    tool_results: list[ToolResultMessage]


@dataclass
class ContextEvent(Event):
    messages: list[AgentMessage]
    """A deep copy of the context; a handler may change it or return ``{"messages": [...]}``."""


@dataclass
class BeforeProviderHeadersEvent(Event):
    headers: dict[str, str | None]
    """Changed in place: set a value to add or override, ``None`` to remove a header."""


@dataclass
class BeforeProviderRequestEvent(Event):
    payload: Any


@dataclass
class AfterProviderResponseEvent(Event):
    status: int
    headers: dict[str, str]


@dataclass
class ModelSelectEvent(Event):
    model: Any
    previous_model: Any
    source: str


@dataclass
class ThinkingLevelSelectEvent(Event):
    level: str
    previous_level: str


@dataclass
class ToolCallEvent(Event):
    tool_name: str
    tool_call_id: str
    input: dict[str, Any]
    """Mutable: changes reach the tool (not validated again)."""


@dataclass
class ToolResultEvent(Event):
    tool_name: str
    tool_call_id: str
    input: dict[str, Any]
    content: list[Any]
    details: Any
    is_error: bool
    usage: Any = None
    structured_content: Any = None
    """What programmatic callers get (Pi 1.6's ``structuredContent``); ``None`` when the tool has
    none."""


@dataclass
class UserBashEvent(Event):
    command: str
    exclude_from_context: bool
    cwd: str


@dataclass
class InputEvent(Event):
    text: str
    images: list[ImageContent] | None
    source: str
    streaming_behavior: str | None
