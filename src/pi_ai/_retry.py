"""Which failed model answers are worth retrying (Pi 0.85's ``isRetryableAssistantError``).

A transient failure (overload, rate limit, 5xx, a dropped or reset connection, a timeout,
a stream cut short) is worth another try; quota and billing exhaustion is not, even when it
came as HTTP 429. This only classifies: callers handle context overflow first (more of the
same request cannot fit) and own their retry budget and backoff.
"""

from __future__ import annotations

import re
from functools import cache

from pi_ai._messages import AssistantMessage

_NON_RETRYABLE_PATTERNS = (
    "GoUsageLimitError",
    "FreeUsageLimitError",
    "Monthly usage limit reached",
    "available balance",
    "insufficient_quota",
    "out of budget",
    "quota exceeded",
    "billing",
)

_RETRYABLE_PATTERNS = (
    "overloaded",
    "rate.?limit",
    "too many requests",
    "429",
    "500",
    "502",
    "503",
    "504",
    "524",
    "service.?unavailable",
    "server.?error",
    "internal.?error",
    "provider.?returned.?error",
    "exceeded request buffer limit while retrying upstream",
    "network.?error",
    "connection.?error",
    "connection.?refused",
    "connection.?lost",
    "other side closed",
    "fetch failed",
    "getaddrinfo",
    "ENOTFOUND",
    "EAI_AGAIN",
    "upstream.?connect",
    "reset before headers",
    "socket hang up",
    "socket connection was closed",
    "timed? out",
    "timeout",
    "terminated",
    "websocket.?closed",
    "websocket.?error",
    "ended without",
    "stream ended before message_stop",
    "stream ended before a terminal response event",
    "http2 request did not get a response",
    "retry delay",
    "you can retry your request",
    "try your request again",
    "please retry your request",
    "ResourceExhausted",
)


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Compiled on first use: a run that never fails should not pay for them."""
    return (
        re.compile("|".join(_NON_RETRYABLE_PATTERNS), re.IGNORECASE),
        re.compile("|".join(_RETRYABLE_PATTERNS), re.IGNORECASE),
    )


def is_retryable_assistant_error(message: AssistantMessage) -> bool:
    """Whether a failed answer's error message describes a transient failure."""
    error_message = message.error_message
    if message.stop_reason != "error" or not error_message:
        return False
    non_retryable, retryable = _patterns()
    if non_retryable.search(error_message):
        return False
    return retryable.search(error_message) is not None
