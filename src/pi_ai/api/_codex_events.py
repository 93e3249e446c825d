"""Codex backend specifics shared by its transports: the account id in the ChatGPT token, the
error texts, and the mapping of Codex's events onto the Responses events the shared reader
reads (Pi 0.85's ``mapCodexEvents``, ``parseErrorResponse``, ``extractAccountId``)."""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
import time
from typing import Any

from pi_ai.api._js import UNDEFINED, get, opt, text, truthy
from pi_ai.js_json import JsonParseError, parse, stringify

JWT_CLAIM_PATH = "https://api.openai.com/auth"
_RESPONSE_STATUSES = frozenset({"completed", "incomplete", "failed", "cancelled", "queued", "in_progress"})
_TERMINAL_TYPES = frozenset({"response.done", "response.completed", "response.incomplete"})
_USAGE_LIMIT_CODE = re.compile(r"usage_limit_reached|usage_not_included|rate_limit_exceeded", re.IGNORECASE)


class CodexApiError(Exception):
    """An error the Codex backend reported (``error`` or ``response.failed`` events)."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


class CodexProtocolError(Exception):
    """A Codex event that is not JSON."""


def extract_account_id(token: str) -> str:
    """``chatgpt_account_id`` from the access token's claims (the ``chatgpt-account-id`` header)."""
    try:
        parts = token.split(".")
        if len(parts) != 3:
            raise ValueError("Invalid token")
        segment = parts[1]
        # Both base64 alphabets, padding optional. Pi's atob takes only the standard one, so a
        # token whose claims encode with "-" or "_" fails there (docs/providers/openai-codex.md).
        padded = segment + "=" * (-len(segment) % 4)
        claims = json.loads(base64.urlsafe_b64decode(padded.replace("+", "-").replace("/", "_")))
        account_id = (
            claims.get(JWT_CLAIM_PATH, {}).get("chatgpt_account_id") if isinstance(claims, dict) else None
        )
        if not account_id:
            raise ValueError("No account ID in token")
        return str(account_id)
    except (ValueError, binascii.Error, AttributeError, UnicodeDecodeError):
        raise ValueError("Failed to extract accountId from token") from None


def http_error_message(status: int, reason: str, body: str) -> str:
    """The text a failed Codex request ends with: a usage-limit notice, the body's
    ``error.message``, or the body itself."""
    message = body or reason or "Request failed"
    friendly: str | None = None
    try:
        parsed = parse(body)
    except (JsonParseError, ValueError):
        return message
    error = opt(parsed, "error")
    if not truthy(error):
        return message
    code = get(error, "code")
    if not truthy(code):
        code = get(error, "type")
    if not truthy(code):
        code = ""
    if _USAGE_LIMIT_CODE.search(text(code)) or status == 429:
        plan_type = get(error, "plan_type")
        plan = f" ({text(plan_type).lower()} plan)" if truthy(plan_type) else ""
        resets_at = get(error, "resets_at")
        when = ""
        if truthy(resets_at) and type(resets_at) in (int, float):
            minutes = max(0, _js_round((resets_at * 1000 - time.time() * 1000) / 60000))
            when = f" Try again in ~{minutes} min."
        friendly = f"You have hit your ChatGPT usage limit{plan}.{when}".strip()
    own = get(error, "message")
    message = (text(own) if truthy(own) else None) or friendly or message
    return friendly or message


def _js_round(value: float) -> int:
    """``Math.round``: halves round up."""
    return math.floor(value + 0.5)


def decode_event(data: str) -> Any:
    """One Codex event's JSON (``CodexProtocolError`` with ``JSON.parse``'s text when it is not)."""
    try:
        return parse(data)
    except JsonParseError as error:
        raise CodexProtocolError(f"Invalid Codex SSE JSON: {error}") from None


def map_event(event: Any, output: Any) -> tuple[Any, bool]:
    """(the event for the Responses reader or ``None`` to skip it, whether it ends the stream).

    ``error`` and ``response.failed`` raise ``CodexApiError``; ``response.done`` /
    ``response.incomplete`` read as ``response.completed`` (an unknown status as none), and the
    response's ``end_turn`` is kept on the message."""
    kind = get(event, "type")
    if type(kind) is not str:
        return None, False
    if kind == "error":
        nested = event.get("error")
        nested = nested if type(nested) is dict else None
        code = event.get("code") if type(event.get("code")) is str else (nested or {}).get("code")
        code = code if type(code) is str else None
        message = event.get("message") if type(event.get("message")) is str else (nested or {}).get("message")
        message = message if type(message) is str else None
        raise CodexApiError(f"Codex error: {message or code or stringify(event)}", code)
    if kind == "response.failed":
        error = opt(event.get("response", UNDEFINED), "error")
        code, message = opt(error, "code"), opt(error, "message")
        raise CodexApiError(
            text(message) if truthy(message) else "Codex response failed",
            code if type(code) is str else None,
        )
    if kind in _TERMINAL_TYPES:
        response = event.get("response", UNDEFINED)
        end_turn = opt(response, "end_turn")
        if type(end_turn) is bool:
            output.end_turn = end_turn
        if type(response) is dict:
            status = response.get("status")
            response = {**response, "status": status if status in _RESPONSE_STATUSES else UNDEFINED}
        return {**event, "type": "response.completed", "response": response}, True
    return event, False


__all__ = [
    "CodexApiError",
    "CodexProtocolError",
    "decode_event",
    "extract_account_id",
    "http_error_message",
    "map_event",
]
