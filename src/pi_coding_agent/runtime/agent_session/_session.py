"""``AgentSession``: an ``Agent`` bound to a session file, settings, credentials and tools.

Every run mode (print, json, rpc, the interactive UI) drives one ``AgentSession``. What it
adds to the agent (Pi 0.85's ``AgentSession``):

* every settled message is appended to the session at its ``message_end`` (after the
  listeners saw the event), model and thinking-level changes are recorded as entries;
* a prompt sent while a run is active is queued (``_queue``);
* a failed model call that looks transient is retried automatically (``_retry``);
* the context is compacted automatically or on request (``_compaction``);
* user bash results that arrive during a run wait and are inserted once the run settled;
* ``agent_settled`` closes every run, after all of the above.

The class is a façade: it runs prompts and hands agent events on, and delegates each
other concern to a component it owns, which gets only what it needs (the agent, the
session manager, settings, callables such as ``emit``): the prompt queue, automatic retry,
compaction, tree navigation, statistics, user bash, model and thinking control, the tools
and system prompt, and the extension binding. The agent and its hook chain are built here
once (``_hooks``); replacing the session (new, resume, fork) is ``AgentSessionRuntime``'s job.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, cast

from pi_agent import (
    AgentContext,
    AgentEndEvent,
    AgentEvent,
    AgentLoopTurnUpdate,
    AgentMessage,
    AgentTool,
    MessageEndEvent,
    MessageStartEvent,
    QueueMode,
    TurnContext,
)
from pi_ai import (
    AbortSignal,
    AssistantMessage,
    ImageContent,
    Model,
    cleanup_session_resources,
    takes_system_messages_in_place,
)
from pi_coding_agent.core.messages import BashExecutionMessage, CustomRoleMessage
from pi_coding_agent.core.model_registry import ModelCatalog, ScopedModel, missing_key_message
from pi_coding_agent.core.session import SessionManager
from pi_coding_agent.core.settings import Settings, ToolSelection
from pi_coding_agent.customize.extensions import ExtensionRunner
from pi_coding_agent.customize.extensions.ui import ExtensionUI, NoExtensionUI, UiMode
from pi_coding_agent.runtime.agent_session._compaction import (
    AutoCompactor,
    CompactionContext,
    ManualCompaction,
)
from pi_coding_agent.runtime.agent_session._events import (
    AgentSessionEvent,
    AgentSettledEvent,
    SessionAgentEndEvent,
    SessionInfoChangedEvent,
)
from pi_coding_agent.runtime.agent_session._extensions import ExtensionBinding
from pi_coding_agent.runtime.agent_session._hooks import AgentSetup, build_agent
from pi_coding_agent.runtime.agent_session._listeners import AgentSessionEventListener, Listeners
from pi_coding_agent.runtime.agent_session._model_control import Direction, ModelControl, ModelCycleResult
from pi_coding_agent.runtime.agent_session._parts import NO_MODEL_MESSAGE, SessionError, SlashCommand
from pi_coding_agent.runtime.agent_session._persistence import persist_message
from pi_coding_agent.runtime.agent_session._queue import PromptQueue, user_message
from pi_coding_agent.runtime.agent_session._recovery import omit_recovery_attempt
from pi_coding_agent.runtime.agent_session._retry import AutoRetry
from pi_coding_agent.runtime.agent_session._stats import (
    ContextUsage,
    ForkPoint,
    SessionStatistics,
    SessionStats,
)
from pi_coding_agent.runtime.agent_session._switches import SessionSwitches
from pi_coding_agent.runtime.agent_session._tools import SectionsBuilder, SessionTools, SpareTools
from pi_coding_agent.runtime.agent_session._tree import NavigationResult, TreeContext, TreeNavigation
from pi_coding_agent.runtime.agent_session._user_bash import UserBash

if TYPE_CHECKING:
    from pi_coding_agent.core.bash import BashResult
    from pi_coding_agent.core.mcp import McpManager
    from pi_coding_agent.core.tool_search import Candidate
    from pi_coding_agent.core.tools import BashOperations

StreamingBehavior = Literal["steer", "followUp"]
QueuedInputDisposition = Literal["handled", "queued"]
"""What became of a steer or follow-up: an ``input`` handler handled it, or it was queued."""
PromptDisposition = Literal["handled", "queued", "started"]
"""What became of a prompt (Pi 1.6's RPC ``data.disposition``): handled by an extension command
or ``input`` handler (no run starts: do not wait for ``agent_settled``), queued into the
active run, or started a run."""

BUSY_MESSAGE = "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."
COMPACTING_MESSAGE = "Cannot submit a prompt while compaction is in progress. Wait for compaction to finish and retry."


class AgentSession:
    """The agent of one session: prompting, queues, retries, compaction and persistence.

    Listeners (``subscribe``) receive every event synchronously, in subscription order:
    the agent's events (``agent_end`` with ``willRetry``) and the session's own.
    """

    def __init__(
        self,
        *,
        agent_setup: AgentSetup,
        session_manager: SessionManager,
        settings: Settings,
        catalog: ModelCatalog,
        cwd: str,
        prompt_sections: SectionsBuilder,
        spare_tools: SpareTools | None = None,
        bin_dir: str | None = None,
        scoped_models: Sequence[ScopedModel] = (),
        expand_input: Callable[[str], str] | None = None,
        commands: Sequence[SlashCommand] = (),
        default_tool_names: Sequence[str] = (),
        mcp: McpManager | None = None,
    ) -> None:
        """``prompt_sections``: the system prompt's sections for the active tools; ``spare_tools``:
        the built-in tools the run may have but did not start with, made when first needed."""
        self.session_manager = session_manager
        self.default_tool_names = list(default_tool_names)
        """What ``defaultTools`` contributed to the tools this session started with (``/reload``
        turns on the names a new session built after it newly has)."""
        self.settings = settings
        self.catalog = catalog
        self.cwd = cwd
        self.ui: ExtensionUI = NoExtensionUI()
        """The mode's UI (set by ``AgentSessionRuntime.bind_ui``), for what the session itself tells the user."""
        self.ui_mode: UiMode = "print"
        self._listeners = Listeners()
        self._run_active = False
        self._abort_requested = False
        """``abort`` was called during the current run: it stops there (``agent_settled.aborted``)."""
        self._idle_waiters: list[asyncio.Future[None]] = []
        self._last_assistant: AssistantMessage | None = None
        self._expand_input = expand_input
        self._commands = list(commands)
        self.agent = agent = build_agent(agent_setup, lambda: self._extensions.runner, self._before_next_turn)
        self.mcp = mcp
        """The run's MCP servers (``None``: no MCP, ``--no-mcp``); their ``direct`` tools join the session's."""
        self.builtin_mcp = mcp is not None
        """The built-in MCP support is on (``/mcp`` answers), even without servers to connect."""
        self._tools = SessionTools(
            agent, prompt_sections, lambda: self._extensions.runner, spare_tools,
            mcp_tools=mcp.direct_tools if mcp is not None else None,
            mcp_loadable=mcp.indirect_agent_tools if mcp is not None else None,
            mcp_listed=mcp.listed_tools if mcp is not None else None,
        )  # fmt: skip
        self._tools.namespace_of = self.tool_namespace
        self._mcp_warning: str | None = None
        """Said at the first prompt: MCP tools no tool can reach (neither codemode nor tool_search is on)."""
        self._extensions = ExtensionBinding(
            agent=agent, session_manager=session_manager, catalog=catalog, tools=self._tools, emit=self._emit,
            is_running=self._is_running, run_prompt=self._run_agent_prompt,
        )  # fmt: skip
        self._models = ModelControl(
            agent=agent, session_manager=session_manager, settings=settings, catalog=catalog,
            model=agent_setup.model, scoped_models=scoped_models, emit=self._emit, extensions=self._extensions,
        )  # fmt: skip
        self._queue = PromptQueue(agent, self._emit)
        self._retry = AutoRetry(agent, settings, self._current_model, self._emit, self._omit_recovery_attempt)
        compaction = CompactionContext(
            agent, session_manager, settings, self._current_model, self._emit, self._resolve_idle_if_idle, self._extensions
        )
        self._compactor = AutoCompactor(compaction)
        self._manual_compaction = ManualCompaction(compaction, self.abort)
        tree = TreeContext(
            agent, session_manager, settings, self._current_model, self._is_running, self._emit,
            self._resolve_idle_if_idle, self._extensions, self.restore_loadout_from_transcript,
        )  # fmt: skip
        self._tree = TreeNavigation(tree)
        self._stats = SessionStatistics(session_manager, lambda: self.messages, self._current_model)
        self._bash = UserBash(
            agent=agent, session_manager=session_manager, settings=settings, bin_dir=bin_dir,
            is_running=self._is_running, emit=self._emit, extensions=self._extensions,
        )  # fmt: skip
        self._switches = SessionSwitches(agent, settings)
        self._unsubscribe = agent.subscribe(self._handle_agent_event)
        self._forced_prompt = False

    # ------------------------------------------------------------------ state

    def system_messages_in_place(self) -> bool:
        """Whether the transcript's system messages go to the model as they stand (its compat has
        ``supportsMidConvoSystemMessages``) rather than as the request's prompt and tools. Not while
        a ``before_agent_start`` handler's prompt replaces the run's prompt."""
        model = self._models.model
        return model is not None and takes_system_messages_in_place(model) and not self._forced_prompt

    def _current_model(self) -> Model | None:
        return self._models.model

    def _is_running(self) -> bool:
        return self._run_active

    @property
    def model(self) -> Model | None:
        return self._models.model

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
    def scoped_models(self) -> list[ScopedModel]:
        """Models ``cycle_model`` goes through (``--models`` / ``enabledModels``); empty: all."""
        return self._models.scoped_models

    @scoped_models.setter
    def scoped_models(self, models: Sequence[ScopedModel]) -> None:
        self._models.scoped_models = list(models)

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
        return self._compactor.running or self._manual_compaction.running or self._tree.summarizing

    @property
    def is_idle(self) -> bool:
        return not self._run_active and not self.is_compacting

    @property
    def is_retrying(self) -> bool:
        return self._retry.waiting

    @property
    def retry_attempt(self) -> int:
        return self._retry.attempt

    def available_commands(self) -> list[SlashCommand]:
        """The ``/name`` commands a prompt may start with: extension commands, prompt templates, then skills."""
        runner = self._extensions.runner
        if runner is None:
            return list(self._commands)
        own = [SlashCommand(c.invocation_name, c.description, "extension", c.extension_path) for c in runner.commands()]
        return own + self._commands

    def set_commands(self, commands: Sequence[SlashCommand]) -> None:
        """The prompt-template and skill commands (after an extension added resources)."""
        self._commands = list(commands)

    def subscribe(self, listener: AgentSessionEventListener) -> Callable[[], None]:
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
        cleanup_session_resources(self.session_id)  # e.g. where its Anthropic thread can continue

    def _emit(self, event: AgentSessionEvent) -> None:
        self._listeners.emit(event)
        if isinstance(event, SessionInfoChangedEvent):
            self._extensions.session_info_changed(event.name)

    # ------------------------------------------------------------------ queues

    @property
    def pending_message_count(self) -> int:
        return self._queue.pending_count

    def get_steering_messages(self) -> list[str]:
        return self._queue.steering_texts()

    def get_follow_up_messages(self) -> list[str]:
        return self._queue.follow_up_texts()

    def _expand(self, text: str) -> str:
        return self._expand_input(text) if self._expand_input is not None else text

    async def steer(
        self, text: str, images: Sequence[ImageContent] | None = None, *, source: str = "interactive"
    ) -> QueuedInputDisposition:
        """Queue a message delivered after the current turn's tool calls, before the next model call."""
        return await self._queue_input(text, images, "steer", source)

    async def follow_up(
        self, text: str, images: Sequence[ImageContent] | None = None, *, source: str = "interactive"
    ) -> QueuedInputDisposition:
        """Queue a message delivered once the agent has nothing else to do."""
        return await self._queue_input(text, images, "followUp", source)

    async def _queue_input(
        self, text: str, images: Sequence[ImageContent] | None, behaviour: StreamingBehavior, source: str
    ) -> QueuedInputDisposition:
        """Pi's order: an extension command is refused (it cannot wait in a queue), ``input``
        handlers see the text (``source``; Pi 1.6), then skills and templates are expanded."""
        self._extensions.refuse_command(text)
        accepted = await self._extensions.input(text, images, source, behaviour if self._run_active else None)
        if accepted is None:
            return "handled"
        text, images = accepted
        if behaviour == "steer":
            self._queue.steer(self._expand(text), images)
        else:
            self._queue.follow_up(self._expand(text), images)
        return "queued"

    def clear_queue(self) -> tuple[list[str], list[str]]:
        """Drop every queued message; returns the (steering, follow-up) texts that were waiting."""
        return self._queue.clear()

    # ------------------------------------------------------------------ agent events

    def _handle_agent_event(self, event: AgentEvent, signal: AbortSignal) -> Awaitable[None] | None:
        if isinstance(event, MessageStartEvent) and event.message.role == "user":
            self._compactor.overflow_recovery_attempted = False
            self._queue.dequeue(event.message)
        if self._extensions.wants(event):
            return self._handle_after_extensions(event)
        self._deliver_agent_event(event)
        return None

    async def _handle_after_extensions(self, event: AgentEvent) -> None:
        await self._extensions.deliver(event)
        self._deliver_agent_event(event)

    def _deliver_agent_event(self, event: AgentEvent) -> None:
        """Listeners, then persistence (after extensions had the event, as in Pi)."""
        if isinstance(event, AgentEndEvent):
            self._emit(SessionAgentEndEvent(event.messages, self._retry.will_retry(event)))
        else:
            self._emit(event)
        if isinstance(event, MessageEndEvent):
            self._settle_message(event.message)
        self._extensions.count_turn(event)

    def _omit_recovery_attempt(self, message: AssistantMessage) -> None:
        omit_recovery_attempt(self.agent, self.session_manager, message, self._emit)

    def _settle_message(self, message: AgentMessage) -> None:
        persist_message(self.session_manager, message)
        if isinstance(message, AssistantMessage):
            self._last_assistant = message
            if message.stop_reason not in ("error", "length"):
                self._compactor.overflow_recovery_attempted = False
            self._retry.answered(message)

    async def _before_next_turn(self, turn: TurnContext, signal: AbortSignal | None) -> AgentLoopTurnUpdate | None:
        """The agent's turn hook: the auto-compactor's threshold check between turns, then tools
        that changed since the last turn."""
        update = await self._compactor.before_next_turn(turn, signal)
        return self._tools_update(update.context if update is not None and update.context else turn.context) or update

    def _tools_update(self, context: AgentContext) -> AgentLoopTurnUpdate | None:
        """When the tools changed during the run (an extension's ``set_active_tools``, an MCP server
        that connected or announced a new list), the next turn declares them: a system message with
        the change opens the next turn (streamed, then kept in the context and the session file like
        any message), as Pi 1.6 re-diffs before every turn."""
        servers_changed = self.mcp.take_tools_changed() if self.mcp is not None else False
        if not (self._tools.take_changed() or servers_changed):
            return None
        self._tools.refresh()
        system = self._tools.system_update(context.messages)
        if system is None:
            return None
        self._tools.use_transcript([*context.messages, system])
        state = self.agent.state
        return AgentLoopTurnUpdate(
            context=AgentContext(system_prompt=state.system_prompt, messages=context.messages, tools=list(state.tools)),
            messages=[system],
        )

    # ------------------------------------------------------------------ prompting

    async def prompt(
        self,
        text: str,
        images: Sequence[ImageContent] | None = None,
        *,
        streaming_behavior: StreamingBehavior | None = None,
        on_accepted: Callable[[PromptDisposition], None] | None = None,
        expand_prompt_templates: bool = True,
        source: str = "interactive",
    ) -> None:
        """Send a user message and run until the agent (and any retries) settle.

        While a run is active the message is queued instead (``streaming_behavior``
        ``"steer"`` or ``"followUp"``; without one that is an error). ``on_accepted`` is
        called with the disposition once the message was handled, queued or accepted,
        before the run starts. Raises
        ``SessionError`` before anything is sent when a run is active without a streaming
        behaviour, a manual compaction runs, no model is selected, or the model's provider
        has no credentials. Pi's order: an extension command runs at once (even during a
        run); then the ``input`` event may transform or handle the text; then
        ``/skill:name`` and prompt-template commands are expanded (``expand_input``);
        ``before_agent_start`` may add messages and change the system prompt.
        ``source`` (``interactive``, ``rpc``, ``extension``) is what ``input`` handlers see.
        """
        accepted = on_accepted or (lambda disposition: None)
        if expand_prompt_templates and text.startswith("/") and await self._extensions.run_command(text):
            accepted("handled")
            return
        if expand_prompt_templates and await self._builtin_extension_command(text):
            accepted("handled")
            return
        if self._manual_compaction.running:
            raise SessionError(COMPACTING_MESSAGE)
        taken = await self._extensions.input(text, images, source, streaming_behavior if self._run_active else None)
        if taken is None:
            accepted("handled")
            return
        text, images = taken
        if expand_prompt_templates:
            text = self._expand(text)
        if self._run_active:
            self._queue_during_run(text, images, streaming_behavior)
            accepted("queued")
            return
        messages = await self._prepare_run(text, images)
        accepted("started")
        await self._run_agent_prompt(messages)

    async def _builtin_extension_command(self, text: str) -> bool:
        """Commands of Pi 1.6's built-in extensions that reach the session (an extension's
        command of the same name ran before): ``/mcp`` (see ``_mcp_command``) while MCP is on,
        and ``/llama`` outside the terminal UI, which answers with a warning instead of letting
        it reach the model. ``False`` for any other text."""
        from pi_coding_agent.core.local_model import LLAMA_COMMAND

        if self.builtin_mcp and text.split(" ", 1)[0] == "/mcp":
            # Imported only for /mcp: its texts load the MCP package, which a run without
            # mcp.json never loads (tests/pi_coding_agent/e2e/test_optional_extras_not_loaded.py).
            from pi_coding_agent.runtime.agent_session._mcp_command import run_mcp_command

            await run_mcp_command(self.mcp, text[len("/mcp") :], self.ui, has_ui=self.ui_mode in ("rpc", "tui"))
            return True
        name = LLAMA_COMMAND[0]
        if self.ui_mode == "tui" or text.split(" ", 1)[0] != f"/{name}":
            return False
        self.ui.notify(f"/{name} is available in interactive mode", "warning")
        return True

    def _queue_during_run(
        self, text: str, images: Sequence[ImageContent] | None, streaming_behavior: StreamingBehavior | None
    ) -> None:
        if streaming_behavior is None:
            raise SessionError(BUSY_MESSAGE)
        if streaming_behavior == "followUp":
            self._queue.follow_up(text, images)
        else:
            self._queue.steer(text, images)

    async def _prepare_run(self, text: str, images: Sequence[ImageContent] | None) -> list[AgentMessage]:
        """The messages a new run starts with; what waited for it goes in first, and the
        context is compacted if the last answer calls for it."""
        self._bash.flush_pending()
        self._extensions.flush_pending_custom()
        model = self.model
        if model is None:
            raise SessionError(NO_MODEL_MESSAGE)
        if not self.catalog.has_auth(model.provider):
            raise SessionError(missing_key_message(model.provider))
        last_answer = next((m for m in reversed(self.messages) if isinstance(m, AssistantMessage)), None)
        if last_answer is not None:
            await self._compactor.check(last_answer, skip_aborted=False)
        await self._wait_for_mcp()
        await self._settle_loadout()
        messages: list[AgentMessage] = [user_message(text, images), *self._extensions.pending_next_turn]
        self._extensions.pending_next_turn = []
        base_prompt = self._tools.base_system_prompt
        self.agent.state.system_prompt = base_prompt
        added, system_prompt = await self._extensions.before_agent_start(
            text, images, base_prompt, self.system_prompt_options()
        )
        update = self._tools.system_update(self.messages)
        start: list[AgentMessage] = [update] if update is not None else []
        self._tools.use_transcript([*self.messages, *start])
        self._forced_prompt = system_prompt is not None
        if system_prompt is not None:
            self.agent.state.system_prompt = system_prompt
        return start + messages + added

    async def _settle_loadout(self) -> None:
        """Before a run's request: the ``prepare_loadout`` answers of TypeScript tools (asked of
        Node in the background whenever the loadout changes) are in."""
        runner = self._extensions.runner
        if runner is None or not any(definition.prepare_loadout is not None for definition, _ in runner.tools()):
            return
        self._tools.refresh()
        await runner.settle()

    async def _wait_for_mcp(self) -> None:
        """Before a run: the first one waits (up to ten seconds) for MCP servers with ``direct``
        tools, so they are declared in its request; every run declares the tools connected by now."""
        if self.mcp is None:
            return
        from pi_coding_agent.core.mcp.manager import STILL_CONNECTING

        await self.mcp.reconnect_signed_in()  # signed in elsewhere (pi mcp login) since
        if not await self.mcp.wait_for_direct():
            self.ui.notify(STILL_CONNECTING, "info")
        if self._mcp_warning is not None:
            self.ui.notify(self._mcp_warning, "warning")
            self._mcp_warning = None
        problems = self.mcp.take_problems()
        if problems:
            self.ui.notify(problems, "warning")
        section = self.mcp.servers_section()
        self._tools.extra_sections = {"mcp_servers": f"<mcp_servers>\n{section}\n</mcp_servers>"} if section else {}
        self._tools.refresh()

    def attach_mcp(self, mcp: McpManager) -> None:
        """The run's MCP servers, made once this session runs: an extension registered the run's
        first server after start-up (in ``session_start`` or a command), as Pi 1.6 allows. Their
        tools are declared from the next turn, and ``/mcp`` and the ``mcp_servers`` section of the
        next prompt use them. A session that has servers keeps them."""
        if self.mcp is not None:
            return
        self.mcp = mcp
        self.builtin_mcp = True
        self._tools.use_mcp(mcp.direct_tools, mcp.indirect_agent_tools, mcp.listed_tools)
        self.activate_mcp_discovery()

    def activate_mcp_discovery(self) -> None:
        """Turn on what reaches MCP tools that are not declared, from the configuration (before
        any server connects), as Pi 1.6 does: ``codemode`` for servers with ``codemode`` tools
        (unless ``autoEnableCodemode`` is false), ``tool_search`` for ``deferred`` ones. When
        neither ends up active, the first prompt warns that those tools cannot be called."""
        if self.mcp is None:
            return
        needs = self.mcp.indirect_exposures()
        if not needs:
            return
        auto = self.mcp.config.auto_enable_codemode is not False
        has_codemode, has_search = self._tools.declares_reach("codemode"), self._tools.declares_reach("tool_search")
        active = self._tools.active_tool_names()
        wanted = [
            name
            for name, wanted in (("codemode", "codemode" in needs and has_codemode and auto), ("tool_search", "deferred" in needs and has_search))
            if wanted and name not in active
        ]
        if wanted:
            self._tools.set_active_tools([*active, *wanted])
        reachable = self._tools.active_tool_names()
        if (has_codemode and "codemode" in reachable) or (has_search and "tool_search" in reachable):
            return
        reason = " (autoEnableCodemode is false)" if "codemode" in needs and has_codemode and not auto else ""
        self._mcp_warning = (
            "Some MCP tools can only be reached through the codemode or tool_search tool, and neither is"
            f" turned on{reason}: they cannot be called."
        )

    def tool_search_candidates(self) -> list[Candidate]:
        """The tools ``tool_search`` may load: extension and MCP tools with ``codemode`` or
        ``deferred`` exposure that are not active."""
        from pi_coding_agent.core.tool_search import Candidate

        active = set(self._tools.active_tool_names())
        found = [
            Candidate(tool.name, tool.description, tool.parameters)
            for tool in self._tools.indirect_extension_tools()
            if tool.name not in active
        ]
        mcp = self.mcp
        if mcp is None:
            return found
        taken = {candidate.name for candidate in found}
        return found + [
            Candidate(info.name, info.description, info.parameters, mcp.namespace_text(info.server) if info.server else "")
            for info in mcp.indirect_tools()
            if info.name not in active and info.name not in taken
        ]

    async def _run_agent_prompt(self, messages: list[AgentMessage]) -> None:
        self._run_active = True
        self._abort_requested = False
        try:
            await self.agent.prompt(messages)
            while await self._handle_post_agent_run():
                await self.agent.continue_()
        finally:
            self._bash.flush_pending()
            self._run_active = False
            aborted, self._abort_requested = self._abort_requested, False
            await self._extensions.settled(aborted)
            try:
                self._emit(AgentSettledEvent(aborted))
            finally:
                self._resolve_idle_if_idle()

    async def _handle_post_agent_run(self) -> bool:
        """After the agent stopped: whether it continues (a retry, a compaction's retry, queued messages)."""
        message, self._last_assistant = self._last_assistant, None
        if self._abort_requested:  # an aborted run stops: no retry, compaction or queued message follows (Pi 1.6)
            return False
        if message is None:
            return False
        if self._retry.is_retryable(message) and await self._retry.prepare(message):
            return True
        self._retry.gave_up(message)
        if await self._compactor.check(message):
            return True
        return self.agent.has_queued_messages()

    # ------------------------------------------------------------------ compaction and export

    async def compact(self, custom_instructions: str | None = None) -> dict[str, Any]:
        """Stop any run and compact the branch now (``compaction_start``/``_end`` with ``manual``).

        Returns the result as Pi reports it (``summary``, ``firstKeptEntryId``,
        ``tokensBefore``, ``estimatedTokensAfter``, ``usage``, ``details``); raises
        ``CompactionError`` when there is nothing to compact or the summary failed.
        """
        return await self._manual_compaction.run(custom_instructions)

    async def export_to_html(self, output_path: str | None = None, *, palette: Mapping[str, str] | None = None) -> str:
        """Write the session as one self-contained HTML page; returns its path.

        Without ``output_path``: ``pi-session-<session file name>.html`` in the current directory.
        The page takes ``palette``'s colours (the interactive mode's theme on its terminal);
        without it, those of the ``theme`` setting where no terminal was asked (Pi 1.6's rule).
        """
        from pi_coding_agent.core.export import export_session
        from pi_coding_agent.customize.themes import export_palette_for_setting

        if palette is None:
            palette = export_palette_for_setting(self.settings.get("theme"))
        tools = [{"name": t.name, "description": t.description, "parameters": t.parameters} for t in self.agent.state.tools]
        return export_session(
            self.session_manager, output_path, palette=palette, system_prompt=self.system_prompt, tools=tools
        )

    # ------------------------------------------------------------------ stopping and waiting

    def abort_retry(self) -> None:
        """Cancel the backoff of an automatic retry (the run then ends with the error).

        ``auto_retry_end`` is emitted right here, before this returns, as Pi's order of events
        has it (before the answer to RPC ``abort_retry``).
        """
        self._retry.abort()

    def abort_compaction(self) -> None:
        self._compactor.abort()
        self._manual_compaction.abort()

    def abort_branch_summary(self) -> None:
        self._tree.abort_branch_summary()

    async def abort(self) -> None:
        """Stop the run (model call, tools, retry backoff, compaction, branch summary); wait until idle."""
        if self._run_active:
            self._abort_requested = True
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

    # ------------------------------------------------------------------ model and thinking (``_model_control``)

    def available_models(self) -> list[Model]:
        """Every model whose provider has credentials, in catalog order."""
        return self._models.available_models()

    async def set_model(self, model: Model, *, persist: bool = False) -> None:
        """Switch to ``model`` (``persist``: also make it the default in settings)."""
        await self._models.set_model(model, persist=persist)

    async def cycle_model(self, direction: Direction = "forward", *, persist: bool = False) -> ModelCycleResult | None:
        """The next model (of the scoped list when there is one); ``None`` with fewer than two."""
        return await self._models.cycle_model(direction, persist=persist)

    def set_model_from_extension(self, model: Model) -> bool:
        return self._models.set_model_from_extension(model)

    @property
    def supports_thinking(self) -> bool:
        return self._models.supports_thinking

    def available_thinking_levels(self) -> list[str]:
        """The levels the model accepts (``["off"]`` without reasoning; all without a model)."""
        return self._models.available_thinking_levels()

    def set_thinking_level(self, level: str, *, persist: bool = False) -> None:
        """Clamp ``level`` to the model; record and announce it only when it changes."""
        self._models.set_thinking_level(level, persist=persist)

    def cycle_thinking_level(self, *, persist: bool = False) -> str | None:
        """The next supported level; ``None`` when the model does not reason."""
        return self._models.cycle_thinking_level(persist=persist)

    # ------------------------------------------------------------------ queue modes and switches (``_switches``)

    @property
    def steering_mode(self) -> QueueMode:
        return self._switches.steering_mode

    @property
    def follow_up_mode(self) -> QueueMode:
        return self._switches.follow_up_mode

    def set_steering_mode(self, mode: QueueMode) -> None:
        """``"all"``: every queued steering message at once; ``"one-at-a-time"``: one per turn."""
        self._switches.set_steering_mode(mode)

    def set_follow_up_mode(self, mode: QueueMode) -> None:
        self._switches.set_follow_up_mode(mode)

    @property
    def auto_compaction_enabled(self) -> bool:
        return self._switches.auto_compaction_enabled

    def set_auto_compaction_enabled(self, enabled: bool) -> None:
        self._switches.set_auto_compaction_enabled(enabled)

    @property
    def auto_retry_enabled(self) -> bool:
        return self._switches.auto_retry_enabled

    def set_auto_retry_enabled(self, enabled: bool) -> None:
        self._switches.set_auto_retry_enabled(enabled)

    # ------------------------------------------------------------------ the tree (``_tree``)

    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool = False,
        custom_instructions: str | None = None,
        replace_instructions: bool = False,
        label: str | None = None,
    ) -> NavigationResult:
        """Move the leaf to ``target_id`` (see ``_tree``)."""
        return await self._tree.navigate_tree(
            target_id, summarize=summarize, custom_instructions=custom_instructions,
            replace_instructions=replace_instructions, label=label,
        )  # fmt: skip

    def set_label(self, entry_id: str, label: str | None) -> None:
        """Label an entry of the tree (``None`` or ``""`` removes its label)."""
        self._tree.set_label(entry_id, label)

    def set_session_name(self, name: str) -> None:
        """Set the display name (recorded as a ``session_info`` entry; announced)."""
        self._tree.set_session_name(name)

    # ------------------------------------------------------------------ statistics (``_stats``)

    def get_session_stats(self) -> SessionStats:
        return self._stats.get_session_stats()

    def get_context_usage(self) -> ContextUsage | None:
        """The estimated context size; ``None`` without a model or a context window."""
        return self._stats.get_context_usage()

    def get_last_assistant_text(self) -> str | None:
        """The text of the latest answer (an aborted answer without content does not count)."""
        return self._stats.get_last_assistant_text()

    def get_user_messages_for_forking(self) -> list[ForkPoint]:
        """Every user message of the file with text, in file order (any branch)."""
        return self._stats.get_user_messages_for_forking()

    # ------------------------------------------------------------------ user bash (``_user_bash``)

    @property
    def is_bash_running(self) -> bool:
        return self._bash.is_bash_running

    @property
    def has_pending_bash_messages(self) -> bool:
        return self._bash.has_pending_bash_messages

    async def execute_bash(
        self,
        command: str,
        *,
        exclude_from_context: bool | None = None,
        on_chunk: Callable[[str], None] | None = None,
        id: str | None = None,
        operations: BashOperations | None = None,
    ) -> BashResult:
        """Run a user command (``!cmd``; ``!!cmd`` with ``exclude_from_context``) and record it (see ``_user_bash``)."""
        return await self._bash.execute_bash(
            command, exclude_from_context=exclude_from_context, on_chunk=on_chunk, id=id, operations=operations
        )

    def abort_bash(self) -> None:
        """Cancel every running user command (their process groups are killed)."""
        self._bash.abort_bash()

    def record_bash_result(
        self, command: str, result: BashResult, *, exclude_from_context: bool | None = None
    ) -> BashExecutionMessage:
        """Add a user bash run to the conversation: now when idle, after the run otherwise."""
        return self._bash.record_bash_result(command, result, exclude_from_context=exclude_from_context)

    # ------------------------------------------------------------------ tools (``_tools``)

    def all_tools(self) -> list[AgentTool]:
        """Built-in tools, then extension tools (an extension tool named like a built-in replaces
        it), then every MCP tool whatever its exposure, as Pi 1.6's ``getAllTools()``."""
        return self._tools.listed_tools()

    async def wait_for_reached_servers(self, name: str, args: dict[str, Any]) -> None:
        """Before an extension tool that declares ``reaches_tools`` runs: wait for the MCP servers
        still connecting that the call may reach (all of them for ``"all"``, else those whose
        ``mcp__<server>`` a word of the answer contains), as Pi 1.6's MCP support does."""
        reaching = self._tools.reaching(name) if self.mcp is not None else None
        if reaching is None or self.mcp is None:
            return
        reaches, path = reaching
        try:
            reach = reaches(args)
            if inspect.isawaitable(reach):
                reach = await reach
        except Exception as error:  # an extension's function must not break the call
            runner = self._extensions.runner
            if runner is not None:
                runner.report(path, "reaches_tools", error)
            return
        words = None if reach == "all" else [str(word) for word in reach] if isinstance(reach, (list, tuple)) else []
        await self.mcp.wait_for_all(reach=words)

    def hidden_declarations(self) -> frozenset[str]:
        """Active tools whose declarations requests leave out (``prepare_loadout`` hooks,
        codemode's ``only`` mode); the transcript still declares them."""
        return self._tools.hidden

    def tool_namespace(self, name: str) -> dict[str, Any] | None:
        """A tool's group as Pi 1.6 reports it: an extension tool's own ``namespace``; for an MCP
        tool its server's, ``{"name": "mcp__<server>", "aliases": [<server>], "description"?,
        "instructions"?}``."""
        own = self._tools.extension_namespace(name)
        if own is not None or self.mcp is None:
            return own
        info = self.mcp.tool_owner(name)
        if info is None:
            return None
        from pi_coding_agent.core.mcp.config import mcp_namespace

        description, instructions = self.mcp.server_about(info.server)
        group: dict[str, Any] = {"name": mcp_namespace(info.server), "aliases": [info.server]}
        if description:
            group["description"] = description
        if instructions:
            group["instructions"] = instructions
        return group

    def active_tool_names(self) -> list[str]:
        return self._tools.active_tool_names()

    def codemode_callable_tools(self) -> list[AgentTool]:
        """The tools ``codemode`` scripts may call: the active ones, before codemode's loadout
        rewords or hides them, then MCP's ``codemode`` and ``deferred`` tools."""
        callable_tools = self._tools.callable_tools()
        if self.mcp is None:
            return callable_tools
        names = {tool.name for tool in callable_tools}
        return callable_tools + [tool for tool in self.mcp.indirect_agent_tools() if tool.name not in names]

    def set_active_tools(self, names: Sequence[str]) -> None:
        self._tools.set_active_tools(names)

    def activate_after_reload(self, names: Sequence[str]) -> None:
        """These tools, then every extension tool the run allows (Pi 1.6's reload); then, as
        Pi 1.6's MCP extension does on every session start, ``codemode``/``tool_search`` again
        for the MCP servers that need them, even when they had been turned off."""
        self._tools.activate_after_reload(names)
        self.activate_mcp_discovery()

    def refresh_tools(self) -> None:
        """Put the active tools on the agent and rebuild the system prompt from them."""
        self._tools.refresh()

    def restore_loadout_from_transcript(self, modifiers: Sequence[str] = ()) -> None:
        """Activate the tools the context's ``system`` messages declare, if any, with ``modifiers``
        (``--tools +name`` / ``-name``) applied on top. The context, not the whole branch: its
        messages are decoded already (walking a long branch would double the resume time), and a
        compaction's checkpoint replays to the same tools."""
        self._tools.restore_from_transcript(self.agent.state.messages, modifiers)

    def system_prompt_options(self) -> dict[str, Any]:
        return self._tools.system_prompt_options(self.cwd)

    # ------------------------------------------------------------------ extensions (``_extensions``)

    @property
    def extensions(self) -> ExtensionRunner | None:
        return self._extensions.runner

    def restrict_tools(self, selection: ToolSelection | None) -> None:
        """Which tools that join later (extension and MCP tools) may exist and start active."""
        self._tools.restrict(selection)

    def bind_extensions(self, runner: ExtensionRunner, selection: ToolSelection | None = None) -> None:
        """Let ``runner``'s extensions act on this session; ``selection``: which of their tools
        may exist and start active (``--tools``, ``--exclude-tools``, ``--no-tools``)."""
        self._extensions.bind(runner, self, selection)

    async def send_custom_message(self, message: CustomRoleMessage, *, deliver_as: str | None, trigger_turn: bool | None) -> None:
        """Pi's ``sendCustomMessage`` delivery rules."""
        await self._extensions.send_custom_message(message, deliver_as=deliver_as, trigger_turn=trigger_turn)

    async def send_user_message(
        self, text: str, images: Sequence[ImageContent] | None, *, deliver_as: str | None, expand: bool
    ) -> None:
        behaviour = cast(StreamingBehavior | None, deliver_as)  # passed on as given, as Pi does
        await self.prompt(text, images, streaming_behavior=behaviour, expand_prompt_templates=expand, source="extension")

    @property
    def current_signal(self) -> AbortSignal | None:
        return self.agent.signal

    def available_commands_for_extensions(self) -> list[dict[str, Any]]:
        return [
            {"name": c.name, "description": c.description, "source": c.source, "path": c.path}
            for c in self.available_commands()
        ]
