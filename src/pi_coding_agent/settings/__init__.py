"""Settings of the coding agent: where its files live, ``settings.json``, project trust."""

from pi_coding_agent.settings._json_file import ConfigFileError, read_json_object
from pi_coding_agent.settings._paths import (
    AGENT_DIR_ENV,
    CONFIG_DIR_NAME,
    SESSION_DIR_ENV,
    agent_dir,
    expand_tilde,
    resolve_path,
)
from pi_coding_agent.settings._settings import (
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
from pi_coding_agent.settings._trust import needs_project_trust, resolve_project_trust, stored_trust_decision

__all__ = [
    "AGENT_DIR_ENV",
    "CONFIG_DIR_NAME",
    "DEFAULT_HTTP_IDLE_TIMEOUT_MS",
    "DEFAULT_THINKING_LEVEL",
    "DEFAULT_TOOL_NAMES",
    "SESSION_DIR_ENV",
    "CompactionSettings",
    "ConfigFileError",
    "ProviderRetrySettings",
    "RetrySettings",
    "Settings",
    "SettingsIssue",
    "agent_dir",
    "deep_merge",
    "expand_tilde",
    "needs_project_trust",
    "read_json_object",
    "resolve_path",
    "resolve_project_trust",
    "stored_trust_decision",
]
