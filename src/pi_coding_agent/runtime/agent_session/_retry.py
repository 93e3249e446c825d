"""Which failed model calls the session retries: the transient ones, except a context overflow
(compaction's business, not retry's), as Pi's ``AgentSession._isRetryableError``."""

from __future__ import annotations

from pi_ai import AssistantMessage, is_context_overflow, is_retryable_assistant_error


def is_retryable_error(message: AssistantMessage, context_window: int) -> bool:
    if is_context_overflow(message, context_window):
        return False
    return is_retryable_assistant_error(message)
