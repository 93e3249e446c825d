"""Automatic compaction of a session (Pi 0.85's ``_checkCompaction`` / ``_runAutoCompaction``).

Three moments check whether the context must shrink:

* after a run (``check`` from the session's post-run loop) and before a new prompt
  (``check`` with ``skip_aborted=False``): a provider overflow error or a truncated
  answer ("overflow": compact, then retry the answer once), or a context past
  ``contextWindow - reserveTokens`` ("threshold": compact, no retry);
* between the turns of one run (``before_next_turn``, the agent's turn hook): threshold only.

Compacting appends a ``compaction`` entry and rebuilds the agent's messages from the
session; ``compaction_start`` / ``compaction_end`` report it.

``ManualCompaction`` is the explicit ``/compact [instructions]`` (RPC ``compact``): it first
stops any run, then compacts whatever the thresholds say, and never continues a run.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pi_agent import Agent, AgentContext, AgentLoopTurnUpdate, TurnContext
from pi_ai import AbortController, AbortSignal, AssistantMessage, Model, to_builtins
from pi_coding_agent.core.session import CompactionEntry, SessionManager
from pi_coding_agent.core.settings import Settings
from pi_coding_agent.runtime.agent_session._events import (
    AgentSessionEvent,
    CompactionEndEvent,
    CompactionStartEvent,
    SummarizationRetryEvent,
)
from pi_coding_agent.runtime.agent_session._parts import NO_MODEL_MESSAGE, SessionError
from pi_coding_agent.runtime.agent_session._recovery import answer_standing, omit_recovery_attempt

if TYPE_CHECKING:
    from pi_coding_agent.core.compaction import CompactionPreparation, CompactionResult, SummaryRequest
    from pi_coding_agent.core.settings import CompactionSettings

Reason = Literal["threshold", "overflow"]

OVERFLOW_RETRY_FAILED = (
    "Context overflow recovery failed after one compact-and-retry attempt. "
    "Try reducing context or switching to a larger-context model."
)
LENGTH_RETRY_FAILED = "Truncated response recovery failed after one compact-and-retry attempt."


class CompactionListener(Protocol):
    """Extensions' part in a compaction (``session_before_compact``, ``session_compact``,
    ``session_compact_failed``)."""

    async def before_compact(
        self, preparation: CompactionPreparation, reason: str, will_retry: bool, custom_instructions: str | None
    ) -> CompactionResult | None:
        """An extension's summary, ``None`` to compact as usual; raises ``CompactionError`` for a veto."""

    async def compacted(self, reason: str, will_retry: bool, from_extension: bool) -> None: ...

    async def compaction_failed(self, reason: str, error: str | None, will_retry: bool, *, aborted: bool = False) -> None: ...


@dataclass(frozen=True)
class CompactionContext:
    """What compacting a session needs of it."""

    agent: Agent
    session_manager: SessionManager
    settings: Settings
    model: Callable[[], Model | None]
    emit: Callable[[AgentSessionEvent], None]
    idle_changed: Callable[[], None]
    """Called when a compaction ends (the session may have become idle)."""
    extensions: CompactionListener


class _Compaction:
    """One kind of compaction of a session: whether one runs, and stopping it."""

    def __init__(self, context: CompactionContext) -> None:
        self.context = context
        self._controller: AbortController | None = None

    @property
    def running(self) -> bool:
        return self._controller is not None

    def abort(self) -> None:
        if self._controller is not None:
            self._controller.abort()

    from_extension = False
    """Whether the last summary came from a ``session_before_compact`` handler."""

    async def _summary(
        self, preparation: CompactionPreparation, request: SummaryRequest, will_retry: bool
    ) -> CompactionResult:
        """The extensions' summary (or their veto: ``CompactionError(COMPACTION_CANCELLED)``), else ours."""
        from pi_coding_agent.core.compaction import compact

        self.from_extension = False
        provided = await self.context.extensions.before_compact(
            preparation, request.reason, will_retry, request.custom_instructions
        )
        if provided is not None:
            self.from_extension = True
            return provided
        return await compact(preparation, request)

    def _settings(self) -> CompactionSettings:
        """The compaction settings of the current model (``compaction.modelOverrides``), fitted to
        its window (``fit_to_window``)."""
        from pi_coding_agent.core.compaction import fit_to_window

        model = self.context.model()
        if model is None:
            return fit_to_window(self.context.settings.compaction, 0)
        return fit_to_window(self.context.settings.compaction_for(model.provider, model.id), model.context_window)

    def _request(
        self, model: Model, reason: str, controller: AbortController, custom_instructions: str | None = None
    ) -> SummaryRequest:
        """The summary call, with the session's stream function, thinking level and retry policy."""
        from pi_coding_agent.core.compaction import SummaryRequest

        context = self.context
        return SummaryRequest(
            model=model,
            stream_fn=context.agent.stream_fn,
            thinking_level=context.agent.state.thinking_level,
            retry=context.settings.retry,
            signal=controller.signal,
            on_retry_event=lambda kind, fields: context.emit(SummarizationRetryEvent(kind, fields)),
            reason=reason,
            custom_instructions=custom_instructions,
        )


class AutoCompactor(_Compaction):
    def __init__(self, context: CompactionContext) -> None:
        super().__init__(context)
        self.overflow_recovery_attempted = False

    def _latest_compaction(self) -> CompactionEntry | None:
        for entry in reversed(self.context.session_manager.get_branch()):
            if isinstance(entry, CompactionEntry):
                return entry
        return None

    @staticmethod
    def _not_after(timestamp_ms: int, entry: CompactionEntry) -> bool:
        from pi_coding_agent.core.messages import iso_to_ms

        compacted_at = iso_to_ms(entry.timestamp)
        return compacted_at is not None and timestamp_ms <= compacted_at

    async def check(self, message: AssistantMessage, *, skip_aborted: bool = True) -> bool:
        """Compact if ``message`` calls for it; True when the agent should continue the run."""
        from pi_ai import is_context_overflow, is_recoverable_length

        context = self.context
        settings = self._settings()
        if not settings.enabled or (skip_aborted and message.stop_reason == "aborted"):
            return False
        model = context.model()
        window = model.context_window if model is not None else 0
        same_model = model is not None and message.provider == model.provider and message.model == model.id
        latest = self._latest_compaction()
        if latest is not None and self._not_after(message.timestamp, latest):
            return False
        standing = answer_standing(context.session_manager, message)
        # Pi 1.6: an explicit overflow error is recovered unless it was hidden or compacted since; an
        # overflow read from the usage only while that usage still measures the context.
        explicit = message.stop_reason == "error" and is_context_overflow(message)
        overflow = same_model and (
            (explicit and standing.retained)
            or (standing.projected and not standing.edited_after and is_context_overflow(message, window))
        )
        truncated = (
            same_model and standing.projected and model is not None and is_recoverable_length(message, model.max_tokens)
        )
        if overflow or truncated:
            will_retry = message.stop_reason != "stop"
            if not will_retry:
                return await self.run("overflow", will_retry=False)
            if self.overflow_recovery_attempted:
                error = OVERFLOW_RETRY_FAILED if overflow else LENGTH_RETRY_FAILED
                context.emit(CompactionEndEvent("overflow", None, aborted=False, will_retry=False, error_message=error))
                await context.extensions.compaction_failed("overflow", error, False)
                return False
            self.overflow_recovery_attempted = True
            omit_recovery_attempt(context.agent, context.session_manager, message, context.emit)
            return await self.run("overflow", will_retry=True)
        return await self._check_threshold(message, latest, standing.edits_in_context)

    async def _check_threshold(self, message: AssistantMessage, latest: CompactionEntry | None, edited: bool) -> bool:
        """Case 3: compact (no retry) when the context is past the threshold. With context edits on
        the branch the size is estimated over the edited context, as in Pi 1.6."""
        from pi_coding_agent.core.compaction import (
            calculate_context_tokens,
            estimate_context_tokens,
            estimate_projected_context_tokens,
            should_compact,
        )
        from pi_coding_agent.core.session import build_session_projection

        context = self.context
        model = context.model()
        window = model.context_window if model is not None else 0
        direct = calculate_context_tokens(message.usage)
        if edited:
            branch = context.session_manager.get_branch()
            tokens = estimate_projected_context_tokens(build_session_projection(branch), branch).tokens
        elif message.stop_reason == "error" or direct == 0:
            messages = context.agent.state.messages
            estimate = estimate_context_tokens(messages)
            if estimate.last_usage_index is not None and latest is not None:
                source = messages[estimate.last_usage_index]
                if isinstance(source, AssistantMessage) and self._not_after(source.timestamp, latest):
                    return False
            tokens = estimate.tokens
        else:
            tokens = direct
        if should_compact(tokens, window, self._settings()):
            return await self.run("threshold", will_retry=False)
        return False

    async def before_next_turn(self, turn: TurnContext, signal: AbortSignal | None) -> AgentLoopTurnUpdate | None:
        """Between two turns of a run: compact when the session's branch, as the model will see it
        (context edits applied), crossed the threshold, as Pi 1.6 sizes it."""
        from pi_coding_agent.core.compaction import estimate_projected_context_tokens, should_compact
        from pi_coding_agent.core.session import build_session_projection

        model = self.context.model()
        if model is None or model.context_window <= 0:
            return None
        branch = self.context.session_manager.get_branch()
        tokens = estimate_projected_context_tokens(build_session_projection(branch), branch).tokens
        if not should_compact(tokens, model.context_window, self._settings()):
            return None
        await self.run("threshold", will_retry=False)
        state = self.context.agent.state
        return AgentLoopTurnUpdate(
            context=AgentContext(
                system_prompt=turn.context.system_prompt, messages=list(state.messages), tools=turn.context.tools
            )
        )

    def _drop_trailing_assistant(self, *, failed_only: bool = False) -> None:
        state = self.context.agent.state
        messages = state.messages
        last = messages[-1] if messages else None
        if isinstance(last, AssistantMessage) and (not failed_only or last.stop_reason in ("error", "length")):
            state.messages = messages[:-1]

    async def run(self, reason: Reason, *, will_retry: bool) -> bool:
        """Compact now; True when the agent should continue (a retry, or queued messages)."""
        from pi_coding_agent.core.compaction import prepare_compaction

        context = self.context
        model = context.model()
        if model is None:
            return False
        preparation = prepare_compaction(context.session_manager.get_branch(), self._settings())
        if preparation is None:
            return False
        context.emit(CompactionStartEvent(reason))
        controller = AbortController()
        self._controller = controller
        try:
            try:
                result = await self._summary(preparation, self._request(model, reason, controller), will_retry)
            except Exception as error:
                if controller.signal.aborted or str(error) == COMPACTION_CANCELLED:
                    context.emit(CompactionEndEvent(reason, None, aborted=True, will_retry=False))
                    await context.extensions.compaction_failed(reason, None, will_retry, aborted=True)
                    return False
                prefix = "Context overflow recovery failed" if reason == "overflow" else "Auto-compaction failed"
                context.emit(
                    CompactionEndEvent(
                        reason, None, aborted=False, will_retry=False, error_message=f"{prefix}: {error}"
                    )
                )
                await context.extensions.compaction_failed(reason, f"{prefix}: {error}", will_retry)
                return False
            if controller.signal.aborted:
                context.emit(CompactionEndEvent(reason, None, aborted=True, will_retry=False))
                return False
            summary = record_compaction(context, result, from_hook=self.from_extension)
            context.emit(CompactionEndEvent(reason, summary, aborted=False, will_retry=will_retry))
            await context.extensions.compacted(reason, will_retry, self.from_extension)
            if will_retry:
                self._drop_trailing_assistant(failed_only=True)
                return True
            return context.agent.has_queued_messages()
        finally:
            self._controller = None
            context.idle_changed()


def record_compaction(context: CompactionContext, result: CompactionResult, *, from_hook: bool = False) -> dict[str, Any]:
    """Append the compaction entry, rebuild the agent's context; the result as Pi reports it."""
    from pi_coding_agent.core.compaction import estimate_tokens

    manager = context.session_manager
    manager.append_compaction(
        result.summary,
        result.first_kept_entry_id,
        result.tokens_before,
        details=result.details,
        from_hook=from_hook,
        usage=result.usage,
    )
    messages = manager.build_session_context().messages
    context.agent.state.messages = messages
    return {
        "summary": result.summary,
        "firstKeptEntryId": result.first_kept_entry_id,
        "tokensBefore": result.tokens_before,
        "estimatedTokensAfter": sum(estimate_tokens(m) for m in messages),
        "usage": to_builtins(result.usage),
        "details": result.details,
    }


class CompactionError(SessionError):
    """A manual compaction that could not be done (nothing to compact, the summary failed)."""


COMPACTION_CANCELLED = "Compaction cancelled"


class ManualCompaction(_Compaction):
    def __init__(self, context: CompactionContext, stop_run: Callable[[], Awaitable[None]]) -> None:
        super().__init__(context)
        self._stop_run = stop_run

    async def run(self, custom_instructions: str | None) -> dict[str, Any]:
        """Compact the current branch now; the result (``compact``'s RPC data). Raises ``CompactionError``."""
        context = self.context
        await self._stop_run()
        controller = AbortController()
        self._controller = controller
        context.emit(CompactionStartEvent("manual"))
        try:
            result = await self._summarize(controller, custom_instructions)
            if controller.signal.aborted:
                raise CompactionError(COMPACTION_CANCELLED)
            summary = record_compaction(context, result, from_hook=self.from_extension)
        except Exception as error:
            message = str(error)
            aborted = message == COMPACTION_CANCELLED or controller.signal.aborted
            self._finish()
            await context.extensions.compaction_failed("manual", None if aborted else message, False, aborted=aborted)
            context.emit(
                CompactionEndEvent(
                    "manual",
                    None,
                    aborted=aborted,
                    will_retry=False,
                    error_message=None if aborted else f"Compaction failed: {message}",
                )
            )
            if isinstance(error, CompactionError):
                raise
            raise CompactionError(message) from error
        self._finish()
        context.emit(CompactionEndEvent("manual", summary, aborted=False, will_retry=False))
        await context.extensions.compacted("manual", False, self.from_extension)
        return summary

    def _finish(self) -> None:
        self._controller = None
        self.context.idle_changed()

    async def _summarize(self, controller: AbortController, custom_instructions: str | None) -> CompactionResult:
        from pi_coding_agent.core.compaction import prepare_compaction

        model = self.context.model()
        if model is None:
            raise CompactionError(NO_MODEL_MESSAGE)
        branch = self.context.session_manager.get_branch()
        preparation = prepare_compaction(branch, self._settings())
        if preparation is None:
            if branch and isinstance(branch[-1], CompactionEntry):
                raise CompactionError("Already compacted")
            raise CompactionError("Nothing to compact (session too small)")
        return await self._summary(preparation, self._request(model, "manual", controller, custom_instructions), False)
