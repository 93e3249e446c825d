"""Credentials: ``auth.json``, environment keys and ``--api-key``, in Pi's precedence, and
signing in and out (``login``, ``logout``, ``login_options``) for ``/login`` and ``/logout``."""

from typing import TYPE_CHECKING

from pi_ai import lazy_attributes
from pi_coding_agent.core.auth._config_value import is_configured as is_configured
from pi_coding_agent.core.auth._config_value import referenced_env_vars as referenced_env_vars
from pi_coding_agent.core.auth._config_value import resolve_config_value as resolve_config_value
from pi_coding_agent.core.auth._credentials import OAUTH_MIN_VALIDITY_MS as OAUTH_MIN_VALIDITY_MS
from pi_coding_agent.core.auth._credentials import Credentials as Credentials
from pi_coding_agent.core.auth._credentials import OAuthRefreshError as OAuthRefreshError
from pi_coding_agent.core.auth._lock import AuthLockError as AuthLockError
from pi_coding_agent.core.auth._lock import locked as locked
from pi_coding_agent.core.auth._storage import AUTH_FILE_MODE as AUTH_FILE_MODE
from pi_coding_agent.core.auth._storage import AuthFileError as AuthFileError
from pi_coding_agent.core.auth._storage import AuthStorage as AuthStorage

if TYPE_CHECKING:
    from pi_coding_agent.core.auth._login import AuthType as AuthType
    from pi_coding_agent.core.auth._login import LoginOption as LoginOption
    from pi_coding_agent.core.auth._login import login as login
    from pi_coding_agent.core.auth._login import login_options as login_options
    from pi_coding_agent.core.auth._login import logout as logout
    from pi_coding_agent.core.auth._login import stored_credentials as stored_credentials

# Signing in is for /login; a run that only reads credentials does not load it.
__getattr__, __dir__ = lazy_attributes(globals())
