"""``is_retryable_assistant_error``: Pi's classification of failed answers (pi-ai ``utils/retry``)."""

from __future__ import annotations

import pytest

from pi_ai import AssistantMessage, StopReason, is_retryable_assistant_error


def _failed(error_message: str | None, stop_reason: StopReason = "error") -> AssistantMessage:
    return AssistantMessage(
        content=[],
        api="faux",
        provider="faux",
        model="m",
        stop_reason=stop_reason,
        error_message=error_message,
        timestamp=0,
    )


@pytest.mark.parametrize(
    "text",
    [
        '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
        "Rate limit reached for requests",
        "503 Service Unavailable",
        "fetch failed",
        "Connection error.",
        "socket hang up",
        "Request timed out.",
        "stream ended before message_stop",
    ],
)
def test_transient_failures_are_retryable(text: str) -> None:
    assert is_retryable_assistant_error(_failed(text))


@pytest.mark.parametrize(
    "text",
    [
        "429 You exceeded your current quota: insufficient_quota",
        "429 billing hard limit reached",
        "400 invalid_request_error: messages.0.content is empty",
        "401 invalid x-api-key",
        "",
    ],
)
def test_quota_and_request_errors_are_not(text: str) -> None:
    assert not is_retryable_assistant_error(_failed(text))


def test_only_error_answers_are_classified() -> None:
    assert not is_retryable_assistant_error(_failed("overloaded", stop_reason="aborted"))
    assert not is_retryable_assistant_error(_failed("overloaded", stop_reason="stop"))
    assert not is_retryable_assistant_error(_failed(None))
