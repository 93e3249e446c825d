"""Radius (a ``pi-messages`` gateway): browser sign-in (PKCE, callback on 127.0.0.1:1456) or
a device code, both against the gateway's own OAuth endpoints under ``/v1/oauth``.

The gateway is ``https://radius.pi.dev``, or the ``baseUrl`` (without ``/v1``) of a
``models.json`` provider with ``"oauth": "radius"``. Only the browser's authorization page
is discovered (``GET /v1/oauth``); tokens come from ``/v1/oauth/token``. Stored expiries are
a minute early. There is no pasted-code alternative: a taken port ends the sign-in.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

from pi_ai.oauth import _http
from pi_ai.oauth._callback import CallbackServer, error_page, success_page
from pi_ai.oauth._device_code import Poll, complete, failed, pending, poll_device_code, slow_down
from pi_ai.oauth._endpoints import CALLBACK_HOST, callback_port, endpoint, form_encode
from pi_ai.oauth._pkce import generate_pkce
from pi_ai.oauth._types import (
    AuthPrompt,
    AuthUrlEvent,
    DeviceCodeEvent,
    LoginCallbacks,
    OAuthCredential,
    OAuthError,
    OAuthFlow,
    ProgressEvent,
    PromptOption,
)

DEFAULT_GATEWAY = "https://radius.pi.dev"
_PORT = 1456
_PATH = "/oauth/callback"
_CLIENT_ID = "pi-gateway"
_SCOPE = "gateway offline_access"
_EXPIRY_MARGIN_MS = 60_000
_BROWSER, _DEVICE = "browser", "device-code"


def normalize_gateway(url: str) -> str:
    with_scheme = url if url.lower().startswith(("http://", "https://")) else f"https://{url}"
    return with_scheme.rstrip("/")


class _TokenError(OAuthError):
    def __init__(self, status: int, oauth_error: str | None, description: str | None) -> None:
        detail = (
            (f"{oauth_error}: {description}" if description else oauth_error)
            if oauth_error
            else (description or str(status))
        )
        super().__init__(f"Radius OAuth token request failed: {detail}")
        self.oauth_error = oauth_error


def _error_fields(response: _http.Response) -> tuple[str | None, str | None]:
    body = response.json_object()
    if body is None:
        return None, response.text or None
    error, description = body.get("error"), body.get("error_description")
    return (error if isinstance(error, str) else None), (
        description if isinstance(description, str) else None
    )


class RadiusOAuth(OAuthFlow):
    provider = "radius"
    name = "Radius"

    def __init__(
        self, provider: str = "radius", name: str = "Radius", gateway: str = DEFAULT_GATEWAY
    ) -> None:
        self.provider = provider
        self.name = name
        self.gateway = endpoint("radius", normalize_gateway(gateway))

    async def login(self, callbacks: LoginCallbacks) -> OAuthCredential:
        method = await callbacks.prompt(
            AuthPrompt(
                "select",
                f"Sign in to {self.name}:",
                options=(
                    PromptOption(_BROWSER, "Sign in with browser (recommended)"),
                    PromptOption(_DEVICE, "Sign in with device code (when signing in from another device)"),
                ),
            )
        )
        if method == _DEVICE:
            return await self._device_login(callbacks)
        if method == _BROWSER:
            return await self._browser_login(callbacks)
        raise OAuthError(f"Unknown {self.name} sign-in method: {method}")

    async def refresh(self, credential: OAuthCredential) -> OAuthCredential:
        fields = {
            "grant_type": "refresh_token",
            "client_id": _CLIENT_ID,
            "refresh_token": str(credential["refresh"]),
        }
        return await self._token(fields)

    async def _token(self, fields: dict[str, str]) -> OAuthCredential:
        response = await _http.post_form(f"{self.gateway}/v1/oauth/token", fields)
        if not response.ok:
            raise _TokenError(response.status, *_error_fields(response))
        body: dict[str, Any] = response.json_object() or {}
        expires_in = body.get("expires_in")
        if not isinstance(expires_in, (int, float)):
            raise OAuthError(f"Radius OAuth token response missing fields: {_http.compact(body)}")
        credential: OAuthCredential = {
            "type": "oauth",
            "access": body.get("access_token"),
            "refresh": body.get("refresh_token"),
            "expires": int(time.time() * 1000 + expires_in * 1000 - _EXPIRY_MARGIN_MS),
        }
        if body.get("scope") is not None:
            credential["scope"] = body["scope"]
        return credential

    async def _browser_login(self, callbacks: LoginCallbacks) -> OAuthCredential:
        discovery = await _http.send(
            "GET", f"{self.gateway}/v1/oauth", headers={"accept": "application/json"}
        )
        if not discovery.ok:
            raise OAuthError(
                f"Could not load Radius OAuth config from {self.gateway}: {discovery.status} {discovery.text}"
            )
        authorize = (discovery.json_object() or {}).get("authorizationEndpoint")
        if not isinstance(authorize, str):
            raise OAuthError(f"Invalid Radius OAuth config from {self.gateway}")
        pkce = generate_pkce()
        state = str(uuid.uuid4())
        arrived: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()

        async def handle(_method: str, path: str, params: dict[str, str]) -> tuple[int, str]:
            if path != _PATH:
                return 404, error_page("Callback route not found.")
            if params.get("state") != state:
                return 400, error_page("OAuth state mismatch.")
            if params.get("error"):
                if not arrived.done():
                    arrived.set_result(None)
                return 400, error_page(params.get("error_description") or params["error"])
            if not params.get("code"):
                return 400, error_page("Missing authorization code.")
            if not arrived.done():
                arrived.set_result(params["code"])
            return 200, success_page("Signed in to Radius. You may now close this page.")

        server = CallbackServer(handle)
        port = await server.start_or_settle(callback_port(_PORT), arrived)
        redirect_uri = f"http://{CALLBACK_HOST}:{port}{_PATH}"
        query = form_encode(
            [
                ("response_type", "code"),
                ("client_id", _CLIENT_ID),
                ("redirect_uri", redirect_uri),
                ("scope", _SCOPE),
                ("code_challenge", pkce.challenge),
                ("code_challenge_method", "S256"),
                ("handoff", "url"),
                ("state", state),
            ]
        )
        callbacks.notify(ProgressEvent(f"Listening for OAuth callback on {redirect_uri}"))
        callbacks.notify(AuthUrlEvent(f"{authorize.split('?')[0]}?{query}", "Continue in your browser."))
        try:
            code = await arrived
        finally:
            await server.close()
        if not code:
            raise OAuthError("OAuth callback did not complete.")
        fields = {
            "grant_type": "authorization_code",
            "client_id": _CLIENT_ID,
            "redirect_uri": redirect_uri,
            "code": code,
            "code_verifier": pkce.verifier,
        }
        return await self._token(fields)

    async def _device_login(self, callbacks: LoginCallbacks) -> OAuthCredential:
        response = await _http.post_form(
            f"{self.gateway}/v1/oauth/device", {"client_id": _CLIENT_ID, "scope": _SCOPE}
        )
        if not response.ok:
            oauth_error, description = _error_fields(response)
            detail = (
                (f"{oauth_error}: {description}" if description else oauth_error)
                if oauth_error
                else (description or str(response.status))
            )
            raise OAuthError(f"Radius OAuth device authorization failed: {detail}")
        device = response.json_object() or {}
        if not all(
            device.get(name) for name in ("device_code", "user_code", "verification_uri", "expires_in")
        ):
            raise OAuthError("Radius OAuth device authorization response is missing required fields")
        interval = device.get("interval")
        callbacks.notify(
            DeviceCodeEvent(
                str(device["user_code"]), str(device["verification_uri"]), interval, device["expires_in"]
            )
        )
        grant = {
            "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
            "client_id": _CLIENT_ID,
            "device_code": str(device["device_code"]),
        }

        async def poll() -> Poll[OAuthCredential]:
            try:
                return complete(await self._token(grant))
            except _TokenError as error:
                if error.oauth_error == "authorization_pending":
                    return pending()
                if error.oauth_error == "slow_down":
                    return slow_down()
                if error.oauth_error == "expired_token":
                    return failed("Device authorization expired.")
                if error.oauth_error == "access_denied":
                    return failed("Device authorization was denied.")
                raise

        return await poll_device_code(
            poll, interval_seconds=interval, expires_in_seconds=float(device["expires_in"])
        )
