"""Extensions in Python: modules with a ``setup(pi)`` that subscribe to events, register
tools, commands, flags and renderers, and act on the session (see ``docs/extensions.md``).

``load_extensions(paths, cwd)`` imports them and returns the ``ExtensionRunner`` the
session emits events through; ``ExtensionAPI`` is the ``pi`` object, ``ExtensionContext``
/ ``CommandContext`` the ``ctx`` handlers and commands get.
"""

from pi_coding_agent.customize.extensions._api import ExtensionAPI
from pi_coding_agent.customize.extensions._context import (
    CommandContext,
    ExtensionContext,
    NoSessionError,
    ReplacedSessionContext,
)
from pi_coding_agent.customize.extensions._events import (
    EVENT_NAMES,
    AfterProviderResponseEvent,
    AgentSettledEvent,
    BeforeAgentStartEvent,
    ContextEvent,
    Event,
    InputEvent,
    ModelSelectEvent,
    ProjectTrustEvent,
    SessionBeforeCompactEvent,
    SessionBeforeForkEvent,
    SessionBeforeSwitchEvent,
    SessionBeforeTreeEvent,
    SessionCompactEvent,
    SessionCompactFailedEvent,
    SessionInfoChangedEvent,
    SessionShutdownEvent,
    SessionStartEvent,
    SessionTreeEvent,
    ThinkingLevelSelectEvent,
    ToolCallEvent,
    ToolResultEvent,
    TurnEndEvent,
    TurnStartEvent,
    UserBashEvent,
)
from pi_coding_agent.customize.extensions._extension import Extension
from pi_coding_agent.customize.extensions._host import ExtensionHost
from pi_coding_agent.customize.extensions._loader import find_conflicts, load_extensions
from pi_coding_agent.customize.extensions._mcp_servers import (
    McpServerRegistry,
    McpServerRegistryError,
    McpServersChangeEvent,
    RegisteredMcpServer,
)
from pi_coding_agent.customize.extensions._runner import ExtensionRunner, call_handler
from pi_coding_agent.customize.extensions._tools import ExtensionTool, to_tool_result
from pi_coding_agent.customize.extensions._types import (
    TOOL_EXPOSURES,
    CommandDefinition,
    ExtensionError,
    FlagDefinition,
    ShortcutDefinition,
    ToolDefinition,
    ToolExposure,
    ToolLoadout,
)

__all__ = [
    "EVENT_NAMES",
    "TOOL_EXPOSURES",
    "AfterProviderResponseEvent",
    "AgentSettledEvent",
    "BeforeAgentStartEvent",
    "CommandContext",
    "CommandDefinition",
    "ContextEvent",
    "Event",
    "Extension",
    "ExtensionAPI",
    "ExtensionContext",
    "ExtensionError",
    "ExtensionHost",
    "ExtensionRunner",
    "ExtensionTool",
    "FlagDefinition",
    "InputEvent",
    "McpServerRegistry",
    "McpServerRegistryError",
    "McpServersChangeEvent",
    "ModelSelectEvent",
    "NoSessionError",
    "ProjectTrustEvent",
    "RegisteredMcpServer",
    "ReplacedSessionContext",
    "SessionBeforeCompactEvent",
    "SessionBeforeForkEvent",
    "SessionBeforeSwitchEvent",
    "SessionBeforeTreeEvent",
    "SessionCompactEvent",
    "SessionCompactFailedEvent",
    "SessionInfoChangedEvent",
    "SessionShutdownEvent",
    "SessionStartEvent",
    "SessionTreeEvent",
    "ShortcutDefinition",
    "ThinkingLevelSelectEvent",
    "ToolCallEvent",
    "ToolDefinition",
    "ToolExposure",
    "ToolLoadout",
    "ToolResultEvent",
    "TurnEndEvent",
    "TurnStartEvent",
    "UserBashEvent",
    "call_handler",
    "find_conflicts",
    "load_extensions",
    "to_tool_result",
]
