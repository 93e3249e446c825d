"""Chat Completions chunks -> Pi's events and message, read as Pi reads them (the OpenAI SDK
layer as Pi 1.6's SDK reads events, ``sdk_event_data``).

One text block and one thinking block (reasoning may interleave with text) plus one block per
tool call, found by its stream ``index`` or its ``id``. Every ``*_end`` event comes after the
body ended, in content order. Fields are read with JavaScript's rules (``_js``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pi_ai._messages import ThinkingContent, ToolCall, Usage
from pi_ai._model import Model, calculate_cost
from pi_ai.api._accumulator import StreamAccumulator, StreamError
from pi_ai.api._completions_payload import REASONING_FIELDS, is_reasoning_detail
from pi_ai.api._constrained import GrammarInput
from pi_ai.api._js import UNDEFINED, as_text, get, iterate, map_key, nullish, opt, text, truthy
from pi_ai.api._openrouter_cost import apply_openrouter_cost, is_openrouter_model
from pi_ai.api._sse import SseEvent
from pi_ai.js_json import JsonParseError, decoder, parse, stringify

__all__ = ["SKIPPED", "CompletionsStreamReader", "SdkStreamError", "sdk_event_data"]

_decode = decoder()

MALFORMED_EVENT_JSON = "Error reading response: malformed server-sent event JSON."
SKIPPED: Any = object()
"""What ``sdk_event_data`` returns for an event the SDK hands over wrapped (``thread.*``)."""


def sdk_event_data(sse: SseEvent) -> Any:
    """One SSE event as the OpenAI SDK's ``Stream`` (7.x, under Pi 1.6) hands it to Pi: its JSON
    data, or ``SKIPPED``. Data that is not JSON fails the stream with the SDK's own words
    (whatever the event), an ``error`` event throws its ``error`` member (or the whole data),
    and any other event whose ``error`` member is set throws that."""
    try:
        data = _decode(sse.data)
    except (ValueError, RecursionError):
        try:
            data = parse(sse.data)  # what msgspec refuses but JSON.parse reads
        except JsonParseError:
            raise StreamError(MALFORMED_EVENT_JSON) from None
    if sse.event is not None and sse.event.startswith("thread."):
        return SKIPPED
    if sse.event == "error":
        error = data.get("error") if type(data) is dict else None
        raise SdkStreamError(data if error is None else error)
    if type(data) is dict:
        error = data.get("error")
        if error is not None and truthy(error):
            raise SdkStreamError(error)
    return data


class SdkStreamError(StreamError):
    """A chunk whose ``error`` member is set: the OpenAI SDK throws it as an ``APIError``."""

    def __init__(self, error: Any) -> None:
        message = opt(error, "message")
        if truthy(message):
            text_ = message if isinstance(message, str) else stringify(message)
        elif truthy(error):
            text_ = stringify(error)
        else:
            text_ = "(no status code or body)"  # APIError's message without status or body
        super().__init__(text_)
        raw = opt(opt(error, "metadata"), "raw")
        self.raw = text(raw) if truthy(raw) else None
        """OpenRouter's ``metadata.raw``: Pi appends it to the message when not already in it."""


def _count(value: Any) -> int:
    """A token count; one that is not a whole number reads as 0."""
    if type(value) is int:
        return value
    return int(value) if type(value) is float and value.is_integer() else 0


def _first_present(*values: Any) -> Any:
    """``a ?? b ?? ...``."""
    for value in values:
        if not nullish(value):
            return value
    return UNDEFINED


def chunk_usage(raw: Any, model: Model) -> Usage:
    """Pi's ``parseChunkUsage``: cached prompt tokens read from wherever the server puts them."""
    details = get(raw, "prompt_tokens_details")
    prompt = _count(get(raw, "prompt_tokens"))
    cache_read = _count(
        _first_present(opt(details, "cached_tokens"), get(raw, "prompt_cache_hit_tokens"), get(raw, "cached_tokens"))
    )
    cache_write = _count(opt(details, "cache_write_tokens"))
    prompt_input = max(0, prompt - cache_read - cache_write)
    output = _count(get(raw, "completion_tokens"))
    usage = Usage(
        input=prompt_input,
        output=output,
        cache_read=cache_read,
        cache_write=cache_write,
        reasoning=_count(opt(get(raw, "completion_tokens_details"), "reasoning_tokens")),
        total_tokens=prompt_input + output + cache_read + cache_write,
    )
    calculate_cost(model, usage)
    if is_openrouter_model(model):
        apply_openrouter_cost(usage, raw)
    return usage


def map_finish_reason(reason: Any) -> tuple[str, str | None]:
    if reason in ("stop", "end"):
        return "stop", None
    if reason == "length":
        return "length", None
    if reason in ("function_call", "tool_calls"):
        return "toolUse", None
    return "error", f"Provider finish_reason: {text(reason)}"





class _ToolState:
    __slots__ = ("custom", "stream_index")

    def __init__(self, stream_index: Any, custom: GrammarInput | None) -> None:
        self.stream_index = stream_index
        self.custom = custom
        """A grammar tool's input, re-encoded as JSON deltas (``None`` for a function call)."""


class CompletionsStreamReader:
    """Feed each SSE event to ``handle`` (True at ``[DONE]``); ``finish_blocks`` after the body."""

    def __init__(self, acc: StreamAccumulator, model: Model, grammar_properties: Mapping[str, str]) -> None:
        self._acc = acc
        self._model = model
        self._grammar = grammar_properties
        self._text: int | None = None
        self._thinking: int | None = None
        self._tools: dict[int, _ToolState] = {}
        self._by_index: dict[tuple[str, Any], int] = {}
        self._by_id: dict[tuple[str, Any], int] = {}
        self.reasoning_details: list[dict[str, Any]] | None = None
        self.has_finish_reason = False
        self._has_response_id = False

    # ------------------------------------------------------------------ the SDK layer

    def handle(self, sse: SseEvent) -> bool:
        if sse.data == "[DONE]":
            return True
        chunk = sdk_event_data(sse)
        if type(chunk) is dict:  # other values (and ``SKIPPED``) hold nothing Pi reads
            self.chunk(chunk)
        return False

    # ------------------------------------------------------------------ one chunk

    def chunk(self, chunk: dict[str, Any]) -> None:
        output = self._acc.output
        if not self._has_response_id:  # ``responseId ||= chunk.id``
            chunk_id = chunk.get("id", UNDEFINED)
            output.response_id = as_text(chunk_id, None)
            self._has_response_id = truthy(chunk_id)
        chunk_model = chunk.get("model")
        if isinstance(chunk_model, str) and chunk_model and chunk_model != self._model.id:
            output.response_model = output.response_model or chunk_model
        usage = chunk.get("usage")
        if usage is not None and truthy(usage):
            output.usage = chunk_usage(usage, self._model)
        choices = chunk.get("choices")
        choice = choices[0] if type(choices) is list and choices else None
        if type(choice) is not dict:
            return  # a truthy non-object choice has none of the fields read below
        if (usage is None or not truthy(usage)) and truthy(choice_usage := choice.get("usage")):
            output.usage = chunk_usage(choice_usage, self._model)
        finish = choice.get("finish_reason")
        if finish is not None and truthy(finish):
            output.raw_stop_reason = text(finish)
            stop_reason, message = map_finish_reason(finish)
            output.stop_reason = stop_reason  # type: ignore[assignment]
            if message:
                output.error_message = message
            self.has_finish_reason = True
        delta = choice.get("delta")
        if type(delta) is dict:  # a truthy non-object delta has none of the fields read below
            self._delta(delta)

    def _delta(self, delta: dict[str, Any]) -> None:
        acc = self._acc
        content = delta.get("content")
        if type(content) is str:
            if content:
                acc.text_delta(self._ensure_text(), content)
        elif content is not None and _length_positive(content):
            acc.text_delta(self._ensure_text(), text(content))
        for field in REASONING_FIELDS:
            value = delta.get(field)
            if value and isinstance(value, str):
                provider = self._model.provider
                signature = "reasoning_content" if provider == "opencode-go" and field == "reasoning" else field
                acc.thinking_delta(self._ensure_thinking(signature), value)
                break
        calls = delta.get("tool_calls")
        if calls is not None and truthy(calls):
            for call in iterate(calls, "choice.delta.tool_calls"):
                self._tool_call(call)
        details = delta.get("reasoning_details")
        if type(details) is list:
            for detail in details:
                if is_reasoning_detail(detail):
                    self._ensure_thinking("")
                    self._merge_detail(detail)

    def _ensure_text(self) -> int:
        if self._text is None:
            self._text = self._acc.open_text()
        return self._text

    def _ensure_thinking(self, signature: str) -> int:
        if self._thinking is None:
            self._thinking = self._acc.open_thinking(signature=signature)
        return self._thinking

    def _merge_detail(self, detail: dict[str, Any]) -> None:
        """OpenRouter streams reasoning details as deltas: adjacent text/summary ones merge."""
        details = self.reasoning_details
        if details is None:
            details = self.reasoning_details = []
        last = details[-1] if details else None
        kind = detail.get("type")
        if last is None or kind not in ("reasoning.text", "reasoning.summary") or last.get("type") != kind:
            details.append(dict(detail))
            return
        if kind == "reasoning.text":
            last["text"] += detail["text"]
            _fill(last, detail, "signature", only_if_falsy=True)
        else:
            last["summary"] += detail["summary"]
        _fill(last, detail, "id", only_if_falsy=False)
        _fill(last, detail, "format", only_if_falsy=True)
        _fill(last, detail, "index", only_if_falsy=False)

    # ------------------------------------------------------------------ tool calls

    def _tool_call(self, call: Any) -> None:
        acc = self._acc
        index = self._ensure_tool_call(call)
        block = acc.output.content[index]
        assert isinstance(block, ToolCall)
        state = self._tools[index]
        call_id = get(call, "id")
        if not block.id and truthy(call_id):
            block.id = text(call_id)
            self._by_id[map_key(call_id)] = index
        function, custom = get(call, "function"), get(call, "custom")
        name = _first_present(opt(function, "name"), opt(custom, "name"))
        if not block.name and truthy(name):
            block.name = text(name)
        arguments = opt(function, "arguments")
        if truthy(arguments):
            acc.arguments_delta(index, text(arguments))
            return
        delta = ""
        custom_input = opt(custom, "input")
        if truthy(custom_input) and state.custom is not None:
            next_input = self._custom_input(block, state) + text(custom_input)
            delta = state.custom.append(next_input, False) or ""
            block.arguments = {state.custom.prop: next_input}
        acc.tool_delta(index, delta)

    def _ensure_tool_call(self, call: Any) -> int:
        """The content index of the call's block (opened when new), as Pi's ``ensureToolCallBlock``."""
        acc = self._acc
        raw_index = get(call, "index")
        stream_index = raw_index if isinstance(raw_index, int | float) and type(raw_index) is not bool else None
        function, custom = get(call, "function"), get(call, "custom")
        name = _first_present(opt(function, "name"), opt(custom, "name"), "")
        call_id = get(call, "id")
        index = self._by_index.get(map_key(stream_index)) if stream_index is not None else None
        if index is None and truthy(call_id):
            index = self._by_id.get(map_key(call_id))
        is_custom = truthy(custom) and not truthy(function)
        if index is None:
            grammar = GrammarInput(self._grammar.get(text(name), "input")) if is_custom else None
            tool_call = ToolCall(
                id=text(call_id) if truthy(call_id) else "",
                name=text(name),
                arguments={grammar.prop: ""} if grammar is not None else {},
            )
            index = acc.open_tool_call(tool_call, arguments_text=None if grammar is not None else "")
            self._tools[index] = _ToolState(stream_index, grammar)
            if stream_index is not None:
                self._by_index[map_key(stream_index)] = index
            if truthy(call_id):
                self._by_id[map_key(call_id)] = index
        state = self._tools[index]
        if stream_index is not None and state.stream_index is None:
            state.stream_index = stream_index
            self._by_index[map_key(stream_index)] = index
        if truthy(call_id):
            self._by_id[map_key(call_id)] = index
        block = acc.output.content[index]
        assert isinstance(block, ToolCall)
        if not block.name and truthy(name):
            block.name = text(name)
        if is_custom and state.custom is None:
            state.custom = GrammarInput(self._grammar.get(block.name, "input"))
            block.arguments = {state.custom.prop: ""}
            acc.finish_arguments(index)
        return index

    @staticmethod
    def _custom_input(block: ToolCall, state: _ToolState) -> str:
        assert state.custom is not None
        value = block.arguments.get(state.custom.prop)
        return value if isinstance(value, str) else ""

    # ------------------------------------------------------------------ the end

    def apply_reasoning_details(self) -> None:
        """The streamed ``reasoning_details``, serialized once, become the thinking signature."""
        if self._thinking is not None and self.reasoning_details is not None:
            block = self._acc.output.content[self._thinking]
            assert isinstance(block, ThinkingContent)
            block.thinking_signature = stringify(self.reasoning_details)

    def finish_blocks(self) -> None:
        """Every block's ``*_end`` event, in content order (Pi's ``finishBlock`` loop)."""
        acc = self._acc
        for index, block in enumerate(list(acc.output.content)):
            if isinstance(block, ThinkingContent):
                self.apply_reasoning_details()
            state = self._tools.get(index)
            if state is not None and state.custom is not None:
                assert isinstance(block, ToolCall)
                current = self._custom_input(block, state)
                closing = state.custom.append(current, True)
                block.arguments = {state.custom.prop: current}
                acc.finish_arguments(index)
                if closing is not None:
                    acc.tool_delta(index, closing)
            acc.end(index)


def _length_positive(value: Any) -> bool:
    """``value.length > 0`` for a non-string content value (an array's length)."""
    length = get(value, "length")
    return isinstance(length, int) and length > 0


def _fill(target: dict[str, Any], source: Mapping[str, Any], key: str, *, only_if_falsy: bool) -> None:
    """JavaScript ``target[key] ??= source[key]`` (or ``||=``); an absent source value removes the key."""
    current = target.get(key)
    if (not truthy(current)) if only_if_falsy else current is None:
        if key in source:
            target[key] = source[key]
        else:
            target.pop(key, None)
