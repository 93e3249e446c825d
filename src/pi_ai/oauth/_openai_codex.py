"""OpenAI Codex (ChatGPT Plus/Pro): browser sign-in (PKCE, callback on localhost:1455) or a
device code for headless machines.

The credential keeps the ChatGPT account id read from the access token's claims
(``accountId``); the Codex wire API sends it as ``chatgpt-account-id``. A taken callback
port is not an error: the pasted redirect URL is then the only way back, as in Pi.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import Any

from pi_ai.oauth import _http
from pi_ai.oauth._callback import (
    CallbackServer,
    error_page,
    parse_authorization_input,
    success_page,
    wait_for_callback_or_input,
)
from pi_ai.oauth._device_code import Poll, complete, failed, pending, poll_device_code, slow_down
from pi_ai.oauth._endpoints import callback_port, endpoint, form_encode
from pi_ai.oauth._pkce import decode_jwt_payload, generate_pkce
from pi_ai.oauth._types import (
    AuthPrompt,
    AuthUrlEvent,
    DeviceCodeEvent,
    LoginCallbacks,
    OAuthCredential,
    OAuthError,
    OAuthFlow,
    PromptOption,
)

_PROVIDER = "openai-codex"
_CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann"
_AUTH = "https://auth.openai.com"
_PORT = 1455
_PATH = "/auth/callback"
_DEVICE_TIMEOUT_S = 15 * 60
_SCOPE = "openid profile email offline_access"
_CLAIMS = "https://api.openai.com/auth"
_BROWSER, _DEVICE = "browser", "device_code"


def _url(path: str) -> str:
    return endpoint(_PROVIDER, _AUTH + path)


def account_id(access_token: str) -> str | None:
    """The ChatGPT account id in the token's claims."""
    claims = decode_jwt_payload(access_token) or {}
    auth = claims.get(_CLAIMS)
    value = auth.get("chatgpt_account_id") if isinstance(auth, dict) else None
    return value if isinstance(value, str) and value else None


async def _token(fields: dict[str, str], operation: str) -> OAuthCredential:
    try:
        response = await _http.post_form(_url("/oauth/token"), fields, headers={"Accept": "*/*"})
    except _http.NetworkError as error:
        if operation == "refresh":
            raise OAuthError(f"OpenAI Codex token refresh error: {error}") from None
        raise
    if not response.ok:
        raise OAuthError(
            f"OpenAI Codex token {operation} failed ({response.status}): {response.text or response.reason}"
        )
    body = response.json_object() or {}
    access, refresh, expires_in = body.get("access_token"), body.get("refresh_token"), body.get("expires_in")
    if not access or not refresh or not isinstance(expires_in, (int, float)):
        raise OAuthError(
            f"OpenAI Codex token {operation} response missing fields: {_http.compact(response.json())}"
        )
    account = account_id(str(access))
    if account is None:
        raise OAuthError("Failed to extract accountId from token")
    expires = int(time.time() * 1000 + expires_in * 1000)
    return {"type": "oauth", "access": access, "refresh": refresh, "expires": expires, "accountId": account}


async def _exchange(code: str, verifier: str, redirect_uri: str) -> OAuthCredential:
    fields = {
        "grant_type": "authorization_code",
        "client_id": _CLIENT_ID,
        "code": code,
        "code_verifier": verifier,
        "redirect_uri": redirect_uri,
    }
    return await _token(fields, "exchange")


class OpenAICodexOAuth(OAuthFlow):
    provider = _PROVIDER
    name = "OpenAI (ChatGPT Plus/Pro)"
    is_subscription = True

    async def login(self, callbacks: LoginCallbacks) -> OAuthCredential:
        method = await callbacks.prompt(
            AuthPrompt(
                "select",
                "Select OpenAI Codex login method:",
                options=(
                    PromptOption(_BROWSER, "Browser login (default)"),
                    PromptOption(_DEVICE, "Device code login (headless)"),
                ),
            )
        )
        if method == _DEVICE:
            return await self._device_login(callbacks)
        if method != _BROWSER:
            raise OAuthError(f"Unknown OpenAI Codex login method: {method}")
        return await self._browser_login(callbacks)

    async def refresh(self, credential: OAuthCredential) -> OAuthCredential:
        fields = {
            "grant_type": "refresh_token",
            "refresh_token": str(credential["refresh"]),
            "client_id": _CLIENT_ID,
        }
        return await _token(fields, "refresh")

    async def _browser_login(self, callbacks: LoginCallbacks) -> OAuthCredential:
        pkce = generate_pkce()
        state = secrets.token_hex(16)
        arrived: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()

        async def handle(_method: str, path: str, params: dict[str, str]) -> tuple[int, str]:
            if path != _PATH:
                return 404, error_page("Callback route not found.")
            if params.get("state") != state:
                return 400, error_page("State mismatch.")
            if not params.get("code"):
                return 400, error_page("Missing authorization code.")
            if not arrived.done():
                arrived.set_result(params["code"])
            return 200, success_page("OpenAI authentication completed. You can close this window.")

        server = CallbackServer(handle)
        port = await server.start_or_settle(callback_port(_PORT), arrived)
        redirect_uri = f"http://localhost:{port}{_PATH}"
        query = form_encode(
            [
                ("response_type", "code"),
                ("client_id", _CLIENT_ID),
                ("redirect_uri", redirect_uri),
                ("scope", _SCOPE),
                ("code_challenge", pkce.challenge),
                ("code_challenge_method", "S256"),
                ("state", state),
                ("id_token_add_organizations", "true"),
                ("codex_cli_simplified_flow", "true"),
                ("originator", "pi"),
            ]
        )
        callbacks.notify(
            AuthUrlEvent(
                f"{_url('/oauth/authorize')}?{query}",
                "A browser window should open. Complete login to finish.",
            )
        )
        prompt = AuthPrompt(
            "manual_code",
            "Complete login in your browser, or paste the authorization code / redirect URL here:",
            placeholder=redirect_uri,
        )
        try:
            code, pasted = await wait_for_callback_or_input(arrived, callbacks, prompt)
        finally:
            await server.close()
        if code is None:
            parsed_code, parsed_state = parse_authorization_input(pasted or "")
            if parsed_state and parsed_state != state:
                raise OAuthError("State mismatch")
            code = parsed_code
        if not code:
            raise OAuthError("Missing authorization code")
        return await _exchange(code, pkce.verifier, redirect_uri)

    async def _device_login(self, callbacks: LoginCallbacks) -> OAuthCredential:
        response = await _http.send(
            "POST",
            _url("/api/accounts/deviceauth/usercode"),
            headers={"Content-Type": "application/json"},
            body=_http.compact({"client_id": _CLIENT_ID}),
        )
        if response.status == 404:
            raise OAuthError(
                "OpenAI Codex device code login is not enabled for this server. Use browser login or verify the server URL."
            )
        if not response.ok:
            suffix = f": {response.text}" if response.text else ""
            raise OAuthError(f"OpenAI Codex device code request failed with status {response.status}{suffix}")
        body = response.json_object() or {}
        interval: Any = body.get("interval")
        if isinstance(interval, str):
            try:
                interval = float(interval.strip())
            except ValueError:
                interval = None
        if not body.get("device_auth_id") or not body.get("user_code") or not _non_negative(interval):
            raise OAuthError(f"Invalid OpenAI Codex device code response: {_http.compact(response.json())}")
        device_id, user_code = str(body["device_auth_id"]), str(body["user_code"])
        callbacks.notify(
            DeviceCodeEvent(user_code, _url("/codex/device"), float(interval), _DEVICE_TIMEOUT_S)
        )

        async def poll() -> Poll[tuple[str, str]]:
            answer = await _http.send(
                "POST",
                _url("/api/accounts/deviceauth/token"),
                headers={"Content-Type": "application/json"},
                body=_http.compact({"device_auth_id": device_id, "user_code": user_code}),
            )
            if answer.ok:
                granted = answer.json_object() or {}
                if not granted.get("authorization_code") or not granted.get("code_verifier"):
                    return failed(
                        f"Invalid OpenAI Codex device auth token response: {_http.compact(answer.json())}"
                    )
                return complete((str(granted["authorization_code"]), str(granted["code_verifier"])))
            if answer.status in (403, 404):
                return pending()
            error = (answer.json_object() or {}).get("error")
            code = error.get("code") if isinstance(error, dict) else error
            if code == "deviceauth_authorization_pending":
                return pending()
            if code == "slow_down":
                return slow_down()
            suffix = f": {answer.text}" if answer.text else ""
            return failed(f"OpenAI Codex device auth failed with status {answer.status}{suffix}")

        code, verifier = await poll_device_code(
            poll, interval_seconds=float(interval), expires_in_seconds=_DEVICE_TIMEOUT_S
        )
        return await _exchange(code, verifier, _url("/deviceauth/callback"))


def _non_negative(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < float("inf")
