"""What the loop is configured with and what its hooks see and return."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias, TypeVar

from pi_agent._roles import AgentMessage, default_convert_to_llm
from pi_agent._tools import AgentTool, AgentToolResult, ToolExecutionMode
from pi_ai import (
    AbortSignal,
    AssistantMessage,
    AssistantMessageEventStream,
    Context,
    ContextMessage,
    ImageContent,
    Model,
    SimpleStreamOptions,
    TextContent,
    ThinkingLevel,
    ToolCall,
    ToolResultMessage,
    Usage,
)

T = TypeVar("T")
MaybeAwaitable: TypeAlias = T | Awaitable[T]

StreamFn: TypeAlias = Callable[
    [Model, Context, SimpleStreamOptions],
    "AssistantMessageEventStream | Awaitable[AssistantMessageEventStream]",
]
"""How the loop calls a model (``pi_ai.stream_simple`` fits). Must not raise: failures are
``error`` events ending the stream."""


@dataclass(kw_only=True, slots=True)
class AgentContext:
    """What one run starts from: system prompt, transcript and tools."""

    system_prompt: str = ""
    messages: list[AgentMessage] = field(default_factory=list)
    tools: list[AgentTool] | None = None


@dataclass(kw_only=True, slots=True)
class BeforeToolCallContext:
    assistant_message: AssistantMessage
    tool_call: ToolCall
    """The call as the model sent it (raw arguments)."""
    args: dict[str, Any]
    """The validated and coerced arguments ``execute`` would receive."""
    context: AgentContext
    """The loop's live context."""


@dataclass(kw_only=True, slots=True)
class BeforeToolCallResult:
    block: bool = False
    reason: str | None = None
    """Text of the error result when blocked (default ``Tool execution was blocked``)."""
    terminate: bool | None = None
    """With ``block``: this blocked call votes to end the run after the batch."""


@dataclass(kw_only=True, slots=True)
class AfterToolCallContext:
    assistant_message: AssistantMessage
    tool_call: ToolCall
    args: dict[str, Any]
    result: AgentToolResult[Any]
    is_error: bool
    context: AgentContext


@dataclass(kw_only=True, slots=True)
class AfterToolCallResult:
    """Each field that is not ``None`` replaces the result's; the rest is kept."""

    content: list[TextContent | ImageContent] | None = None
    details: Any = None
    is_error: bool | None = None
    usage: Usage | None = None
    terminate: bool | None = None
    structured_content: Any = None
    """Replaces the result's structured content. When ``content`` is replaced without it, the
    old structured content is dropped, as in Pi 1.6."""


@dataclass(kw_only=True, slots=True)
class TurnContext:
    """Seen by ``should_stop_after_turn`` and ``prepare_next_turn`` after each turn."""

    message: AssistantMessage
    tool_results: list[ToolResultMessage]
    context: AgentContext
    """The live context, including this turn."""
    new_messages: list[AgentMessage]
    """What the run would return if it stopped now."""


@dataclass(kw_only=True, slots=True)
class AgentLoopTurnUpdate:
    """Returned by ``prepare_next_turn``: anything set replaces the loop's value."""

    context: AgentContext | None = None
    model: Model | None = None
    thinking_level: ThinkingLevel | None = None
    """``"off"`` turns reasoning off; ``None`` keeps the current level."""
    messages: list[AgentMessage] | None = None
    """Messages that open the next turn (after ``turn_start``, before the steering messages), with
    ``message_start`` / ``message_end`` like any other (Pi 1.6's ``nextTurnSnapshot.messages``;
    the coding agent's system message declaring tools that changed during the run)."""


ConvertToLlm: TypeAlias = Callable[[list[AgentMessage]], MaybeAwaitable[Sequence[ContextMessage]]]
TransformContext: TypeAlias = Callable[[list[AgentMessage], "AbortSignal | None"], MaybeAwaitable[list[AgentMessage]]]
GetApiKey: TypeAlias = Callable[[str], MaybeAwaitable["str | None"]]
BeforeToolCall: TypeAlias = Callable[
    [BeforeToolCallContext, "AbortSignal | None"], MaybeAwaitable["BeforeToolCallResult | None"]
]
AfterToolCall: TypeAlias = Callable[
    [AfterToolCallContext, "AbortSignal | None"], MaybeAwaitable["AfterToolCallResult | None"]
]
ShouldStopAfterTurn: TypeAlias = Callable[[TurnContext], MaybeAwaitable[bool]]
PrepareNextTurn: TypeAlias = Callable[[TurnContext], MaybeAwaitable["AgentLoopTurnUpdate | None"]]
MessageSource: TypeAlias = Callable[[], MaybeAwaitable[Sequence[AgentMessage]]]


@dataclass(kw_only=True, slots=True)
class AgentLoopConfig:
    """Everything the low-level loop needs besides the context.

    The callbacks may be plain functions or coroutines. Only the tool hooks
    (``before_tool_call``, ``after_tool_call``) may raise: an exception from any other
    callback ends the run (the ``Agent`` turns it into an error message).
    """

    model: Model
    convert_to_llm: ConvertToLlm = default_convert_to_llm
    """AgentMessage -> Message before every model call; the default keeps the three LLM roles."""
    stream_options: SimpleStreamOptions = field(default_factory=SimpleStreamOptions)
    """Passed to every model call (``api_key``, ``reasoning``, ``session_id``, ...); the loop
    sets ``signal`` and the resolved ``api_key``."""
    transform_context: TransformContext | None = None
    """AgentMessage -> AgentMessage before ``convert_to_llm``; its result is used for that
    one request only (the loop's transcript is not replaced)."""
    get_api_key: GetApiKey | None = None
    """Called with the provider before every model call; a falsy answer falls back to
    ``stream_options.api_key``."""
    should_stop_after_turn: ShouldStopAfterTurn | None = None
    prepare_next_turn: PrepareNextTurn | None = None
    get_steering_messages: MessageSource | None = None
    get_follow_up_messages: MessageSource | None = None
    tool_execution: ToolExecutionMode = "parallel"
    before_tool_call: BeforeToolCall | None = None
    after_tool_call: AfterToolCall | None = None
