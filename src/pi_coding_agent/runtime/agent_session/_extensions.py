"""The session side of extensions: hooks into the agent, and what ``pi.*`` / ``ctx.*`` call.

``bind_extensions(runner)`` connects a loaded ``ExtensionRunner``: the ``context`` event
becomes the agent's ``transform_context``, ``tool_call`` / ``tool_result`` its tool hooks,
``before_provider_*`` / ``after_provider_response`` its request hooks, registered tools join
the tool list (and the system prompt), registered message converters decide how custom
roles reach the model. Agent events go to extensions before the session's listeners see
them and before they are stored (Pi's order), so a ``message_end`` replacement is what is
persisted.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from pi_agent import (
    AfterToolCallContext,
    AfterToolCallResult,
    AgentEvent,
    AgentMessage,
    AgentTool,
    BeforeToolCallContext,
    BeforeToolCallResult,
    MessageEndEvent,
    MessageStartEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from pi_ai import AbortSignal, ImageContent, Model
from pi_coding_agent.core.messages import CustomRoleMessage
from pi_coding_agent.customize.extensions import (
    AfterProviderResponseEvent,
    ExtensionRunner,
    ExtensionTool,
    ModelSelectEvent,
    ThinkingLevelSelectEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from pi_coding_agent.customize.extensions import TurnEndEvent as ExtensionTurnEnd
from pi_coding_agent.customize.extensions import TurnStartEvent as ExtensionTurnStart
from pi_coding_agent.runtime.agent_session._parts import SessionParts

_TOOL_FIELDS = ("content", "details", "is_error", "usage")


def _now_ms() -> int:
    import time

    return int(time.time() * 1000)


class ExtensionBinding(SessionParts):
    _extensions: ExtensionRunner | None
    _builtin_tools: list[AgentTool]
    _tool_allowlist: set[str] | None
    _tool_excluded: set[str]
    _active_tool_names: list[str]
    _known_tool_names: set[str]
    _rebuild_system_prompt: Callable[[Sequence[AgentTool]], str] | None
    _base_system_prompt: str
    _pending_custom: list[CustomRoleMessage]
    _pending_next_turn: list[AgentMessage]
    _turn_index: int
    _select_source: str

    def _init_extensions(self, builtin_tools: Sequence[AgentTool], rebuild: Callable[..., str] | None) -> None:
        self._extensions = None
        self._builtin_tools = list(builtin_tools)
        self._tool_allowlist = None
        self._tool_excluded = set()
        self._active_tool_names = [tool.name for tool in builtin_tools]
        self._known_tool_names = set(self._active_tool_names)
        self._rebuild_system_prompt = rebuild
        self._pending_custom = []
        self._pending_next_turn = []
        self._turn_index = 0
        self._select_source = "set"

    @property
    def extensions(self) -> ExtensionRunner | None:
        return self._extensions

    def bind_extensions(
        self, runner: ExtensionRunner, *, allowlist: Sequence[str] | None = None, excluded: Sequence[str] = ()
    ) -> None:
        """Let ``runner``'s extensions act on this session; ``allowlist`` / ``excluded``: ``--tools`` / ``--exclude-tools``."""
        self._extensions = runner
        self._tool_allowlist = set(allowlist) if allowlist is not None else None
        self._tool_excluded = set(excluded)
        runner.bind_host(self)  # type: ignore[arg-type]  # the mixins together are the host
        for name, config in runner.pending_providers:
            self.catalog.register_provider(name, config)
        runner.pending_providers.clear()
        agent = self.agent
        agent.transform_context = self._transform_context
        agent.before_tool_call = self._before_tool_call
        agent.after_tool_call = self._after_tool_call
        agent.on_payload = self._on_payload
        agent.on_response = self._on_response
        agent.stream_fn = self._with_header_hook(agent.stream_fn)
        if runner.has_message_converters():
            agent.convert_to_llm = self._with_converters(agent.convert_to_llm)
        self.refresh_tools()

    # ------------------------------------------------------------------ agent hooks

    async def _transform_context(self, messages: list[AgentMessage], signal: AbortSignal | None) -> list[AgentMessage]:
        runner = self._extensions
        if runner is None or not runner.has_handlers("context"):
            return messages
        return await runner.emit_context(messages)

    async def _before_tool_call(self, context: BeforeToolCallContext, signal: AbortSignal | None) -> BeforeToolCallResult | None:
        runner = self._extensions
        if runner is None or not runner.has_handlers("tool_call"):
            return None
        event = ToolCallEvent("tool_call", context.tool_call.name, context.tool_call.id, context.args)
        answer = await runner.emit_tool_call(event)
        if not answer:
            return None
        if not result_field(answer, "block"):
            return None
        return BeforeToolCallResult(
            block=True, reason=result_field(answer, "reason"), terminate=result_field(answer, "terminate")
        )

    async def _after_tool_call(self, context: AfterToolCallContext, signal: AbortSignal | None) -> AfterToolCallResult | None:
        runner = self._extensions
        if runner is None or not runner.has_handlers("tool_result"):
            return None
        result = context.result
        event = ToolResultEvent(
            "tool_result", context.tool_call.name, context.tool_call.id, context.args,
            list(result.content), result.details, context.is_error, result.usage,
        )
        patch = await runner.emit_tool_result(event)
        if patch is None:
            return None
        from pi_coding_agent.customize.extensions import to_tool_result

        content = to_tool_result({"content": patch["content"]}).content
        return AfterToolCallResult(content=content, details=patch["details"], is_error=patch["is_error"], usage=patch["usage"])

    async def _on_payload(self, payload: Any, model: Model) -> Any:
        runner = self._extensions
        if runner is None or not runner.has_handlers("before_provider_request"):
            return None
        return await runner.emit_before_provider_request(payload)

    async def _on_response(self, response: Any, model: Model) -> None:
        runner = self._extensions
        if runner is not None and runner.has_handlers("after_provider_response"):
            headers = {str(k).lower(): str(v) for k, v in dict(response.headers or {}).items()}
            await runner.emit(AfterProviderResponseEvent("after_provider_response", response.status, headers))

    def _with_header_hook(self, inner: Any) -> Any:
        import inspect

        async def stream(model: Model, context: Any, options: Any) -> Any:
            runner = self._extensions
            if runner is not None and runner.has_handlers("before_provider_headers"):
                headers: dict[str, str | None] = dict(options.headers or {})
                options = dataclasses.replace(options, headers=await runner.emit_before_provider_headers(headers))
            response = inner(model, context, options)
            return await response if inspect.isawaitable(response) else response

        return stream

    def _with_converters(self, inner: Callable[[list[AgentMessage]], Any]) -> Callable[[list[AgentMessage]], Any]:
        """Custom messages with a registered converter become what it returns (or nothing)."""

        def convert(messages: list[AgentMessage]) -> Any:
            runner = self._extensions
            if runner is None:
                return inner(messages)
            mapped: list[AgentMessage] = []
            for message in messages:
                if not isinstance(message, CustomRoleMessage):
                    mapped.append(message)
                    continue
                converter = runner.message_converter(message.custom_type)
                if converter is None:
                    mapped.append(message)
                    continue
                try:
                    converted = converter(message)
                except Exception as error:
                    runner.report(f"converter:{message.custom_type}", "convert_to_llm", error)
                    continue
                if converted is not None:
                    mapped.extend(converted if isinstance(converted, list) else [converted])
            return inner(mapped)

        return convert

    # ------------------------------------------------------------------ agent events

    def _extension_event(self, event: AgentEvent) -> Any:
        """The event as extensions see it (turn events carry ``turn_index``); ``None`` if unhandled."""
        runner = self._extensions
        if runner is None:
            return None
        kind = type(event)
        if kind is TurnStartEvent:
            return ExtensionTurnStart("turn_start", self._turn_index, _now_ms()) if runner.has_handlers("turn_start") else None
        if kind is TurnEndEvent:
            if not runner.has_handlers("turn_end"):
                return None
            assert isinstance(event, TurnEndEvent)
            return ExtensionTurnEnd("turn_end", self._turn_index, event.message, list(event.tool_results))
        return event if runner.has_handlers(event.type) else None

    def _wants_extension_await(self, event: AgentEvent) -> bool:
        runner = self._extensions
        return runner is not None and runner.has_handlers(event.type)

    async def _emit_to_extensions(self, event: AgentEvent) -> None:
        runner = self._extensions
        if runner is None:
            return
        if type(event) is MessageEndEvent and runner.has_handlers("message_end"):
            replacement = await runner.emit_message_end(event)
            if replacement is not None:
                _replace_in_place(event.message, replacement)
            return
        forwarded = self._extension_event(event)
        if forwarded is not None:
            await runner.emit(forwarded)

    def _count_turn(self, event: AgentEvent) -> None:
        if event.type == "agent_start":
            self._turn_index = 0
        elif type(event) is TurnEndEvent:
            self._turn_index += 1
            self._flush_pending_custom()

    # ------------------------------------------------------------------ custom messages

    def _append_custom(self, message: CustomRoleMessage) -> None:
        self.agent.state.messages.append(message)
        self.session_manager.append_custom_message_entry(message.custom_type, message.content, message.display, message.details)
        self._emit(MessageStartEvent(message=message))
        self._emit(MessageEndEvent(message=message))

    def _flush_pending_custom(self) -> None:
        pending, self._pending_custom = self._pending_custom, []
        for message in pending:
            self._append_custom(message)

    async def send_custom_message(self, message: CustomRoleMessage, *, deliver_as: str | None, trigger_turn: bool | None) -> None:
        """Pi's ``sendCustomMessage`` delivery rules."""
        if deliver_as == "nextTurn":
            self._pending_next_turn.append(message)
        elif self._run_active and trigger_turn is not False:
            if deliver_as == "followUp":
                self.agent.follow_up(message)
            else:
                self.agent.steer(message)
        elif trigger_turn:
            await self._run_agent_prompt([message])  # type: ignore[attr-defined]  # AgentSession's
        elif self._run_active:
            self._pending_custom.append(message)
        else:
            self._append_custom(message)

    async def send_user_message(
        self, text: str, images: Sequence[ImageContent] | None, *, deliver_as: str | None, expand: bool
    ) -> None:
        await self.prompt(  # type: ignore[attr-defined]
            text, images, streaming_behavior=deliver_as, expand_prompt_templates=expand, source="extension"
        )

    # ------------------------------------------------------------------ tools

    def _tool_allowed(self, name: str) -> bool:
        if name in self._tool_excluded:
            return False
        return self._tool_allowlist is None or name in self._tool_allowlist

    def all_tools(self) -> list[AgentTool]:
        """Built-in tools, then extension tools (an extension tool named like a built-in replaces it)."""
        tools: dict[str, AgentTool] = {tool.name: tool for tool in self._builtin_tools}
        runner = self._extensions
        if runner is not None:
            for definition, path in runner.tools():
                tools[definition.name] = ExtensionTool(definition, path, runner)
        return list(tools.values())

    def active_tool_names(self) -> list[str]:
        return list(self._active_tool_names)

    def set_active_tools(self, names: Sequence[str]) -> None:
        known = {tool.name for tool in self.all_tools()}
        self._active_tool_names = [name for name in dict.fromkeys(names) if name in known]
        self.refresh_tools()

    def refresh_tools(self) -> None:
        """Put the active tools on the agent and rebuild the system prompt from them."""
        runner = self._extensions
        if runner is not None:
            for definition, _ in runner.tools():
                name = definition.name
                if name not in self._known_tool_names and self._tool_allowed(name) and name not in self._active_tool_names:
                    self._active_tool_names.append(name)
        tools = {tool.name: tool for tool in self.all_tools()}
        self._known_tool_names = set(tools)
        active = [tools[name] for name in self._active_tool_names if name in tools]
        self.agent.state.tools = active
        if self._rebuild_system_prompt is not None:
            self._base_system_prompt = self._rebuild_system_prompt(active)
            self.agent.state.system_prompt = self._base_system_prompt

    # ------------------------------------------------------------------ model and thinking

    def set_model_from_extension(self, model: Model) -> bool:
        if not self.catalog.has_auth(model.provider):
            return False
        self._apply_model(model, self._thinking_for(model), persist=False)  # type: ignore[attr-defined]
        return True

    def _notify_model_select(self, previous: Model | None, model: Model) -> None:
        runner = self._extensions
        if runner is not None and previous is not model:
            runner.emit_soon(ModelSelectEvent("model_select", model, previous, self._select_source))

    def _notify_thinking_select(self, previous: str, level: str) -> None:
        runner = self._extensions
        if runner is not None and previous != level:
            runner.emit_soon(ThinkingLevelSelectEvent("thinking_level_select", level, previous))

    # ------------------------------------------------------------------ compaction

    async def _extension_compaction(
        self, preparation: Any, reason: str, will_retry: bool, custom_instructions: str | None
    ) -> Any:
        """``session_before_compact``: ``None`` (compact as usual), a ``CompactionResult``
        an extension provided, or ``CompactionError("Compaction cancelled")`` for a veto."""
        runner = self._extensions
        if runner is None or not runner.has_handlers("session_before_compact"):
            return None
        from pi_coding_agent.core.compaction import CompactionResult
        from pi_coding_agent.customize.extensions import SessionBeforeCompactEvent
        from pi_coding_agent.runtime.agent_session._compaction import COMPACTION_CANCELLED, CompactionError

        event = SessionBeforeCompactEvent(
            "session_before_compact", reason, custom_instructions, will_retry, self.session_manager.get_branch(), preparation
        )
        answer = await runner.emit(event)
        if result_field(answer, "cancel"):
            raise CompactionError(COMPACTION_CANCELLED)
        provided = result_field(answer, "compaction")
        if provided is None:
            return None
        from pi_ai import Usage

        return CompactionResult(
            summary=str(result_field(provided, "summary") or ""),
            first_kept_entry_id=str(result_field(provided, "first_kept_entry_id") or preparation.first_kept_entry_id),
            tokens_before=int(result_field(provided, "tokens_before") or preparation.tokens_before),
            usage=result_field(provided, "usage") or Usage(),
            details=result_field(provided, "details") or {},
        )

    async def _compacted(self, reason: str, will_retry: bool, from_extension: bool) -> None:
        runner = self._extensions
        if runner is not None and runner.has_handlers("session_compact"):
            from pi_coding_agent.customize.extensions import SessionCompactEvent

            entry = self.session_manager.get_branch()[-1]
            await runner.emit(SessionCompactEvent("session_compact", entry, from_extension, reason, will_retry))

    async def _compaction_failed(self, reason: str, error: str | None, will_retry: bool, *, aborted: bool = False) -> None:
        runner = self._extensions
        if runner is not None and runner.has_handlers("session_compact_failed"):
            from pi_coding_agent.customize.extensions import SessionCompactFailedEvent

            await runner.emit(SessionCompactFailedEvent("session_compact_failed", reason, error, aborted, will_retry, False))

    # ------------------------------------------------------------------ tree navigation

    async def _before_tree(self, target_id: str, old_leaf: str | None, summarize: bool) -> Any:
        runner = self._extensions
        if runner is None or not runner.has_handlers("session_before_tree"):
            return None
        from pi_coding_agent.customize.extensions import SessionBeforeTreeEvent
        from pi_coding_agent.runtime.agent_session._tree import BranchSummaryOutcome

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

    async def _after_tree(self, new_leaf: str | None, old_leaf: str | None, summary_entry: Any, from_extension: bool) -> None:
        runner = self._extensions
        if runner is not None and runner.has_handlers("session_tree"):
            from pi_coding_agent.customize.extensions import SessionTreeEvent

            await runner.emit(SessionTreeEvent("session_tree", new_leaf, old_leaf, summary_entry, from_extension))

    # ------------------------------------------------------------------ user bash

    async def execute_bash(self, command: str, **options: Any) -> Any:
        """``user_bash`` handlers may answer the command themselves (``{"result": {...}}``) or
        give the shell to run it with (``{"operations": ...}``)."""
        runner = self._extensions
        if runner is None or not runner.has_handlers("user_bash"):
            return await super().execute_bash(command, **options)  # type: ignore[misc]
        from pi_coding_agent.core.bash import BashResult
        from pi_coding_agent.customize.extensions import UserBashEvent

        excluded = bool(options.get("exclude_from_context"))
        answer = await runner.emit_first(UserBashEvent("user_bash", command, excluded, self.session_manager.get_cwd()))
        given = result_field(answer, "result")
        if given is not None:
            result = BashResult(
                output=str(result_field(given, "output") or ""),
                exit_code=result_field(given, "exit_code", 0),
                cancelled=bool(result_field(given, "cancelled")),
                truncated=bool(result_field(given, "truncated")),
                full_output_path=result_field(given, "full_output_path"),
            )
            self.record_bash_result(command, result, exclude_from_context=options.get("exclude_from_context"))  # type: ignore[attr-defined]
            return result
        operations = result_field(answer, "operations")
        if operations is not None:
            options["operations"] = operations
        return await super().execute_bash(command, **options)  # type: ignore[misc]

    # ------------------------------------------------------------------ the rest of the host

    @property
    def current_signal(self) -> AbortSignal | None:
        return self.agent.signal

    def available_commands_for_extensions(self) -> list[dict[str, Any]]:
        return [
            {"name": c.name, "description": c.description, "source": c.source, "path": c.path}
            for c in self.available_commands()  # type: ignore[attr-defined]
        ]

    def system_prompt_options(self) -> dict[str, Any]:
        return {
            "cwd": self.cwd,
            "selected_tools": self.active_tool_names(),
            "tool_snippets": {
                tool.name: getattr(tool, "prompt_snippet", None) for tool in self.agent.state.tools if getattr(tool, "prompt_snippet", None)
            },
            "prompt_guidelines": [line for tool in self.agent.state.tools for line in getattr(tool, "prompt_guidelines", ()) or ()],
        }


def result_field(result: Any, name: str, default: Any = None) -> Any:
    """A handler's result field: a dict key or an attribute."""
    if isinstance(result, dict):
        return result.get(name, default)
    return getattr(result, name, default)


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
