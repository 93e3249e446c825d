"""OAuth for streamable HTTP MCP servers, as Pi 1.6 signs in: protected-resource and
authorization-server discovery, dynamic client registration or Pi's Client ID Metadata Document,
PKCE with a loopback callback, and tokens in ``mcp-auth.json`` refreshed by connections.

The store is light; the rest (``httpx2``) loads when an OAuth server connects or signs in."""

from typing import TYPE_CHECKING

from pi_ai import lazy_attributes
from pi_coding_agent.core.mcp.oauth._store import McpAuthFileError as McpAuthFileError
from pi_coding_agent.core.mcp.oauth._store import McpAuthStore as McpAuthStore
from pi_coding_agent.core.mcp.oauth._store import ServerAuthState as ServerAuthState

if TYPE_CHECKING:
    from pi_coding_agent.core.mcp.oauth._auth import StoredTokenAuth as StoredTokenAuth
    from pi_coding_agent.core.mcp.oauth._client import OAuthSettings as OAuthSettings
    from pi_coding_agent.core.mcp.oauth._protocol import Challenge as Challenge
    from pi_coding_agent.core.mcp.oauth._signin import SignInCancelled as SignInCancelled
    from pi_coding_agent.core.mcp.oauth._signin import ask_in_terminal as ask_in_terminal
    from pi_coding_agent.core.mcp.oauth._signin import oauth_settings as oauth_settings
    from pi_coding_agent.core.mcp.oauth._signin import open_browser as open_browser
    from pi_coding_agent.core.mcp.oauth._signin import sign_in as sign_in
    from pi_coding_agent.core.mcp.oauth._signin import uses_oauth as uses_oauth

__getattr__, __dir__ = lazy_attributes(globals())
