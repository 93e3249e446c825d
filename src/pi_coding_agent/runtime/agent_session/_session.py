"""``AgentSession``: an ``Agent`` bound to a session file, settings, credentials and tools.

Every run mode (print, json, rpc, the interactive UI) drives one ``AgentSession``. What it
adds to the agent (Pi 0.85's ``AgentSession``, extensions aside):

* every settled message is appended to the session at its ``message_end`` (after the
  listeners saw the event), model and thinking-level changes are recorded as entries;
* a prompt sent while a run is active is queued, as steering (delivered after the current
  turn's tool calls) or as a follow-up (delivered when the agent would stop); the texts
  waiting in both queues are announced with ``queue_update``;
* a failed model call that looks transient is retried automatically: the error message
  stays in the file but leaves the agent's context, ``auto_retry_start`` announces the
  backoff (``baseDelayMs * 2^(attempt-1)``), ``auto_retry_end`` reports the outcome;
* the context is compacted automatically (``_compaction``) or on request (``compact``);
* user bash results that arrive during a run wait and are inserted once the run settled;
* ``agent_settled`` closes every run, after all of the above.

Model and thinking control, tree navigation and statistics live in the mixins this class
is built from (``_model_control``, ``_tree``, ``_stats``, ``_user_bash``); replacing the
session (new, resume, fork) is ``AgentSessionRuntime``'s job.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal

from pi_agent import (
    Agent,
    AgentEndEvent,
    AgentEvent,
    AgentMessage,
    AgentTool,
    MessageEndEvent,
    MessageStartEvent,
)
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
from pi_coding_agent.core.messages import CustomRoleMessage
from pi_coding_agent.core.model_registry import ModelCatalog, ScopedModel, missing_key_message
from pi_coding_agent.core.session import SessionManager
from pi_coding_agent.core.settings import Settings
from pi_coding_agent.runtime.agent_session._compaction import AutoCompactor, ManualCompaction
from pi_coding_agent.runtime.agent_session._events import (
    AgentSettledEvent,
    AutoRetryEndEvent,
    AutoRetryStartEvent,
    QueueUpdateEvent,
    SessionAgentEndEvent,
    SessionEvent,
    SessionInfoChangedEvent,
)
from pi_coding_agent.runtime.agent_session._extensions import ExtensionBinding, result_field
from pi_coding_agent.runtime.agent_session._listeners import Listeners, SessionListener
from pi_coding_agent.runtime.agent_session._model_control import ModelControl
from pi_coding_agent.runtime.agent_session._parts import (
    NO_MODEL_MESSAGE,
    SessionError,
    SlashCommand,
    message_text,
)
from pi_coding_agent.runtime.agent_session._retry import is_retryable_error
from pi_coding_agent.runtime.agent_session._stats import SessionStatistics
from pi_coding_agent.runtime.agent_session._tree import TreeNavigation
from pi_coding_agent.runtime.agent_session._user_bash import UserBash

StreamingBehavior = Literal["steer", "followUp"]

BUSY_MESSAGE = "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."
COMPACTING_MESSAGE = "Cannot submit a prompt while compaction is in progress. Wait for compaction to finish and retry."


class AgentSession(ExtensionBinding, ModelControl, TreeNavigation, SessionStatistics, UserBash):
    """The agent of one session: prompting, queues, retries, compaction and persistence.

    Listeners (``subscribe``) receive every event synchronously, in subscription order:
    the agent's events (``agent_end`` with ``willRetry``) and the session's own.
    """

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
        scoped_models: Sequence[ScopedModel] = (),
        expand_input: Callable[[str], str] | None = None,
        commands: Sequence[SlashCommand] = (),
        rebuild_system_prompt: Callable[[Sequence[AgentTool]], str] | None = None,
    ) -> None:
        self.agent = agent
        self.session_manager = session_manager
        self.settings = settings
        self.catalog = catalog
        self.cwd = cwd
        self.scoped_models: list[ScopedModel] = list(scoped_models)
        """Models ``cycle_model`` goes through (``--models`` / ``enabledModels``); empty: all."""
        self._model = model
        self._base_system_prompt = system_prompt
        agent.state.system_prompt = system_prompt
        self._listeners = Listeners()
        self._run_active = False
        self._idle_waiters: list[asyncio.Future[None]] = []
        self._last_assistant: AssistantMessage | None = None
        self._steering_texts: list[str] = []
        self._follow_up_texts: list[str] = []
        self._retry_attempt = 0
        self._retry_cancel: asyncio.Event | None = None
        self._branch_summary: AbortController | None = None
        self._init_user_bash(bin_dir)
        self._expand_input = expand_input
        self._commands = list(commands)
        self._init_extensions(agent.state.tools, rebuild_system_prompt)
        self._compactor = AutoCompactor(self)
        self._manual_compaction = ManualCompaction(self)
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
    def messages(self) -> list[AgentMessage]:
        """The agent's context: every message of the branch (custom roles included)."""
        return self.agent.state.messages

    @property
    def system_prompt(self) -> str:
        return self.agent.state.system_prompt

    @property
    def session_file(self) -> str | None:
        return self.session_manager.get_session_file()

    @property
    def session_id(self) -> str:
        return self.session_manager.get_session_id()

    @property
    def session_name(self) -> str | None:
        return self.session_manager.get_session_name()

    @property
    def is_streaming(self) -> bool:
        """True from the start of a prompt until ``agent_settled`` (retries included)."""
        return self._run_active

    @property
    def is_compacting(self) -> bool:
        """A compaction (automatic or manual) or a branch summary is being written."""
        return self._compactor.running or self._manual_compaction.running or self._branch_summary is not None

    @property
    def is_idle(self) -> bool:
        return not self._run_active and not self.is_compacting

    @property
    def is_retrying(self) -> bool:
        return self._retry_cancel is not None and not self._retry_cancel.is_set()

    @property
    def retry_attempt(self) -> int:
        return self._retry_attempt

    def available_commands(self) -> list[SlashCommand]:
        """The ``/name`` commands a prompt may start with: extension commands, prompt templates, then skills."""
        runner = self._extensions
        if runner is None:
            return list(self._commands)
        own = [SlashCommand(c.invocation_name, c.description, "extension", c.extension_path) for c in runner.commands()]
        return own + self._commands

    def set_commands(self, commands: Sequence[SlashCommand]) -> None:
        """The prompt-template and skill commands (after an extension added resources)."""
        self._commands = list(commands)

    def subscribe(self, listener: SessionListener) -> Callable[[], None]:
        """Call ``listener`` for every session event; returns the function that unsubscribes."""
        return self._listeners.add(listener)

    def dispose(self) -> None:
        """Stop everything in flight and drop every listener (the session is not used again)."""
        self.abort_retry()
        self.abort_compaction()
        self.abort_branch_summary()
        self.abort_bash()
        self.agent.abort()
        self._unsubscribe()
        self._listeners.clear()

    def _emit(self, event: SessionEvent) -> None:
        self._listeners.emit(event)
        if self._extensions is not None and isinstance(event, SessionInfoChangedEvent):
            from pi_coding_agent.customize.extensions import SessionInfoChangedEvent as ExtensionInfoChanged

            self._extensions.emit_soon(ExtensionInfoChanged("session_info_changed", event.name))

    # ------------------------------------------------------------------ queues

    @property
    def pending_message_count(self) -> int:
        return len(self._steering_texts) + len(self._follow_up_texts)

    def get_steering_messages(self) -> list[str]:
        return list(self._steering_texts)

    def get_follow_up_messages(self) -> list[str]:
        return list(self._follow_up_texts)

    def _emit_queue_update(self) -> None:
        self._emit(QueueUpdateEvent(list(self._steering_texts), list(self._follow_up_texts)))

    @staticmethod
    def _user_message(text: str, images: Sequence[ImageContent] | None) -> UserMessage:
        content: list[TextContent | ImageContent] = [TextContent(text=text), *(images or ())]
        return UserMessage(content=content, timestamp=now_ms())

    def _expand(self, text: str) -> str:
        return self._expand_input(text) if self._expand_input is not None else text

    async def steer(self, text: str, images: Sequence[ImageContent] | None = None) -> None:
        """Queue a message delivered after the current turn's tool calls, before the next model call."""
        self._queue_steer(self._expand(text), images)

    async def follow_up(self, text: str, images: Sequence[ImageContent] | None = None) -> None:
        """Queue a message delivered once the agent has nothing else to do."""
        self._queue_follow_up(self._expand(text), images)

    def _queue_steer(self, text: str, images: Sequence[ImageContent] | None) -> None:
        self._steering_texts.append(text)
        self._emit_queue_update()
        self.agent.steer(self._user_message(text, images))

    def _queue_follow_up(self, text: str, images: Sequence[ImageContent] | None) -> None:
        self._follow_up_texts.append(text)
        self._emit_queue_update()
        self.agent.follow_up(self._user_message(text, images))

    def clear_queue(self) -> tuple[list[str], list[str]]:
        """Drop every queued message; returns the (steering, follow-up) texts that were waiting."""
        steering, follow_up = self._steering_texts, self._follow_up_texts
        self._steering_texts, self._follow_up_texts = [], []
        self.agent.clear_all_queues()
        self._emit_queue_update()
        return steering, follow_up

    def _dequeue(self, message: AgentMessage) -> None:
        """A queued user message is being delivered: it leaves the queue it came from."""
        text = message_text(message.content) if isinstance(message, UserMessage) else ""
        if not text:
            return
        for queue in (self._steering_texts, self._follow_up_texts):
            if text in queue:
                queue.remove(text)
                self._emit_queue_update()
                return

    # ------------------------------------------------------------------ agent events

    def _handle_agent_event(self, event: AgentEvent, signal: AbortSignal) -> Awaitable[None] | None:
        if isinstance(event, MessageStartEvent) and event.message.role == "user":
            self._compactor.overflow_recovery_attempted = False
            self._dequeue(event.message)
        if self._extensions is not None and self._wants_extension_await(event):
            return self._handle_after_extensions(event)
        self._deliver_agent_event(event)
        return None

    async def _handle_after_extensions(self, event: AgentEvent) -> None:
        await self._emit_to_extensions(event)
        self._deliver_agent_event(event)

    def _deliver_agent_event(self, event: AgentEvent) -> None:
        """Listeners, then persistence (after extensions had the event, as in Pi)."""
        if isinstance(event, AgentEndEvent):
            self._emit(SessionAgentEndEvent(event.messages, self._will_retry(event)))
        else:
            self._emit(event)
        if isinstance(event, MessageEndEvent):
            self._persist(event.message)
        if self._extensions is not None:
            self._count_turn(event)

    def _persist(self, message: AgentMessage) -> None:
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

    async def prompt(
        self,
        text: str,
        images: Sequence[ImageContent] | None = None,
        *,
        streaming_behavior: StreamingBehavior | None = None,
        on_accepted: Callable[[], None] | None = None,
        expand_prompt_templates: bool = True,
        source: str = "interactive",
    ) -> None:
        """Send a user message and run until the agent (and any retries) settle.

        While a run is active the message is queued instead (``streaming_behavior``
        ``"steer"`` or ``"followUp"``; without one that is an error). ``on_accepted`` is
        called once the message was accepted or queued, before the run starts. Raises
        ``SessionError`` before anything is sent when a run is active without a streaming
        behaviour, a manual compaction runs, no model is selected, or the model's provider
        has no credentials. Pi's order: an extension command runs at once (even during a
        run); then the ``input`` event may transform or handle the text; then
        ``/skill:name`` and prompt-template commands are expanded (``expand_input``);
        ``before_agent_start`` may add messages and change the system prompt.
        ``source`` (``interactive``, ``rpc``, ``extension``) is what ``input`` handlers see.
        """
        runner = self._extensions
        if runner is not None and expand_prompt_templates and text.startswith("/") and await self._run_command(text):
            if on_accepted is not None:
                on_accepted()
            return
        if self._manual_compaction.running:
            raise SessionError(COMPACTING_MESSAGE)
        if runner is not None and runner.has_handlers("input"):
            behaviour = streaming_behavior if self._run_active else None
            decision = await runner.emit_input(text, list(images) if images else None, source, behaviour)
            if decision["action"] == "handled":
                if on_accepted is not None:
                    on_accepted()
                return
            if decision["action"] == "transform":
                text, images = decision["text"], decision["images"]
        if expand_prompt_templates:
            text = self._expand(text)
        if self._run_active:
            if streaming_behavior is None:
                raise SessionError(BUSY_MESSAGE)
            if streaming_behavior == "followUp":
                self._queue_follow_up(text, images)
            else:
                self._queue_steer(text, images)
            if on_accepted is not None:
                on_accepted()
            return
        self._flush_pending_bash()
        self._flush_pending_custom()
        model = self._model
        if model is None:
            raise SessionError(NO_MODEL_MESSAGE)
        if not self.catalog.has_auth(model.provider):
            raise SessionError(missing_key_message(model.provider))
        last_answer = next((m for m in reversed(self.messages) if isinstance(m, AssistantMessage)), None)
        if last_answer is not None:
            await self._compactor.check(last_answer, skip_aborted=False)
        messages: list[AgentMessage] = [self._user_message(text, images), *self._pending_next_turn]
        self._pending_next_turn = []
        self.agent.state.system_prompt = self._base_system_prompt
        if runner is not None and runner.has_handlers("before_agent_start"):
            messages += await self._before_agent_start(text, images)
        if on_accepted is not None:
            on_accepted()
        await self._run_agent_prompt(messages)

    async def _before_agent_start(self, text: str, images: Sequence[ImageContent] | None) -> list[AgentMessage]:
        """Messages ``before_agent_start`` handlers add; their system prompt applies to this run."""
        from msgspec import UNSET

        assert self._extensions is not None
        added, system_prompt = await self._extensions.emit_before_agent_start(
            text, list(images) if images else None, self._base_system_prompt, self.system_prompt_options()
        )
        if system_prompt is not None:
            self.agent.state.system_prompt = system_prompt
        messages: list[AgentMessage] = []
        for item in added:
            details = result_field(item, "details")
            messages.append(
                CustomRoleMessage(
                    custom_type=str(result_field(item, "custom_type") or ""),
                    content=result_field(item, "content") or [],
                    display=bool(result_field(item, "display", True)),
                    details=UNSET if details is None else details,
                    timestamp=now_ms(),
                )
            )
        return messages

    async def _run_command(self, text: str) -> bool:
        """Run ``/name args`` when ``name`` is an extension command; ``False`` when it is not one."""
        from pi_coding_agent.customize.extensions import CommandContext, call_handler

        runner = self._extensions
        assert runner is not None
        name, _, args = text[1:].partition(" ")
        command = runner.get_command(name)
        if command is None:
            return False
        try:
            await call_handler(command.handler, args, CommandContext(runner))
        except Exception as error:
            runner.report(f"command:{name}", "command", error)
        return True

    async def _run_agent_prompt(self, messages: list[AgentMessage]) -> None:
        self._run_active = True
        try:
            await self.agent.prompt(messages)
            while await self._handle_post_agent_run():
                await self.agent.continue_()
        finally:
            self._flush_pending_bash()
            self._run_active = False
            if self._extensions is not None and self._extensions.has_handlers("agent_settled"):
                from pi_coding_agent.customize.extensions import AgentSettledEvent as ExtensionSettled

                await self._extensions.emit(ExtensionSettled("agent_settled"))
            try:
                self._emit(AgentSettledEvent())
            finally:
                self._resolve_idle_if_idle()

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
        return False  # cancelled: abort_retry reported it

    # ------------------------------------------------------------------ compaction

    async def compact(self, custom_instructions: str | None = None) -> dict[str, Any]:
        """Stop any run and compact the branch now (``compaction_start``/``_end`` with ``manual``).

        Returns the result as Pi reports it (``summary``, ``firstKeptEntryId``,
        ``tokensBefore``, ``estimatedTokensAfter``, ``usage``, ``details``); raises
        ``CompactionError`` when there is nothing to compact or the summary failed.
        """
        return await self._manual_compaction.run(custom_instructions)

    async def export_to_html(self, output_path: str | None = None) -> str:
        """Write the session as one self-contained HTML page; returns its path.

        Without ``output_path``: ``pi-session-<session file name>.html`` in the current directory.
        """
        from pi_coding_agent.core.export import export_session

        return export_session(self.session_manager, output_path, system_prompt=self.system_prompt)

    # ------------------------------------------------------------------ stopping and waiting

    def abort_retry(self) -> None:
        """Cancel the backoff of an automatic retry (the run then ends with the error).

        ``auto_retry_end`` is emitted right here, before this returns, as Pi's order of events
        has it (before the answer to RPC ``abort_retry``).
        """
        cancel = self._retry_cancel
        if cancel is None or cancel.is_set():
            return
        cancel.set()
        attempt, self._retry_attempt = self._retry_attempt, 0
        self._emit(AutoRetryEndEvent(success=False, attempt=attempt, final_error="Retry cancelled"))

    def abort_compaction(self) -> None:
        self._compactor.abort()
        self._manual_compaction.abort()

    def abort_branch_summary(self) -> None:
        if self._branch_summary is not None:
            self._branch_summary.abort()

    async def abort(self) -> None:
        """Stop the run (model call, tools, retry backoff, compaction, branch summary); wait until idle."""
        self.abort_retry()
        self.abort_compaction()
        self.abort_branch_summary()
        self.agent.abort()
        await self.wait_for_idle()

    async def wait_for_idle(self) -> None:
        """Return once no run, compaction or branch summary is in progress."""
        if self.is_idle:
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._idle_waiters.append(waiter)
        await waiter

    def _resolve_idle_if_idle(self) -> None:
        if not self.is_idle:
            return
        waiters, self._idle_waiters = self._idle_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)
