"""The overall response deadline (``StreamOptions.response_timeout_ms``) through the library:
every HTTP wire API x every stalled stream a server can send (``tests/reliability/stalls.py``)
settles as one ``error`` naming the limit, with the connection closed and no task left; a
live stream under the deadline, a user's abort and a stream fed without a producer task
behave as they should.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from pi_ai import (
    AbortController,
    AbortSignal,
    AssistantMessageEventStream,
    Context,
    DoneEvent,
    ErrorEvent,
    Model,
    SimpleStreamOptions,
    StartEvent,
    UserMessage,
    empty_assistant_message,
    stream_simple,
)
from pi_ai._event_stream import response_timeout_message
from pi_ai._registry import ApiImplementation, register_api, unregister_apis
from pi_ai._retry import is_retryable_assistant_error
from tests.reliability.figures import record
from tests.reliability.stalls import ANSWER, HANG_SECONDS, KINDS, Kind, StallServer
from tests.reliability.wire import WIRES, Wire
from tests.support.loopback import LoopbackServer, Reply, split

DEADLINE_MS = 700
CONTEXT = Context(messages=[UserMessage(content="go", timestamp=0)])


def _options(deadline_ms: int, signal: AbortSignal | None = None) -> SimpleStreamOptions:
    return SimpleStreamOptions(api_key="key", response_timeout_ms=deadline_ms, signal=signal)


async def _settle(stream: AssistantMessageEventStream) -> list[object]:
    async def drain() -> list[object]:
        return [event async for event in stream]

    try:
        return await asyncio.wait_for(drain(), HANG_SECONDS)
    except TimeoutError:
        record("hang", surface="library", check="response_deadline")
        pytest.fail(f"hang: the stream did not settle within {HANG_SECONDS} s")


_WARM: set[str] = set()


async def _warm(wire: Wire) -> None:
    """One normal request over ``wire`` per test process, so the first stalled run does not spend
    its deadline importing the adapter and HTTP stack (a cold start on a loaded machine can take
    longer than the deadline, which then passes before the request was sent)."""
    if wire.api in _WARM:
        return
    async with LoopbackServer([Reply(chunks=[wire.body(ANSWER)])]) as server:
        await stream_simple(wire.model(server.url), CONTEXT, _options(20_000)).result()
    _WARM.add(wire.api)


def _left_running(before: set[asyncio.Task[object]], server: StallServer) -> list[asyncio.Task[object]]:
    current = asyncio.current_task()
    return [
        task
        for task in asyncio.all_tasks() - before
        if task is not current and task not in server.handlers and not task.done()
    ]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("wire", WIRES, ids=lambda wire: wire.api)
async def test_a_stalled_stream_settles_as_an_error_at_the_deadline(wire: Wire, kind: Kind) -> None:
    record("stalled_stream", surface="library", api=wire.api, kind=kind)
    await _warm(wire)
    async with StallServer(wire, kind) as server:
        before = asyncio.all_tasks()
        stream = stream_simple(wire.model(server.url), CONTEXT, _options(DEADLINE_MS))
        started = time.monotonic()  # the deadline was armed by the call
        events = await _settle(stream)
        settled = time.monotonic() - started
        message = await stream.result()
        assert isinstance(events[-1], ErrorEvent) and events[-1].reason == "error"
        assert sum(isinstance(event, DoneEvent | ErrorEvent) for event in events) == 1
        assert message.stop_reason == "error"
        assert message.error_message == response_timeout_message(DEADLINE_MS)
        await asyncio.wait_for(server.closed.wait(), HANG_SECONDS)  # the connection was closed
        await asyncio.sleep(0)
        assert _left_running(before, server) == []
        if kind == "deltas":  # what streamed before the deadline is kept
            assert message.content and "bbbbb" in getattr(message.content[0], "text", "")
    record(
        "stalled_stream_settled",
        surface="library",
        api=wire.api,
        kind=kind,
        deadline_ms=DEADLINE_MS,
        delay_ms=round(settled * 1000 - DEADLINE_MS),
    )


async def test_the_deadline_error_is_retryable_under_the_agents_rules() -> None:
    wire = WIRES[0]
    async with StallServer(wire, "keepalive") as server:
        stream = stream_simple(wire.model(server.url), CONTEXT, _options(300))
        await _settle(stream)
        assert is_retryable_assistant_error(await stream.result())


async def test_a_live_stream_under_the_deadline_is_unaffected() -> None:
    for wire in WIRES:
        reply = Reply(chunks=split(wire.body(ANSWER), 40), delay=0.01)
        async with LoopbackServer([reply]) as server:
            stream = stream_simple(wire.model(server.url), CONTEXT, _options(20_000))
            events = await _settle(stream)
            assert isinstance(events[-1], DoneEvent), (wire.api, events[-1])
            message = await stream.result()
            assert getattr(message.content[0], "text", None) == ANSWER


async def test_a_users_abort_before_the_deadline_stays_an_abort() -> None:
    wire = WIRES[1]
    async with StallServer(wire, "keepalive") as server:
        controller = AbortController()
        stream = stream_simple(wire.model(server.url), CONTEXT, _options(20_000, signal=controller.signal))
        first = await anext(stream)
        assert isinstance(first, StartEvent)
        controller.abort()
        await _settle(stream)
        message = await stream.result()
        assert message.stop_reason == "aborted"
        assert "responseTimeoutMs" not in (message.error_message or "")


def _model(api: str) -> Model:
    return Model(id="m", name="m", api=api, provider="test", base_url="", reasoning=False)


@pytest.fixture
def fed_from_outside() -> Iterator[list[AssistantMessageEventStream]]:
    """An API whose streams have no producer task: the test feeds (or never feeds) them."""
    made: list[AssistantMessageEventStream] = []

    def start(model: Model, context: Context, options: object) -> AssistantMessageEventStream:
        stream = AssistantMessageEventStream()
        made.append(stream)
        return stream

    register_api(ApiImplementation("deadline-test", start, start), source_id="deadline-test")
    yield made
    unregister_apis("deadline-test")


async def test_a_stream_without_a_producer_task_fails_at_the_deadline(
    fed_from_outside: list[AssistantMessageEventStream],
) -> None:
    model = _model("deadline-test")
    stream = stream_simple(model, CONTEXT, _options(100))
    events = await _settle(stream)
    assert [type(event) for event in events] == [ErrorEvent]
    assert (await stream.result()).error_message == response_timeout_message(100)
    fed_from_outside[0].push(StartEvent(partial=empty_assistant_message(model)))  # late: ignored
    assert [event async for event in stream] == []


async def test_a_finished_stream_is_left_alone_once_its_deadline_passes(
    fed_from_outside: list[AssistantMessageEventStream],
) -> None:
    model = _model("deadline-test")
    stream = stream_simple(model, CONTEXT, _options(100))
    answer = empty_assistant_message(model)
    answer.stop_reason = "stop"
    fed_from_outside[0].push(DoneEvent(reason="stop", message=answer))
    assert [type(event) for event in await _settle(stream)] == [DoneEvent]
    await asyncio.sleep(0.3)  # past the deadline
    assert [event async for event in stream] == []
    assert (await stream.result()).stop_reason == "stop"


async def test_the_local_model_stops_generating_at_the_deadline() -> None:
    """The in-process model (no wire) goes through the same deadline: the generation is stopped
    between tokens and the model serves the next call."""
    from tests.support.local_model import SMOKE_MODEL, local_model

    story = Context(messages=[UserMessage(content="Write a very long story about the sea.", timestamp=0)])
    warm = await stream_simple(local_model(SMOKE_MODEL, max_tokens=4), CONTEXT, _options(0)).result()
    assert warm.stop_reason in ("stop", "length")  # loaded: the deadline below falls in the generation
    stream = stream_simple(local_model(SMOKE_MODEL, max_tokens=3000), story, _options(1500))
    events = await _settle(stream)
    message = await stream.result()
    assert any(getattr(event, "type", "") == "text_delta" for event in events)
    assert (message.stop_reason, message.error_message) == ("error", response_timeout_message(1500))
    after = await stream_simple(local_model(SMOKE_MODEL, max_tokens=4), CONTEXT, _options(0)).result()
    assert after.stop_reason in ("stop", "length")
