"""Automatic retry of a failed model call that looks transient (Pi's ``_isRetryableError``,
``_prepareRetry``).

The error message stays in the session file but leaves the agent's context, hidden from
later contexts by a ``context_edit`` entry as Pi 1.6 does (``_recovery.py``);
``auto_retry_start`` announces the backoff (``baseDelayMs * 2^(attempt-1)``, at most
``maxAgentDelayMs``),
``auto_retry_end`` reports the outcome. A context overflow is compaction's business, not
retry's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from pi_agent import Agent, AgentEndEvent
from pi_ai import AssistantMessage, Model, is_context_overflow, is_retryable_assistant_error
from pi_coding_agent.core.settings import Settings
from pi_coding_agent.runtime.agent_session._events import (
    AgentSessionEvent,
    AutoRetryEndEvent,
    AutoRetryStartEvent,
)


def is_retryable_error(message: AssistantMessage, context_window: int) -> bool:
    if is_context_overflow(message, context_window):
        return False
    return is_retryable_assistant_error(message)


class AutoRetry:
    def __init__(
        self,
        agent: Agent,
        settings: Settings,
        model: Callable[[], Model | None],
        emit: Callable[[AgentSessionEvent], None],
        omit: Callable[[AssistantMessage], None],
    ) -> None:
        self._agent = agent
        self._omit = omit
        self._settings = settings
        self._model = model
        self._emit = emit
        self.attempt = 0
        self._cancel: asyncio.Event | None = None

    @property
    def waiting(self) -> bool:
        """A backoff is running (``is_retrying``)."""
        return self._cancel is not None and not self._cancel.is_set()

    def is_retryable(self, message: AssistantMessage) -> bool:
        model = self._model()
        return is_retryable_error(message, model.context_window if model else 0)

    def will_retry(self, event: AgentEndEvent) -> bool:
        """Whether a retry follows this ``agent_end`` (its ``willRetry``)."""
        retry = self._settings.retry
        if not retry.enabled or self.attempt >= retry.max_retries:
            return False
        for message in reversed(event.messages):
            if isinstance(message, AssistantMessage):
                return self.is_retryable(message)
        return False

    def answered(self, message: AssistantMessage) -> None:
        """An answer settled: one without error ends a retry sequence successfully."""
        if message.stop_reason != "error" and self.attempt > 0:
            self._emit(AutoRetryEndEvent(success=True, attempt=self.attempt))
            self.attempt = 0

    def gave_up(self, message: AssistantMessage) -> None:
        """The run ends on ``message`` without a retry: a retry sequence failed."""
        if message.stop_reason == "error" and self.attempt > 0:
            self._emit(AutoRetryEndEvent(success=False, attempt=self.attempt, final_error=message.error_message))
            self.attempt = 0

    async def prepare(self, message: AssistantMessage) -> bool:
        """Wait out the backoff before the next attempt; ``False`` when no retry follows."""
        retry = self._settings.retry
        if not retry.enabled:
            return False
        self.attempt += 1
        if self.attempt > retry.max_retries:
            self.attempt -= 1
            return False
        delay_ms = min(retry.base_delay_ms * 2 ** (self.attempt - 1), retry.max_agent_delay_ms)
        self._emit(
            AutoRetryStartEvent(
                attempt=self.attempt,
                max_attempts=retry.max_retries,
                delay_ms=delay_ms,
                error_message=message.error_message or "Unknown error",
            )
        )
        self._omit(message)
        cancel = asyncio.Event()
        self._cancel = cancel
        try:
            await asyncio.wait_for(cancel.wait(), timeout=delay_ms / 1000)
        except TimeoutError:
            return True
        finally:
            self._cancel = None
        return False  # cancelled: abort reported it

    def abort(self) -> None:
        """Cancel the backoff; ``auto_retry_end`` is emitted right here (Pi's order of events)."""
        cancel = self._cancel
        if cancel is None or cancel.is_set():
            return
        cancel.set()
        attempt, self.attempt = self.attempt, 0
        self._emit(AutoRetryEndEvent(success=False, attempt=attempt, final_error="Retry cancelled"))
