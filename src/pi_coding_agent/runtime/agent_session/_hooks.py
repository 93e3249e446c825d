"""The agent's hook chain, built once when the session constructs its agent.

A model call goes through the hooks in this order:

1. between two turns of a run, ``prepare_next_turn_with_context``: the auto-compactor's
   threshold check, which may compact and hand the loop the rebuilt context;
2. ``transform_context``: the extensions' ``context`` handlers, on the messages the
   compactor left;
3. ``convert_to_llm``: extension converters of custom roles, then the session's role
   converter (``blockImages``);
4. the stream function: the assembly's ``limit_stream`` (batch's rate limiter) outermost,
   then the extensions' ``before_provider_headers``, then the credentials-and-settings call;
5. ``on_payload`` (``before_provider_request``) and ``on_response`` (``after_provider_response``).

Tool calls go through ``before_tool_call`` (``tool_call``) and ``after_tool_call``
(``tool_result``). Each part that depends on extensions reads the session's current runner
when it is called, so binding extensions later assigns nothing on the agent.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from pi_agent import (
    AfterToolCallContext,
    AfterToolCallResult,
    Agent,
    AgentLoopTurnUpdate,
    AgentMessage,
    AgentTool,
    BeforeToolCallContext,
    BeforeToolCallResult,
    QueueMode,
    StreamFn,
    TurnContext,
)
from pi_ai import (
    AbortSignal,
    AssistantMessageEventStream,
    Context,
    ContextMessage,
    Model,
    SimpleStreamOptions,
    ThinkingBudgets,
    ThinkingLevel,
)
from pi_coding_agent.core.messages import CustomRoleMessage
from pi_coding_agent.customize.extensions import (
    AfterProviderResponseEvent,
    ExtensionRunner,
    ToolCallEvent,
    ToolResultEvent,
)

CurrentRunner = Callable[[], ExtensionRunner | None]
"""The session's extension runner at the time of the call (``None`` before any is bound)."""
StreamLimit = Callable[[StreamFn], StreamFn]
"""Wraps the stream function from outside (batch's per-provider rate limiter)."""
ConvertToLlm = Callable[[list[AgentMessage]], Sequence[ContextMessage]]
ToolGuard = Callable[[BeforeToolCallContext, AbortSignal | None], Awaitable[BeforeToolCallResult | None]]
ToolFollowup = Callable[[AfterToolCallContext, AbortSignal | None], Awaitable[AfterToolCallResult | None]]
BeforeNextTurn = Callable[[TurnContext, AbortSignal | None], Awaitable[AgentLoopTurnUpdate | None]]


@dataclass(frozen=True)
class AgentSetup:
    """What the session's agent is built from, besides the hooks the session adds."""

    model: Model | None
    thinking_level: ThinkingLevel
    tools: Sequence[AgentTool]
    messages: Sequence[AgentMessage]
    stream_fn: StreamFn
    """The model call with credentials, headers and limits from settings."""
    convert_to_llm: ConvertToLlm
    """The role converter (custom roles, bash executions, ``blockImages``)."""
    steering_mode: QueueMode
    follow_up_mode: QueueMode
    session_id: str
    thinking_budgets: ThinkingBudgets | None
    transport: str
    max_retry_delay_ms: int | None
    limit_stream: StreamLimit | None = None
    tool_guard: ToolGuard | None = None
    """Asked before the extensions' ``tool_call`` handlers; may block a call (``_write_guard``)."""
    tool_followup: ToolFollowup | None = None
    """Asked after a tool ran, before the extensions' ``tool_result`` handlers (which see what it
    returned); may replace the result's ``details`` (``_test_run``)."""
    hidden_declarations: Callable[[], Collection[str]] | None = None
    """Active tools whose declarations requests leave out (``prepare_loadout``): taken out of
    the context's ``system`` messages after the ``context`` handlers, as Pi 1.6 projects them."""


def build_agent(setup: AgentSetup, extensions: CurrentRunner, before_next_turn: BeforeNextTurn) -> Agent:
    """The agent with its whole hook chain (see the module docstring for the order)."""
    hooks = ExtensionHooks(extensions, setup.tool_guard, setup.hidden_declarations, setup.tool_followup)
    stream_fn = hooks.with_headers(setup.stream_fn)
    if setup.limit_stream is not None:
        stream_fn = setup.limit_stream(stream_fn)
    return Agent(
        model=setup.model,
        thinking_level=setup.thinking_level,
        tools=setup.tools,
        messages=setup.messages,
        stream_fn=stream_fn,
        convert_to_llm=hooks.with_converters(setup.convert_to_llm),
        transform_context=hooks.transform_context,
        on_payload=hooks.on_payload,
        on_response=hooks.on_response,
        before_tool_call=hooks.before_tool_call,
        after_tool_call=hooks.after_tool_call,
        prepare_next_turn_with_context=before_next_turn,
        steering_mode=setup.steering_mode,
        follow_up_mode=setup.follow_up_mode,
        session_id=setup.session_id,
        thinking_budgets=setup.thinking_budgets,
        transport=setup.transport,
        max_retry_delay_ms=setup.max_retry_delay_ms,
    )


class ExtensionHooks:
    """The agent hooks through which extensions act on model and tool calls."""

    def __init__(
        self,
        current: CurrentRunner,
        guard: ToolGuard | None = None,
        hidden: Callable[[], Collection[str]] | None = None,
        followup: ToolFollowup | None = None,
    ) -> None:
        self._current = current
        self._guard = guard
        self._hidden = hidden
        self._followup = followup

    def _handling(self, event_type: str) -> ExtensionRunner | None:
        """The current runner when it has handlers for ``event_type``."""
        runner = self._current()
        return runner if runner is not None and runner.has_handlers(event_type) else None

    async def transform_context(self, messages: list[AgentMessage], signal: AbortSignal | None) -> list[AgentMessage]:
        runner = self._handling("context")
        messages = messages if runner is None else await runner.emit_context(messages)
        hidden = self._hidden() if self._hidden is not None else ()
        return without_declarations(messages, hidden) if hidden else messages

    async def before_tool_call(self, context: BeforeToolCallContext, signal: AbortSignal | None) -> BeforeToolCallResult | None:
        if self._guard is not None:
            blocked = await self._guard(context, signal)
            if blocked is not None:
                return blocked
        runner = self._handling("tool_call")
        if runner is None:
            return None
        event = ToolCallEvent("tool_call", context.tool_call.name, context.tool_call.id, context.args)
        answer = await runner.emit_tool_call(event)
        if not answer or not result_field(answer, "block"):
            return None
        return BeforeToolCallResult(
            block=True, reason=result_field(answer, "reason"), terminate=result_field(answer, "terminate")
        )

    async def after_tool_call(self, context: AfterToolCallContext, signal: AbortSignal | None) -> AfterToolCallResult | None:
        followed = await self._followup(context, signal) if self._followup is not None else None
        ours = followed.details if followed is not None else None
        runner = self._handling("tool_result")
        if runner is None:
            return followed
        result = context.result if ours is None else dataclasses.replace(context.result, details=ours)
        event = ToolResultEvent(
            "tool_result", context.tool_call.name, context.tool_call.id, context.args,
            list(result.content), result.details, context.is_error, result.usage, result.structured_content,
        )  # fmt: skip
        patch = await runner.emit_tool_result(event)
        if patch is None:
            return followed
        from pi_coding_agent.customize.extensions import to_tool_result

        content = to_tool_result({"content": patch["content"]}).content
        return AfterToolCallResult(
            content=content, details=patch["details"] if patch["details"] is not None else ours,
            is_error=patch["is_error"], usage=patch["usage"],
            structured_content=patch["structured_content"],
        )  # fmt: skip

    async def on_payload(self, payload: Any, model: Model) -> Any:
        runner = self._handling("before_provider_request")
        return None if runner is None else await runner.emit_before_provider_request(payload)

    async def on_response(self, response: Any, model: Model) -> None:
        runner = self._handling("after_provider_response")
        if runner is not None:
            headers = {str(k).lower(): str(v) for k, v in dict(response.headers or {}).items()}
            await runner.emit(AfterProviderResponseEvent("after_provider_response", response.status, headers))

    def with_headers(self, inner: StreamFn) -> StreamFn:
        """``inner`` with the request headers ``before_provider_headers`` handlers return."""

        def stream(
            model: Model, context: Context, options: SimpleStreamOptions
        ) -> AssistantMessageEventStream | Awaitable[AssistantMessageEventStream]:
            runner = self._handling("before_provider_headers")
            if runner is None:
                return inner(model, context, options)
            return _with_extension_headers(runner, inner, model, context, options)

        return stream

    def with_converters(self, inner: ConvertToLlm) -> ConvertToLlm:
        """Custom messages with a registered converter become what it returns (or nothing)."""

        def convert(messages: list[AgentMessage]) -> Sequence[ContextMessage]:
            runner = self._current()
            if runner is None or not runner.has_message_converters():
                return inner(messages)
            return inner(_converted(runner, messages))

        return convert


async def _with_extension_headers(
    runner: ExtensionRunner, inner: StreamFn, model: Model, context: Context, options: SimpleStreamOptions
) -> AssistantMessageEventStream:
    headers: dict[str, str | None] = dict(options.headers or {})
    options = dataclasses.replace(options, headers=await runner.emit_before_provider_headers(headers))
    response = inner(model, context, options)
    return await response if inspect.isawaitable(response) else response


def _converted(runner: ExtensionRunner, messages: list[AgentMessage]) -> list[AgentMessage]:
    mapped: list[AgentMessage] = []
    for message in messages:
        converter = runner.message_converter(message.custom_type) if isinstance(message, CustomRoleMessage) else None
        if converter is None:
            mapped.append(message)
            continue
        assert isinstance(message, CustomRoleMessage)
        try:
            converted = converter(message)
        except Exception as error:
            runner.report(f"converter:{message.custom_type}", "convert_to_llm", error)
            continue
        if converted is not None:
            mapped.extend(converted if isinstance(converted, list) else [converted])
    return mapped


def result_field(result: Any, name: str, default: Any = None) -> Any:
    """A handler's result field: a dict key or an attribute."""
    if isinstance(result, dict):
        return result.get(name, default)
    return getattr(result, name, default)


def without_declarations(messages: list[AgentMessage], hidden: Collection[str]) -> list[AgentMessage]:
    """The messages with the ``hidden`` tools taken out of the ``system`` messages' added and
    removed tools (copies; the transcript keeps them)."""
    from msgspec import UNSET, structs

    from pi_ai import SystemMessage

    projected: list[AgentMessage] = []
    for message in messages:
        if not isinstance(message, SystemMessage) or not (message.tools_added or message.tools_removed):
            projected.append(message)
            continue
        added = [tool for tool in message.tools_added or () if tool.get("name") not in hidden]
        removed = [tool for tool in message.tools_removed or () if tool.get("name") not in hidden]
        projected.append(
            structs.replace(message, tools_added=added or UNSET, tools_removed=removed or UNSET)
        )
    return projected
