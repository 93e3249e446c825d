"""GitHub Copilot: GitHub's device flow, then a Copilot token made from the GitHub token.

The stored ``refresh`` is the GitHub OAuth token; ``access`` is the short-lived Copilot token
(``tid=...;exp=...;proxy-ep=proxy.individual.githubcopilot.com;...``), renewed from it. The
Copilot API host comes from the token's ``proxy-ep`` (``proxy.`` becomes ``api.``), else
from the GitHub Enterprise domain, else the individual endpoint. After sign-in (and each
renewal) the account's model list is read: ``availableModelIds`` limits which catalog models
are offered, and models whose policy is still "unconfigured" are switched on at sign-in.
"""

from __future__ import annotations

import asyncio
import email.utils
import re
import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from pi_ai.oauth import _http
from pi_ai.oauth._device_code import Poll, complete, failed, pending, poll_device_code, slow_down
from pi_ai.oauth._endpoints import endpoint
from pi_ai.oauth._types import (
    AuthPrompt,
    DeviceCodeEvent,
    LoginCallbacks,
    OAuthCredential,
    OAuthError,
    OAuthFlow,
    ProgressEvent,
    RequestCredentials,
)

_PROVIDER = "github-copilot"
_CLIENT_ID = "Iv1.b507a08c87ecfe98"
_USER_AGENT = "GitHubCopilotChat/0.35.0"
COPILOT_HEADERS = {
    "User-Agent": _USER_AGENT,
    "Editor-Version": "vscode/1.107.0",
    "Editor-Plugin-Version": "copilot-chat/0.35.0",
    "Copilot-Integration-Id": "vscode-chat",
}
_API_VERSION = "2026-06-01"
_INDIVIDUAL = "https://api.individual.githubcopilot.com"
_EXPIRY_MARGIN_MS = 5 * 60 * 1000
_REQUEST_TIMEOUT_S = 5.0


def normalize_domain(text: str) -> str | None:
    """The host name in ``company.ghe.com`` or ``https://company.ghe.com/...``."""
    trimmed = text.strip()
    if not trimmed:
        return None
    host = urlsplit(trimmed if "://" in trimmed else f"https://{trimmed}").hostname
    return host or None


def copilot_base_url(token: str | None, enterprise_domain: str | None) -> str:
    match = re.search(r"proxy-ep=([^;]+)", token or "")
    if match:
        url = "https://" + re.sub(r"^proxy\.", "api.", match.group(1))
    elif enterprise_domain:
        url = f"https://copilot-api.{enterprise_domain}"
    else:
        url = _INDIVIDUAL
    return endpoint(_PROVIDER, url)


def _enterprise(credential: OAuthCredential) -> str | None:
    value = credential.get("enterpriseUrl")
    return normalize_domain(value) if isinstance(value, str) and value else None


async def _json(method: str, url: str, **request: Any) -> Any:
    response = await _http.send(method, url, **request)
    if not response.ok:
        raise OAuthError(f"{response.status} {response.reason}: {response.text}")
    return response.json()


async def _copilot_token(github_token: str, enterprise_domain: str | None) -> OAuthCredential:
    domain = enterprise_domain or "github.com"
    headers = {"Accept": "application/json", "Authorization": f"Bearer {github_token}", **COPILOT_HEADERS}
    url = endpoint(_PROVIDER, f"https://api.{domain}/copilot_internal/v2/token")
    body = await _json("GET", url, headers=headers)
    if not isinstance(body, dict):
        raise OAuthError("Invalid Copilot token response")
    token, expires_at = body.get("token"), body.get("expires_at")
    if not isinstance(token, str) or not isinstance(expires_at, (int, float)):
        raise OAuthError("Invalid Copilot token response fields")
    credential: OAuthCredential = {
        "type": "oauth",
        "refresh": github_token,
        "access": token,
        "expires": int(expires_at * 1000 - _EXPIRY_MARGIN_MS),
    }
    if enterprise_domain:
        credential["enterpriseUrl"] = enterprise_domain
    return credential


async def _send_with_rate_limit_retry(
    method: str, url: str, *, retries: int, budget_s: float, **request: Any
) -> _http.Response:
    """Retry 429 answers after ``retry-after`` (or 0.5 s doubling), within ``budget_s``."""
    deadline = time.monotonic() + budget_s
    attempt = 0
    while True:
        response = await _http.send(method, url, timeout=_REQUEST_TIMEOUT_S, **request)
        if response.status != 429 or attempt >= retries:
            return response
        delay = _retry_after_s(response.headers.get("retry-after"), attempt)
        if delay is None or (budget_s > 0 and delay >= deadline - time.monotonic()):
            return response
        await asyncio.sleep(max(0.0, delay))
        attempt += 1


def _retry_after_s(header: str | None, attempt: int) -> float | None:
    if not header:
        return float(0.5 * 2**attempt)
    try:
        return float(header)
    except ValueError:
        pass
    try:
        return float(email.utils.parsedate_to_datetime(header).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def _models(body: Any, allow_policy_fallback: bool, known_ids: set[str]) -> tuple[list[str], list[str]]:
    """``(available model ids, ids whose policy sign-in should enable)`` from ``/models``."""
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list):
        raise OAuthError("Invalid Copilot models response")
    account = []
    for item in data:
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            continue
        supports = (
            (item.get("capabilities") or {}).get("supports")
            if isinstance(item.get("capabilities"), dict)
            else None
        )
        if isinstance(supports, dict) and supports.get("tool_calls") is False:
            continue
        policy = item.get("policy")
        state = policy.get("state") if isinstance(policy, dict) else None
        account.append((item["id"], item.get("model_picker_enabled") is True, state))
    picker = [mid for mid, enabled, state in account if enabled and state != "disabled"]
    fallback = allow_policy_fallback and not picker
    available = (
        picker
        if picker or not allow_policy_fallback
        else [mid for mid, _, state in account if state == "enabled"]
    )
    to_enable = [
        mid
        for mid, enabled, state in account
        if state == "unconfigured" and mid in known_ids and (enabled or fallback)
    ]
    return available, to_enable


async def _account_models(
    token: str, enterprise_domain: str | None, *, retries: int, budget_s: float
) -> tuple[list[str], list[str]]:
    from pi_ai.models import get_models

    base = copilot_base_url(token, enterprise_domain)
    headers = {
        "Accept": "application/json",
        "Authorization": f"Bearer {token}",
        **COPILOT_HEADERS,
        "X-GitHub-Api-Version": _API_VERSION,
    }
    response = await _send_with_rate_limit_retry(
        "GET", f"{base}/models", retries=retries, budget_s=budget_s, headers=headers
    )
    if not response.ok:
        raise OAuthError(f"{response.status} {response.reason}: {response.text}")
    # Some individual accounts mark no model as picker-enabled; their policies are used then.
    individual = base == endpoint(_PROVIDER, _INDIVIDUAL)
    known = {model.id for model in get_models(_PROVIDER)}
    return _models(response.json(), individual, known)


async def _enable_models(token: str, model_ids: Sequence[str], enterprise_domain: str | None) -> list[str]:
    """Switch on each model's policy (best effort; a 429 after retries stops the batch)."""
    base = copilot_base_url(token, enterprise_domain)
    headers = {
        "Content-Type": "application/json",
        "Authorization": f"Bearer {token}",
        **COPILOT_HEADERS,
        "openai-intent": "chat-policy",
        "x-interaction-type": "chat-policy",
    }
    enabled = []
    for model_id in model_ids:
        try:
            response = await _send_with_rate_limit_retry(
                "POST",
                f"{base}/models/{model_id}/policy",
                retries=2,
                budget_s=5.0,
                headers=headers,
                body=_http.compact({"state": "enabled"}),
            )
        except _http.NetworkError:
            continue
        if response.status == 429:
            break
        if response.ok:
            enabled.append(model_id)
    return enabled


class GitHubCopilotOAuth(OAuthFlow):
    provider = _PROVIDER
    name = "GitHub Copilot"
    is_subscription = True

    async def login(self, callbacks: LoginCallbacks) -> OAuthCredential:
        answer = await callbacks.prompt(
            AuthPrompt(
                "text", "GitHub Enterprise URL/domain (blank for github.com)", placeholder="company.ghe.com"
            )
        )
        enterprise = normalize_domain(answer)
        if answer.strip() and not enterprise:
            raise OAuthError("Invalid GitHub Enterprise URL/domain")
        github_token = await self._device_flow(enterprise or "github.com", callbacks)
        credential = await _copilot_token(github_token, enterprise)
        available, to_enable = await _account_models(
            credential["access"], enterprise, retries=2, budget_s=5.0
        )
        enabled: list[str] = []
        if to_enable:
            callbacks.notify(ProgressEvent("Enabling models..."))
            enabled = await _enable_models(credential["access"], to_enable, enterprise)
        credential["availableModelIds"] = list(dict.fromkeys([*available, *enabled]))
        return credential

    async def refresh(self, credential: OAuthCredential) -> OAuthCredential:
        enterprise = _enterprise(credential)
        renewed = await _copilot_token(str(credential["refresh"]), enterprise)
        available, _ = await _account_models(renewed["access"], enterprise, retries=0, budget_s=0)
        renewed["availableModelIds"] = available
        return renewed

    def to_auth(self, credential: OAuthCredential) -> RequestCredentials:
        access = str(credential["access"])
        return RequestCredentials(api_key=access, base_url=copilot_base_url(access, _enterprise(credential)))

    def available_model_ids(self, credential: OAuthCredential) -> set[str] | None:
        ids = credential.get("availableModelIds")
        if isinstance(ids, list) and all(isinstance(item, str) for item in ids):
            return set(ids)
        return None

    async def _device_flow(self, domain: str, callbacks: LoginCallbacks) -> str:
        headers = {"User-Agent": _USER_AGENT}
        fields = {"client_id": _CLIENT_ID, "scope": "read:user"}
        device = await self._form_json(
            endpoint(_PROVIDER, f"https://{domain}/login/device/code"), fields, headers
        )
        if not isinstance(device, dict):
            raise OAuthError("Invalid device code response")
        device_code, user_code, uri = (
            device.get("device_code"),
            device.get("user_code"),
            device.get("verification_uri"),
        )
        interval, expires_in = device.get("interval"), device.get("expires_in")
        if (
            not isinstance(device_code, str)
            or not isinstance(user_code, str)
            or not isinstance(uri, str)
            or (interval is not None and not isinstance(interval, (int, float)))
            or not isinstance(expires_in, (int, float))
        ):
            raise OAuthError("Invalid device code response fields")
        if urlsplit(uri).scheme not in ("http", "https") or not urlsplit(uri).netloc:
            raise OAuthError("Untrusted verification_uri in device code response")
        callbacks.notify(DeviceCodeEvent(user_code, uri, interval, expires_in))
        token_url = endpoint(_PROVIDER, f"https://{domain}/login/oauth/access_token")
        grant = {
            "client_id": _CLIENT_ID,
            "device_code": device_code,
            "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
        }

        async def poll() -> Poll[str]:
            raw = await self._form_json(token_url, grant, headers)
            if isinstance(raw, dict) and isinstance(raw.get("access_token"), str):
                return complete(raw["access_token"])
            if isinstance(raw, dict) and isinstance(raw.get("error"), str):
                error = raw["error"]
                if error == "authorization_pending":
                    return pending()
                if error == "slow_down":
                    given = raw.get("interval")
                    return slow_down(given if isinstance(given, (int, float)) else None)
                description = raw.get("error_description")
                return failed(f"Device flow failed: {error}{f': {description}' if description else ''}")
            return failed("Invalid device token response")

        return await poll_device_code(
            poll, interval_seconds=interval, expires_in_seconds=expires_in, wait_before_first_poll=True
        )

    @staticmethod
    async def _form_json(url: str, fields: dict[str, str], headers: dict[str, str]) -> Any:
        response = await _http.post_form(url, fields, headers=headers)
        if not response.ok:
            raise OAuthError(f"{response.status} {response.reason}: {response.text}")
        return response.json()
