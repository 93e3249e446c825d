"""The session side of extensions: binding a runner, and the events the session tells it.

``bind(runner)`` connects a loaded ``ExtensionRunner``: the session becomes the runner's
host (what ``pi.*`` / ``ctx.*`` call), providers it registered join the catalog, its tools
join the tool list (and the system prompt). The agent's hooks that consult extensions were
built with the agent (``_hooks``) and read ``runner`` when called. Agent events go to
extensions before the session's listeners see them and before they are stored (Pi's
order), so a ``message_end`` replacement is what is persisted.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from pi_agent import (
    Agent,
    AgentEvent,
    AgentMessage,
    MessageEndEvent,
    MessageStartEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from pi_ai import ImageContent, Model, now_ms
from pi_coding_agent.core.messages import CustomRoleMessage
from pi_coding_agent.core.model_registry import ModelCatalog
from pi_coding_agent.core.session import BranchSummaryEntry, SessionManager
from pi_coding_agent.core.settings import ToolSelection
from pi_coding_agent.customize.extensions import (
    ExtensionHost,
    ExtensionRunner,
    ModelSelectEvent,
    ThinkingLevelSelectEvent,
)
from pi_coding_agent.customize.extensions import TurnEndEvent as ExtensionTurnEnd
from pi_coding_agent.customize.extensions import TurnStartEvent as ExtensionTurnStart
from pi_coding_agent.runtime.agent_session._events import AgentSessionEvent, EntryAppendedEvent
from pi_coding_agent.runtime.agent_session._hooks import result_field
from pi_coding_agent.runtime.agent_session._parts import SessionError
from pi_coding_agent.runtime.agent_session._tools import SessionTools
from pi_coding_agent.runtime.agent_session._tree import BranchSummaryOutcome

if TYPE_CHECKING:
    from pi_coding_agent.core.compaction import CompactionPreparation, CompactionResult


class ExtensionBinding:
    """The extensions bound to one session (none until ``bind``)."""

    def __init__(
        self,
        *,
        agent: Agent,
        session_manager: SessionManager,
        catalog: ModelCatalog,
        tools: SessionTools,
        emit: Callable[[AgentSessionEvent], None],
        is_running: Callable[[], bool],
        run_prompt: Callable[[list[AgentMessage]], Awaitable[None]],
    ) -> None:
        self._agent = agent
        self._manager = session_manager
        self._catalog = catalog
        self._tools = tools
        self._emit = emit
        self._is_running = is_running
        self._run_prompt = run_prompt
        self.runner: ExtensionRunner | None = None
        self._pending_custom: list[CustomRoleMessage] = []
        self.pending_next_turn: list[AgentMessage] = []
        """Custom messages sent with ``deliver_as="nextTurn"``: they go with the next prompt."""
        self._turn_index = 0

    def bind(self, runner: ExtensionRunner, host: ExtensionHost, selection: ToolSelection | None) -> None:
        self.runner = runner
        self._tools.restrict(selection)
        runner.bind_host(host)
        runner.on_entry_appended = lambda entry: self._emit(EntryAppendedEvent(entry))
        for name, config in runner.pending_providers:
            self._catalog.register_provider(name, config)
        runner.pending_providers.clear()
        self._tools.refresh()

    def _handling(self, event_type: str) -> ExtensionRunner | None:
        runner = self.runner
        return runner if runner is not None and runner.has_handlers(event_type) else None

    # ------------------------------------------------------------------ agent events

    def wants(self, event: AgentEvent) -> bool:
        """Whether a handler waits for ``event`` (the session then delivers it after them)."""
        return self._handling(event.type) is not None

    async def deliver(self, event: AgentEvent) -> None:
        runner = self.runner
        if runner is None:
            return
        if type(event) is MessageEndEvent and runner.has_handlers("message_end"):
            replacement = await runner.emit_message_end(event)
            if replacement is not None:
                _replace_in_place(event.message, replacement)
            return
        forwarded = self._as_extension_event(event, runner)
        if forwarded is not None:
            await runner.emit(forwarded)

    def _as_extension_event(self, event: AgentEvent, runner: ExtensionRunner) -> Any:
        """The event as extensions see it (turn events carry ``turn_index``); ``None`` if unhandled."""
        kind = type(event)
        if kind is TurnStartEvent:
            if not runner.has_handlers("turn_start"):
                return None
            return ExtensionTurnStart("turn_start", self._turn_index, int(time.time() * 1000))
        if kind is TurnEndEvent:
            if not runner.has_handlers("turn_end"):
                return None
            assert isinstance(event, TurnEndEvent)
            return ExtensionTurnEnd("turn_end", self._turn_index, event.message, list(event.tool_results))
        return event if runner.has_handlers(event.type) else None

    def count_turn(self, event: AgentEvent) -> None:
        """Turn numbers for extensions; custom messages that waited for a turn's end go in."""
        if self.runner is None:
            return
        if event.type == "agent_start":
            self._turn_index = 0
        elif type(event) is TurnEndEvent:
            self._turn_index += 1
            self.flush_pending_custom()

    def session_info_changed(self, name: str | None) -> None:
        if self.runner is not None:
            from pi_coding_agent.customize.extensions import SessionInfoChangedEvent

            self.runner.emit_soon(SessionInfoChangedEvent("session_info_changed", name))

    # ------------------------------------------------------------------ prompting

    async def run_command(self, text: str) -> bool:
        """Run ``/name args`` when ``name`` is an extension command; ``False`` when it is not one."""
        from pi_coding_agent.customize.extensions import CommandContext, call_handler

        runner = self.runner
        if runner is None:
            return False
        name, _, args = text[1:].partition(" ")
        command = runner.get_command(name)
        if command is None:
            return False
        try:
            await call_handler(command.handler, args, CommandContext(runner))
        except Exception as error:
            runner.report(f"command:{name}", "command", error)
        return True

    async def input(
        self, text: str, images: Sequence[ImageContent] | None, source: str, behaviour: str | None
    ) -> tuple[str, Sequence[ImageContent] | None] | None:
        """The ``input`` event: the text and images to go on with, or ``None`` when a handler
        handled the input (nothing is sent or queued)."""
        runner = self._handling("input")
        if runner is None:
            return text, images
        decision = await runner.emit_input(text, list(images) if images else None, source, behaviour)
        if decision["action"] == "handled":
            return None
        if decision["action"] == "transform":
            return decision["text"], decision["images"]
        return text, images

    def refuse_command(self, text: str) -> None:
        """Raise Pi's error when ``text`` names an extension command: one cannot be queued."""
        runner = self.runner
        name = text[1:].partition(" ")[0]
        if text.startswith("/") and runner is not None and runner.get_command(name) is not None:
            raise SessionError(
                f'Extension command "/{name}" cannot be queued. Use prompt() or execute the command when not streaming.'
            )

    async def before_agent_start(
        self, text: str, images: Sequence[ImageContent] | None, system_prompt: str, options: dict[str, Any]
    ) -> tuple[list[AgentMessage], str | None]:
        """Messages ``before_agent_start`` handlers add, and the system prompt they want for this run."""
        from msgspec import UNSET

        runner = self._handling("before_agent_start")
        if runner is None:
            return [], None
        added, changed_prompt = await runner.emit_before_agent_start(
            text, list(images) if images else None, system_prompt, options
        )
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
        return messages, changed_prompt

    async def settled(self, aborted: bool) -> None:
        """``agent_settled``: the run and everything it set off are done (``aborted``: by an abort)."""
        runner = self._handling("agent_settled")
        if runner is not None:
            from pi_coding_agent.customize.extensions import AgentSettledEvent

            await runner.emit(AgentSettledEvent("agent_settled", aborted))

    # ------------------------------------------------------------------ custom messages

    def _append_custom(self, message: CustomRoleMessage) -> None:
        self._agent.state.messages.append(message)
        self._manager.append_custom_message_entry(message.custom_type, message.content, message.display, message.details)
        self._emit(MessageStartEvent(message=message))
        self._emit(MessageEndEvent(message=message))

    def flush_pending_custom(self) -> None:
        pending, self._pending_custom = self._pending_custom, []
        for message in pending:
            self._append_custom(message)

    async def send_custom_message(self, message: CustomRoleMessage, *, deliver_as: str | None, trigger_turn: bool | None) -> None:
        """Pi's ``sendCustomMessage`` delivery rules."""
        running = self._is_running()
        if deliver_as == "nextTurn":
            self.pending_next_turn.append(message)
        elif running and trigger_turn is not False:
            if deliver_as == "followUp":
                self._agent.follow_up(message)
            else:
                self._agent.steer(message)
        elif trigger_turn:
            await self._run_prompt([message])
        elif running:
            self._pending_custom.append(message)
        else:
            self._append_custom(message)

    # ------------------------------------------------------------------ model and thinking

    def model_selected(self, previous: Model | None, model: Model, source: str) -> None:
        if self.runner is not None:
            self.runner.emit_soon(ModelSelectEvent("model_select", model, previous, source))

    def thinking_selected(self, previous: str, level: str) -> None:
        if self.runner is not None:
            self.runner.emit_soon(ThinkingLevelSelectEvent("thinking_level_select", level, previous))

    # ------------------------------------------------------------------ compaction

    async def before_compact(
        self, preparation: CompactionPreparation, reason: str, will_retry: bool, custom_instructions: str | None
    ) -> CompactionResult | None:
        """``session_before_compact``: ``None`` (compact as usual), a ``CompactionResult``
        an extension provided, or ``CompactionError("Compaction cancelled")`` for a veto."""
        runner = self._handling("session_before_compact")
        if runner is None:
            return None
        from pi_ai import Usage
        from pi_coding_agent.core.compaction import CompactionResult
        from pi_coding_agent.customize.extensions import SessionBeforeCompactEvent
        from pi_coding_agent.runtime.agent_session._compaction import COMPACTION_CANCELLED, CompactionError

        event = SessionBeforeCompactEvent(
            "session_before_compact", reason, custom_instructions, will_retry, self._manager.get_branch(), preparation
        )
        answer = await runner.emit(event)
        if result_field(answer, "cancel"):
            raise CompactionError(COMPACTION_CANCELLED)
        provided = result_field(answer, "compaction")
        if provided is None:
            return None
        return CompactionResult(
            summary=str(result_field(provided, "summary") or ""),
            first_kept_entry_id=str(result_field(provided, "first_kept_entry_id") or preparation.first_kept_entry_id),
            tokens_before=int(result_field(provided, "tokens_before") or preparation.tokens_before),
            usage=result_field(provided, "usage") or Usage(),
            details=result_field(provided, "details") or {},
        )

    async def compacted(self, reason: str, will_retry: bool, from_extension: bool) -> None:
        runner = self._handling("session_compact")
        if runner is not None:
            from pi_coding_agent.customize.extensions import SessionCompactEvent

            entry = self._manager.get_branch()[-1]
            await runner.emit(SessionCompactEvent("session_compact", entry, from_extension, reason, will_retry))

    async def compaction_failed(self, reason: str, error: str | None, will_retry: bool, *, aborted: bool = False) -> None:
        runner = self._handling("session_compact_failed")
        if runner is not None:
            from pi_coding_agent.customize.extensions import SessionCompactFailedEvent

            await runner.emit(SessionCompactFailedEvent("session_compact_failed", reason, error, aborted, will_retry, False))

    # ------------------------------------------------------------------ tree navigation

    async def before_tree(self, target_id: str, old_leaf: str | None, summarize: bool) -> BranchSummaryOutcome | bool | None:
        runner = self._handling("session_before_tree")
        if runner is None:
            return None
        from pi_coding_agent.customize.extensions import SessionBeforeTreeEvent

        answer = await runner.emit(SessionBeforeTreeEvent("session_before_tree", target_id, old_leaf, summarize))
        if result_field(answer, "cancel"):
            return False
        provided = result_field(answer, "summary")
        if provided is None:
            return None
        return BranchSummaryOutcome(
            summary=str(result_field(provided, "summary") or ""),
            details=result_field(provided, "details"),
            usage=result_field(provided, "usage"),
        )

    async def after_tree(
        self, new_leaf: str | None, old_leaf: str | None, summary_entry: BranchSummaryEntry | None, from_extension: bool
    ) -> None:
        runner = self._handling("session_tree")
        if runner is not None:
            from pi_coding_agent.customize.extensions import SessionTreeEvent

            await runner.emit(SessionTreeEvent("session_tree", new_leaf, old_leaf, summary_entry, from_extension))

    # ------------------------------------------------------------------ user bash

    async def user_bash(self, command: str, exclude_from_context: bool) -> Any:
        """``user_bash`` handlers may answer the command themselves (``{"result": {...}}``) or
        give the shell to run it with (``{"operations": ...}``)."""
        runner = self._handling("user_bash")
        if runner is None:
            return None
        from pi_coding_agent.customize.extensions import UserBashEvent

        return await runner.emit_first(UserBashEvent("user_bash", command, exclude_from_context, self._manager.get_cwd()))


def _replace_in_place(target: Any, replacement: Any) -> None:
    """Pi replaces a finished message's fields in place, so the agent's state, later events
    and the stored entry all see the replacement. A replacement of another class is copied
    field by field where the target has the field."""
    if target is replacement:
        return
    fields = getattr(type(target), "__struct_fields__", ())
    for name in fields:
        if hasattr(replacement, name):
            setattr(target, name, getattr(replacement, name))
