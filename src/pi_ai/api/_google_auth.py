"""Application Default Credentials for Vertex AI: an OAuth access token, found where Google's
libraries look: the file ``GOOGLE_APPLICATION_CREDENTIALS`` names, else gcloud's
``application_default_credentials.json`` (``$CLOUDSDK_CONFIG`` or ``~/.config/gcloud``).

A user credential (``authorized_user``, what ``gcloud auth application-default login``
writes) is refreshed here with one form POST, as Pi's google-auth-library does. Every other
kind (service-account keys, workload identity federation, impersonation) and the metadata
server of Google Cloud machines go through google-auth when it is installed
(``pip install 'pi-for-python[google]'``), imported only then
(docs/decisions/0006-google-credentials.md). Tokens are kept until five minutes before
they expire.
"""

from __future__ import annotations

import asyncio
import calendar
import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

__all__ = ["AccessToken", "AdcError", "access_token"]

TOKEN_URL = "https://oauth2.googleapis.com/token"
SCOPE = "https://www.googleapis.com/auth/cloud-platform"
_EARLY_REFRESH_S = 300
NO_CREDENTIALS = (
    "Could not load the default credentials. Browse to "
    "https://cloud.google.com/docs/authentication/getting-started for more information."
)


class AdcError(Exception):
    """No usable Google credentials; ``str()`` is the message shown."""


@dataclass(frozen=True, slots=True)
class AccessToken:
    token: str
    quota_project: str | None
    expires_at: float


_cache: dict[str, AccessToken] = {}


def _env(name: str, env: Mapping[str, str] | None) -> str | None:
    return (env.get(name) if env else None) or os.environ.get(name) or None


def credentials_file(env: Mapping[str, str] | None) -> Path | None:
    named = _env("GOOGLE_APPLICATION_CREDENTIALS", env)
    if named:
        return Path(named).expanduser()
    config = _env("CLOUDSDK_CONFIG", None)
    well_known = Path(config) if config else Path.home() / ".config" / "gcloud"
    candidate = well_known / "application_default_credentials.json"
    return candidate if candidate.is_file() else None


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise AdcError(f"ENOENT: no such file or directory, open '{path}'") from None
    except (OSError, ValueError) as error:
        raise AdcError(f"Could not read Google credentials {path}: {error}".splitlines()[0]) from None
    if not isinstance(data, dict):
        raise AdcError(f"Google credentials {path} are not a JSON object")
    return data


async def _refresh_user(data: dict[str, Any]) -> AccessToken:
    import httpx

    from pi_ai.api._http import _target_url

    form = urlencode(
        {
            "refresh_token": data.get("refresh_token", ""),
            "client_id": data.get("client_id", ""),
            "client_secret": data.get("client_secret", ""),
            "grant_type": "refresh_token",
        }
    )
    headers = {"content-type": "application/x-www-form-urlencoded;charset=UTF-8"}
    try:
        async with httpx.AsyncClient(timeout=30.0, trust_env=False) as client:
            response = await client.post(_target_url(TOKEN_URL), content=form, headers=headers)
    except httpx.HTTPError as error:
        raise AdcError(f"request to {TOKEN_URL} failed, reason: {error}") from None
    try:
        body: Any = response.json()
    except ValueError:
        body = {}
    if response.status_code >= 400 or not isinstance(body, dict) or "access_token" not in body:
        detail = body.get("error") if isinstance(body, dict) else None
        # google-auth-library reports the OAuth error code alone (``invalid_grant``).
        raise AdcError(
            detail if isinstance(detail, str) else f"Request failed with status code {response.status_code}"
        )
    expires = body.get("expires_in")
    lifetime = float(expires) if isinstance(expires, int | float) else 3600.0
    quota = data.get("quota_project_id")
    return AccessToken(
        str(body["access_token"]), quota if isinstance(quota, str) else None, time.time() + lifetime
    )


@dataclass(frozen=True, slots=True)
class _Response:
    status: int
    headers: dict[str, str]
    data: bytes


class UrllibRequest:
    """The transport google-auth calls (``request(url, method, body, headers, timeout)``),
    on the standard library, so the extra needs neither requests nor urllib3. It follows
    ``redirect_requests`` like every other request (the differential tests' seam)."""

    def __call__(
        self,
        url: str,
        method: str = "GET",
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        **_: Any,
    ) -> _Response:
        import urllib.error
        import urllib.request

        from pi_ai.api._http import _target_url

        request = urllib.request.Request(
            _target_url(url), data=body, headers=dict(headers or {}), method=method
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout or 120) as response:
                return _Response(response.status, dict(response.headers.items()), response.read())
        except urllib.error.HTTPError as error:
            return _Response(error.code, dict(error.headers.items()), error.read())
        except OSError as error:
            import google.auth.exceptions

            exceptions: Any = google.auth.exceptions  # partly untyped
            raise exceptions.TransportError(str(error)) from None


def _error_text(error: Exception) -> str:
    """google-auth's message: a refusal carries ``("invalid_grant: <description>", <body>)``,
    whose first part is what Pi's library says."""
    first = error.args[0] if error.args else None
    text = first if isinstance(first, str) else str(error)
    return text.splitlines()[0] if text.strip() else NO_CREDENTIALS


def _google_auth(path: Path | None, data: dict[str, Any] | None) -> AccessToken:
    try:
        import google.auth
        import google.auth.exceptions
    except ImportError:
        if path is None:
            raise AdcError(NO_CREDENTIALS) from None
        raise AdcError(
            f"Google credentials {path} need google-auth: pip install 'pi-for-python[google]'"
        ) from None
    auth: Any = google.auth  # partly untyped
    try:
        if data is not None and data.get("type") == "service_account":
            # The key's own loader (google-auth deprecates the generic one for keys).
            from google.oauth2 import service_account

            loader: Any = service_account.Credentials
            credentials = loader.from_service_account_info(data, scopes=[SCOPE])
        elif path is not None:
            credentials, _ = auth.load_credentials_from_file(str(path), scopes=[SCOPE])
        else:
            credentials, _ = auth.default(scopes=[SCOPE])
        credentials.refresh(UrllibRequest())
    except (google.auth.exceptions.GoogleAuthError, ValueError) as error:  # ValueError: a malformed key
        raise AdcError(_error_text(error)) from None
    # google-auth's expiry is a naive datetime in UTC.
    expiry = (
        calendar.timegm(credentials.expiry.utctimetuple())
        if getattr(credentials, "expiry", None)
        else time.time() + 3600
    )
    quota = getattr(credentials, "quota_project_id", None)
    return AccessToken(str(credentials.token), quota if isinstance(quota, str) else None, expiry)


async def access_token(env: Mapping[str, str] | None) -> AccessToken:
    """A valid access token for the Application Default Credentials."""
    path = credentials_file(env)
    key = str(path) if path is not None else "<metadata>"
    cached = _cache.get(key)
    if cached is not None and cached.expires_at - _EARLY_REFRESH_S > time.time():
        return cached
    data = _read(path) if path is not None else None
    if data is not None and data.get("type") == "authorized_user":
        token = await _refresh_user(data)
    else:
        token = await asyncio.to_thread(_google_auth, path, data)
    _cache[key] = token
    return token
