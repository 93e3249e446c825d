"""The ``local`` API with a real model (SmolLM2 135M) in this process: events, constrained tool
calls, the prompt cache, abort, limits and errors as values."""

from __future__ import annotations

import asyncio

from pi_ai import (
    AbortController,
    Context,
    Model,
    StreamOptions,
    TextContent,
    Tool,
    ToolCall,
    UserMessage,
    is_context_overflow,
    stream,
    stream_simple,
)
from pi_ai.api.local import LocalOptions
from tests.support.local_model import SMOKE_MODEL, local_model

WEATHER = Tool(
    name="get_weather",
    description="Weather for a city",
    parameters={
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            "days": {"type": "integer"},
        },
        "required": ["city", "unit", "days"],
    },
)
SYSTEM = "You are a helpful assistant. You answer questions about the weather."


def _context(text: str, tools: list[Tool] | None = None) -> Context:
    return Context(system_prompt=SYSTEM, messages=[UserMessage(content=text, timestamp=0)], tools=tools)


async def test_an_answer_streams_as_text_events() -> None:
    model = local_model(SMOKE_MODEL, max_tokens=24)
    events = stream(model, _context("Say hello."))
    kinds = [event.type async for event in events]
    message = await events.result()
    assert kinds[0] == "start" and kinds[1] == "text_start" and "text_delta" in kinds
    assert kinds[-2:] == ["text_end", "done"]
    assert message.stop_reason in ("stop", "length")
    assert isinstance(message.content[0], TextContent) and message.content[0].text
    assert message.usage.output > 0 and message.usage.input > 0
    assert (message.api, message.provider, message.model) == ("local", "local", SMOKE_MODEL)


async def test_required_tool_calls_are_real_and_valid_against_the_schema() -> None:
    model = local_model(SMOKE_MODEL, max_tokens=200)
    context = _context("What will the weather be in Paris for the next 3 days?", [WEATHER])
    events = stream(model, context, LocalOptions(tool_choice="required"))
    kinds = [event.type async for event in events]
    message = await events.result()
    assert message.stop_reason == "toolUse", message.error_message
    calls = [block for block in message.content if isinstance(block, ToolCall)]
    assert calls and all(block.name == "get_weather" for block in calls)
    for call in calls:
        assert set(call.arguments) == {"city", "unit", "days"}
        assert isinstance(call.arguments["city"], str)
        assert call.arguments["unit"] in ("celsius", "fahrenheit")
        assert isinstance(call.arguments["days"], int) and not isinstance(call.arguments["days"], bool)
        assert call.id.startswith("call_")
    assert kinds.count("toolcall_start") == kinds.count("toolcall_end") == len(calls)


async def test_the_prompt_prefix_is_reused_by_the_next_turn() -> None:
    model = local_model(SMOKE_MODEL, max_tokens=8)
    first = await stream(model, _context("Name a color.")).result()
    second = await stream(model, _context("Name a fruit.")).result()
    assert first.stop_reason in ("stop", "length") and second.stop_reason in ("stop", "length")
    prompt = second.usage.input + second.usage.cache_read
    # The system prompt and the template's head are cached; only the new user text is evaluated.
    assert second.usage.cache_read > prompt // 2
    assert second.usage.input < first.usage.input + first.usage.cache_read


async def test_abort_stops_the_generation_and_the_model_stays_usable() -> None:
    model = local_model(SMOKE_MODEL, max_tokens=3000)
    controller = AbortController()
    events = stream(model, _context("Write a very long story about the sea."), StreamOptions(signal=controller.signal))
    deltas_after_abort = -1
    async for event in events:
        if event.type == "text_delta":
            if deltas_after_abort < 0:
                controller.abort()
            deltas_after_abort += 1
    message = await events.result()
    assert message.stop_reason == "aborted" and message.error_message == "Request was aborted"
    # Generation stops at the next token: at most the pieces already on their way arrive.
    assert 0 <= deltas_after_abort < 5
    assert message.usage.output < 20
    after = await stream(local_model(SMOKE_MODEL, max_tokens=4), _context("Say yes.")).result()
    assert after.stop_reason in ("stop", "length")


async def test_the_output_cap_ends_with_length() -> None:
    message = await stream(local_model(SMOKE_MODEL, max_tokens=3), _context("Count from one to fifty in words.")).result()
    assert message.stop_reason == "length" and message.usage.output == 3


async def test_a_small_window_keeps_the_output_cap_in_stream_simple() -> None:
    # Pi's clamp (window - estimate - 4 096) would leave 1 token here; the local API counts the
    # prompt itself and only cuts the cap to the room left.
    model = local_model(SMOKE_MODEL, context_window=2048, max_tokens=12)
    message = await stream_simple(model, _context("Count from one to fifty in words.")).result()
    assert message.stop_reason == "length" and message.usage.output == 12


async def test_a_prompt_over_the_window_is_an_overflow_error() -> None:
    model = local_model(SMOKE_MODEL, context_window=256)
    message = await stream(model, _context("weather " * 400)).result()
    assert message.stop_reason == "error"
    assert is_context_overflow(message, model.context_window), message.error_message


async def test_a_missing_model_file_is_an_error_value() -> None:
    missing = Model(id="x", name="x", api="local", provider="local", base_url="/nonexistent/model.gguf")
    message = await asyncio.wait_for(stream(missing, _context("hi")).result(), 30)
    assert message.stop_reason == "error" and "/nonexistent/model.gguf does not exist" in (message.error_message or "")
