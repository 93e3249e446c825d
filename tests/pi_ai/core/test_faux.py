"""The faux provider: Pi's event order, chunking, usage estimate, queue and abort semantics."""

from __future__ import annotations

import asyncio
import json
import math

from pi_ai import (
    AbortController,
    AssistantMessage,
    Context,
    ImageContent,
    SimpleStreamOptions,
    TextContent,
    TextDeltaEvent,
    Tool,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolResultMessage,
    UserMessage,
    complete_simple,
    stream_simple,
)
from pi_ai.faux import (
    FauxModelSpec,
    FauxState,
    faux_assistant_message,
    faux_text,
    faux_thinking,
    faux_tool_call,
    register_faux_provider,
)

CONTEXT = Context(system_prompt="sys", messages=[UserMessage(content="hello", timestamp=1)])


async def _events(model_stream: object) -> list[object]:
    return [event async for event in model_stream]  # type: ignore[attr-defined]


async def test_event_order_with_one_token_chunks() -> None:
    faux = register_faux_provider(token_size=(1, 1))
    faux.set_responses(
        [
            faux_assistant_message(
                [faux_thinking("why"), faux_text("ok"), faux_tool_call("ls", {"p": "."}, id="c1")],
                stop_reason="toolUse",
            )
        ]
    )
    stream = stream_simple(faux.get_model(), CONTEXT)
    kinds = [event.type for event in await _events(stream)]
    faux.unregister()
    assert kinds == [
        "start",
        "thinking_start",
        "thinking_delta",
        "thinking_end",
        "text_start",
        "text_delta",
        "text_end",
        "toolcall_start",
        "toolcall_delta",
        "toolcall_delta",
        "toolcall_delta",
        "toolcall_end",
        "done",
    ]


async def test_chunks_are_deterministic_and_concatenate() -> None:
    faux = register_faux_provider(token_size=(2, 2), tokens_per_second=1e6)
    text = "The quick brown fox jumps over the lazy dog."
    arguments = {"command": "ls -la", "n": 3}
    faux.set_responses([faux_assistant_message([faux_text(text), faux_tool_call("bash", arguments, id="x")])])
    events = []
    arguments_seen_at_delta = []
    async for event in stream_simple(faux.get_model(), CONTEXT):
        events.append(event)
        if isinstance(event, ToolCallDeltaEvent):
            arguments_seen_at_delta.append(dict(event.partial.content[1].arguments))  # type: ignore[union-attr]
    faux.unregister()
    text_deltas = [e.delta for e in events if isinstance(e, TextDeltaEvent)]
    assert all(len(delta) == 8 for delta in text_deltas[:-1])
    assert "".join(text_deltas) == text
    tool_deltas = [e for e in events if isinstance(e, ToolCallDeltaEvent)]
    assert json.loads("".join(e.delta for e in tool_deltas)) == arguments
    # Partial arguments stay empty while deltas stream (the live block is shared, as in Pi, so the
    # last delta is observed after toolcall_end already filled it in).
    assert len(tool_deltas) > 2
    assert arguments_seen_at_delta[:-1] == [{}] * (len(tool_deltas) - 1)
    end = next(e for e in events if isinstance(e, ToolCallEndEvent))
    assert end.tool_call.arguments == arguments


async def test_usage_estimate_is_serialized_prompt_over_four() -> None:
    faux = register_faux_provider()
    tool = Tool(name="ls", description="list", parameters={"type": "object", "properties": {}})
    context = Context(
        system_prompt="be brief",
        messages=[
            UserMessage(
                content=[TextContent(text="look"), ImageContent(data="AAAA", mime_type="image/png")],
                timestamp=1,
            ),
            ToolResultMessage(
                tool_call_id="c",
                tool_name="ls",
                content=[TextContent(text="a\nb")],
                is_error=False,
                timestamp=2,
            ),
        ],
        tools=[tool],
    )
    faux.set_responses([faux_assistant_message("four")])
    result = await complete_simple(faux.get_model(), context)
    faux.unregister()
    prompt = (
        "system:be brief\n\nuser:look\n[image:image/png:4]\n\ntoolResult:ls\na\nb\n\n"
        'tools:[{"name":"ls","description":"list","parameters":{"type":"object","properties":{}}}]'
    )
    assert result.usage.input == math.ceil(len(prompt) / 4)
    assert result.usage.output == 1
    assert result.usage.total_tokens == result.usage.input + 1
    assert (result.api, result.provider, result.model) == (faux.api, "faux", "faux-1")


async def test_prompt_cache_simulation_per_session() -> None:
    faux = register_faux_provider()
    faux.set_responses(
        [faux_assistant_message("a"), faux_assistant_message("b"), faux_assistant_message("c")]
    )
    options = SimpleStreamOptions(session_id="s1")
    first = await complete_simple(faux.get_model(), CONTEXT, options)
    longer = Context(
        system_prompt="sys", messages=[*CONTEXT.messages, first, UserMessage(content="more", timestamp=3)]
    )
    second = await complete_simple(faux.get_model(), longer, options)
    uncached = await complete_simple(
        faux.get_model(), longer, SimpleStreamOptions(session_id="s1", cache_retention="none")
    )
    faux.unregister()
    assert first.usage.cache_write == first.usage.input and first.usage.cache_read == 0
    assert second.usage.cache_read > 0
    assert second.usage.input == max(
        0,
        math.ceil(len("system:sys\n\nuser:hello\n\nassistant:a\n\nuser:more") / 4) - second.usage.cache_read,
    )
    assert (uncached.usage.cache_read, uncached.usage.cache_write) == (0, 0)


async def test_queue_is_fifo_and_exhaustion_is_an_error() -> None:
    faux = register_faux_provider()
    seen: list[int] = []

    def factory(context: Context, options: object, state: FauxState, model: object) -> AssistantMessage:
        seen.append(len(context.messages))
        return faux_assistant_message(f"call {state.call_count}")

    faux.set_responses([faux_assistant_message("first")])
    faux.append_responses([factory])
    assert faux.pending_response_count == 2
    first = await complete_simple(faux.get_model(), CONTEXT)
    second = await complete_simple(faux.get_model(), CONTEXT)
    third = await complete_simple(faux.get_model(), CONTEXT)
    faux.unregister()
    assert first.content == [TextContent(text="first")]
    assert second.content == [TextContent(text="call 2")] and seen == [1]
    assert (third.stop_reason, third.error_message) == ("error", "No more faux responses queued")
    assert faux.state.call_count == 3


async def test_factory_that_raises_gives_one_error_event() -> None:
    faux = register_faux_provider()

    async def factory(*_: object) -> AssistantMessage:
        raise ValueError("scripted failure")

    faux.set_responses([factory])
    events = await _events(stream_simple(faux.get_model(), CONTEXT))
    faux.unregister()
    assert len(events) == 1 and events[0].type == "error"
    assert events[0].error.error_message == "scripted failure"  # type: ignore[attr-defined]


async def test_abort_before_start_is_a_single_aborted_event() -> None:
    faux = register_faux_provider()
    faux.set_responses([faux_assistant_message("never")])
    controller = AbortController()
    controller.abort()
    stream = stream_simple(faux.get_model(), CONTEXT, SimpleStreamOptions(signal=controller.signal))
    events = await _events(stream)
    faux.unregister()
    assert [e.type for e in events] == ["error"]
    result = await stream.result()
    assert (result.stop_reason, result.error_message, result.content) == (
        "aborted",
        "Request was aborted",
        [],
    )


async def test_abort_mid_text_when_paced_keeps_partial_and_skips_end() -> None:
    faux = register_faux_provider(token_size=(1, 1), tokens_per_second=1000)
    faux.set_responses([faux_assistant_message("aaaabbbbccccddddeeee")])
    controller = AbortController()
    stream = stream_simple(faux.get_model(), CONTEXT, SimpleStreamOptions(signal=controller.signal))
    kinds = []
    async for event in stream:
        kinds.append(event.type)
        if kinds[-1] == "text_delta":
            controller.abort()
    result = await stream.result()
    faux.unregister()
    assert kinds == ["start", "text_start", "text_delta", "error"]
    assert result.stop_reason == "aborted" and result.content == [TextContent(text="aaaa")]


async def test_models_are_described_like_pi() -> None:
    faux = register_faux_provider(
        provider="acme", models=[FauxModelSpec(id="big", reasoning=True, context_window=1000)]
    )
    model = faux.get_model("big")
    faux.unregister()
    assert (model.provider, model.base_url, model.reasoning, model.context_window) == (
        "acme",
        "http://localhost:0",
        True,
        1000,
    )
    assert model.name == "big" and model.input == ["text", "image"]


async def test_unregistered_faux_api_is_gone() -> None:
    faux = register_faux_provider()
    faux.unregister()
    try:
        stream_simple(faux.get_model(), CONTEXT)
    except LookupError as error:
        assert str(error) == f"No API provider registered for api: {faux.api}"
    else:
        raise AssertionError("expected LookupError")
    await asyncio.sleep(0)
