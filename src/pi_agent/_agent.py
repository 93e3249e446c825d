"""``Agent``: the stateful wrapper around the loop that applications hold on to.

It owns the transcript and the run state, queues steering and follow-up messages, and
delivers every event to its listeners, awaited one after the other. One run at a time;
whatever goes wrong inside a run (a hook or listener raising included) ends that run with
an error assistant message instead of an exception, so ``await agent.prompt(...)`` returns
normally once the run has fully settled.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from pi_agent._events import (
    AgentEndEvent,
    AgentEvent,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    TurnEndEvent,
)
from pi_agent._loop import (
    get_default_stream_fn,
    is_awaitable,
    resolve,
    run_agent_loop,
    run_agent_loop_continue,
)
from pi_agent._roles import AgentMessage, CustomMessage, OpaqueMessage, default_convert_to_llm
from pi_agent._tools import AgentTool, ToolExecutionMode
from pi_agent._types import (
    AfterToolCall,
    AgentContext,
    AgentLoopConfig,
    AgentLoopTurnUpdate,
    BeforeToolCall,
    ConvertToLlm,
    GetApiKey,
    MaybeAwaitable,
    StreamFn,
    TransformContext,
    TurnContext,
)
from pi_ai import (
    AbortController,
    AbortSignal,
    AssistantMessage,
    ImageContent,
    Model,
    ModelCost,
    SimpleStreamOptions,
    SystemMessage,
    TextContent,
    ThinkingBudgets,
    ThinkingLevel,
    ToolResultMessage,
    Usage,
    UserMessage,
    now_ms,
)

if TYPE_CHECKING:
    import asyncio

QueueMode: TypeAlias = Literal["all", "one-at-a-time"]
PayloadHook: TypeAlias = Callable[[Any, Model], Any]
ResponseHook: TypeAlias = Callable[[Any, Model], "Awaitable[None] | None"]
AgentListener: TypeAlias = Callable[[AgentEvent, AbortSignal], "Awaitable[None] | None"]
ShouldStopAfterTurnHook: TypeAlias = Callable[[TurnContext, "AbortSignal | None"], MaybeAwaitable[bool]]
PrepareNextTurnHook: TypeAlias = Callable[["AbortSignal | None"], MaybeAwaitable["AgentLoopTurnUpdate | None"]]
PrepareNextTurnWithContextHook: TypeAlias = Callable[
    [TurnContext, "AbortSignal | None"], MaybeAwaitable["AgentLoopTurnUpdate | None"]
]

PROMPT_WHILE_RUNNING = (
    "Agent is already processing a prompt. Use steer() or follow_up() to queue messages, or wait for completion."
)
CONTINUE_WHILE_RUNNING = "Agent is already processing. Wait for completion before continuing."
RESET_WHILE_RUNNING = "Agent is already processing. Wait for completion before resetting."


def _placeholder_model() -> Model:
    return Model(
        id="unknown", name="unknown", api="unknown", provider="unknown", base_url="",
        reasoning=False, input=[], cost=ModelCost(), context_window=0, max_tokens=0,
    )


class AgentState:
    """The agent's observable state. Assigning ``tools`` or ``messages`` stores a copy."""

    __slots__ = (
        "_is_streaming",
        "_messages",
        "_tools",
        "error_message",
        "model",
        "pending_tool_calls",
        "streaming_message",
        "system_prompt",
        "thinking_level",
    )

    def __init__(
        self,
        *,
        system_prompt: str = "",
        model: Model | None = None,
        thinking_level: ThinkingLevel = "off",
        tools: Iterable[AgentTool] = (),
        messages: Iterable[AgentMessage] = (),
    ) -> None:
        self.system_prompt = system_prompt
        self.model = model if model is not None else _placeholder_model()
        self.thinking_level: ThinkingLevel = thinking_level
        self._tools = list(tools)
        self._messages = list(messages)
        self._is_streaming = False
        self.streaming_message: AgentMessage | None = None
        """The message being streamed (a copy per update); ``None`` between messages."""
        self.pending_tool_calls: frozenset[str] = frozenset()
        """Ids of tool calls that started and have not ended."""
        self.error_message: str | None = None
        """The error of the last run's failed turn, if any."""

    @property
    def tools(self) -> list[AgentTool]:
        return self._tools

    @tools.setter
    def tools(self, tools: Iterable[AgentTool]) -> None:
        self._tools = list(tools)

    @property
    def messages(self) -> list[AgentMessage]:
        """The transcript. Runs append every settled message (``message_end``)."""
        return self._messages

    @messages.setter
    def messages(self, messages: Iterable[AgentMessage]) -> None:
        self._messages = list(messages)

    @property
    def is_streaming(self) -> bool:
        """True from the start of a run until it has fully settled (``agent_end`` listeners done)."""
        return self._is_streaming


class _Queue:
    __slots__ = ("items", "mode")

    def __init__(self, mode: QueueMode) -> None:
        self.mode: QueueMode = mode
        self.items: list[AgentMessage] = []

    def drain(self) -> list[AgentMessage]:
        if self.mode == "all":
            drained, self.items = self.items, []
            return drained
        if not self.items:
            return []
        return [self.items.pop(0)]


@dataclass(slots=True)
class _Run:
    controller: AbortController
    settled: asyncio.Future[None]


class Agent:
    """Holds a conversation with a model and runs the agent loop over it.

    ``stream_fn`` is how the model is called (``pi_ai.stream_simple`` fits); without it the
    default installed with ``set_default_stream_fn`` is used, and constructing fails if there
    is none. Hooks and settings are plain attributes, read when a run starts: changing them
    (or ``state.model``/``state.tools``) during a run affects the next run.
    """

    def __init__(
        self,
        *,
        system_prompt: str = "",
        model: Model | None = None,
        thinking_level: ThinkingLevel = "off",
        tools: Iterable[AgentTool] = (),
        messages: Iterable[AgentMessage] = (),
        stream_fn: StreamFn | None = None,
        convert_to_llm: ConvertToLlm | None = None,
        transform_context: TransformContext | None = None,
        get_api_key: GetApiKey | None = None,
        on_payload: PayloadHook | None = None,
        on_response: ResponseHook | None = None,
        before_tool_call: BeforeToolCall | None = None,
        after_tool_call: AfterToolCall | None = None,
        should_stop_after_turn: ShouldStopAfterTurnHook | None = None,
        prepare_next_turn: PrepareNextTurnHook | None = None,
        prepare_next_turn_with_context: PrepareNextTurnWithContextHook | None = None,
        steering_mode: QueueMode = "one-at-a-time",
        follow_up_mode: QueueMode = "one-at-a-time",
        session_id: str | None = None,
        thinking_budgets: ThinkingBudgets | None = None,
        transport: str = "auto",
        max_retry_delay_ms: int | None = None,
        tool_execution: ToolExecutionMode = "parallel",
    ) -> None:
        self._state = AgentState(
            system_prompt=system_prompt, model=model, thinking_level=thinking_level, tools=tools, messages=messages
        )
        self.stream_fn: StreamFn = stream_fn if stream_fn is not None else get_default_stream_fn()
        self.convert_to_llm: ConvertToLlm = convert_to_llm if convert_to_llm is not None else default_convert_to_llm
        self.transform_context = transform_context
        self.get_api_key = get_api_key
        self.on_payload = on_payload
        self.on_response = on_response
        self.before_tool_call = before_tool_call
        self.after_tool_call = after_tool_call
        self.should_stop_after_turn = should_stop_after_turn
        self.prepare_next_turn = prepare_next_turn
        self.prepare_next_turn_with_context = prepare_next_turn_with_context
        self.session_id = session_id
        self.thinking_budgets = thinking_budgets
        self.transport = transport
        """Preferred transport; forwarded as ``stream_options.extra["transport"]`` unless "auto"."""
        self.max_retry_delay_ms = max_retry_delay_ms
        self.tool_execution: ToolExecutionMode = tool_execution
        self._steering = _Queue(steering_mode)
        self._follow_ups = _Queue(follow_up_mode)
        self._listeners: dict[AgentListener, None] = {}
        self._listener_list: tuple[AgentListener, ...] = ()
        self._run: _Run | None = None

    # ---------------------------------------------------------------- state and queues

    @property
    def state(self) -> AgentState:
        return self._state

    @property
    def steering_mode(self) -> QueueMode:
        return self._steering.mode

    @steering_mode.setter
    def steering_mode(self, mode: QueueMode) -> None:
        self._steering.mode = mode

    @property
    def follow_up_mode(self) -> QueueMode:
        return self._follow_ups.mode

    @follow_up_mode.setter
    def follow_up_mode(self, mode: QueueMode) -> None:
        self._follow_ups.mode = mode

    @property
    def signal(self) -> AbortSignal | None:
        """The running run's abort signal, or ``None`` when idle."""
        return self._run.controller.signal if self._run is not None else None

    def subscribe(self, listener: AgentListener) -> Callable[[], None]:
        """Call ``listener(event, signal)`` for every event (awaited, in subscription order).

        Returns a function that unsubscribes. A listener that raises ends the run with an
        error message, so listeners should handle their own errors.
        """
        self._listeners[listener] = None
        self._listener_list = tuple(self._listeners)

        def unsubscribe() -> None:
            self._listeners.pop(listener, None)
            self._listener_list = tuple(self._listeners)

        return unsubscribe

    def steer(self, message: AgentMessage) -> None:
        """Queue a message for the model, injected after the current turn finishes."""
        self._steering.items.append(message)

    def follow_up(self, message: AgentMessage) -> None:
        """Queue a message that runs only once the agent would otherwise stop."""
        self._follow_ups.items.append(message)

    def clear_steering_queue(self) -> None:
        self._steering.items = []

    def clear_follow_up_queue(self) -> None:
        self._follow_ups.items = []

    def clear_all_queues(self) -> None:
        self.clear_steering_queue()
        self.clear_follow_up_queue()

    def has_queued_messages(self) -> bool:
        return bool(self._steering.items or self._follow_ups.items)

    def abort(self) -> None:
        """Abort the running run (tools and the model call get the signal); idle: no-op."""
        if self._run is not None:
            self._run.controller.abort()

    async def wait_for_idle(self) -> None:
        """Return once the running run (and its listeners) has settled; at once when idle."""
        if self._run is not None:
            import asyncio

            await asyncio.shield(self._run.settled)

    def reset(self) -> None:
        """Clear transcript, run state and queues; keeps system prompt, model, level and tools."""
        if self._run is not None:
            raise RuntimeError(RESET_WHILE_RUNNING)
        state = self._state
        state.messages = []
        state._is_streaming = False
        state.streaming_message = None
        state.pending_tool_calls = frozenset()
        state.error_message = None
        self.clear_all_queues()

    # ---------------------------------------------------------------- runs

    async def prompt(
        self,
        input: str | AgentMessage | Sequence[AgentMessage],
        images: Sequence[ImageContent] | None = None,
    ) -> None:
        """Run with a new user text (plus images), one message or a list of messages."""
        if self._run is not None:
            raise RuntimeError(PROMPT_WHILE_RUNNING)
        if isinstance(input, str):
            content: list[TextContent | ImageContent] = [TextContent(text=input), *(images or ())]
            messages: list[AgentMessage] = [UserMessage(content=content, timestamp=now_ms())]
        elif isinstance(
            input, UserMessage | AssistantMessage | ToolResultMessage | SystemMessage | CustomMessage | OpaqueMessage
        ):
            messages = [input]
        else:
            messages = list(input)
        await self._run_prompts(messages)

    async def continue_(self) -> None:
        """Run from the current transcript (after a tool result, a user message, or a retry).

        From an assistant tail, queued steering (else follow-up) messages are run as prompts;
        with nothing queued that is an error.
        """
        if self._run is not None:
            raise RuntimeError(CONTINUE_WHILE_RUNNING)
        messages = self._state.messages
        if not messages:
            raise ValueError("No messages to continue from")
        if messages[-1].role == "assistant":
            steering = self._steering.drain()
            if steering:
                await self._run_prompts(steering, skip_initial_steering_poll=True)
                return
            follow_ups = self._follow_ups.drain()
            if follow_ups:
                await self._run_prompts(follow_ups)
                return
            raise ValueError("Cannot continue from message role: assistant")
        await self._lifecycle(lambda signal: run_agent_loop_continue(
            self._snapshot(), self._loop_config(), self._process_event, signal=signal, stream_fn=self.stream_fn
        ))

    async def _run_prompts(self, messages: list[AgentMessage], *, skip_initial_steering_poll: bool = False) -> None:
        await self._lifecycle(lambda signal: run_agent_loop(
            messages, self._snapshot(), self._loop_config(skip_initial_steering_poll),
            self._process_event, signal=signal, stream_fn=self.stream_fn,
        ))

    def _snapshot(self) -> AgentContext:
        state = self._state
        return AgentContext(system_prompt=state.system_prompt, messages=list(state.messages), tools=list(state.tools))

    def _loop_config(self, skip_initial_steering_poll: bool = False) -> AgentLoopConfig:
        state = self._state
        skip = [skip_initial_steering_poll]

        def steering() -> list[AgentMessage]:
            if skip[0]:
                skip[0] = False
                return []
            return self._steering.drain()

        options = SimpleStreamOptions(
            reasoning=None if state.thinking_level == "off" else state.thinking_level,
            session_id=self.session_id,
            on_payload=self.on_payload,
            on_response=self.on_response,
            thinking_budgets=self.thinking_budgets,
        )
        if self.max_retry_delay_ms is not None:
            options.max_retry_delay_ms = self.max_retry_delay_ms
        if self.transport != "auto":
            options.extra["transport"] = self.transport
        should_stop = self.should_stop_after_turn
        with_context = self.prepare_next_turn_with_context
        without_context = self.prepare_next_turn
        prepare: Callable[[TurnContext], Awaitable[AgentLoopTurnUpdate | None]] | None = None
        if with_context is not None or without_context is not None:
            async def prepare(turn: TurnContext) -> AgentLoopTurnUpdate | None:
                if with_context is not None:
                    return await resolve(with_context(turn, self.signal))
                assert without_context is not None
                return await resolve(without_context(self.signal))

        async def stop_after_turn(turn: TurnContext) -> bool:
            assert should_stop is not None
            return await resolve(should_stop(turn, self.signal))

        return AgentLoopConfig(
            model=state.model,
            convert_to_llm=self.convert_to_llm,
            stream_options=options,
            transform_context=self.transform_context,
            get_api_key=self.get_api_key,
            should_stop_after_turn=stop_after_turn if should_stop is not None else None,
            prepare_next_turn=prepare,
            get_steering_messages=steering,
            get_follow_up_messages=self._follow_ups.drain,
            tool_execution=self.tool_execution,
            before_tool_call=self.before_tool_call,
            after_tool_call=self.after_tool_call,
        )

    async def _lifecycle(self, execute: Callable[[AbortSignal], Awaitable[Any]]) -> None:
        if self._run is not None:
            raise RuntimeError("Agent is already processing.")
        import asyncio  # lazily: importing pi_agent must not pay for asyncio

        controller = AbortController()
        self._run = _Run(controller, asyncio.get_running_loop().create_future())
        state = self._state
        state._is_streaming = True
        state.streaming_message = None
        state.error_message = None
        try:
            await execute(controller.signal)
        except Exception as error:
            await self._fail_run(error, controller.signal.aborted)
        finally:
            self._finish_run()

    async def _fail_run(self, error: BaseException, aborted: bool) -> None:
        """Close the run the way a failed model call would: an error message, turn_end, agent_end."""
        model = self._state.model
        failure = AssistantMessage(
            content=[TextContent(text="")],
            api=model.api,
            provider=model.provider,
            model=model.id,
            usage=Usage(),
            stop_reason="aborted" if aborted else "error",
            error_message=str(error) or type(error).__name__,
            timestamp=now_ms(),
        )
        await self._deliver(MessageStartEvent(message=failure))
        await self._deliver(MessageEndEvent(message=failure))
        await self._deliver(TurnEndEvent(message=failure, tool_results=[]))
        await self._deliver(AgentEndEvent(messages=[failure]))

    def _finish_run(self) -> None:
        state = self._state
        state._is_streaming = False
        state.streaming_message = None
        state.pending_tool_calls = frozenset()
        run, self._run = self._run, None
        if run is not None and not run.settled.done():
            run.settled.set_result(None)

    def _process_event(self, event: AgentEvent) -> Awaitable[None] | None:
        """Update the state for ``event``, then call each listener in subscription order.

        Synchronous listeners run right here; from the first listener that returns an
        awaitable on, the rest is returned as one awaitable for the loop to await.
        """
        state = self._state
        kind = type(event)
        if kind is MessageUpdateEvent or kind is MessageStartEvent:
            state.streaming_message = event.message  # type: ignore[union-attr]
        elif kind is MessageEndEvent:
            state.streaming_message = None
            state._messages.append(event.message)  # type: ignore[union-attr]
        elif kind is ToolExecutionStartEvent:
            state.pending_tool_calls = state.pending_tool_calls | {event.tool_call_id}  # type: ignore[union-attr]
        elif kind is ToolExecutionEndEvent:
            state.pending_tool_calls = state.pending_tool_calls - {event.tool_call_id}  # type: ignore[union-attr]
        elif kind is TurnEndEvent:
            message = event.message  # type: ignore[union-attr]
            if isinstance(message, AssistantMessage) and message.error_message:
                state.error_message = message.error_message
        elif kind is AgentEndEvent:
            state.streaming_message = None
        run = self._run
        if run is None:
            raise RuntimeError("Agent listener invoked outside active run")
        signal = run.controller.signal
        listeners = self._listener_list
        for listener in listeners:
            result = listener(event, signal)
            if result is not None and is_awaitable(result):
                rest = listeners[listeners.index(listener) + 1 :]
                return self._await_listeners(result, rest, event, signal)
        return None

    @staticmethod
    async def _await_listeners(
        first: Awaitable[None], rest: tuple[AgentListener, ...], event: AgentEvent, signal: AbortSignal
    ) -> None:
        await first
        for listener in rest:
            result = listener(event, signal)
            if result is not None and is_awaitable(result):
                await result

    async def _deliver(self, event: AgentEvent) -> None:
        pending = self._process_event(event)
        if pending is not None:
            await pending
