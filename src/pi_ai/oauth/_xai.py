"""xAI (SuperGrok / X Premium): RFC 8628 device code against auth.x.ai.

The verification URI must be ``https`` (it is shown for opening in a browser). A refresh
that returns no new refresh token keeps the old one; a token without ``expires_in`` lasts an
hour. Stored expiries are five minutes early.
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlsplit

from pi_ai.oauth import _http
from pi_ai.oauth._device_code import Poll, complete, failed, pending, poll_device_code, slow_down
from pi_ai.oauth._endpoints import endpoint
from pi_ai.oauth._types import DeviceCodeEvent, LoginCallbacks, OAuthCredential, OAuthError, OAuthFlow

_PROVIDER = "xai"
_CLIENT_ID = "b1a00492-073a-47ea-816f-4c329264a828"
_SCOPE = "openid profile email offline_access grok-cli:access api:access"
_DEVICE_CODE_URL = "https://auth.x.ai/oauth2/device/code"
_TOKEN_URL = "https://auth.x.ai/oauth2/token"
_EXPIRY_MARGIN_MS = 5 * 60 * 1000
_DEFAULT_LIFETIME_S = 3600
_DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


def _string(body: dict[str, Any], name: str) -> str:
    value = body.get(name)
    if not isinstance(value, str) or not value:
        raise OAuthError(f"Invalid xAI OAuth response field: {name}")
    return value


def _positive(body: dict[str, Any], name: str) -> float:
    value = body.get(name)
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 < value < float("inf"):
        raise OAuthError(f"Invalid xAI OAuth response field: {name}")
    return float(value)


def _https(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme != "https" or not parts.netloc:
        raise OAuthError("Untrusted verification URI in xAI OAuth response")
    return url


async def _post(url: str, fields: dict[str, str]) -> tuple[_http.Response, dict[str, Any]]:
    response = await _http.post_form(endpoint(_PROVIDER, url), fields)
    body = response.json()
    if body is None:
        raise OAuthError(f"xAI OAuth returned invalid JSON (HTTP {response.status})")
    return response, body if isinstance(body, dict) else {}


def _failure(action: str, response: _http.Response, body: dict[str, Any]) -> str:
    parts = [
        body[name]
        for name in ("error", "error_description")
        if isinstance(body.get(name), str) and body[name]
    ]
    detail = ": ".join(parts)
    return f"xAI OAuth {action} failed (HTTP {response.status}){f': {detail}' if detail else ''}"


def _credential(body: dict[str, Any], previous_refresh: str | None = None) -> OAuthCredential:
    access = _string(body, "access_token")
    refresh = (
        previous_refresh
        if body.get("refresh_token") is None and previous_refresh
        else _string(body, "refresh_token")
    )
    lifetime = _DEFAULT_LIFETIME_S if body.get("expires_in") is None else _positive(body, "expires_in")
    return {
        "type": "oauth",
        "access": access,
        "refresh": refresh,
        "expires": int(time.time() * 1000 + lifetime * 1000 - _EXPIRY_MARGIN_MS),
    }


class XaiOAuth(OAuthFlow):
    provider = _PROVIDER
    name = "xAI (Grok/X subscription)"
    is_subscription = True
    login_label = "Sign in with SuperGrok or X Premium"

    async def login(self, callbacks: LoginCallbacks) -> OAuthCredential:
        response, device = await _post(
            _DEVICE_CODE_URL, {"client_id": _CLIENT_ID, "scope": _SCOPE, "referrer": "pi"}
        )
        if not response.ok:
            raise OAuthError(_failure("device authorization", response, device))
        interval = device.get("interval")
        interval_s = (
            float(interval) if isinstance(interval, (int, float)) and 0 < interval < float("inf") else None
        )
        complete_uri = device.get("verification_uri_complete")
        shown = _https(complete_uri) if isinstance(complete_uri, str) and complete_uri else None
        device_code, user_code = _string(device, "device_code"), _string(device, "user_code")
        uri = _https(_string(device, "verification_uri"))
        expires_in = _positive(device, "expires_in")
        callbacks.notify(DeviceCodeEvent(user_code, shown or uri, interval_s, expires_in))
        grant = {"grant_type": _DEVICE_GRANT, "client_id": _CLIENT_ID, "device_code": device_code}

        async def poll() -> Poll[OAuthCredential]:
            answer, body = await _post(_TOKEN_URL, grant)
            if answer.ok:
                return complete(_credential(body))
            error = body.get("error")
            if error == "authorization_pending":
                return pending()
            if error == "slow_down":
                given = body.get("interval")
                return slow_down(given if isinstance(given, (int, float)) else None)
            if error in ("access_denied", "authorization_denied"):
                return failed("xAI device authorization was denied")
            if error == "expired_token":
                return failed("xAI device code expired")
            return failed(_failure("device token polling", answer, body))

        return await poll_device_code(
            poll, interval_seconds=interval_s, expires_in_seconds=expires_in, wait_before_first_poll=True
        )

    async def refresh(self, credential: OAuthCredential) -> OAuthCredential:
        refresh = str(credential["refresh"])
        response, body = await _post(
            _TOKEN_URL, {"grant_type": "refresh_token", "client_id": _CLIENT_ID, "refresh_token": refresh}
        )
        if not response.ok:
            raise OAuthError(_failure("token refresh", response, body))
        return _credential(body, refresh)
