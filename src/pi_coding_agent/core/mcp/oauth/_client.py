"""Pi's OAuth client for one MCP server: how it identifies itself, the steps of a sign-in and of
a refresh, and what it stores after each (``mcp-auth.json``, in Pi 1.6's order and shape).

A sign-in has two halves: ``start`` refreshes the stored tokens when it can, or else prepares
the browser step (discovery, a registered client or Pi's Client ID Metadata Document, PKCE,
``state``) and gives the authorization URL; ``complete`` exchanges the code the browser brought
back. ``refresh`` only ever refreshes: it never registers a client or starts a browser step.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit, urlunsplit

from pi_coding_agent.core.mcp.oauth._protocol import (
    Challenge,
    OAuthError,
    authorization_url,
    discover,
    pkce_pair,
    register_client,
    select_resource,
    server_metadata,
    token_request,
)
from pi_coding_agent.core.mcp.oauth._store import ServerAuthState, State

if TYPE_CHECKING:
    import httpx2

CLIENT_NAME = "pi"
DOCUMENTS_BASE_URL = "https://pi.dev/oauth"
"""Pi's Client ID Metadata Documents: ``client.json`` and ``<callback id>/client.json``."""
DEFAULT_REDIRECT_URL = "http://127.0.0.1/callback"
Outcome = Literal["authorized", "redirect"]


@dataclass(frozen=True)
class OAuthSettings:
    """A server's ``oauth`` entry (``clientSecret`` already resolved)."""

    client_id: str | None = None
    client_secret: str | None = None
    callback_port: int | None = None
    callback_url: str | None = None
    scope: str | None = None
    client_name: str | None = None
    client_registration: str = "auto"
    auth_server_metadata_url: str | None = None


@dataclass(frozen=True)
class Authorization:
    """The browser step of a sign-in: where to send the user, and what the answer must match."""

    url: str
    redirect_url: str
    state: str
    scope: str | None


@dataclass(frozen=True)
class Step:
    """What one pass of the flow is for."""

    challenge: Challenge | None = None
    scope: str | None = None
    code: str | None = None
    iss: str | None = None
    refresh_only: bool = False
    skip_refresh: bool = False


@dataclass(frozen=True)
class _Server:
    issuer: str
    metadata: dict[str, Any] | None
    resource: str | None


def documents_list(redirect_url: str | None) -> bool:
    """Whether Pi's documents list a redirect URI: ``/callback`` on a loopback host but ``[::1]``."""
    if redirect_url is None:
        return True
    parts = urlsplit(redirect_url)
    return parts.hostname != "::1" and parts.path == "/callback"


def offers_document(settings: OAuthSettings, redirect_url: str) -> bool:
    if settings.client_registration != "auto":
        return settings.client_registration == "cimd"
    return not settings.client_id and not settings.client_name and documents_list(redirect_url)


def callback_id(server_url: str) -> str:
    """12 characters naming a server URL in server-specific callback paths."""
    href = server_url.split("#", 1)[0]
    return base64.urlsafe_b64encode(hashlib.sha256(href.encode()).digest()[:9]).decode()


def server_specific_path(path: str, server_url: str) -> str:
    return f"{path.rstrip('/')}/{callback_id(server_url)}"


def registered_redirects(information: Any) -> list[str]:
    uris = information.get("redirect_uris") if isinstance(information, dict) else None
    return [str(uri) for uri in uris] if isinstance(uris, list) else []


def merge_scopes(*scopes: str | None) -> str | None:
    merged: list[str] = []
    for scope in scopes:
        for item in (scope or "").split():
            if item not in merged:
                merged.append(item)
    return " ".join(merged) or None


class OAuthClient:
    """Sign-in and refresh for one server, redirecting to ``redirect_url``."""

    def __init__(self, state: ServerAuthState, settings: OAuthSettings, redirect_url: str) -> None:
        self.store = state
        self.settings = settings
        self.redirect_url = redirect_url
        self.server_url = state.server_url
        self.configured = (
            {
                "client_id": settings.client_id,
                **({"client_secret": settings.client_secret} if settings.client_secret else {}),
            }
            if settings.client_id
            else None
        )
        self.client_metadata: dict[str, Any] = {
            "client_name": settings.client_name or CLIENT_NAME,
            "redirect_uris": [redirect_url],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "client_secret_post" if settings.client_secret else "none",
        }
        self.authorization: Authorization | None = None
        self.challenge: Challenge | None = None

    # ------------------------------------------------------------- stored state

    async def _edit(self, **changes: Any) -> State:
        """Set (or, for ``None``, remove) fields of the stored state."""

        def apply(state: State) -> State:
            for key, value in changes.items():
                if value is None:
                    state.pop(key, None)
                else:
                    state[key] = value
            return state

        return await self.store.change(apply)

    def _client_information(self) -> dict[str, Any] | None:
        if self.configured is not None:
            return self.configured
        found = self.store.load().get("clientInformation")
        return found if isinstance(found, dict) else None

    async def _save_tokens(self, tokens: dict[str, Any]) -> None:
        expires = tokens.get("expires_in")
        expire_at = (
            int(time.time() * 1000 + float(expires) * 1000) if isinstance(expires, int | float) else None
        )

        def apply(state: State) -> State:
            state["tokens"] = tokens
            state.pop("tokensExpireAt", None) if expire_at is None else state.update(tokensExpireAt=expire_at)
            return state

        await self.store.change(apply)

    async def _invalidate(self, *kinds: str) -> None:
        fields = {
            "client": ("clientInformation",),
            "tokens": ("tokens", "tokensExpireAt"),
            "verifier": ("codeVerifier",),
            "discovery": ("discovery",),
            "all": (
                "clientInformation",
                "tokens",
                "tokensExpireAt",
                "codeVerifier",
                "discovery",
                "oauthState",
            ),
        }
        await self._edit(**{name: None for kind in kinds for name in fields[kind]})

    async def _oauth_state(self) -> str:
        existing = self.store.load().get("oauthState")
        if isinstance(existing, str) and existing:
            return existing
        value = secrets.token_hex(32)
        await self._edit(oauthState=value)
        return value

    # ------------------------------------------------------------- the flow

    def _document(self, metadata: dict[str, Any] | None) -> tuple[str, str] | None:
        """``(client id URL, redirect URI)`` when Pi's Client ID Metadata Document is used."""
        if not offers_document(self.settings, self.redirect_url):
            return None
        if not documents_list(self.redirect_url):
            raise ValueError(
                f'oauth.clientRegistration "cimd" needs Client ID Metadata Documents that list the redirect URI {self.redirect_url}'
            )
        supported = bool(metadata and metadata.get("client_id_metadata_document_supported")) and "none" in (
            (metadata or {}).get("token_endpoint_auth_methods_supported") or []
        )
        if not supported:
            if self.settings.client_registration == "cimd":
                raise ValueError(
                    'The authorization server does not support Client ID Metadata Documents for public clients; remove oauth.clientRegistration "cimd"'
                )
            return None
        if metadata and metadata.get("authorization_response_iss_parameter_supported"):
            return f"{DOCUMENTS_BASE_URL}/client.json", self.redirect_url
        parts = urlsplit(self.redirect_url)
        redirect = urlunsplit(
            (parts.scheme, parts.netloc, server_specific_path(parts.path, self.server_url), parts.query, "")
        )
        return f"{DOCUMENTS_BASE_URL}/{callback_id(self.server_url)}/client.json", redirect

    async def _discovery(self, http: httpx2.AsyncClient, challenge: Challenge | None) -> dict[str, Any]:
        configured = self.settings.auth_server_metadata_url
        cached = None if configured else self.store.load().get("discovery")
        if isinstance(cached, dict) and cached.get("authorizationServerUrl"):
            found = dict(cached)
            if "authorizationServerMetadata" not in found:
                metadata = await server_metadata(http, str(found["authorizationServerUrl"]))
                if metadata is not None:
                    found["authorizationServerMetadata"] = metadata
            found.pop("resourceMetadataUrl", None)
        else:
            metadata_url = challenge.resource_metadata_url if challenge else None
            found = await discover(http, self.server_url, metadata_url, configured)
        if not configured:
            metadata_url = challenge.resource_metadata_url if challenge else None
            await self._edit(
                discovery={**found, **({"resourceMetadataUrl": metadata_url} if metadata_url else {})}
            )
        return found

    async def run(self, http: httpx2.AsyncClient, step: Step) -> Outcome:
        """One pass of the flow; ``invalid_client`` and ``invalid_grant`` answers drop what they
        invalidate and try once more."""
        stored_id = (self._client_information() or {}).get("client_id")
        try:
            return await self._run(http, step)
        except OAuthError as error:
            if error.code in ("invalid_client", "unauthorized_client"):
                if not step.refresh_only:
                    await self._invalidate("all")
                elif (self._client_information() or {}).get("client_id") == stored_id:
                    await self._invalidate("client", "tokens", "discovery")
            elif error.code == "invalid_grant":
                await self._invalidate("tokens")
            else:
                raise
            return await self._run(http, step)

    async def _run(self, http: httpx2.AsyncClient, step: Step) -> Outcome:
        found = await self._discovery(http, step.challenge)
        server = _Server(
            issuer=str(found["authorizationServerUrl"]),
            metadata=found.get("authorizationServerMetadata"),
            resource=select_resource(self.server_url, found.get("resourceMetadata")),
        )
        advertised = (found.get("resourceMetadata") or {}).get("scopes_supported")
        scope = step.scope or (" ".join(advertised) if advertised else None) or None
        stored = self._client_information()
        document = None if stored else self._document(server.metadata)
        redirect_url = document[1] if document else self.redirect_url
        expected = self.authorization.redirect_url if self.authorization else redirect_url
        if step.code is not None and redirect_url != expected:
            raise ValueError(
                f"The code exchange would use the redirect URI {redirect_url}, "
                f"but the authorization request used {expected}"
            )
        information = stored or ({"client_id": document[0]} if document else None)
        if information is None:
            if step.refresh_only:
                return "redirect"
            if step.code is not None:
                raise ValueError("OAuth client information is missing during code exchange; sign in again")
            information = await register_client(
                http, server.issuer, server.metadata, self.client_metadata, scope
            )
            await self._edit(clientInformation=information)
        if step.code is not None:
            await self._exchange(http, server, information, step, redirect_url=redirect_url, scope=scope)
            return "authorized"
        if not step.skip_refresh and await self._refresh(http, server, information):
            return "authorized"
        if not step.refresh_only:
            await self._prepare_browser_step(server, str(information["client_id"]), redirect_url, scope)
        return "redirect"

    async def _exchange(
        self,
        http: httpx2.AsyncClient,
        server: _Server,
        information: dict[str, Any],
        step: Step,
        *,
        redirect_url: str,
        scope: str | None,
    ) -> None:
        """Trade the authorization code for tokens (RFC 9207: the answer's issuer must be the
        server's when either side uses ``iss``)."""
        metadata = server.metadata or {}
        uses_iss = step.iss is not None or metadata.get("authorization_response_iss_parameter_supported")
        if uses_iss and step.iss != metadata.get("issuer"):
            raise ValueError(f"OAuth issuer mismatch: expected {metadata.get('issuer')}, received {step.iss}")
        verifier = self.store.load().get("codeVerifier")
        if not isinstance(verifier, str):
            raise ValueError("No OAuth PKCE code verifier is stored")
        params = {
            "grant_type": "authorization_code",
            "code": str(step.code),
            "code_verifier": verifier,
            "redirect_uri": redirect_url,
        }
        tokens = await token_request(
            http, server.issuer, server.metadata, information, resource=server.resource, params=params
        )
        # An answer without ``scope`` grants the requested one (RFC 6749 section 5.1).
        await self._save_tokens(tokens if "scope" in tokens or not scope else {**tokens, "scope": scope})

    async def _refresh(self, http: httpx2.AsyncClient, server: _Server, information: dict[str, Any]) -> bool:
        """Refresh with the stored refresh token; an OAuth error other than ``server_error``
        is raised."""
        existing = self.store.load().get("tokens")
        if not isinstance(existing, dict) or not existing.get("refresh_token"):
            return False
        refresh = str(existing["refresh_token"])
        params = {"grant_type": "refresh_token", "refresh_token": refresh}
        try:
            answer = await token_request(
                http, server.issuer, server.metadata, information, resource=server.resource, params=params
            )
        except OAuthError as error:
            if error.code != "server_error":
                raise
            return False
        tokens = {"refresh_token": refresh, **answer}
        if "scope" not in tokens and existing.get("scope"):
            tokens["scope"] = existing["scope"]  # a refresh keeps the grant's scope (RFC 6749 section 6)
        await self._save_tokens(tokens)
        return True

    async def _prepare_browser_step(
        self, server: _Server, client_id: str, redirect_url: str, scope: str | None
    ) -> None:
        state = await self._oauth_state()
        verifier, code_challenge = pkce_pair()
        url = authorization_url(
            server.issuer,
            server.metadata,
            client_id,
            redirect_url,
            state=state,
            scope=scope,
            resource=server.resource,
            challenge=code_challenge,
        )
        await self._edit(codeVerifier=verifier)
        self.authorization = Authorization(url, redirect_url, state, scope)

    # ------------------------------------------------------------- sign-in halves

    async def start(self, http: httpx2.AsyncClient, challenge: Challenge | None) -> Authorization | None:
        """Refresh the stored tokens (``None``: signed in), or prepare the browser step."""
        self.challenge = challenge
        step_up = challenge is not None and challenge.error == "insufficient_scope"
        refresh_first = not step_up and self._may_refresh_first()
        if (
            refresh_first
            and await self.run(http, Step(challenge=challenge, refresh_only=True)) == "authorized"
        ):
            return None
        await self.store.change(self._for_browser_step)
        granted = (self.store.load().get("tokens") or {}).get("scope") if step_up else None
        challenged = challenge.scope if challenge else None
        scope = merge_scopes(
            self.settings.scope, merge_scopes(granted, challenged) if step_up else challenged
        )
        self.authorization = None
        await self.run(http, Step(challenge=challenge, scope=scope, skip_refresh=True))
        return self._prepared()

    def _prepared(self) -> Authorization:
        """The authorization the last pass prepared (set by ``_prepare_browser_step``)."""
        if self.authorization is None:
            raise ValueError("OAuth flow did not produce an authorization URL")
        return self.authorization

    def _may_refresh_first(self) -> bool:
        """A refresh token is stored, and ``cimd`` is not about to replace a registered client."""
        stored = self.store.load()
        tokens = stored.get("tokens")
        if not isinstance(tokens, dict) or not tokens.get("refresh_token"):
            return False
        replacing = self.settings.client_registration == "cimd" and not self.settings.client_id
        return not (replacing and stored.get("clientInformation"))

    def _for_browser_step(self, state: State) -> State:
        """Without the last ``state``; without a client that cannot use the redirect URI (and
        its tokens)."""
        state.pop("oauthState", None)
        information = state.get("clientInformation")
        if self.settings.client_id:
            keep = True
        elif information:
            keep = self.settings.client_registration != "cimd" and self.redirect_url in registered_redirects(
                information
            )
        else:
            keep = offers_document(self.settings, self.redirect_url)
        if not keep:
            for key in ("clientInformation", "tokens", "tokensExpireAt"):
                state.pop(key, None)
        return state

    async def complete(
        self, http: httpx2.AsyncClient, authorization: Authorization, code: str, state: str, iss: str | None
    ) -> None:
        """Exchange the code of the browser's answer and save the tokens."""
        if state != authorization.state:
            raise ValueError("The authorization response belongs to a different sign-in")
        if self.store.load().get("oauthState") != authorization.state:
            raise ValueError("Another sign-in to this MCP server started since; sign in again")
        self.authorization = authorization
        await self.run(http, Step(challenge=self.challenge, scope=authorization.scope, code=code, iss=iss))
