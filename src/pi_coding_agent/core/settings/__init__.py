"""Settings of the coding agent: ``settings.json`` and project trust (where the files live:
``pi_coding_agent.core.paths``)."""

from pi_coding_agent.core.settings._json_file import ConfigFileError, read_json_object
from pi_coding_agent.core.settings._settings import (
    DEFAULT_HTTP_IDLE_TIMEOUT_MS,
    DEFAULT_THINKING_LEVEL,
    DEFAULT_TOOL_NAMES,
    CompactionSettings,
    ProviderRetrySettings,
    RetrySettings,
    Settings,
    SettingsIssue,
    deep_merge,
)
from pi_coding_agent.core.settings._trust import (
    TrustAsker,
    TrustChoice,
    needs_project_trust,
    resolve_project_trust,
    save_trust_decisions,
    stored_trust_decision,
    stored_trust_entry,
    trust_choices,
    trust_prompt_title,
)

__all__ = [
    "DEFAULT_HTTP_IDLE_TIMEOUT_MS",
    "DEFAULT_THINKING_LEVEL",
    "DEFAULT_TOOL_NAMES",
    "CompactionSettings",
    "ConfigFileError",
    "ProviderRetrySettings",
    "RetrySettings",
    "Settings",
    "SettingsIssue",
    "TrustAsker",
    "TrustChoice",
    "deep_merge",
    "needs_project_trust",
    "read_json_object",
    "resolve_project_trust",
    "save_trust_decisions",
    "stored_trust_decision",
    "stored_trust_entry",
    "trust_choices",
    "trust_prompt_title",
]
