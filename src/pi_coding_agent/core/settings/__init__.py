"""Settings of the coding agent: ``settings.json`` and project trust (where the files live:
``pi_coding_agent.core.paths``)."""

from pi_coding_agent.core.settings._json_file import ConfigFileError, read_json_object
from pi_coding_agent.core.settings._settings import (
    DEFAULT_HTTP_IDLE_TIMEOUT_MS,
    DEFAULT_THINKING_LEVEL,
    CompactionSettings,
    ProviderRetrySettings,
    RetrySettings,
    Settings,
    SettingsIssue,
    deep_merge,
)
from pi_coding_agent.core.settings._tool_selection import (
    NoTools,
    ToolSelection,
    apply_tool_modifiers,
    is_tool_modifier,
    select_tools,
    tool_list_error,
)
from pi_coding_agent.core.settings._trust import (
    TrustAsker,
    TrustChoice,
    needs_project_trust,
    record_trust_choice,
    resolve_project_trust,
    save_trust_decisions,
    stored_trust_decision,
    stored_trust_entry,
    trust_choices,
    trust_prompt_title,
    trust_without_asking,
)
from pi_coding_agent.core.tools import DEFAULT_TOOL_NAMES

__all__ = [
    "DEFAULT_HTTP_IDLE_TIMEOUT_MS",
    "DEFAULT_THINKING_LEVEL",
    "DEFAULT_TOOL_NAMES",
    "CompactionSettings",
    "ConfigFileError",
    "NoTools",
    "ProviderRetrySettings",
    "RetrySettings",
    "Settings",
    "SettingsIssue",
    "ToolSelection",
    "TrustAsker",
    "TrustChoice",
    "apply_tool_modifiers",
    "deep_merge",
    "is_tool_modifier",
    "needs_project_trust",
    "read_json_object",
    "record_trust_choice",
    "resolve_project_trust",
    "save_trust_decisions",
    "select_tools",
    "stored_trust_decision",
    "stored_trust_entry",
    "tool_list_error",
    "trust_choices",
    "trust_prompt_title",
    "trust_without_asking",
]
