"""Anthropic (Claude Pro/Max): authorization code with PKCE, callback on localhost:53692.

The PKCE verifier doubles as the ``state``. Tokens are exchanged as JSON; the stored expiry
is five minutes before the real one. Requests send the access token (``sk-ant-oat...``) as
the key; the Anthropic adapter turns such a key into a bearer token with Claude Code's
identity (headers, system prompt block, tool names).
"""

from __future__ import annotations

import asyncio
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
from pi_ai.oauth._endpoints import callback_port, endpoint, form_encode
from pi_ai.oauth._pkce import generate_pkce
from pi_ai.oauth._types import (
    AuthPrompt,
    AuthUrlEvent,
    LoginCallbacks,
    OAuthCredential,
    OAuthError,
    OAuthFlow,
    ProgressEvent,
)

_PROVIDER = "anthropic"
_CLIENT_ID = "9d1c250a-e61b-44d9-88ed-5944d1962f5e"
_AUTHORIZE_URL = "https://claude.ai/oauth/authorize"
_TOKEN_URL = "https://platform.claude.com/v1/oauth/token"
_PORT = 53692
_PATH = "/callback"
_SCOPES = "org:create_api_key user:profile user:inference user:sessions:claude_code user:mcp_servers user:file_upload"
_EXPIRY_MARGIN_MS = 5 * 60 * 1000


def _credential(body: Any) -> OAuthCredential:
    if not isinstance(body, dict) or not isinstance(body.get("expires_in"), (int, float)):
        raise OAuthError(f"Anthropic token response missing fields: {_http.compact(body)}")
    return {
        "type": "oauth",
        "refresh": body.get("refresh_token"),
        "access": body.get("access_token"),
        "expires": int(time.time() * 1000 + body["expires_in"] * 1000 - _EXPIRY_MARGIN_MS),
    }


async def _post_token(payload: dict[str, str], what: str) -> OAuthCredential:
    """POST to the token endpoint; ``what`` names the step in errors, as Pi's do."""
    url = endpoint(_PROVIDER, _TOKEN_URL)
    failure = f"{what} request failed"
    try:
        response = await _http.post_json(url, payload)
    except _http.NetworkError as error:
        raise OAuthError(f"{failure}. url={url}; details={error}") from None
    if not response.ok:
        raise OAuthError(
            f"{failure}. url={url}; details=HTTP request failed. status={response.status}; url={url}; "
            f"body={response.text}"
        )
    body = response.json()
    if body is None:
        raise OAuthError(f"{what} returned invalid JSON. url={url}; body={response.text}")
    return _credential(body)


class AnthropicOAuth(OAuthFlow):
    provider = _PROVIDER
    name = "Anthropic (Claude Pro/Max)"
    is_subscription = True

    async def login(self, callbacks: LoginCallbacks) -> OAuthCredential:
        pkce = generate_pkce()
        arrived: asyncio.Future[tuple[str, str] | None] = asyncio.get_running_loop().create_future()

        async def handle(_method: str, path: str, params: dict[str, str]) -> tuple[int, str]:
            if path != _PATH:
                return 404, error_page("Callback route not found.")
            if params.get("error"):
                return 400, error_page(
                    "Anthropic authentication did not complete.", f"Error: {params['error']}"
                )
            code, state = params.get("code"), params.get("state")
            if not code or not state:
                return 400, error_page("Missing code or state parameter.")
            if state != pkce.verifier:
                return 400, error_page("State mismatch.")
            if not arrived.done():
                arrived.set_result((code, state))
            return 200, success_page("Anthropic authentication completed. You can close this window.")

        server = CallbackServer(handle)
        await server.start(callback_port(_PORT))
        try:
            redirect_uri = f"http://localhost:{server.port}{_PATH}"
            query = form_encode(
                [
                    ("code", "true"),
                    ("client_id", _CLIENT_ID),
                    ("response_type", "code"),
                    ("redirect_uri", redirect_uri),
                    ("scope", _SCOPES),
                    ("code_challenge", pkce.challenge),
                    ("code_challenge_method", "S256"),
                    ("state", pkce.verifier),
                ]
            )
            callbacks.notify(
                AuthUrlEvent(
                    f"{endpoint(_PROVIDER, _AUTHORIZE_URL)}?{query}",
                    "Complete login in your browser. If the browser is on another machine, paste the final "
                    "redirect URL here.",
                )
            )
            prompt = AuthPrompt(
                "manual_code",
                "Complete login in your browser, or paste the authorization code / redirect URL here:",
                placeholder=redirect_uri,
            )
            result, pasted = await wait_for_callback_or_input(arrived, callbacks, prompt)
        finally:
            await server.close()
        if result is not None:
            code, state = result
        else:
            parsed_code, parsed_state = parse_authorization_input(pasted or "")
            if parsed_state and parsed_state != pkce.verifier:
                raise OAuthError("OAuth state mismatch")
            code, state = parsed_code or "", parsed_state or pkce.verifier
        if not code:
            raise OAuthError("Missing authorization code")
        callbacks.notify(ProgressEvent("Exchanging authorization code for tokens..."))
        payload = {
            "grant_type": "authorization_code",
            "client_id": _CLIENT_ID,
            "code": code,
            "state": state,
            "redirect_uri": redirect_uri,
            "code_verifier": pkce.verifier,
        }
        return await _post_token(payload, "Token exchange")

    async def refresh(self, credential: OAuthCredential) -> OAuthCredential:
        payload = {
            "grant_type": "refresh_token",
            "client_id": _CLIENT_ID,
            "refresh_token": credential["refresh"],
        }
        return await _post_token(payload, "Anthropic token refresh")
