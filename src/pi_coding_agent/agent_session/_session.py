"""``AgentSession``: an ``Agent`` bound to a session file, settings, credentials and tools.

What it adds to the agent (Pi 0.85's ``AgentSession``, without extensions and compaction):

* every settled message is appended to the session at its ``message_end`` (after the
  listeners saw the event), thinking-level changes are recorded as entries;
* a failed model call that looks transient is retried automatically: the error message
  stays in the file but leaves the agent's context, ``auto_retry_start`` announces the
  backoff (``baseDelayMs * 2^(attempt-1)``), ``auto_retry_end`` reports the outcome;
* user bash results (``!cmd``/``!!cmd``) that arrive during a run wait in a queue and are
  inserted and persisted only once the run has settled, so they can never land between a
  tool call and its result;
* ``agent_settled`` closes every prompt, after all of the above.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from pi_agent import Agent, AgentEndEvent, AgentEvent, MessageEndEvent, MessageStartEvent
from pi_ai import (
    AbortController,
    AbortSignal,
    AssistantMessage,
    ImageContent,
    Model,
    TextContent,
    UserMessage,
    now_ms,
)
from pi_coding_agent.agent_session._compaction import AutoCompactor
from pi_coding_agent.agent_session._events import (
    AgentSettledEvent,
    AutoRetryEndEvent,
    AutoRetryStartEvent,
    BashExecutionUpdateEvent,
    SessionAgentEndEvent,
    SessionEvent,
    ThinkingLevelChangedEvent,
)
from pi_coding_agent.agent_session._retry import is_retryable_error
from pi_coding_agent.messages import BashExecutionMessage, CustomRoleMessage
from pi_coding_agent.model_registry import ModelCatalog, missing_key_message
from pi_coding_agent.session import SessionManager
from pi_coding_agent.settings import Settings

if TYPE_CHECKING:
    from pi_coding_agent.bash import BashResult
    from pi_coding_agent.tools import ShellOperations

SessionListener = Callable[[SessionEvent], None]

NO_MODEL_MESSAGE = (
    "No model selected: pass --model provider/id, or set defaultProvider and defaultModel in "
    "settings.json (run pi --list-models to see what is available)."
)
BUSY_MESSAGE = "Agent is already processing. Wait for the current prompt to finish."


class SessionError(Exception):
    """A prompt that cannot start (no model, no credentials, already running)."""


class AgentSession:
    def __init__(
        self,
        *,
        agent: Agent,
        session_manager: SessionManager,
        settings: Settings,
        catalog: ModelCatalog,
        cwd: str,
        model: Model | None,
        system_prompt: str,
        bin_dir: str | None = None,
        expand_input: Callable[[str], str] | None = None,
    ) -> None:
        self.agent = agent
        self.session_manager = session_manager
        self.settings = settings
        self.catalog = catalog
        self.cwd = cwd
        self._model = model
        self._base_system_prompt = system_prompt
        agent.state.system_prompt = system_prompt
        self._listeners: list[SessionListener] = []
        self._run_active = False
        self._idle: asyncio.Event | None = None
        self._last_assistant: AssistantMessage | None = None
        self._retry_attempt = 0
        self._retry_cancel: asyncio.Event | None = None
        self._pending_bash: list[BashExecutionMessage] = []
        self._bash_runs: set[AbortController] = set()
        self._bin_dir = bin_dir
        self._expand_input = expand_input
        self._compactor = AutoCompactor(self)
        agent.prepare_next_turn_with_context = self._compactor.before_next_turn
        self._unsubscribe = agent.subscribe(self._handle_agent_event)

    # ------------------------------------------------------------------ state

    @property
    def model(self) -> Model | None:
        return self._model

    @property
    def thinking_level(self) -> str:
        return self.agent.state.thinking_level

    @property
    def is_streaming(self) -> bool:
        """True from the start of a prompt until ``agent_settled`` (retries included)."""
        return self._run_active

    @property
    def has_pending_bash_messages(self) -> bool:
        return bool(self._pending_bash)

    def subscribe(self, listener: SessionListener) -> Callable[[], None]:
        """Call ``listener`` for every session event, synchronously, in subscription order."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    @property
    def is_compacting(self) -> bool:
        return self._compactor.running

    def dispose(self) -> None:
        self.abort_retry()
        self._compactor.abort()
        self.abort_bash()
        self.agent.abort()
        self._unsubscribe()
        self._listeners.clear()

    def _emit(self, event: SessionEvent) -> None:
        for listener in list(self._listeners):
            listener(event)

    # ------------------------------------------------------------------ thinking level

    def available_thinking_levels(self) -> list[str]:
        from pi_ai import THINKING_LEVELS, get_supported_thinking_levels

        if self._model is None:
            return list(THINKING_LEVELS)
        return list(get_supported_thinking_levels(self._model))

    def set_thinking_level(self, level: str) -> None:
        """Clamp ``level`` to the model; record and announce it only when it changes."""
        from pi_ai import clamp_thinking_level

        if level in self.available_thinking_levels():
            effective = level
        else:
            effective = clamp_thinking_level(self._model, level) if self._model else "off"  # type: ignore[arg-type]
        previous = self.agent.state.thinking_level
        self.agent.state.thinking_level = effective  # type: ignore[assignment]
        if effective != previous:
            self.session_manager.append_thinking_level_change(effective)
            self._emit(ThinkingLevelChangedEvent(effective))

    # ------------------------------------------------------------------ agent events

    def _handle_agent_event(self, event: AgentEvent, signal: AbortSignal) -> None:
        if isinstance(event, MessageStartEvent) and event.message.role == "user":
            self._compactor.overflow_recovery_attempted = False
        if isinstance(event, AgentEndEvent):
            self._emit(SessionAgentEndEvent(event.messages, self._will_retry(event)))
        else:
            self._emit(event)
        if isinstance(event, MessageEndEvent):
            message = event.message
            if isinstance(message, CustomRoleMessage):
                self.session_manager.append_custom_message_entry(
                    message.custom_type, message.content, message.display, message.details
                )
            elif message.role in ("user", "assistant", "toolResult"):
                self.session_manager.append_message(message)
            if isinstance(message, AssistantMessage):
                self._last_assistant = message
                if message.stop_reason not in ("error", "length"):
                    self._compactor.overflow_recovery_attempted = False
                if message.stop_reason != "error" and self._retry_attempt > 0:
                    self._emit(AutoRetryEndEvent(success=True, attempt=self._retry_attempt))
                    self._retry_attempt = 0

    def _is_retryable(self, message: AssistantMessage) -> bool:
        window = self._model.context_window if self._model else 0
        return is_retryable_error(message, window)

    def _will_retry(self, event: AgentEndEvent) -> bool:
        retry = self.settings.retry
        if not retry.enabled or self._retry_attempt >= retry.max_retries:
            return False
        for message in reversed(event.messages):
            if isinstance(message, AssistantMessage):
                return self._is_retryable(message)
        return False

    # ------------------------------------------------------------------ prompting

    async def prompt(self, text: str, images: Sequence[ImageContent] | None = None) -> None:
        """Send a user message and run until the agent (and any retries) settle.

        Raises ``SessionError`` before anything is sent when no model is selected, the
        model's provider has no credentials, or a prompt is already running. ``/skill:name``
        and prompt-template commands are expanded first (``expand_input``), as in Pi.
        """
        if self._expand_input is not None:
            text = self._expand_input(text)
        if self._run_active:
            raise SessionError(BUSY_MESSAGE)
        self._flush_pending_bash()
        model = self._model
        if model is None:
            raise SessionError(NO_MODEL_MESSAGE)
        if not self.catalog.has_auth(model.provider):
            raise SessionError(missing_key_message(model.provider))
        last_answer = next(
            (m for m in reversed(self.agent.state.messages) if isinstance(m, AssistantMessage)), None
        )
        if last_answer is not None:
            await self._compactor.check(last_answer, skip_aborted=False)
        content: list[TextContent | ImageContent] = [TextContent(text=text), *(images or ())]
        self.agent.state.system_prompt = self._base_system_prompt
        await self._run_agent_prompt([UserMessage(content=content, timestamp=now_ms())])

    async def _run_agent_prompt(self, messages: list[UserMessage]) -> None:
        self._run_active = True
        self._idle = asyncio.Event()
        try:
            await self.agent.prompt(list(messages))
            while await self._handle_post_agent_run():
                await self.agent.continue_()
        finally:
            self._flush_pending_bash()
            self._run_active = False
            idle, self._idle = self._idle, None
            try:
                self._emit(AgentSettledEvent())
            finally:
                idle.set()

    async def _handle_post_agent_run(self) -> bool:
        message, self._last_assistant = self._last_assistant, None
        if message is None:
            return False
        if self._is_retryable(message) and await self._prepare_retry(message):
            return True
        if message.stop_reason == "error" and self._retry_attempt > 0:
            self._emit(AutoRetryEndEvent(success=False, attempt=self._retry_attempt, final_error=message.error_message))
            self._retry_attempt = 0
        if await self._compactor.check(message):
            return True
        return self.agent.has_queued_messages()

    async def _prepare_retry(self, message: AssistantMessage) -> bool:
        retry = self.settings.retry
        if not retry.enabled:
            return False
        self._retry_attempt += 1
        if self._retry_attempt > retry.max_retries:
            self._retry_attempt -= 1
            return False
        delay_ms = retry.base_delay_ms * 2 ** (self._retry_attempt - 1)
        self._emit(
            AutoRetryStartEvent(
                attempt=self._retry_attempt,
                max_attempts=retry.max_retries,
                delay_ms=delay_ms,
                error_message=message.error_message or "Unknown error",
            )
        )
        messages = self.agent.state.messages
        if messages and isinstance(messages[-1], AssistantMessage):
            self.agent.state.messages = messages[:-1]
        cancel = asyncio.Event()
        self._retry_cancel = cancel
        try:
            await asyncio.wait_for(cancel.wait(), timeout=delay_ms / 1000)
        except TimeoutError:
            return True
        finally:
            self._retry_cancel = None
        attempt, self._retry_attempt = self._retry_attempt, 0
        self._emit(AutoRetryEndEvent(success=False, attempt=attempt, final_error="Retry cancelled"))
        return False

    @property
    def is_retrying(self) -> bool:
        return self._retry_cancel is not None

    def abort_retry(self) -> None:
        if self._retry_cancel is not None:
            self._retry_cancel.set()

    async def abort(self) -> None:
        """Stop the running prompt (model call, tools, retry backoff, compaction) and wait until settled."""
        self.abort_retry()
        self._compactor.abort()
        self.agent.abort()
        await self.wait_for_idle()

    async def wait_for_idle(self) -> None:
        if self._idle is not None:
            await self._idle.wait()

    # ------------------------------------------------------------------ user bash

    @property
    def is_bash_running(self) -> bool:
        return bool(self._bash_runs)

    async def execute_bash(
        self,
        command: str,
        *,
        exclude_from_context: bool | None = None,
        on_chunk: Callable[[str], None] | None = None,
        id: str | None = None,
        operations: ShellOperations | None = None,
    ) -> BashResult:
        """Run a user command (``!cmd``; ``!!cmd`` with ``exclude_from_context``) and record it.

        The ``shellCommandPrefix`` setting is prepended for running, not in the record. Every
        chunk of cleaned output goes to ``on_chunk`` and out as ``bash_execution_update``.
        """
        from pi_coding_agent.bash import execute_bash
        from pi_coding_agent.tools import LocalShell, shell_env

        prefix = self.settings.shell_command_prefix
        resolved = f"{prefix}\n{command}" if prefix else command
        controller = AbortController()
        self._bash_runs.add(controller)

        def chunk(delta: str) -> None:
            if on_chunk is not None:
                on_chunk(delta)
            self._emit(BashExecutionUpdateEvent(delta=delta, id=id))

        try:
            result = await execute_bash(
                resolved,
                self.session_manager.get_cwd(),
                signal=controller.signal,
                on_chunk=chunk,
                operations=operations or LocalShell(self.settings.shell_path),
                env=shell_env(self._bin_dir),
            )
        finally:
            self._bash_runs.discard(controller)
        self.record_bash_result(command, result, exclude_from_context=exclude_from_context)
        return result

    def abort_bash(self) -> None:
        """Cancel every running user command (their process groups are killed)."""
        for controller in list(self._bash_runs):
            controller.abort()

    def record_bash_result(
        self, command: str, result: BashResult, *, exclude_from_context: bool | None = None
    ) -> BashExecutionMessage:
        """Add a user bash run to the conversation: now when idle, after the run otherwise."""
        from pi_coding_agent.bash import bash_execution_message

        message = bash_execution_message(command, result, exclude_from_context=exclude_from_context)
        if self._run_active:
            self._pending_bash.append(message)
        else:
            self._insert(message)
        return message

    def _insert(self, message: BashExecutionMessage) -> None:
        self.agent.state.messages.append(message)
        self.session_manager.append_message(message)

    def _flush_pending_bash(self) -> None:
        pending, self._pending_bash = self._pending_bash, []
        for message in pending:
            self._insert(message)
