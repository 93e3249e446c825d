"""The authentication of a connection to an OAuth server, as Pi 1.6 does it: send the stored
access token, refresh it when it is about to expire or the server answers 401, and never start a
browser step. When only a sign-in helps, the 401 answer goes through (the connection fails with
it) and ``needs_sign_in`` says why.

Refresh tokens are often rotated, so two refreshes with one refresh token lose the grant: the
refreshes of this process share one, and other processes (ours or Pi's) are kept out by a lock
directory per server, ``mcp-auth-refresh-<hash>.lock`` in the agent folder, held from reading
the tokens to saving new ones. Tokens that changed meanwhile are used without refreshing.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import AsyncGenerator, Callable
from pathlib import Path
from typing import Any

import httpx2

from pi_coding_agent.core.auth import AuthLockError, locked
from pi_coding_agent.core.mcp.oauth._client import (
    DEFAULT_REDIRECT_URL,
    OAuthClient,
    OAuthSettings,
    Step,
    documents_list,
)
from pi_coding_agent.core.mcp.oauth._protocol import REQUEST_TIMEOUT_S, Challenge, parse_challenge
from pi_coding_agent.core.mcp.oauth._store import ServerAuthState

REFRESH_SKEW_MS = 30_000
"""Access tokens this close to expiry are refreshed before they are sent."""


def refresh_lock_path(state: ServerAuthState) -> Path:
    digest = hashlib.sha256(state.key.encode()).hexdigest()[:16]
    return state.store.path.parent / f"mcp-auth-refresh-{digest}"


async def refresh_stored(
    state: ServerAuthState, settings: OAuthSettings, challenge: Challenge | None
) -> bool:
    """Refresh the stored tokens with the stored client (or Pi's document); whether it worked.
    Call with the server's refresh lock held."""
    fixed = _fixed_redirect(settings)
    candidates = [url for url in (fixed, *_registered(state)) if url]
    redirect = next((url for url in candidates if documents_list(url)), DEFAULT_REDIRECT_URL)
    client = OAuthClient(state, settings, redirect)
    async with httpx2.AsyncClient(timeout=REQUEST_TIMEOUT_S) as http:
        return await client.run(http, Step(challenge=challenge, refresh_only=True)) == "authorized"


def _fixed_redirect(settings: OAuthSettings) -> str | None:
    from pi_coding_agent.core.mcp.oauth._loopback import loopback_settings

    return loopback_settings(settings).fixed_redirect_url


def _tokens(state: dict[str, Any]) -> dict[str, Any]:
    tokens = state.get("tokens")
    return tokens if isinstance(tokens, dict) else {}


def _registered(state: ServerAuthState) -> list[str]:
    information = state.load().get("clientInformation")
    uris = information.get("redirect_uris") if isinstance(information, dict) else None
    return [str(uri) for uri in uris] if isinstance(uris, list) else []


class StoredTokenAuth(httpx2.Auth):
    """``httpx2`` authentication for one server's connection."""

    def __init__(self, state: ServerAuthState, settings: Callable[[], OAuthSettings]) -> None:
        self.state = state
        self._settings = settings
        self.challenge: Challenge | None = None
        self.needs_sign_in = False
        self._refreshing: asyncio.Future[None] | None = None

    def _access_token(self) -> tuple[str | None, bool]:
        """``(access token, due for a refresh)``."""
        stored = self.state.load()
        tokens = _tokens(stored)
        token = tokens.get("access_token") if isinstance(tokens.get("access_token"), str) else None
        expire_at = stored.get("tokensExpireAt")
        due = isinstance(expire_at, int | float) and expire_at - REFRESH_SKEW_MS <= time.time() * 1000
        return token, bool(due and tokens.get("refresh_token"))

    async def _refresh(self, stale: str | None, challenge: Challenge | None) -> bool:
        """Replace ``stale`` (expired or refused); whether a usable token is stored now."""
        if self._refreshing is None:
            self._refreshing = asyncio.ensure_future(self._refresh_locked(stale, challenge))
        refreshing = self._refreshing
        try:
            await asyncio.shield(refreshing)
        except Exception:
            return False
        finally:
            if self._refreshing is refreshing and refreshing.done():
                self._refreshing = None
        return True

    async def _refresh_locked(self, stale: str | None, challenge: Challenge | None) -> None:
        try:
            async with locked(refresh_lock_path(self.state)):
                stored = self.state.load()
                tokens = _tokens(stored)
                if tokens.get("access_token") != stale and tokens.get("access_token"):
                    return  # another process refreshed them, or the user signed in
                if not tokens.get("refresh_token"):
                    raise RuntimeError("no refresh token")
                if not await refresh_stored(self.state, self._settings(), challenge):
                    raise RuntimeError("refresh refused")
        except AuthLockError as error:
            raise RuntimeError(str(error)) from None

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        token, due = self._access_token()
        if due:
            # A failed refresh falls through: the old token goes out and a 401 decides.
            await self._refresh(token, None)
            token, _ = self._access_token()
        if token:
            request.headers["Authorization"] = f"Bearer {token}"
        response = yield request
        if response.status_code != 401:
            return
        self.challenge = parse_challenge(response.headers.get("www-authenticate"))
        # A refresh keeps the granted scope, so a server asking for more needs a new sign-in.
        if self.challenge.error == "insufficient_scope" or not await self._refresh(token, self.challenge):
            self.needs_sign_in = True
            return
        fresh, _ = self._access_token()
        if fresh:
            request.headers["Authorization"] = f"Bearer {fresh}"
        retried = yield request
        if retried.status_code == 401:
            self.challenge = parse_challenge(retried.headers.get("www-authenticate"))
            self.needs_sign_in = True
