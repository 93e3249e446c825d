"""The agent loop: ask the model, run the tools it called, repeat until it stops.

One *turn* is: inject queued messages, call the model (streaming), execute the tool calls
of its reply, emit ``turn_end``. The run keeps taking turns while the model calls tools or
steering messages wait, then asks for follow-up messages, and ends with ``agent_end``.

Two ways in, as in Pi:

* ``run_agent_loop(..., emit)`` awaits ``emit`` for every event, so a slow consumer slows the
  loop down (the ``Agent`` class uses this form: its listeners are awaited in order).
* ``agent_loop(...)`` runs the loop as a background task and returns an ``EventStream`` the
  caller reads at its own pace.

The loop never raises for model or tool failures: a failed model call is an assistant
message with ``stop_reason`` ``"error"``/``"aborted"``, a failed tool call is an ``is_error``
tool result. Exceptions from the other callbacks (``convert_to_llm``, ``transform_context``,
...) or from ``emit`` end the run and propagate to the caller.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec
from msgspec import UNSET

from pi_agent._events import (
    AgentEndEvent,
    AgentEvent,
    AgentStartEvent,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from pi_agent._roles import AgentMessage, IncrementalLlmFilter, default_convert_to_llm
from pi_agent._stream import EventStream
from pi_agent._tools import AgentTool, AgentToolResult, ToolFailure
from pi_agent._types import (
    AfterToolCallContext,
    AgentContext,
    AgentLoopConfig,
    BeforeToolCallContext,
    MaybeAwaitable,
    StreamFn,
    TurnContext,
)
from pi_agent._validation import refuse_unreadable, validate_arguments
from pi_ai import (
    AbortSignal,
    AssistantMessage,
    Context,
    ContextMessage,
    DoneEvent,
    ErrorEvent,
    SimpleStreamOptions,
    StartEvent,
    TextContent,
    ToolCall,
    ToolResultMessage,
    now_ms,
)

if TYPE_CHECKING:
    import asyncio

    from typing_extensions import TypeIs

T = TypeVar("T")
Emit = Callable[[AgentEvent], "Awaitable[None] | None"]
"""Event sink. It may finish synchronously (return ``None``) or return an awaitable the loop
awaits before going on. Synchronous sinks see tool updates at the moment the tool reports
them, as Pi's listeners do."""
AgentEventStream = EventStream[AgentEvent, list[AgentMessage]]

_default_stream_fn: StreamFn | None = None


def set_default_stream_fn(stream_fn: StreamFn | None) -> None:
    """Install the fallback used when a loop or ``Agent`` is given no ``stream_fn``."""
    global _default_stream_fn
    _default_stream_fn = stream_fn


def get_default_stream_fn() -> StreamFn:
    if _default_stream_fn is None:
        raise RuntimeError(
            "No default stream function configured. Pass stream_fn explicitly or call set_default_stream_fn()."
        )
    return _default_stream_fn


def is_awaitable(value: object) -> TypeIs[Awaitable[Any]]:
    """``inspect.isawaitable`` without importing ``inspect``."""
    return value is not None and hasattr(type(value), "__await__")


async def resolve(value: MaybeAwaitable[T]) -> T:
    """The value, awaited if it is awaitable: callbacks may be plain functions or coroutines."""
    if is_awaitable(value):
        awaited: T = await value
        return awaited
    return value


def _sender(emit: Emit) -> Callable[[AgentEvent], Awaitable[None]]:
    async def send(event: AgentEvent) -> None:
        pending = emit(event)
        if pending is not None:
            await pending

    return send


def _error_text(error: BaseException) -> str:
    return str(error) or type(error).__name__


copy_struct = msgspec.structs.replace
"""Shallow copy of a struct (listeners get their own copy of the streaming partial)."""

_AGENT_START = AgentStartEvent()
_TURN_START = TurnStartEvent()


# --------------------------------------------------------------------------- entry points


def check_can_continue(messages: Sequence[AgentMessage]) -> None:
    """Raise the error Pi raises when a run cannot continue from ``messages``."""
    if not messages:
        raise ValueError("Cannot continue: no messages in context")
    if messages[-1].role == "assistant":
        raise ValueError("Cannot continue from message role: assistant")


async def run_agent_loop(
    prompts: Sequence[AgentMessage],
    context: AgentContext,
    config: AgentLoopConfig,
    emit: Emit,
    *,
    signal: AbortSignal | None = None,
    stream_fn: StreamFn | None = None,
) -> list[AgentMessage]:
    """Run with new prompt messages; returns the messages the run added (prompts first).

    ``context.messages`` is not modified: the loop works on a copy extended by the prompts.
    """
    new_messages: list[AgentMessage] = list(prompts)
    current = AgentContext(
        system_prompt=context.system_prompt, messages=[*context.messages, *prompts], tools=context.tools
    )
    send = _sender(emit)
    await send(_AGENT_START)
    await send(_TURN_START)
    for prompt in prompts:
        await send(MessageStartEvent(message=prompt))
        await send(MessageEndEvent(message=prompt))
    await _Run(current, new_messages, config, emit, signal=signal, stream_fn=stream_fn or get_default_stream_fn()).turns()
    return new_messages


async def run_agent_loop_continue(
    context: AgentContext,
    config: AgentLoopConfig,
    emit: Emit,
    *,
    signal: AbortSignal | None = None,
    stream_fn: StreamFn | None = None,
) -> list[AgentMessage]:
    """Run from the existing transcript, whose last message must not be an assistant one.

    As in Pi, the loop appends to ``context.messages`` itself (pass a copy to keep yours).
    Returns only the messages this run added.
    """
    check_can_continue(context.messages)
    new_messages: list[AgentMessage] = []
    current = AgentContext(system_prompt=context.system_prompt, messages=context.messages, tools=context.tools)
    send = _sender(emit)
    await send(_AGENT_START)
    await send(_TURN_START)
    await _Run(current, new_messages, config, emit, signal=signal, stream_fn=stream_fn or get_default_stream_fn()).turns()
    return new_messages


def _agent_event_stream() -> AgentEventStream:
    return EventStream(
        lambda event: isinstance(event, AgentEndEvent),
        lambda event: event.messages if isinstance(event, AgentEndEvent) else [],
    )


def _run_in_background(stream: AgentEventStream, run: Awaitable[list[AgentMessage]]) -> AgentEventStream:
    async def drive() -> None:
        try:
            messages = await run
        except BaseException as error:  # cancellation included: the reader must not hang
            stream.fail(error)
            if not isinstance(error, Exception):
                raise
        else:
            stream.end(messages)

    import asyncio  # lazily: importing pi_agent must not pay for asyncio

    task = asyncio.get_running_loop().create_task(drive())
    _background.add(task)
    task.add_done_callback(_background.discard)
    return stream


_background: set[asyncio.Task[None]] = set()
"""Strong references to running ``agent_loop`` tasks (asyncio only keeps weak ones)."""


def agent_loop(
    prompts: Sequence[AgentMessage],
    context: AgentContext,
    config: AgentLoopConfig,
    *,
    signal: AbortSignal | None = None,
    stream_fn: StreamFn | None = None,
) -> AgentEventStream:
    """Start ``run_agent_loop`` in the background; read its events from the returned stream.

    The stream's result is the list of new messages. If the run raises, iteration and
    ``result()`` raise the same exception (Pi's stream would hang instead).
    """
    stream = _agent_event_stream()

    def emit(event: AgentEvent) -> None:
        stream.push(event)

    return _run_in_background(stream, run_agent_loop(prompts, context, config, emit, signal=signal, stream_fn=stream_fn))


def agent_loop_continue(
    context: AgentContext,
    config: AgentLoopConfig,
    *,
    signal: AbortSignal | None = None,
    stream_fn: StreamFn | None = None,
) -> AgentEventStream:
    """``agent_loop`` for ``run_agent_loop_continue``; the pre-conditions raise right away."""
    check_can_continue(context.messages)
    stream = _agent_event_stream()

    def emit(event: AgentEvent) -> None:
        stream.push(event)

    return _run_in_background(stream, run_agent_loop_continue(context, config, emit, signal=signal, stream_fn=stream_fn))


# --------------------------------------------------------------------------- turns


class _Run:
    """One run of the loop: the live context, what the run added, and how to reach out."""

    __slots__ = ("config", "context", "emit", "llm_filter", "new_messages", "send", "signal", "stream_fn")

    def __init__(
        self,
        context: AgentContext,
        new_messages: list[AgentMessage],
        config: AgentLoopConfig,
        emit: Emit,
        *,
        signal: AbortSignal | None,
        stream_fn: StreamFn,
    ) -> None:
        self.context = context
        self.new_messages = new_messages
        self.config = config
        self.emit = emit
        self.send = _sender(emit)
        self.signal = signal
        self.stream_fn = stream_fn
        self.llm_filter = IncrementalLlmFilter()

    async def turns(self) -> None:
        emit = self.send
        last_turn: TurnContext | None = None
        pending = await _poll(self.config.get_steering_messages)
        while True:
            more_tools = True
            while more_tools or pending:
                prepared: list[AgentMessage] = []
                if last_turn is not None:
                    prepared = await self._prepare_next_turn(last_turn)
                    # Preparing can take long (compaction): pick up steering queued meanwhile,
                    # but only if nothing is pending, so one-at-a-time injects one message.
                    if not pending:
                        pending = await _poll(self.config.get_steering_messages)
                    await emit(_TURN_START)
                for message in [*prepared, *pending]:
                    await emit(MessageStartEvent(message=message))
                    await emit(MessageEndEvent(message=message))
                    self.context.messages.append(message)
                    self.new_messages.append(message)
                pending = []

                reply = await self._stream_assistant_response()
                self.new_messages.append(reply)
                if reply.stop_reason == "error" or reply.stop_reason == "aborted":
                    await emit(TurnEndEvent(message=reply, tool_results=[]))
                    await emit(AgentEndEvent(messages=self.new_messages))
                    return

                calls = [block for block in reply.content if isinstance(block, ToolCall)]
                results: list[ToolResultMessage] = []
                more_tools = False
                if calls:
                    batch = _ToolBatch(self, reply)
                    if reply.stop_reason == "length":
                        results, terminate = await batch.fail_truncated(calls)
                    else:
                        results, terminate = await batch.execute(calls)
                    more_tools = not terminate
                    self.context.messages.extend(results)
                    self.new_messages.extend(results)
                await emit(TurnEndEvent(message=reply, tool_results=results))

                last_turn = TurnContext(
                    message=reply, tool_results=results, context=self.context, new_messages=self.new_messages
                )
                stop = self.config.should_stop_after_turn
                if stop is not None and await resolve(stop(last_turn)):
                    await emit(AgentEndEvent(messages=self.new_messages))
                    return
                pending = await _poll(self.config.get_steering_messages)

            follow_ups = await _poll(self.config.get_follow_up_messages)
            if not follow_ups:
                break
            pending = follow_ups
        await emit(AgentEndEvent(messages=self.new_messages))

    async def _prepare_next_turn(self, last_turn: TurnContext) -> list[AgentMessage]:
        """Apply the ``prepare_next_turn`` hook's update; returns the messages that open the turn."""
        config = self.config
        if config.prepare_next_turn is None:
            return []
        update = await resolve(config.prepare_next_turn(last_turn))
        if update is None:
            return []
        self.context = update.context or self.context
        options = config.stream_options
        if update.thinking_level is not None:
            level = update.thinking_level
            options = dataclasses.replace(options, reasoning=None if level == "off" else level)
        self.config = dataclasses.replace(config, model=update.model or config.model, stream_options=options)
        return list(update.messages or ())

    async def _stream_assistant_response(self) -> AssistantMessage:
        """One model call. The streaming partial sits at the end of the context's messages
        until the final message replaces it."""
        context, config, emit, emit_now = self.context, self.config, self.send, self.emit
        messages = context.messages
        if config.transform_context is not None:
            messages = await resolve(config.transform_context(messages, self.signal))
        llm_messages: Sequence[ContextMessage] | Awaitable[Sequence[ContextMessage]]
        if config.convert_to_llm is default_convert_to_llm:
            llm_messages = self.llm_filter(messages)  # same result, without rescanning the transcript
        else:
            llm_messages = config.convert_to_llm(messages)
        if is_awaitable(llm_messages):
            llm_messages = await llm_messages
        tools = context.tools
        llm_context = Context(
            system_prompt=context.system_prompt,
            messages=llm_messages if type(llm_messages) is list else list(llm_messages),
            tools=None if tools is None else [tool.to_tool() for tool in tools],
        )
        api_key = None
        if config.get_api_key is not None:
            api_key = await resolve(config.get_api_key(config.model.provider))
        options = _shallow_copy(config.stream_options)
        options.api_key = api_key or options.api_key
        options.signal = self.signal
        response = self.stream_fn(config.model, llm_context, options)
        if is_awaitable(response):
            response = await response

        partial: AssistantMessage | None = None
        async for event in response:
            # Class identity instead of isinstance: this runs for every streamed chunk.
            if type(event) is StartEvent:
                partial = event.partial
                context.messages.append(partial)
                await emit(MessageStartEvent(message=copy_struct(partial)))
            elif type(event) is DoneEvent or type(event) is ErrorEvent:
                break
            elif partial is not None:
                partial = event.partial  # type: ignore[union-attr]  # every other event has one
                context.messages[-1] = partial
                pending = emit_now(MessageUpdateEvent(copy_struct(partial), event))
                if pending is not None:
                    await pending
        final = await response.result()
        final.thinking_level = options.reasoning or "off"  # Pi 1.6 records the level asked for
        if partial is not None:
            context.messages[-1] = final
        else:
            context.messages.append(final)
            await emit(MessageStartEvent(message=copy_struct(final)))
        await emit(MessageEndEvent(message=final))
        return final


async def _poll(source: Callable[[], MaybeAwaitable[Sequence[AgentMessage]]] | None) -> list[AgentMessage]:
    if source is None:
        return []
    found = source()
    if is_awaitable(found):
        found = await found
    return list(found) if found else []


def _shallow_copy(options: SimpleStreamOptions) -> SimpleStreamOptions:
    """``copy.copy`` for the options dataclass without the pickle-protocol detour."""
    clone = object.__new__(type(options))
    clone.__dict__.update(options.__dict__)
    return clone


# --------------------------------------------------------------------------- tools


@dataclass(slots=True)
class _Outcome:
    """A call that reached a result (executed, or failed/blocked before execution)."""

    tool_call: ToolCall
    result: AgentToolResult[Any]
    is_error: bool
    duration_ms: int | None = None
    """How long ``execute`` ran (``None``: it did not run)."""
    nested_calls: dict[str, Any] | None = None
    """The record of the calls the tool made to other tools (``NestedToolRunner``)."""


@dataclass(slots=True)
class _Prepared:
    """A call that passed lookup, validation and ``before_tool_call``: ready to execute."""

    tool_call: ToolCall
    tool: AgentTool
    args: dict[str, Any]


def _error_result(text: str) -> AgentToolResult[Any]:
    return AgentToolResult(content=[TextContent(text=text)], details={})


def _truncated_text(name: str) -> str:
    return (
        f'Tool call "{name}" was not executed: the response hit the output token limit, so its '
        "arguments may be truncated. Re-issue the tool call with complete arguments."
    )


def _result_message(outcome: _Outcome) -> ToolResultMessage:
    result = outcome.result
    return ToolResultMessage(
        tool_call_id=outcome.tool_call.id,
        tool_name=outcome.tool_call.name,
        content=result.content if result.content is not None else [],
        details=UNSET if result.details is None else result.details,
        usage=result.usage,
        added_tool_names=result.added_tool_names or None,
        is_error=outcome.is_error,
        duration_ms=outcome.duration_ms,
        timestamp=now_ms(),
        nested_calls=outcome.nested_calls,
    )


def _batch_terminates(outcomes: Sequence[_Outcome]) -> bool:
    return bool(outcomes) and all(outcome.result.terminate is True for outcome in outcomes)


class _ToolBatch:
    """The tool calls of one assistant message."""

    __slots__ = ("config", "context", "emit", "reply", "send", "signal")

    def __init__(self, run: _Run, reply: AssistantMessage) -> None:
        self.context = run.context
        self.config = run.config
        self.emit = run.emit
        self.send = run.send
        self.signal = run.signal
        self.reply = reply

    @property
    def aborted(self) -> bool:
        return self.signal is not None and self.signal.aborted

    def _find_tool(self, name: str) -> AgentTool | None:
        for tool in self.context.tools or ():
            if tool.name == name:
                return tool
        return None

    async def _emit_start(self, call: ToolCall) -> None:
        pending = self.emit(ToolExecutionStartEvent(tool_call_id=call.id, tool_name=call.name, args=call.arguments))
        if pending is not None:
            await pending

    async def _emit_end(self, outcome: _Outcome) -> None:
        call = outcome.tool_call
        pending = self.emit(ToolExecutionEndEvent(
            tool_call_id=call.id, tool_name=call.name, result=outcome.result, is_error=outcome.is_error,
            duration_ms=outcome.duration_ms,
        ))
        if pending is not None:
            await pending

    async def _emit_result_message(self, outcome: _Outcome) -> ToolResultMessage:
        message = _result_message(outcome)
        pending = self.emit(MessageStartEvent(message=message))
        if pending is not None:
            await pending
        pending = self.emit(MessageEndEvent(message=message))
        if pending is not None:
            await pending
        return message

    async def fail_truncated(self, calls: list[ToolCall]) -> tuple[list[ToolResultMessage], bool]:
        """A ``length`` stop may have cut the arguments off: report every call as not executed."""
        messages = []
        for call in calls:
            await self._emit_start(call)
            outcome = _Outcome(call, _error_result(_truncated_text(call.name)), True)
            await self._emit_end(outcome)
            messages.append(await self._emit_result_message(outcome))
        return messages, False

    async def execute(self, calls: list[ToolCall]) -> tuple[list[ToolResultMessage], bool]:
        """Run the calls; returns their result messages (in call order) and whether to stop."""
        sequential = self.config.tool_execution == "sequential" or any(
            (tool := self._find_tool(call.name)) is not None and tool.execution_mode == "sequential"
            for call in calls
        )
        if sequential:
            return await self._sequential(calls)
        return await self._parallel(calls)

    async def _sequential(self, calls: list[ToolCall]) -> tuple[list[ToolResultMessage], bool]:
        outcomes: list[_Outcome] = []
        messages: list[ToolResultMessage] = []
        for call in calls:
            await self._emit_start(call)
            prepared = await self._prepare(call)
            outcome = (
                await self._execute_and_finalize(prepared, concurrent=False)
                if isinstance(prepared, _Prepared)
                else prepared
            )
            await self._emit_end(outcome)
            messages.append(await self._emit_result_message(outcome))
            outcomes.append(outcome)
            if self.aborted:
                break  # the remaining calls get no events and no result, as in Pi
        return messages, _batch_terminates(outcomes)

    async def _parallel(self, calls: list[ToolCall]) -> tuple[list[ToolResultMessage], bool]:
        # Preflight one call at a time, in order; calls that fail before execution end here.
        entries: list[_Outcome | _Prepared] = []
        for call in calls:
            await self._emit_start(call)
            prepared = await self._prepare(call)
            if isinstance(prepared, _Outcome):
                await self._emit_end(prepared)
            entries.append(prepared)
            if self.aborted:
                break
        runnable = [entry for entry in entries if isinstance(entry, _Prepared)]
        if len(runnable) == 1:
            finished = [await self._run_prepared(runnable[0], concurrent=False)]
        elif runnable:
            finished = await _gather([self._run_prepared(entry, concurrent=True) for entry in runnable])
        else:
            finished = []
        by_call = iter(finished)
        outcomes = [entry if isinstance(entry, _Outcome) else next(by_call) for entry in entries]
        messages = [await self._emit_result_message(outcome) for outcome in outcomes]
        return messages, _batch_terminates(outcomes)

    async def _run_prepared(self, prepared: _Prepared, *, concurrent: bool) -> _Outcome:
        if self.aborted:
            outcome = _Outcome(prepared.tool_call, _error_result("Operation aborted"), True)
        else:
            outcome = await self._execute_and_finalize(prepared, concurrent=concurrent)
        await self._emit_end(outcome)
        return outcome

    async def _prepare(self, call: ToolCall) -> _Outcome | _Prepared:
        tool = self._find_tool(call.name)
        if tool is None:
            return _Outcome(call, _error_result(f"Tool {call.name} not found"), True)
        try:
            arguments = tool.prepare_arguments(call.arguments)
            refuse_unreadable(call)
            args = validate_arguments(call.name, tool.parameters, arguments)
            hook = self.config.before_tool_call
            if hook is not None:
                decision = await resolve(hook(
                    BeforeToolCallContext(assistant_message=self.reply, tool_call=call, args=args, context=self.context),
                    self.signal,
                ))
                if self.aborted:
                    return _Outcome(call, _error_result("Operation aborted"), True)
                if decision is not None and decision.block:
                    result = _error_result(decision.reason or "Tool execution was blocked")
                    if decision.terminate is True:
                        result.terminate = True
                    return _Outcome(call, result, True)
            if self.aborted:
                return _Outcome(call, _error_result("Operation aborted"), True)
            return _Prepared(call, tool, args)
        except Exception as error:
            return _Outcome(call, _error_result(_error_text(error)), True)

    async def _execute_and_finalize(self, prepared: _Prepared, *, concurrent: bool) -> _Outcome:
        result, is_error, duration_ms, nested = await self._execute(prepared, concurrent=concurrent)
        hook = self.config.after_tool_call
        if hook is None:
            return _Outcome(prepared.tool_call, result, is_error, duration_ms, nested)
        try:
            override = await resolve(hook(
                AfterToolCallContext(
                    assistant_message=self.reply, tool_call=prepared.tool_call, args=prepared.args,
                    result=result, is_error=is_error, context=self.context,
                ),
                self.signal,
            ))
            if override is not None:
                # Structured content kept while the content is replaced might no longer match it.
                structured = (
                    override.structured_content
                    if override.structured_content is not None
                    else None if override.content is not None else result.structured_content
                )
                result = dataclasses.replace(
                    result,
                    content=override.content if override.content is not None else result.content,
                    details=override.details if override.details is not None else result.details,
                    usage=override.usage if override.usage is not None else result.usage,
                    terminate=override.terminate if override.terminate is not None else result.terminate,
                    structured_content=structured,
                )
                if override.is_error is not None:
                    is_error = override.is_error
        except Exception as error:
            result, is_error = _error_result(_error_text(error)), True
        return _Outcome(prepared.tool_call, result, is_error, duration_ms, nested)

    async def _execute(
        self, prepared: _Prepared, *, concurrent: bool
    ) -> tuple[AgentToolResult[Any], bool, int, dict[str, Any] | None]:
        """Run the tool: its result, whether it failed, how long ``execute`` took (ms), and the
        record of the calls it made to other tools (``None``: none).
        ``on_update`` emits without blocking the tool; every update is
        delivered before the call counts as finished, and updates after that are dropped.
        ``concurrent``: other tools of the batch run alongside (see ``_take_js_turns``)."""
        import asyncio

        call, emit = prepared.tool_call, self.emit
        updates: list[asyncio.Future[None]] = []
        accepting = True
        sent = 0

        def on_update(partial: AgentToolResult[Any]) -> None:
            nonlocal sent
            if not accepting:
                return
            sent += 1
            event = ToolExecutionUpdateEvent(
                tool_call_id=call.id, tool_name=call.name, args=call.arguments, partial_result=partial
            )
            try:
                pending = emit(event)
            except Exception as error:  # reported after the tool settles, never into the tool
                failed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
                failed.set_exception(error)
                updates.append(failed)
                return
            if pending is not None:
                updates.append(asyncio.ensure_future(pending))

        started = time.perf_counter()
        runner = NestedToolRunner(self, call)
        token = _current_runner.set(runner)
        try:
            result: AgentToolResult[Any] = await prepared.tool.execute(call.id, prepared.args, self.signal, on_update)
            outcome = (result, False)
        except Exception as error:
            failed = _error_result(_error_text(error))
            if isinstance(error, ToolFailure):
                failed.structured_content = error.structured_content
                if error.content is not None:
                    failed.content = list(error.content)
                if error.details is not None:
                    failed.details = error.details
                failed.usage = error.usage
                if error.content is not None or error.structured_content is not None:
                    failed.is_error = True
            outcome = (failed, True)
        except BaseException:
            for update in updates:
                update.cancel()
            raise
        finally:
            accepting = False
            _current_runner.reset(token)
        duration_ms = int((time.perf_counter() - started) * 1000 + 0.5)  # Math.round of a non-negative time
        if concurrent:
            await _take_js_turns(sent)
        if updates:
            for delivered in await asyncio.gather(*updates, return_exceptions=True):
                if isinstance(delivered, BaseException):
                    raise delivered
        return (*outcome, duration_ms, runner.record())


async def _take_js_turns(updates_sent: int) -> None:
    """Yield to the other tools of a parallel batch as often as Pi's promise jobs do.

    In Pi every tool's ``execute`` is called before any completion is handled: awaiting the
    tool's promise suspends once even when the tool finished without waiting, and awaiting
    the list of its update deliveries suspends once more unless the list is empty. Taking the
    same turns here lets every later tool start (and send its synchronous updates) first, and
    a tool that sent no update completes one turn ahead of one that did, so
    ``tool_execution_update``/``tool_execution_end`` come in Pi's order (agent-events cases
    ``parallel_sync_*``).
    """
    import asyncio

    await asyncio.sleep(0)
    if updates_sent:
        await asyncio.sleep(0)


async def _gather(coroutines: list[Coroutine[Any, Any, _Outcome]]) -> list[_Outcome]:
    """Run concurrently; results in start order.

    On the first exception the others are cancelled (Pi leaves them running unobserved) and
    the exception propagates. Awaiting the tasks in order costs fewer event-loop iterations
    than ``asyncio.wait``/``gather``; a failing task still stops the batch at once because it
    cancels its siblings, including the one being awaited.
    """
    import asyncio

    loop = asyncio.get_running_loop()
    tasks = [loop.create_task(coroutine) for coroutine in coroutines]

    def on_done(task: asyncio.Task[_Outcome]) -> None:
        if not task.cancelled() and task.exception() is not None:
            for other in tasks:
                other.cancel()

    for task in tasks:
        task.add_done_callback(on_done)
    try:
        for task in tasks:
            await task
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.wait(tasks)
        for task in tasks:
            error = None if task.cancelled() else task.exception()
            if error is not None:
                raise error from None
        raise
    return [task.result() for task in tasks]


@dataclass(frozen=True, kw_only=True, slots=True)
class NestedToolOutcome:
    """What a nested call came to: its result (after ``after_tool_call``) and whether it failed."""

    tool_call_id: str
    result: AgentToolResult[Any]
    is_error: bool


class _NestedBatch(_ToolBatch):
    """A batch of one nested call: finds only its tool and reports no events."""

    __slots__ = ("tool",)

    def __init__(self, parent: _ToolBatch, tool: AgentTool, signal: AbortSignal | None, parent_id: str) -> None:
        self.context = parent.context
        self.config = parent.config
        self.emit = _with_parent(parent.emit, parent_id)
        self.send = _sender(self.emit)
        self.signal = signal
        self.reply = parent.reply
        self.tool = tool

    def _find_tool(self, name: str) -> AgentTool | None:
        return self.tool if name == self.tool.name else None


def _with_parent(emit: Emit, parent_id: str) -> Emit:
    """``emit`` with the tool events marked as a nested call's (``parent_tool_call_id``)."""

    def marked(event: AgentEvent) -> Awaitable[None] | None:
        if isinstance(event, ToolExecutionStartEvent | ToolExecutionUpdateEvent | ToolExecutionEndEvent):
            event = dataclasses.replace(event, parent_tool_call_id=parent_id)
        return emit(event)

    return marked


class NestedToolRunner:
    """Runs tool calls for the tool that is executing (a tool that calls other tools, such as
    ``codemode``), through the same pipeline as the model's calls: ``prepare_arguments``, argument
    validation, ``before_tool_call`` (which may block), ``execute`` and ``after_tool_call``.

    A tool gets its runner from ``current_tool_runner()`` while its ``execute`` runs. The tool to
    run is passed in, so it need not be among the active tools. Nested calls get the ids
    ``<parent id>/<n>``; they add nothing to the transcript, and their ``tool_execution_*`` events
    carry ``parent_tool_call_id``. ``run`` never raises for the tool's failures: they come back
    with ``is_error``."""

    def __init__(self, batch: _ToolBatch, parent: ToolCall) -> None:
        self._batch = batch
        self._parent = parent
        self._count = 0
        self._calls: list[dict[str, Any]] = []
        self._complete = True
        self._argument_bytes = 0

    def record(self) -> dict[str, Any] | None:
        """What the session keeps of the nested calls (Pi 1.6's ``nestedCalls``): id, name,
        status, arguments, duration and error of each, never results; ``complete: false`` when
        something was left out (arguments over 8 KiB, or over 32 KiB together; calls past 256)."""
        if not self._calls:
            return None
        return {"calls": [dict(call) for call in self._calls], "complete": self._complete}

    def _note(self, call: ToolCall) -> dict[str, Any] | None:
        if len(self._calls) >= _MAX_RECORDED_CALLS:
            self._complete = False
            return None
        entry: dict[str, Any] = {"id": call.id, "name": call.name, "status": "running"}
        size = len(msgspec.json.encode(call.arguments))
        if size <= _MAX_RECORDED_ARGUMENTS and self._argument_bytes + size <= _MAX_RECORDED_ARGUMENTS_TOTAL:
            entry["arguments"] = call.arguments
            self._argument_bytes += size
        else:
            self._complete = False
        self._calls.append(entry)
        return entry

    @property
    def parent_tool_call_id(self) -> str:
        return self._parent.id

    async def run(
        self, tool: AgentTool, arguments: dict[str, Any], signal: AbortSignal | None = None
    ) -> NestedToolOutcome:
        self._count += 1
        call = ToolCall(id=f"{self._parent.id}/{self._count}", name=tool.name, arguments=arguments)
        batch = _NestedBatch(self._batch, tool, signal if signal is not None else self._batch.signal, self._parent.id)
        entry = self._note(call)
        await batch._emit_start(call)
        try:
            prepared = await batch._prepare(call)
            if isinstance(prepared, _Prepared):
                outcome = await batch._execute_and_finalize(prepared, concurrent=False)
            else:
                outcome = prepared
        except BaseException:
            if entry is not None:
                entry["status"] = "cancelled"
            raise
        await batch._emit_end(outcome)
        if entry is not None:
            entry["status"] = "error" if outcome.is_error else "ok"
            if outcome.duration_ms is not None:
                entry["durationMs"] = outcome.duration_ms
            if outcome.is_error:
                text = "\n".join(block.text for block in outcome.result.content if isinstance(block, TextContent))
                entry["error"] = text[:_MAX_RECORDED_ERROR]
        return NestedToolOutcome(tool_call_id=call.id, result=outcome.result, is_error=outcome.is_error)


_MAX_RECORDED_CALLS = 256
_MAX_RECORDED_ARGUMENTS = 8 * 1024
_MAX_RECORDED_ARGUMENTS_TOTAL = 32 * 1024
_MAX_RECORDED_ERROR = 2000

_current_runner: ContextVar[NestedToolRunner | None] = ContextVar("pi_agent_nested_tool_runner", default=None)


def current_tool_runner() -> NestedToolRunner | None:
    """The runner for nested calls of the tool whose ``execute`` is running (``None`` outside a
    tool, or for a tool called directly rather than by the loop)."""
    return _current_runner.get()
