"""Signing in to and out of a running session's OAuth server (``/mcp login|logout``), as
Pi 1.6's MCP extension does it in a session: the authorization URL is shown (and the browser
opened), the answer comes to the loopback callback, or as a redirect URL the user pastes, and
the server is connected again with the new tokens."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_coding_agent.core.mcp.manager._manager import McpManager

SIGN_IN_LIMIT_S = 300.0
"""How long an in-session sign-in waits for the browser (``pi mcp login``'s default)."""
CANCELLED = "Sign-in cancelled."

PastedUrl = Callable[[], "asyncio.Future[str | None]"]


async def sign_in_to(
    manager: McpManager,
    name: str,
    show_url: Callable[[str], None],
    pasted_url: PastedUrl | None,
    timeout_s: float = SIGN_IN_LIMIT_S,
) -> str | None:
    """Sign in to ``name`` and connect it again; the one-line reason on failure
    (``CANCELLED`` when given up or out of time)."""
    from pi_coding_agent.core.mcp.config import McpValueError
    from pi_coding_agent.core.mcp.oauth import SignInCancelled, oauth_settings, sign_in

    connection, store = manager.connection(name), manager.auth_store
    if connection is None or store is None or not manager.uses_oauth(name):
        return f'MCP server "{name}" does not use OAuth.'
    url = str(connection.entry.config["url"])
    try:
        settings = oauth_settings(connection.entry)
        await sign_in(
            store.server(name, url),
            settings,
            connection.challenge,
            show_url,
            timeout_s,
            pasted_url=pasted_url,
        )
    except SignInCancelled:
        return CANCELLED
    except (McpValueError, ValueError, OSError, RuntimeError) as failure:
        return f"Sign-in failed: {failure}"
    except Exception as failure:  # the OAuth server's or the network's errors
        return f"Sign-in failed: {failure or type(failure).__name__}"
    problem = await manager.reconnect(name)
    return f"Signed in, but {problem}" if problem else None


async def sign_out_of(manager: McpManager, name: str) -> bool:
    """Forget ``name``'s stored tokens and drop its connection (it needs a sign-in again);
    whether there were tokens."""
    connection, store = manager.connection(name), manager.auth_store
    if connection is None or store is None:
        return False
    removed = await store.remove(name, str(connection.entry.config["url"]))
    await manager.reconnect(name)
    return removed
