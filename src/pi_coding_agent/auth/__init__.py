"""Credentials: ``auth.json``, environment keys and ``--api-key``, in Pi's precedence."""

from pi_coding_agent.auth._config_value import is_configured, referenced_env_vars, resolve_config_value
from pi_coding_agent.auth._credentials import Credentials
from pi_coding_agent.auth._storage import AUTH_FILE_MODE, AuthStorage

__all__ = [
    "AUTH_FILE_MODE",
    "AuthStorage",
    "Credentials",
    "is_configured",
    "referenced_env_vars",
    "resolve_config_value",
]
