"""Errors are values: once a stream is handed out it always settles, and result() never raises."""

from __future__ import annotations

import asyncio

import pytest

from pi_ai import (
    AbortController,
    ApiImplementation,
    AssistantMessageEventStream,
    Context,
    DoneEvent,
    ErrorEvent,
    Model,
    StartEvent,
    TextContent,
    TextDeltaEvent,
    TextStartEvent,
    UserMessage,
    empty_assistant_message,
    register_api,
    start_stream,
    stream_simple,
    unregister_apis,
)
from pi_ai._options import SimpleStreamOptions, StreamOptions
from pi_ai.faux import faux_assistant_message, register_faux_provider

MODEL = Model(id="m", name="M", api="test-api", provider="test", base_url="http://127.0.0.1:1")
CONTEXT = Context(messages=[UserMessage(content="hi", timestamp=1)])


async def _collect(stream: AssistantMessageEventStream) -> list[object]:
    return [event async for event in stream]


async def test_producer_exception_becomes_error_event_with_partial_content() -> None:
    async def produce(stream: AssistantMessageEventStream) -> None:
        output = empty_assistant_message(MODEL)
        stream.partial = output
        stream.push(StartEvent(partial=output))
        output.content.append(TextContent(text="half"))
        stream.push(TextStartEvent(content_index=0, partial=output))
        stream.push(TextDeltaEvent(content_index=0, delta="half", partial=output))
        raise ConnectionResetError("connection reset by peer")

    stream = start_stream(MODEL, produce)
    events = await _collect(stream)
    assert [type(e).__name__ for e in events] == [
        "StartEvent",
        "TextStartEvent",
        "TextDeltaEvent",
        "ErrorEvent",
    ]
    result = await stream.result()  # must not raise
    assert result.stop_reason == "error"
    assert result.error_message == "connection reset by peer"
    assert [block.text for block in result.content] == ["half"]  # type: ignore[union-attr]
    assert events[-1] == ErrorEvent(reason="error", error=result)


async def test_producer_that_returns_without_terminal_event_still_settles() -> None:
    async def produce(stream: AssistantMessageEventStream) -> None:
        stream.push(StartEvent(partial=empty_assistant_message(MODEL)))

    stream = start_stream(MODEL, produce)
    result = await stream.result()
    assert result.stop_reason == "error"
    assert result.error_message == "stream ended without a final event"


async def test_exception_while_aborted_reports_aborted() -> None:
    controller = AbortController()

    async def produce(stream: AssistantMessageEventStream) -> None:
        controller.abort()
        raise RuntimeError("Request was aborted")

    stream = start_stream(MODEL, produce, signal=controller.signal)
    result = await stream.result()
    assert (result.stop_reason, result.error_message) == ("aborted", "Request was aborted")


async def test_cancelled_producer_settles_as_aborted() -> None:
    started = asyncio.Event()

    async def produce(stream: AssistantMessageEventStream) -> None:
        started.set()
        await asyncio.sleep(3600)

    stream = start_stream(MODEL, produce)
    await started.wait()
    assert stream._task is not None
    stream._task.cancel()
    result = await asyncio.wait_for(stream.result(), 5)
    assert result.stop_reason == "aborted"


async def test_pushes_after_terminal_event_are_ignored() -> None:
    stream = AssistantMessageEventStream()
    final = empty_assistant_message(MODEL)
    final.stop_reason = "stop"
    stream.push(DoneEvent(reason="stop", message=final))
    stream.push(StartEvent(partial=final))
    assert [type(e).__name__ for e in await _collect(stream)] == ["DoneEvent"]
    assert await stream.result() is final


async def test_result_can_be_awaited_before_and_while_iterating() -> None:
    stream = AssistantMessageEventStream()
    waiter = asyncio.ensure_future(stream.result())
    consumer = asyncio.ensure_future(_collect(stream))
    await asyncio.sleep(0)
    final = empty_assistant_message(MODEL)
    final.stop_reason = "stop"
    stream.push(StartEvent(partial=final))
    stream.push(DoneEvent(reason="stop", message=final))
    assert await waiter is final
    assert len(await consumer) == 2


async def test_adapter_raising_inside_registered_api_ends_in_error_event() -> None:
    """A user-registered API whose producer crashes: the caller still gets a settled message."""

    def broken(model: Model, context: Context, options: StreamOptions | None) -> AssistantMessageEventStream:
        async def produce(stream: AssistantMessageEventStream) -> None:
            raise ValueError("adapter bug: unexpected chunk")

        return start_stream(model, produce)

    def broken_simple(
        model: Model, context: Context, options: SimpleStreamOptions | None
    ) -> AssistantMessageEventStream:
        return broken(model, context, options)

    register_api(ApiImplementation(api="test-api", stream=broken, stream_simple=broken_simple), "test-source")
    try:
        stream = stream_simple(MODEL, CONTEXT)
        events = await _collect(stream)
        result = await stream.result()
    finally:
        unregister_apis("test-source")
    assert len(events) == 1 and isinstance(events[0], ErrorEvent)
    assert result.error_message == "adapter bug: unexpected chunk"
    assert result.content == []


async def test_faux_scripted_error_streams_content_then_error() -> None:
    faux = register_faux_provider(token_size=(1, 1))
    try:
        faux.set_responses(
            [faux_assistant_message("partial answer", stop_reason="error", error_message="boom")]
        )
        stream = stream_simple(faux.get_model(), CONTEXT)
        kinds = [type(e).__name__ for e in await _collect(stream)]
        result = await stream.result()
    finally:
        faux.unregister()
    assert kinds[0] == "StartEvent" and kinds[-1] == "ErrorEvent"
    assert "TextEndEvent" in kinds
    assert (result.stop_reason, result.error_message) == ("error", "boom")


def test_stream_without_running_loop_is_a_usage_error() -> None:
    with pytest.raises(RuntimeError):
        start_stream(MODEL, lambda stream: asyncio.sleep(0))  # type: ignore[arg-type,return-value]
