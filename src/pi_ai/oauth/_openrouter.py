"""OpenRouter: PKCE sign-in whose code is exchanged for a permanent API key.

The callback server takes a free port and a random path; the browser's callback carries the
code, and the exchange happens while that request waits, so its page can say whether it
worked. The credential never expires (``expires`` is JavaScript's largest safe integer) and
refreshing returns it unchanged.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any
from urllib.parse import urlsplit

from pi_ai.oauth import _http
from pi_ai.oauth._callback import (
    CallbackServer,
    error_page,
    first_values,
    success_page,
    wait_for_callback_or_input,
)
from pi_ai.oauth._endpoints import CALLBACK_HOST, endpoint, form_encode
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

_PROVIDER = "openrouter"
_AUTHORIZE_URL = "https://openrouter.ai/auth"
_TOKEN_URL = "https://openrouter.ai/api/v1/auth/keys"
_LOGIN_TIMEOUT_S = 5 * 60
MAX_SAFE_INTEGER = 2**53 - 1


def _detail(body: dict[str, Any]) -> str | None:
    for name in ("error_description", "message", "error"):
        if isinstance(body.get(name), str):
            return str(body[name])
    error = body.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    return None


async def _exchange(code: str, verifier: str) -> OAuthCredential:
    payload = {"code": code, "code_verifier": verifier, "code_challenge_method": "S256"}
    try:
        response = await _http.post_json(endpoint(_PROVIDER, _TOKEN_URL), payload)
    except _http.NetworkError as error:
        if "timed out" in str(error):
            raise OAuthError("OpenRouter OAuth token exchange timed out") from None
        raise
    body = response.json_object()
    if body is None and response.ok:
        raise OAuthError("OpenRouter OAuth returned invalid JSON")
    body = body or {}
    if not response.ok:
        detail = _detail(body)
        raise OAuthError(
            f"OpenRouter OAuth key exchange failed (HTTP {response.status}){f': {detail}' if detail else ''}"
        )
    if not isinstance(body.get("key"), str) or not body["key"]:
        raise OAuthError('OpenRouter OAuth response carries no "key"')
    return {"type": "oauth", "access": body["key"], "refresh": "", "expires": MAX_SAFE_INTEGER}


def _pasted_code(text: str) -> str | None:
    value = text.strip()
    if not value:
        return None
    parts = urlsplit(value)
    if parts.scheme and (parts.netloc or parts.path):
        return first_values(parts.query).get("code")
    if "code=" in value:
        return first_values(value).get("code")
    return value


class OpenRouterOAuth(OAuthFlow):
    provider = _PROVIDER
    name = "OpenRouter OAuth"
    login_label = "Sign in with OpenRouter"

    async def login(self, callbacks: LoginCallbacks) -> OAuthCredential:
        pkce = generate_pkce()
        path = f"/oauth/callback/{uuid.uuid4()}"
        outcome: asyncio.Future[OAuthCredential | None] = asyncio.get_running_loop().create_future()
        claimed = False

        async def handle(method: str, request_path: str, params: dict[str, str]) -> tuple[int, str]:
            nonlocal claimed
            if method != "GET" or request_path != path:
                return 404, error_page("OAuth callback route not found.")
            if claimed or outcome.done():
                return 409, error_page("This OAuth callback has already been used.")
            if params.get("error"):
                description = params.get("error_description") or params["error"]
                outcome.set_exception(OAuthError(f"OpenRouter authorization failed: {description}"))
                return 400, error_page("OpenRouter authorization was denied.", description)
            if not params.get("code"):
                return 400, error_page("OpenRouter returned no authorization code.")
            claimed = True
            try:
                credential = await _exchange(params["code"], pkce.verifier)
            except OAuthError as error:
                if not outcome.done():
                    outcome.set_exception(error)
                return 502, error_page("OpenRouter key exchange failed.", str(error))
            if not outcome.done():
                outcome.set_result(credential)
            return 200, success_page("Signed in to OpenRouter. You may now close this page.")

        server = CallbackServer(handle)
        await server.start(0)
        callback_url = f"http://{CALLBACK_HOST}:{server.port}{path}"
        try:
            query = form_encode(
                [
                    ("callback_url", callback_url),
                    ("code_challenge", pkce.challenge),
                    ("code_challenge_method", "S256"),
                ]
            )
            callbacks.notify(ProgressEvent(f"Listening for OpenRouter OAuth callback on {callback_url}"))
            callbacks.notify(
                AuthUrlEvent(
                    f"{endpoint(_PROVIDER, _AUTHORIZE_URL)}?{query}",
                    "Complete sign-in in your browser. If the browser is on another machine, paste the final "
                    "redirect URL here.",
                )
            )
            prompt = AuthPrompt(
                "manual_code",
                "Complete sign-in in your browser, or paste the authorization code / redirect URL here:",
                placeholder=callback_url,
            )
            try:
                credential, pasted = await asyncio.wait_for(
                    wait_for_callback_or_input(outcome, callbacks, prompt), _LOGIN_TIMEOUT_S
                )
            except TimeoutError:
                raise OAuthError("OpenRouter OAuth login timed out") from None
            if credential is not None:
                return credential
            if claimed:  # the browser's callback is already exchanging its code: let it finish
                settled = await outcome
                if settled is not None:
                    return settled
            code = _pasted_code(pasted or "")
            if not code:
                raise OAuthError("Missing authorization code")
            callbacks.notify(ProgressEvent("Exchanging authorization code for an API key..."))
            return await _exchange(code, pkce.verifier)
        finally:
            await server.close()

    async def refresh(self, credential: OAuthCredential) -> OAuthCredential:
        return credential
