"""Signing in to and out of a running session's OAuth server (``/mcp login|logout``), as
Pi 1.6's MCP extension does it in a session: the authorization URL is shown (and the browser
opened), the answer comes to the loopback callback, or as a redirect URL the user pastes, and
the server is connected again with the new tokens."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_ai import AbortSignal
    from pi_coding_agent.core.mcp.manager._manager import McpManager

Notify = Callable[[str, str], None]
"""``notify(message, kind)``: a notice (``info``, ``error``)."""
Ask = Callable[[str, str, "AbortSignal"], Awaitable[str | None]]
"""``ask(question, placeholder, signal)``: one line from the user; the signal withdraws it."""

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


async def sign_in_with_notices(manager: McpManager, name: str, notify: Notify, ask: Ask | None) -> str | None:
    """Pi 1.6's in-session sign-in outside its terminal sign-in screen: the URL as a notice (and
    the browser opened), a question (``ask``; ``None``: none) for the redirect URL in case the
    browser cannot reach the loopback callback, withdrawn once either answered. The failure's
    message (then not yet shown), or ``None`` after the notice of the connected server."""
    from pi_ai import AbortController
    from pi_coding_agent.core.mcp.oauth import open_browser

    dialog = AbortController()

    def show(url: str) -> None:
        notify(f'Sign in to MCP server "{name}" in your browser:\n{url}', "info")
        open_browser(url)

    def pasted() -> asyncio.Future[str | None]:
        question = (
            f'Waiting for sign-in to "{name}". If the browser cannot reach this machine, '
            "paste the URL it was redirected to."
        )
        assert ask is not None
        return asyncio.ensure_future(ask(question, "http://127.0.0.1:.../callback?code=...", dialog.signal))

    try:
        failure = await sign_in_to(manager, name, show, pasted if ask is not None else None)
    finally:
        dialog.abort()
    if failure:
        return failure
    connection = manager.connection(name)
    count = len(connection.tools) if connection is not None else 0
    notify(f'Signed in to MCP server "{name}" ({count} tools).', "info")
    return None
