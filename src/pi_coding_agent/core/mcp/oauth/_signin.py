"""Signing in to an OAuth server (``pi mcp login``): refresh the stored tokens when that is
enough, else show the authorization URL (and open the browser), wait for the answer on the
loopback callback, and exchange its code. The whole sign-in has a time limit."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Callable
from typing import Any

import httpx2

from pi_coding_agent.core.mcp.config import McpServerEntry, is_http, resolve_value
from pi_coding_agent.core.mcp.oauth._client import OAuthClient, OAuthSettings
from pi_coding_agent.core.mcp.oauth._loopback import listen_for_sign_in
from pi_coding_agent.core.mcp.oauth._protocol import REQUEST_TIMEOUT_S, Challenge
from pi_coding_agent.core.mcp.oauth._store import ServerAuthState


class SignInCancelled(Exception):
    """The sign-in was given up, or did not finish in time."""


def uses_oauth(entry: McpServerEntry) -> bool:
    """HTTP servers sign in with OAuth unless the entry sends an ``Authorization`` header or
    names an ``auth`` provider."""
    config = entry.config
    if not is_http(config) or config.get("auth"):
        return False
    return not any(header.lower() == "authorization" for header in config.get("headers") or {})


def oauth_settings(entry: McpServerEntry) -> OAuthSettings:
    """The entry's ``oauth`` settings; resolving ``clientSecret`` may fail (``McpValueError``)."""
    oauth: dict[str, Any] = entry.config.get("oauth") or {}
    secret = oauth.get("clientSecret")
    port = oauth.get("callbackPort")
    return OAuthSettings(
        client_id=oauth.get("clientId"),
        client_secret=(
            resolve_value(secret, f'MCP server "{entry.name}" oauth.clientSecret')
            if isinstance(secret, str)
            else None
        ),
        callback_port=int(port) if isinstance(port, int | float) else None,
        callback_url=oauth.get("callbackUrl"),
        scope=oauth.get("scope"),
        client_name=oauth.get("clientName"),
        client_registration=oauth.get("clientRegistration") or "auto",
        auth_server_metadata_url=oauth.get("authServerMetadataUrl"),
    )


async def sign_in(
    state: ServerAuthState,
    settings: OAuthSettings,
    challenge: Challenge | None,
    show_url: Callable[[str], None],
    timeout_s: float,
) -> None:
    """Sign in; ``SignInCancelled`` when it does not finish within ``timeout_s``."""
    try:
        async with asyncio.timeout(timeout_s):
            await _sign_in(state, settings, challenge, show_url)
    except TimeoutError:
        raise SignInCancelled from None


async def _sign_in(
    state: ServerAuthState,
    settings: OAuthSettings,
    challenge: Challenge | None,
    show_url: Callable[[str], None],
) -> None:
    callback, redirect_url = await listen_for_sign_in(state, settings)
    try:
        async with httpx2.AsyncClient(timeout=REQUEST_TIMEOUT_S) as http:
            client = OAuthClient(state, settings, redirect_url)
            authorization = await client.start(http, challenge)
            if authorization is None:
                return
            from urllib.parse import urlsplit

            answer = callback.wait(authorization.state, urlsplit(authorization.redirect_url).path)
            show_url(authorization.url)
            result = await answer
            await client.complete(http, authorization, result.code, result.state, result.iss)
    finally:
        await callback.close()


def open_browser(url: str) -> None:
    """Hand the URL to the desktop's opener (``xdg-open``, ``open`` on macOS), as Pi does;
    failing to start it is not an error (the URL is printed too)."""
    import subprocess

    command = (
        ["open", url]
        if sys.platform == "darwin"
        else ["rundll32", "url.dll,FileProtocolHandler", url]
        if sys.platform == "win32"
        else ["xdg-open", url]
    )
    with contextlib.suppress(OSError):
        subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            cwd="/",
        )
