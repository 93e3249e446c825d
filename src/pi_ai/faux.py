"""A scripted, in-memory provider for deterministic tests (Pi's ``faux`` provider).

Register one with ``register_faux_provider()``, queue responses with ``set_responses`` /
``append_responses`` and call ``stream_simple(handle.get_model(), ...)`` as with any provider.
Each call takes the next queued response (an ``AssistantMessage`` or a factory that builds
one from the request) and streams it in chunks of ``token_size`` tokens (one token = four
characters) with Pi's exact event sequence and usage estimate.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import math
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from pi_ai._abort import AbortSignal
from pi_ai._codec import encode
from pi_ai._context import Context
from pi_ai._event_stream import AssistantMessageEventStream, now_ms, start_stream
from pi_ai._events import (
    DoneEvent,
    ErrorEvent,
    StartEvent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from pi_ai._messages import (
    AssistantMessage,
    ImageContent,
    Message,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
    UserMessage,
)
from pi_ai._model import InputModality, Model, ModelCost
from pi_ai._options import ResponseInfo, StreamOptions
from pi_ai._registry import ApiImplementation, register_api, unregister_apis
from pi_ai._transcript import conversation
from pi_ai.js_json import utf16_len

FauxBlock = TextContent | ThinkingContent | ToolCall


@dataclass
class FauxState:
    call_count: int = 0


FauxFactory = Callable[
    [Context, StreamOptions | None, FauxState, Model], AssistantMessage | Awaitable[AssistantMessage]
]
FauxResponse = AssistantMessage | FauxFactory


@dataclass(kw_only=True)
class FauxModelSpec:
    id: str
    name: str | None = None
    reasoning: bool = False
    input: list[InputModality] = field(default_factory=lambda: ["text", "image"])
    cost: ModelCost = field(default_factory=ModelCost)
    context_window: int = 128000
    max_tokens: int = 16384


def _random_id(prefix: str) -> str:
    return f"{prefix}:{now_ms()}:{random.getrandbits(48):x}"


def faux_text(text: str) -> TextContent:
    return TextContent(text=text)


def faux_thinking(thinking: str) -> ThinkingContent:
    return ThinkingContent(thinking=thinking)


def faux_tool_call(name: str, arguments: dict[str, object], *, id: str | None = None) -> ToolCall:
    return ToolCall(id=id if id is not None else _random_id("tool"), name=name, arguments=dict(arguments))


def faux_assistant_message(
    content: str | FauxBlock | Sequence[FauxBlock],
    *,
    stop_reason: StopReason = "stop",
    error_message: str | None = None,
    response_id: str | None = None,
    timestamp: int | None = None,
) -> AssistantMessage:
    """A scripted response; api, provider and model are stamped in when it is served."""
    if isinstance(content, str):
        blocks: list[FauxBlock] = [TextContent(text=content)]
    elif isinstance(content, TextContent | ThinkingContent | ToolCall):
        blocks = [content]
    else:
        blocks = list(content)
    return AssistantMessage(
        content=blocks,
        api="faux",
        provider="faux",
        model="faux-1",
        usage=Usage(),
        stop_reason=stop_reason,
        error_message=error_message,
        response_id=response_id,
        timestamp=timestamp if timestamp is not None else now_ms(),
    )


# --------------------------------------------------------------------------- usage estimate


def _tokens(text: str) -> int:
    return math.ceil(utf16_len(text) / 4)


def _json(value: object) -> str:
    return encode(value).decode()


def _block_text(block: TextContent | ImageContent) -> str:
    return block.text if isinstance(block, TextContent) else f"[image:{block.mime_type}:{len(block.data)}]"


def _user_content_text(content: str | Sequence[TextContent | ImageContent]) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(map(_block_text, content))


def _assistant_block_text(block: FauxBlock) -> str:
    if isinstance(block, TextContent):
        return block.text
    if isinstance(block, ThinkingContent):
        return block.thinking
    return f"{block.name}:{_json(block.arguments)}"


def _assistant_text(content: Sequence[FauxBlock]) -> str:
    return "\n".join(map(_assistant_block_text, content))


def _message_text(message: Message) -> str:
    if isinstance(message, UserMessage):
        return f"user:{_user_content_text(message.content)}"
    if isinstance(message, AssistantMessage):
        return f"assistant:{_assistant_text(message.content)}"
    return "\n".join([f"{message.role}:{message.tool_name}", *map(_block_text, message.content)])


class _ContextText:
    """Pi's ``serializeContext``, remembering each message's text by the message object.

    A session sends the same message objects again on every call, and serializing a long
    transcript in Python on every call was most of a live faux turn (``bench/agent_loop.py``:
    1.8x Pi's per turn before, with 2,000 messages). Messages in a transcript are not changed
    in place (changes make copies), so the object decides; only the last context's messages
    are kept.
    """

    def __init__(self) -> None:
        self._texts: dict[int, tuple[Message, str]] = {}

    def __call__(self, context: Context) -> str:
        previous = self._texts
        current: dict[int, tuple[Message, str]] = {}
        parts = [f"system:{context.system_prompt}"] if context.system_prompt else []
        for message in conversation(context):
            known = previous.get(id(message))
            text = known[1] if known is not None and known[0] is message else _message_text(message)
            current[id(message)] = (message, text)
            parts.append(text)
        self._texts = current
        if context.tools:
            parts.append(f"tools:{_json(context.tools)}")
        return "\n\n".join(parts)


_PREFIX_BLOCK = 4096


def _common_prefix_units(a: str, b: str) -> int:
    """Length of the common prefix in UTF-16 code units."""
    if not (a.isascii() and b.isascii()):
        a16, b16 = a.encode("utf-16-le", "surrogatepass"), b.encode("utf-16-le", "surrogatepass")
        units = 0
        while (
            2 * units + 1 < min(len(a16), len(b16))
            and a16[2 * units : 2 * units + 2] == b16[2 * units : 2 * units + 2]
        ):
            units += 1
        return units
    limit = min(len(a), len(b))
    # Whole blocks compared in C first: the prompts of one session share megabytes.
    start = 0
    while start < limit and a[start : start + _PREFIX_BLOCK] == b[start : start + _PREFIX_BLOCK]:
        start += _PREFIX_BLOCK
    end = min(start + _PREFIX_BLOCK, limit)
    return next((index for index in range(start, end) if a[index] != b[index]), end)


def _estimate_usage(
    content: Sequence[FauxBlock],
    context: Context,
    options: StreamOptions | None,
    cache: dict[str, str],
    serialize: _ContextText,
) -> Usage:
    prompt = serialize(context)
    prompt_tokens = _tokens(prompt)
    output = _tokens(_assistant_text(content))
    input_tokens, cache_read, cache_write = prompt_tokens, 0, 0
    session_id = options.session_id if options else None
    if session_id and (options is None or options.cache_retention != "none"):
        previous = cache.get(session_id)
        if previous is not None:
            shared = _common_prefix_units(previous, prompt)
            cache_read = math.ceil(shared / 4)
            cache_write = math.ceil((utf16_len(prompt) - shared) / 4)
            input_tokens = max(0, prompt_tokens - cache_read)
        else:
            cache_write = prompt_tokens
        cache[session_id] = prompt
    return Usage(
        input=input_tokens,
        output=output,
        cache_read=cache_read,
        cache_write=cache_write,
        total_tokens=input_tokens + output + cache_read + cache_write,
    )


# --------------------------------------------------------------------------- streaming


class FauxProvider:
    """Handle returned by ``register_faux_provider``."""

    def __init__(
        self,
        *,
        api: str,
        provider: str,
        models: list[Model],
        tokens_per_second: float | None,
        token_size: tuple[int, int],
    ) -> None:
        self.api = api
        self.provider = provider
        self.models = models
        self.state = FauxState()
        self._tokens_per_second = tokens_per_second
        self._min_tokens, self._max_tokens = token_size
        self._pending: list[FauxResponse] = []
        self._prompt_cache: dict[str, str] = {}
        self._context_text = _ContextText()

    def get_model(self, model_id: str | None = None) -> Model:
        if model_id is None:
            return self.models[0]
        for model in self.models:
            if model.id == model_id:
                return model
        raise KeyError(f"faux provider has no model {model_id!r}")

    def set_responses(self, responses: Sequence[FauxResponse]) -> None:
        self._pending = list(responses)

    def append_responses(self, responses: Sequence[FauxResponse]) -> None:
        self._pending.extend(responses)

    @property
    def pending_response_count(self) -> int:
        return len(self._pending)

    def unregister(self) -> None:
        unregister_apis(f"faux:{id(self)}")

    # The same function serves both entry points: the faux provider ignores reasoning options.
    def stream(
        self, model: Model, context: Context, options: StreamOptions | None
    ) -> AssistantMessageEventStream:
        step = self._pending.pop(0) if self._pending else None
        self.state.call_count += 1
        signal = options.signal if options else None

        async def produce(stream: AssistantMessageEventStream) -> None:
            if options is not None and options.on_response is not None:
                maybe = options.on_response(ResponseInfo(status=200, headers={}), model)
                if inspect.isawaitable(maybe):
                    await maybe
            if step is None:
                message = self._error_message(model, "No more faux responses queued")
                message.usage = _estimate_usage([], context, options, self._prompt_cache, self._context_text)
                stream.push(ErrorEvent(reason="error", error=message))
                return
            try:
                built = step(context, options, self.state, model) if callable(step) else step
                if inspect.isawaitable(built):
                    built = await built
                message = copy.deepcopy(built)
                message.api, message.provider, message.model = self.api, self.provider, model.id
                message.usage = _estimate_usage(
                    message.content, context, options, self._prompt_cache, self._context_text
                )
                await self._stream_blocks(stream, message, signal)
            except Exception as exc:
                stream.push(ErrorEvent(reason="error", error=self._error_message(model, str(exc))))

        return start_stream(model, produce, signal=signal)

    def _error_message(self, model: Model, text: str) -> AssistantMessage:
        return AssistantMessage(
            content=[],
            api=self.api,
            provider=self.provider,
            model=model.id,
            usage=Usage(),
            stop_reason="error",
            error_message=text,
            timestamp=now_ms(),
        )

    def _chunks(self, text: str) -> list[str]:
        chunks = []
        index = 0
        while index < len(text):
            size = max(1, random.randint(self._min_tokens, self._max_tokens) * 4)
            chunks.append(text[index : index + size])
            index += size
        return chunks or [""]

    async def _pace(self, chunk: str) -> None:
        if self._tokens_per_second and self._tokens_per_second > 0:
            await asyncio.sleep(_tokens(chunk) / self._tokens_per_second)

    async def _stream_blocks(
        self, stream: AssistantMessageEventStream, message: AssistantMessage, signal: AbortSignal | None
    ) -> None:
        partial = copy.copy(message)
        partial.content = []
        partial.stop_reason = "pending"

        def aborted() -> bool:
            if signal is not None and signal.aborted:
                final = copy.copy(partial)
                final.stop_reason = "aborted"
                final.error_message = "Request was aborted"
                final.timestamp = now_ms()
                stream.push(ErrorEvent(reason="aborted", error=final))
                return True
            return False

        if aborted():
            return
        stream.push(StartEvent(partial=copy.copy(partial)))
        for index, block in enumerate(message.content):
            if aborted():
                return
            if isinstance(block, ThinkingContent):
                live_thinking = ThinkingContent(thinking="")
                partial.content = [*partial.content, live_thinking]
                stream.push(ThinkingStartEvent(content_index=index, partial=copy.copy(partial)))
                for chunk in self._chunks(block.thinking):
                    await self._pace(chunk)
                    if aborted():
                        return
                    live_thinking.thinking += chunk
                    stream.push(
                        ThinkingDeltaEvent(content_index=index, delta=chunk, partial=copy.copy(partial))
                    )
                stream.push(
                    ThinkingEndEvent(content_index=index, content=block.thinking, partial=copy.copy(partial))
                )
            elif isinstance(block, TextContent):
                live_text = TextContent(text="")
                partial.content = [*partial.content, live_text]
                stream.push(TextStartEvent(content_index=index, partial=copy.copy(partial)))
                for chunk in self._chunks(block.text):
                    await self._pace(chunk)
                    if aborted():
                        return
                    live_text.text += chunk
                    stream.push(TextDeltaEvent(content_index=index, delta=chunk, partial=copy.copy(partial)))
                stream.push(TextEndEvent(content_index=index, content=block.text, partial=copy.copy(partial)))
            else:
                live_call = ToolCall(id=block.id, name=block.name, arguments={})
                partial.content = [*partial.content, live_call]
                stream.push(ToolCallStartEvent(content_index=index, partial=copy.copy(partial)))
                for chunk in self._chunks(_json(block.arguments)):
                    await self._pace(chunk)
                    if aborted():
                        return
                    stream.push(
                        ToolCallDeltaEvent(content_index=index, delta=chunk, partial=copy.copy(partial))
                    )
                live_call.arguments = block.arguments
                stream.push(
                    ToolCallEndEvent(content_index=index, tool_call=block, partial=copy.copy(partial))
                )
        if message.stop_reason == "pending":
            raise RuntimeError("Faux response ended without a stop reason")
        reason = message.stop_reason
        if reason == "error" or reason == "aborted":
            stream.push(ErrorEvent(reason=reason, error=message))
            return
        stream.push(DoneEvent(reason=reason, message=message))


def register_faux_provider(
    *,
    api: str | None = None,
    provider: str = "faux",
    models: Sequence[FauxModelSpec] | None = None,
    tokens_per_second: float | None = None,
    token_size: tuple[int, int] = (3, 5),
) -> FauxProvider:
    """Register a faux API in the global registry and return its handle.

    ``token_size`` is the (min, max) chunk size in tokens. Without ``tokens_per_second`` a
    response is produced in one go; with it, each chunk waits ``tokens / tokens_per_second``
    seconds, so an abort can cut the stream between chunks.
    """
    api_name = api if api is not None else _random_id("faux")
    low = max(1, min(token_size[0], token_size[1]))
    high = max(low, token_size[1])
    specs = list(models) if models else [FauxModelSpec(id="faux-1", name="Faux Model")]
    built = [
        Model(
            id=spec.id,
            name=spec.name or spec.id,
            api=api_name,
            provider=provider,
            base_url="http://localhost:0",
            reasoning=spec.reasoning,
            input=list(spec.input),
            cost=spec.cost,
            context_window=spec.context_window,
            max_tokens=spec.max_tokens,
        )
        for spec in specs
    ]
    handle = FauxProvider(
        api=api_name,
        provider=provider,
        models=built,
        tokens_per_second=tokens_per_second,
        token_size=(low, high),
    )
    register_api(
        ApiImplementation(api=api_name, stream=handle.stream, stream_simple=handle.stream),
        f"faux:{id(handle)}",
    )
    return handle
