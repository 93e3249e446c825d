"""Kimi Code (subscription): RFC 8628 device code against auth.kimi.com.

Requests carry the access token as ``Authorization: Bearer`` (a header, not a key). The
authorization host follows ``KIMI_CODE_OAUTH_HOST`` / ``KIMI_OAUTH_HOST`` as in Pi (and
``PI_OAUTH_KIMI_CODING_BASE_URL`` like every flow). A refresh is retried three times (1, 2,
4 s apart) on network errors, 429 and 5xx; 401, 403 and ``invalid_grant`` mean the
credential is dead.
"""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any, TypeGuard
from urllib.parse import urlsplit

from pi_ai.oauth import _http
from pi_ai.oauth._device_code import Poll, complete, failed, pending, poll_device_code, slow_down
from pi_ai.oauth._endpoints import endpoint
from pi_ai.oauth._types import (
    DeviceCodeEvent,
    LoginCallbacks,
    OAuthCredential,
    OAuthError,
    OAuthFlow,
    RequestCredentials,
)

_PROVIDER = "kimi-coding"
_CLIENT_ID = "17e5f671-d194-4dfb-9706-5516cb48c098"
_DEFAULT_HOST = "https://auth.kimi.com"
_DEVICE_TIMEOUT_S = 15 * 60
_DEFAULT_INTERVAL_S = 5
_REFRESH_RETRIES = 3
_DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


def _host() -> str:
    host = os.environ.get("KIMI_CODE_OAUTH_HOST") or os.environ.get("KIMI_OAUTH_HOST") or _DEFAULT_HOST
    return endpoint(_PROVIDER, host.rstrip("/"))


def _http_url(value: Any) -> bool:
    if not isinstance(value, str) or not value:
        return False
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def _positive(value: Any) -> TypeGuard[float]:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and value > 0
        and value != float("inf")
    )


def _token(body: dict[str, Any] | None, operation: str) -> OAuthCredential:
    body = body or {}
    access, refresh, expires_in = body.get("access_token"), body.get("refresh_token"), body.get("expires_in")
    if (
        not isinstance(access, str)
        or not access
        or not isinstance(refresh, str)
        or not refresh
        or not _positive(expires_in)
    ):
        raise OAuthError(f"Kimi Code token {operation} response missing fields: {_http.compact(body)}")
    expires = int(time.time() * 1000 + expires_in * 1000)
    return {"type": "oauth", "access": access, "refresh": refresh, "expires": expires}


class KimiCodingOAuth(OAuthFlow):
    provider = _PROVIDER
    name = "Kimi Code (subscription)"
    is_subscription = True
    login_label = "Sign in with Kimi Code"

    async def login(self, callbacks: LoginCallbacks) -> OAuthCredential:
        host = _host()
        response = await _http.post_form(f"{host}/api/oauth/device_authorization", {"client_id": _CLIENT_ID})
        if not response.ok:
            suffix = f": {response.text}" if response.text else ""
            raise OAuthError(f"Kimi Code device authorization failed with status {response.status}{suffix}")
        device = response.json_object() or {}
        complete_uri = device.get("verification_uri_complete")
        if (
            not isinstance(device.get("device_code"), str)
            or not isinstance(device.get("user_code"), str)
            or not _http_url(device.get("verification_uri"))
            or not _http_url(complete_uri)
        ):
            raise OAuthError(
                f"Invalid Kimi Code device authorization response: {_http.compact(response.json())}"
            )
        interval = device["interval"] if _positive(device.get("interval")) else _DEFAULT_INTERVAL_S
        expires_in = device["expires_in"] if _positive(device.get("expires_in")) else _DEVICE_TIMEOUT_S
        callbacks.notify(DeviceCodeEvent(device["user_code"], str(complete_uri), interval, expires_in))
        grant = {"client_id": _CLIENT_ID, "device_code": device["device_code"], "grant_type": _DEVICE_GRANT}

        async def poll() -> Poll[OAuthCredential]:
            answer = await _http.post_form(f"{host}/api/oauth/token", grant)
            if answer.status >= 500:
                suffix = f": {answer.text}" if answer.text else ""
                return failed(f"Kimi Code device token request failed with status {answer.status}{suffix}")
            body = answer.json_object() or {}
            if answer.ok and isinstance(body.get("access_token"), str):
                try:
                    return complete(_token(body, "poll"))
                except OAuthError as invalid:
                    return failed(str(invalid))
            error = body.get("error")
            if error == "authorization_pending":
                return pending()
            if error == "slow_down":
                given = body.get("interval")
                return slow_down(given if _positive(given) else None)
            if error == "expired_token":
                return failed("Kimi Code device authorization expired. Please restart login.")
            if error == "access_denied":
                return failed("Kimi Code login was denied.")
            description = (
                f": {body['error_description']}" if isinstance(body.get("error_description"), str) else ""
            )
            detail = f": {error}{description}" if isinstance(error, str) else ""
            return failed(f"Kimi Code device token request failed (status {answer.status}){detail}")

        return await poll_device_code(
            poll, interval_seconds=interval, expires_in_seconds=expires_in, wait_before_first_poll=True
        )

    async def refresh(self, credential: OAuthCredential) -> OAuthCredential:
        fields = {
            "client_id": _CLIENT_ID,
            "grant_type": "refresh_token",
            "refresh_token": str(credential["refresh"]),
        }
        last: OAuthError | None = None
        for attempt in range(_REFRESH_RETRIES + 1):
            if attempt:
                await asyncio.sleep(2 ** (attempt - 1))
            try:
                response = await _http.post_form(f"{_host()}/api/oauth/token", fields)
            except _http.NetworkError as error:
                last = error
                continue
            body = response.json_object()
            if response.ok:
                return _token(body, "refresh")
            if response.status in (401, 403) or (body or {}).get("error") == "invalid_grant":
                description = (body or {}).get("error_description")
                suffix = f": {description}" if isinstance(description, str) else ""
                raise OAuthError(f"Kimi Code token refresh unauthorized (status {response.status}){suffix}")
            if (response.status == 429 or response.status >= 500) and attempt < _REFRESH_RETRIES:
                last = OAuthError(f"Kimi Code token refresh failed with status {response.status}")
                continue
            raise OAuthError(
                f"Kimi Code token refresh failed with status {response.status}: {_http.compact(body)}"
            )
        raise last or OAuthError("Kimi Code token refresh failed")

    def to_auth(self, credential: OAuthCredential) -> RequestCredentials:
        return RequestCredentials(headers={"Authorization": f"Bearer {credential['access']}"})
