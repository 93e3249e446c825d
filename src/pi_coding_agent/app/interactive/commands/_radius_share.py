"""``/share`` through Radius, tried before a GitHub gist as Pi 0.85 does: the current branch as
session JSONL (with a ``pi.share`` entry holding the system prompt and tools) is posted to the
Radius gateway's ``/v1/artifacts`` with the ``radius`` provider's token, and the artifact's
``canonical_url`` is the share URL.

Without a ``radius`` token there is nothing to try and the gist is made instead. The gateway is
``https://radius.pi.dev``, or the origin in ``PI_OAUTH_RADIUS_BASE_URL`` (the override the
Radius sign-in honours, used by tests with a stand-in server on 127.0.0.1).
"""

from __future__ import annotations

import os
import secrets
from typing import Any

import httpx

from pi_ai.oauth import base_url_variable

RADIUS_PROVIDER = "radius"
DEFAULT_GATEWAY = "https://radius.pi.dev"
UPLOAD_TIMEOUT_S = 120
NETWORK_FAILURE = "fetch failed"
"""What Pi (Node's ``fetch``) says for any failure to reach the gateway; ours says the same."""


class RadiusShareError(Exception):
    """The upload failed; the message is the one to show after ``Failed to upload Radius artifact: ``."""


def gateway() -> str:
    return (os.environ.get(base_url_variable(RADIUS_PROVIDER)) or DEFAULT_GATEWAY).rstrip("/")


def share_entry(system_prompt: str, tools: list[dict[str, Any]]) -> Any:
    """The trailing ``pi.share`` entry's maker for ``export_jsonl``: (parent id, timestamp) -> entries."""

    def entries(parent_id: str | None, timestamp: str) -> list[dict[str, Any]]:
        return [
            {
                "type": "custom",
                "customType": "pi.share",
                "id": secrets.token_hex(4),
                "parentId": parent_id,
                "timestamp": timestamp,
                "data": {"systemPrompt": system_prompt, "tools": tools},
            }
        ]

    return entries


async def upload_artifact(body: bytes, token: str, base: str | None = None) -> str:
    """Post a session file's bytes as an organization-visible artifact titled "Pi session";
    returns its URL."""
    url = f"{base or gateway()}/v1/artifacts"
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/x-ndjson"}
    try:
        async with httpx.AsyncClient(timeout=UPLOAD_TIMEOUT_S) as client:
            response = await client.post(
                url,
                params={"visibility": "organization", "title": "Pi session"},
                content=body,
                headers=headers,
            )
    except httpx.TransportError:
        raise RadiusShareError(NETWORK_FAILURE) from None
    except httpx.HTTPError as error:
        raise RadiusShareError(str(error) or type(error).__name__) from None
    try:
        answer = response.json()
    except ValueError:
        answer = None
    artifact = answer.get("artifact") if isinstance(answer, dict) else None
    if (
        not response.is_success
        or not isinstance(artifact, dict)
        or not isinstance(artifact.get("canonical_url"), str)
    ):
        detail = answer.get("error") if isinstance(answer, dict) else None
        raise RadiusShareError(str(detail or response.reason_phrase or response.status_code))
    return str(artifact["canonical_url"])
