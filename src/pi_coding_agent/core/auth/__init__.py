"""Credentials: ``auth.json``, environment keys and ``--api-key``, in Pi's precedence, and
signing in and out (``login``, ``logout``, ``login_options``) for ``/login`` and ``/logout``."""

from typing import TYPE_CHECKING

from pi_ai import lazy_attributes
from pi_coding_agent.core.auth._config_value import is_configured, referenced_env_vars, resolve_config_value
from pi_coding_agent.core.auth._credentials import OAUTH_MIN_VALIDITY_MS, Credentials, OAuthRefreshError
from pi_coding_agent.core.auth._lock import AuthLockError
from pi_coding_agent.core.auth._storage import AUTH_FILE_MODE, AuthFileError, AuthStorage

if TYPE_CHECKING:
    from pi_coding_agent.core.auth._login import (
        AuthType,
        LoginOption,
        login,
        login_options,
        logout,
        stored_credentials,
    )

# Signing in is for /login; a run that only reads credentials does not load it.
__getattr__, __dir__ = lazy_attributes(
    globals(),
    {
        name: "pi_coding_agent.core.auth._login"
        for name in ("AuthType", "LoginOption", "login", "login_options", "logout", "stored_credentials")
    },
)

__all__ = [
    "AUTH_FILE_MODE",
    "OAUTH_MIN_VALIDITY_MS",
    "AuthFileError",
    "AuthLockError",
    "AuthStorage",
    "AuthType",
    "Credentials",
    "LoginOption",
    "OAuthRefreshError",
    "is_configured",
    "login",
    "login_options",
    "logout",
    "referenced_env_vars",
    "resolve_config_value",
    "stored_credentials",
]
