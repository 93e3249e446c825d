"""``openai-completions``: OpenAI Chat Completions (``POST {baseUrl}/chat/completions``) and
the many servers that speak it (DeepSeek, OpenRouter, Groq, Together, Ollama, llama.cpp,
vLLM, LM Studio, ...), shaped by ``model.compat`` (``_completions_payload``).

The stream keeps one text block and one thinking block (reasoning may interleave with text)
plus one block per tool call; as in Pi, every ``*_end`` event is emitted after the HTTP stream
ends, in content order.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import msgspec

from pi_ai._abort import AbortError
from pi_ai._codec import encode
from pi_ai._context import Context
from pi_ai._event_stream import AssistantMessageEventStream, error_text, now_ms, start_stream
from pi_ai._events import (
    DoneEvent,
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
from pi_ai._messages import AssistantMessage, TextContent, ThinkingContent, ToolCall, Usage
from pi_ai._model import Model, ThinkingLevel, calculate_cost, clamp_thinking_level
from pi_ai._options import SimpleStreamOptions, StreamOptions, ThinkingBudgets
from pi_ai._partial_json import PartialJson
from pi_ai._registry import ApiImplementation
from pi_ai._simple_options import base_options
from pi_ai.api._common import (
    PendingText,
    client_api_key,
    end_with_error,
    provider_options,
    resolve_cache_retention,
)
from pi_ai.api._completions_payload import (
    REASONING_FIELDS,
    build_params,
    completions_compat,
    is_reasoning_detail,
    request_headers,
)
from pi_ai.api._constrained import GrammarInput, grammar_input_properties
from pi_ai.api._http import (
    HttpRequest,
    HttpStatusError,
    StreamResponse,
    apply_on_payload,
    join_url,
    open_stream,
    openai_error_text,
    openai_sdk_message,
)
from pi_ai.api._js_json import parse_json
from pi_ai.api._local_servers import adapt_local_request, local_server_compat, promote_text_tool_calls

__all__ = ["API", "OPTIONS", "OpenAICompletionsOptions", "stream", "stream_simple"]


@dataclass(kw_only=True)
class OpenAICompletionsOptions(StreamOptions):
    tool_choice: str | Mapping[str, Any] | None = None
    """Sent as ``tool_choice`` unchanged (``auto``, ``none``, ``required`` or an object)."""
    reasoning_effort: str | None = None
    """``minimal`` .. ``max``; mapped through the model's ``thinkingLevelMap``."""
    thinking_budgets: ThinkingBudgets | None = None


OPTIONS = OpenAICompletionsOptions


def _map_stop_reason(reason: str) -> tuple[str, str | None]:
    if reason in ("stop", "end"):
        return "stop", None
    if reason == "length":
        return "length", None
    if reason in ("function_call", "tool_calls"):
        return "toolUse", None
    return "error", f"Provider finish_reason: {reason}"


def _usage(raw: Mapping[str, Any], model: Model) -> Usage:
    details = raw.get("prompt_tokens_details") or {}
    prompt = raw.get("prompt_tokens") or 0
    cache_read = details.get("cached_tokens")
    if cache_read is None:
        cache_read = raw.get("prompt_cache_hit_tokens")
    if cache_read is None:
        cache_read = raw.get("cached_tokens")
    if cache_read is None:
        cache_read = 0
    cache_write = details.get("cache_write_tokens") or 0
    prompt_input = max(0, prompt - cache_read - cache_write)
    output = raw.get("completion_tokens") or 0
    usage = Usage(
        input=prompt_input,
        output=output,
        cache_read=cache_read,
        cache_write=cache_write,
        reasoning=(raw.get("completion_tokens_details") or {}).get("reasoning_tokens") or 0,
        total_tokens=prompt_input + output + cache_read + cache_write,
    )
    calculate_cost(model, usage)
    return usage


class _ToolState:
    __slots__ = ("custom", "parser", "stream_index")

    def __init__(self, stream_index: int | None, custom: GrammarInput | None) -> None:
        self.stream_index = stream_index
        self.custom = custom
        self.parser: PartialJson | None = None if custom is not None else PartialJson()


def _fill(target: dict[str, Any], source: Mapping[str, Any], key: str, *, only_if_falsy: bool) -> None:
    """JavaScript ``target[key] ??= source[key]`` (or ``||=``); an absent source value removes the key."""
    current = target.get(key)
    if (not current and current != 0) if only_if_falsy else current is None:
        if key in source:
            target[key] = source[key]
        else:
            target.pop(key, None)


class _Parser:
    """Chat Completions chunks -> Pi events on ``output``."""

    def __init__(
        self, stream: AssistantMessageEventStream, output: AssistantMessage, model: Model, context: Context
    ) -> None:
        self.stream = stream
        self.output = output
        self.model = model
        self.text: TextContent | None = None
        self.text_index = -1
        self.thinking: ThinkingContent | None = None
        self.thinking_index = -1
        self.pending = PendingText()
        self.has_finish_reason = False
        self.tools: dict[int, _ToolState] = {}
        """Keyed by id() of the ToolCall block."""
        self.by_index: dict[int, ToolCall] = {}
        self.by_id: dict[str, ToolCall] = {}
        self.reasoning_details: list[dict[str, Any]] | None = None
        compat = completions_compat(model)
        self.grammar = grammar_input_properties(context.tools, compat.supports_openai_grammar_tools)

    def position(self, block: Any) -> int:
        for index, candidate in enumerate(self.output.content):
            if candidate is block:
                return index
        return -1

    def chunk(self, chunk: Any) -> None:
        output = self.output
        if not output.response_id and chunk.get("id"):
            output.response_id = chunk.get("id")
        chunk_model = chunk.get("model")
        if (
            isinstance(chunk_model, str)
            and chunk_model
            and chunk_model != self.model.id
            and not output.response_model
        ):
            output.response_model = chunk_model
        if chunk.get("usage"):
            output.usage = _usage(chunk["usage"], self.model)
        choices = chunk.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices else None
        if not choice:
            return
        if not chunk.get("usage") and choice.get("usage"):
            output.usage = _usage(choice["usage"], self.model)
        finish = choice.get("finish_reason")
        if finish:
            output.raw_stop_reason = finish
            stop_reason, message = _map_stop_reason(finish)
            output.stop_reason = stop_reason  # type: ignore[assignment]
            if message:
                output.error_message = message
            self.has_finish_reason = True
        delta = choice.get("delta")
        if not delta:
            return
        content = delta.get("content")
        if isinstance(content, str) and content:
            block = self.text if self.text is not None else self.ensure_text()
            self.pending.add(block, content)
            self.stream.push(TextDeltaEvent(content_index=self.text_index, delta=content, partial=output))
        for field_name in REASONING_FIELDS:
            value = delta.get(field_name)
            if isinstance(value, str) and value:
                signature = (
                    "reasoning_content"
                    if self.model.provider == "opencode-go" and field_name == "reasoning"
                    else field_name
                )
                thinking = self.ensure_thinking(signature)
                self.pending.add(thinking, value)
                self.stream.push(
                    ThinkingDeltaEvent(content_index=self.thinking_index, delta=value, partial=output)
                )
                break
        calls = delta.get("tool_calls")
        if calls:
            for call in calls:
                self.tool_call(call)
        details = delta.get("reasoning_details")
        if isinstance(details, list):
            for detail in details:
                if not is_reasoning_detail(detail):
                    continue
                self.ensure_thinking("")
                if self.reasoning_details is None:
                    self.reasoning_details = []
                self._merge_detail(detail)

    def _merge_detail(self, detail: dict[str, Any]) -> None:
        """OpenRouter streams reasoning details as deltas: adjacent text/summary ones merge."""
        assert self.reasoning_details is not None
        last = self.reasoning_details[-1] if self.reasoning_details else None
        kind = detail.get("type")
        if last is None or kind not in ("reasoning.text", "reasoning.summary") or last.get("type") != kind:
            self.reasoning_details.append(dict(detail))
            return
        if kind == "reasoning.text":
            last["text"] += detail["text"]
            _fill(last, detail, "signature", only_if_falsy=True)
        else:
            last["summary"] += detail["summary"]
        _fill(last, detail, "id", only_if_falsy=False)
        _fill(last, detail, "format", only_if_falsy=True)
        _fill(last, detail, "index", only_if_falsy=False)

    def ensure_text(self) -> TextContent:
        if self.text is None:
            self.text = TextContent(text="")
            self.output.content.append(self.text)
            self.text_index = len(self.output.content) - 1
            self.stream.push(TextStartEvent(content_index=len(self.output.content) - 1, partial=self.output))
        return self.text

    def ensure_thinking(self, signature: str) -> ThinkingContent:
        if self.thinking is None:
            self.thinking = ThinkingContent(thinking="", thinking_signature=signature)
            self.output.content.append(self.thinking)
            self.thinking_index = len(self.output.content) - 1
            self.stream.push(
                ThinkingStartEvent(content_index=len(self.output.content) - 1, partial=self.output)
            )
        return self.thinking

    def tool_call(self, call: Any) -> None:
        output = self.output
        raw_index = call.get("index")
        stream_index = raw_index if isinstance(raw_index, int) and not isinstance(raw_index, bool) else None
        function = call.get("function")
        custom = call.get("custom")
        name = (function or {}).get("name")
        if name is None:
            name = (custom or {}).get("name")
        if name is None:
            name = ""
        call_id = call.get("id")
        block = self.by_index.get(stream_index) if stream_index is not None else None
        if block is None and call_id:
            block = self.by_id.get(call_id)
        if block is None:
            grammar: GrammarInput | None = None
            if custom and not function:
                grammar = GrammarInput(self.grammar.get(name, "input"))
            block = ToolCall(
                id=call_id or "", name=name, arguments={grammar.prop: ""} if grammar is not None else {}
            )
            self.tools[id(block)] = _ToolState(stream_index, grammar)
            if stream_index is not None:
                self.by_index[stream_index] = block
            if call_id:
                self.by_id[call_id] = block
            output.content.append(block)
            self.stream.push(ToolCallStartEvent(content_index=len(output.content) - 1, partial=output))
        state = self.tools[id(block)]
        if stream_index is not None and state.stream_index is None:
            state.stream_index = stream_index
            self.by_index[stream_index] = block
        if call_id:
            self.by_id[call_id] = block
        if not block.name and name:
            block.name = name
        if custom and not function and state.custom is None:
            state.custom = GrammarInput(self.grammar.get(block.name, "input"))
            state.parser = None
            block.arguments = {state.custom.prop: ""}
        if not block.id and call_id:
            block.id = call_id
            self.by_id[call_id] = block
        delta = ""
        arguments = (function or {}).get("arguments")
        if arguments:
            delta = arguments
            if state.parser is None:
                state.parser = PartialJson()
            block.arguments = state.parser.feed(arguments)
        elif custom and custom.get("input") and state.custom is not None:
            current = block.arguments.get(state.custom.prop)
            next_input = (current if isinstance(current, str) else "") + custom["input"]
            delta = state.custom.append(next_input, False) or ""
            block.arguments = {state.custom.prop: next_input}
        self.stream.push(ToolCallDeltaEvent(content_index=self.position(block), delta=delta, partial=output))

    def apply_reasoning_details(self) -> None:
        if self.thinking is not None and self.reasoning_details is not None:
            self.thinking.thinking_signature = encode(self.reasoning_details).decode()

    def finish_blocks(self) -> None:
        self.pending.flush()
        output = self.output
        for index, block in enumerate(list(output.content)):
            if isinstance(block, TextContent):
                self.stream.push(TextEndEvent(content_index=index, content=block.text, partial=output))
            elif isinstance(block, ThinkingContent):
                self.apply_reasoning_details()
                self.stream.push(
                    ThinkingEndEvent(content_index=index, content=block.thinking, partial=output)
                )
            else:
                state = self.tools.get(id(block))
                if state is not None and state.custom is not None:
                    current = block.arguments.get(state.custom.prop)
                    closing = state.custom.append(current if isinstance(current, str) else "", True)
                    block.arguments = {state.custom.prop: current if isinstance(current, str) else ""}
                    if closing is not None:
                        self.stream.push(
                            ToolCallDeltaEvent(content_index=index, delta=closing, partial=output)
                        )
                elif state is not None and state.parser is not None:
                    block.arguments = state.parser.value
                self.stream.push(ToolCallEndEvent(content_index=index, tool_call=block, partial=output))


def _format_error(error: BaseException) -> str:
    if isinstance(error, HttpStatusError):
        text = openai_error_text(error)
        body = _safe_json(error.text)
        inner = body.get("error") if isinstance(body, dict) else None
        raw = (inner.get("metadata") or {}).get("raw") if isinstance(inner, dict) else None
        if raw and str(raw) not in text:
            text += f"\n{raw}"
        return text
    if isinstance(error, _StreamError):
        raw = error.raw
        text = str(error)
        if raw and str(raw) not in text:
            text += f"\n{raw}"
        return text
    return error_text(error)


def _safe_json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


class _StreamError(Exception):
    """A chunk whose ``error`` member reports a failure (the SDK raises it as an API error)."""

    def __init__(self, error: Any) -> None:
        message = error.get("message") if isinstance(error, dict) else None
        if message:
            text = message if isinstance(message, str) else encode(message).decode()
        else:
            text = encode(error).decode()
        super().__init__(text)
        metadata = error.get("metadata") if isinstance(error, dict) else None
        self.raw = metadata.get("raw") if isinstance(metadata, dict) else None


_decode = msgspec.json.Decoder().decode


async def _consume(response: StreamResponse, parser: _Parser) -> None:
    """Feed the chunks to ``parser`` until ``[DONE]`` or the end of the body."""
    try:
        async for batch in response.event_batches(flush_partial=False):
            for sse in batch:
                data = sse.data
                if data.startswith("[DONE]"):
                    return
                try:
                    chunk = _decode(data)
                except msgspec.DecodeError:
                    chunk = parse_json(data)  # raises with JSON.parse's message
                if isinstance(chunk, dict):
                    if chunk.get("error"):
                        raise _StreamError(chunk["error"])
                    parser.chunk(chunk)
            parser.pending.flush()
    finally:
        parser.pending.flush()


async def _run(
    stream: AssistantMessageEventStream, model: Model, context: Context, options: OpenAICompletionsOptions
) -> None:
    output = AssistantMessage(
        content=[],
        api=model.api,
        provider=model.provider,
        model=model.id,
        stop_reason="pending",
        timestamp=now_ms(),
    )
    stream.partial = output
    signal = options.signal
    parser: _Parser | None = None
    try:
        api_key = client_api_key(model.provider, options.api_key, options.headers)
        compat = completions_compat(model)
        retention = resolve_cache_retention(options.cache_retention, options.env)
        session_id = None if retention == "none" else options.session_id
        headers = request_headers(
            model,
            context,
            api_key=api_key,
            options_headers=options.headers,
            session_id=session_id,
            compat=compat,
        )
        local = local_server_compat(model)
        params = adapt_local_request(build_params(model, context, options, compat, retention), local)
        params = await apply_on_payload(options, params, model)
        request = HttpRequest(join_url(model.base_url, "/chat/completions"), headers, params)
        parser = _Parser(stream, output, model, context)
        async with open_stream(request, options, model, describe_error=openai_sdk_message) as response:
            stream.push(StartEvent(partial=output))
            # The SDK ends its iterator quietly on abort; the check below reports it.
            with contextlib.suppress(AbortError):
                await _consume(response, parser)
        promoted = local.parse_tool_calls_from_text and promote_text_tool_calls(stream, output, context.tools)
        parser.finish_blocks()
        if promoted and output.stop_reason == "stop":
            output.stop_reason = "toolUse"
        if (signal is not None and signal.aborted) or output.stop_reason == "aborted":
            raise AbortError("Request was aborted")
        if not parser.has_finish_reason and not compat.supports_finish_reason:
            output.stop_reason = "toolUse" if any(isinstance(b, ToolCall) for b in output.content) else "stop"
        if output.stop_reason == "error":
            raise ValueError(output.error_message or "Provider returned an error stop reason")
        if (
            compat.supports_finish_reason and not parser.has_finish_reason
        ) or output.stop_reason == "pending":
            raise ValueError("Stream ended without finish_reason")
        stream.push(DoneEvent(reason=output.stop_reason, message=output))
    except Exception as error:
        if parser is not None:
            parser.pending.flush()
            parser.apply_reasoning_details()
        end_with_error(stream, output, signal, _format_error(error))


def stream(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AssistantMessageEventStream:
    resolved = provider_options(options, OpenAICompletionsOptions)
    return start_stream(model, lambda s: _run(s, model, context, resolved), signal=resolved.signal)


def stream_simple(
    model: Model, context: Context, options: SimpleStreamOptions | None = None
) -> AssistantMessageEventStream:
    """Unified options -> Chat Completions ones. Raises ``ValueError`` at once without credentials."""
    options = options or SimpleStreamOptions()
    client_api_key(model.provider, options.api_key, options.headers)
    base = base_options(model, context, options)
    level: ThinkingLevel | None = (
        clamp_thinking_level(model, options.reasoning) if options.reasoning else None
    )
    return stream(
        model,
        context,
        OpenAICompletionsOptions(
            **base,
            tool_choice=options.tool_choice,
            reasoning_effort=None if level == "off" else level,
            thinking_budgets=options.thinking_budgets,
        ),
    )


API = ApiImplementation(api="openai-completions", stream=stream, stream_simple=stream_simple)
