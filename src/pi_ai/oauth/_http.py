"""The few HTTP calls a sign-in makes: one request, the whole answer read, no retries.

Proxies come from the environment (``HTTPS_PROXY``, ``HTTP_PROXY``, ``NO_PROXY``), as Pi's
``fetch`` finds them through the coding agent's dispatcher. httpx is imported on the first
call only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pi_ai.oauth._endpoints import form_encode
from pi_ai.oauth._types import OAuthError

DEFAULT_TIMEOUT_S = 30.0


class NetworkError(OAuthError):
    """No answer from the server (refused, reset, timed out)."""


@dataclass(frozen=True, slots=True)
class Response:
    status: int
    reason: str
    text: str
    headers: dict[str, str]

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def json(self) -> Any:
        """The body as JSON, ``None`` when it is not JSON."""
        try:
            return json.loads(self.text)
        except ValueError:
            return None

    def json_object(self) -> dict[str, Any] | None:
        body = self.json()
        return body if isinstance(body, dict) else None


async def send(
    method: str,
    url: str,
    *,
    headers: dict[str, str] | None = None,
    body: str | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,  # noqa: ASYNC109 (a per-request deadline, as fetch's signal)
) -> Response:
    import httpx

    try:
        async with httpx.AsyncClient(timeout=timeout, follow_redirects=False) as client:
            answer = await client.request(
                method, url, headers=headers, content=body.encode() if body is not None else None
            )
    except httpx.TimeoutException:
        raise NetworkError(f"request to {url} timed out") from None
    except httpx.HTTPError as error:
        raise NetworkError(f"fetch failed ({type(error).__name__}: {error or 'no answer'})") from None
    return Response(answer.status_code, answer.reason_phrase, answer.text, dict(answer.headers))


async def post_json(url: str, payload: dict[str, Any], *, timeout: float = DEFAULT_TIMEOUT_S) -> Response:  # noqa: ASYNC109
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    return await send("POST", url, headers=headers, body=json.dumps(payload), timeout=timeout)


async def post_form(
    url: str,
    fields: dict[str, str],
    *,
    headers: dict[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,  # noqa: ASYNC109
) -> Response:
    sent = {
        "Content-Type": "application/x-www-form-urlencoded",
        "Accept": "application/json",
        **(headers or {}),
    }
    return await send("POST", url, headers=sent, body=form_encode(fields), timeout=timeout)


def compact(value: Any) -> str:
    """``JSON.stringify(value)`` (for messages that quote a server's answer)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
