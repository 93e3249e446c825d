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
from pi_coding_agent.core.mcp.oauth._client import Authorization, OAuthClient, OAuthSettings
from pi_coding_agent.core.mcp.oauth._loopback import CallbackAnswer, listen_for_sign_in
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


PastedUrl = Callable[[], "asyncio.Future[str | None]"]
"""Starts asking the user for the redirect URL; the answer (``None``: no answer)."""


async def sign_in(
    state: ServerAuthState,
    settings: OAuthSettings,
    challenge: Challenge | None,
    show_url: Callable[[str], None],
    timeout_s: float,
    *,
    pasted_url: PastedUrl | None = None,
) -> None:
    """Sign in; ``SignInCancelled`` when it does not finish within ``timeout_s`` (or the user
    gave no URL). ``pasted_url``: also take the redirect URL from the user, for a browser that
    cannot reach this machine's loopback callback."""
    try:
        async with asyncio.timeout(timeout_s):
            await _sign_in(state, settings, challenge, show_url, pasted_url)
    except TimeoutError:
        raise SignInCancelled from None


async def _sign_in(
    state: ServerAuthState,
    settings: OAuthSettings,
    challenge: Challenge | None,
    show_url: Callable[[str], None],
    pasted_url: PastedUrl | None,
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
            result = await _first_answer(answer, pasted_url() if pasted_url else None, authorization)
            await client.complete(http, authorization, result.code, result.state, result.iss)
    finally:
        await callback.close()


async def _first_answer(
    browser: asyncio.Future[CallbackAnswer],
    pasted: asyncio.Future[str | None] | None,
    authorization: Authorization,
) -> CallbackAnswer:
    """The callback's answer or the pasted URL's, whichever comes first."""
    if pasted is None:
        return await browser
    either: set[asyncio.Future[Any]] = {browser, pasted}
    done, _ = await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
    if browser in done:
        return browser.result()
    typed = pasted.result()
    if not typed or not typed.strip():
        raise SignInCancelled
    return answer_from_redirect_url(typed, authorization)


def answer_from_redirect_url(typed: str, authorization: Authorization) -> CallbackAnswer:
    """The authorization answer in a redirect URL copied from the browser's address bar; it
    must be on the sign-in's redirect URI and carry its ``state``."""
    from urllib.parse import parse_qs, urlsplit

    url = urlsplit(typed.strip())
    if url.scheme not in ("http", "https") or not url.netloc:
        raise ValueError("Expected the full redirect URL from the browser address bar")
    expected = urlsplit(authorization.redirect_url)
    if (url.scheme, url.netloc, url.path) != (expected.scheme, expected.netloc, expected.path):
        raise ValueError("The redirect URL does not match this sign-in's redirect URI")
    query = {key: values[0] for key, values in parse_qs(url.query).items()}
    if query.get("error"):
        raise ValueError(query.get("error_description") or query["error"])
    if query.get("state") != authorization.state:
        raise ValueError("The redirect URL belongs to a different sign-in")
    if not query.get("code"):
        raise ValueError("The redirect URL does not contain an authorization code")
    return CallbackAnswer(query["code"], query["state"], query.get("iss"))


def ask_in_terminal(prompt: str) -> PastedUrl:
    """Ask on stderr and read a line from stdin in a daemon thread (an unanswered question never
    keeps the process alive)."""
    import threading

    def start() -> asyncio.Future[str | None]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[str | None] = loop.create_future()

        def read() -> None:
            try:
                sys.stderr.write(prompt)
                sys.stderr.flush()
                line: str | None = sys.stdin.readline()
            except (OSError, ValueError):
                line = None

            def answer() -> None:
                if not future.done():
                    future.set_result(line or None)

            with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits any more
                loop.call_soon_threadsafe(answer)

        threading.Thread(target=read, name="pi-mcp-sign-in-prompt", daemon=True).start()
        return future

    return start


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
