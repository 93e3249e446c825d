"""Fuzzing the stream readers of the wire APIs added with issue 14, through the library, against
real servers on 127.0.0.1: Bedrock's binary event stream (framing and event payloads), Vertex's
and Mistral's SSE, Codex's Responses events over SSE and over its WebSocket, pi-messages.

Bodies are a well-formed answer (``tests/support/wire_shapes.py``) with one or two values
spoiled (any JSON type anywhere, or removed), its events in any order among random JSON, the
answer cut at any byte, and raw bytes (for Bedrock: bytes where frames should be, and frames
with a broken checksum), written in random chunk sizes. Whatever arrives: no exception
escapes ``stream``, the events end with exactly one ``done`` or ``error`` (the settled
result), and no ``errorMessage`` carries Python's own wording. ``PI_FUZZ_EXAMPLES`` sets the
example count per API and kind (default 40: 960 bodies in all).
"""

from __future__ import annotations

import asyncio
import os
import zlib
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pi_ai
from pi_ai import Context, UserMessage
from pi_ai.api._http import close_clients
from tests.reliability.figures import record
from tests.support.shape_servers import LoopbackServer, MessagesWebSocket, http_reply, websocket_messages
from tests.support.stream_checks import PYTHON_WORDING, settled_once
from tests.support.stream_shapes import REMOVE, WRONG_TYPES, paths, spoiled
from tests.support.wire_shapes import SHAPES, Shape

EXAMPLES = int(os.environ.get("PI_FUZZ_EXAMPLES", "40"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
HANG_SECONDS = 30
"""A bound on a bug (a stream that never settles), not a timing."""
CONTEXT = Context(messages=[UserMessage(content="Run ls", timestamp=0)])

_json = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10**12) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
_wrong = st.sampled_from([*WRONG_TYPES, REMOVE]) | _json
CHUNKS = st.sampled_from([1, 7, 61, 509, 1 << 20])
"""Write sizes: frames and events cut anywhere (inside UTF-8 characters too), or the body at once."""


class _Harness:
    """One event loop, one HTTP server and one WebSocket server for every example."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.body = b""
        self.chunk = 1 << 20
        self.shape = SHAPES[0]
        self.http = LoopbackServer(respond=lambda _request: http_reply(self.shape, self.body, self.chunk))
        self.socket = MessagesWebSocket()
        self.loop.run_until_complete(self.http.__aenter__())
        self.loop.run_until_complete(self.socket.__aenter__())

    def settle(self, shape: Shape, body: bytes, chunk: int) -> tuple[list[Any], Any]:
        self.shape, self.body, self.chunk = shape, body, chunk
        self.socket.messages = websocket_messages(body)
        return self.loop.run_until_complete(asyncio.wait_for(self._settle(shape), HANG_SECONDS))

    async def _settle(self, shape: Shape) -> tuple[list[Any], Any]:
        url = self.socket.url if shape.transport == "websocket" else self.http.url
        stream = pi_ai.stream(shape.model(url), CONTEXT, shape.options())
        events = [event async for event in stream]
        return events, await stream.result()

    def close(self) -> None:
        async def shut() -> None:
            from pi_ai.api import _codex_websocket

            await _codex_websocket.close_sessions()
            await close_clients()
            await self.socket.__aexit__(None, None, None)
            await self.http.__aexit__(None, None, None)

        self.loop.run_until_complete(shut())
        self.loop.close()


@pytest.fixture(scope="module")
def harness() -> Iterator[_Harness]:
    made = _Harness()
    yield made
    made.close()


def _check(harness: _Harness, shape: Shape, body: bytes, chunk: int) -> None:
    record("fuzz_input", target=f"{shape.name} stream")
    events, result = harness.settle(shape, body, chunk)
    # No rule on ``start`` here: Bedrock, as Pi's, sends one for each ``messageStart`` it gets
    # (none, or two, in a spoiled body).
    terminal = settled_once(events, result)
    if terminal.type == "error":
        message = result.error_message or ""
        assert not PYTHON_WORDING.search(str(message)), message
        if shape.own_stop_reason:  # else an ``error`` event's own reason and text came through
            assert result.stop_reason == "error", result.stop_reason
            assert message, result
    elif shape.own_stop_reason:
        assert result.stop_reason in ("stop", "length", "toolUse")


@st.composite
def spoiled_bodies(draw: st.DrawFn, shape: Shape) -> bytes:
    """The well-formed answer with one or two values replaced or removed."""
    events: list[Any] = shape.events()
    for _ in range(draw(st.integers(1, 2))):
        index = draw(st.integers(0, len(events) - 1))
        path = draw(st.sampled_from([(), *paths(events[index])]))
        replacement = draw(_wrong)
        if replacement is REMOVE and not path:
            continue
        events[index] = spoiled(events[index], path, replacement)
    return shape.render(events)


@st.composite
def mixed_bodies(draw: st.DrawFn, shape: Shape) -> bytes:
    """Well-formed events in any order, dropped or repeated, among random JSON."""
    pool: list[Any] = shape.events()
    return shape.render(draw(st.lists(st.sampled_from(pool) | _json, max_size=12)))


@st.composite
def truncated_bodies(draw: st.DrawFn, shape: Shape) -> bytes:
    """The well-formed answer cut at any byte."""
    whole = shape.render(shape.events())
    return whole[: draw(st.integers(0, len(whole) - 1))]


@st.composite
def raw_bodies(draw: st.DrawFn, shape: Shape) -> bytes:
    """Arbitrary bytes where events are read; for Bedrock also a valid frame with one byte of
    its prelude, headers or payload flipped (a checksum that no longer matches)."""
    tail = draw(st.binary(max_size=300))
    if shape.transport == "websocket":
        return tail.replace(b"\n", b" ") + b"\n" + draw(st.binary(max_size=40))
    if shape.content_type != "application/vnd.amazon.eventstream":
        return shape.raw_prefix + tail + b"\n\n"
    frames = shape.render(shape.events())
    if draw(st.booleans()):
        return tail
    index = draw(st.integers(0, len(frames) - 1))
    flipped = bytes([frames[index] ^ draw(st.integers(1, 255))])
    return frames[:index] + flipped + frames[index + 1 :]


KINDS = {
    "spoiled": spoiled_bodies,
    "mixed": mixed_bodies,
    "truncated": truncated_bodies,
    "raw": raw_bodies,
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: shape.name)
def test_never_escapes_or_hangs(harness: _Harness, shape: Shape, kind: str) -> None:
    @FUZZ
    @given(body=KINDS[kind](shape), chunk=CHUNKS)
    def check(body: bytes, chunk: int) -> None:
        _check(harness, shape, body, chunk)

    check()


def test_a_broken_frame_is_a_checksum_error(harness: _Harness) -> None:
    """The Bedrock framing check is real: a flipped payload byte fails the message checksum."""
    shape = next(s for s in SHAPES if s.content_type == "application/vnd.amazon.eventstream")
    frames = shape.render(shape.events())
    first = int.from_bytes(frames[:4], "big")  # the first message's length
    broken = frames[: first - 6] + bytes([frames[first - 6] ^ 0xFF]) + frames[first - 5 :]
    assert zlib.crc32(broken[: first - 4]) != int.from_bytes(broken[first - 4 : first], "big")
    events, result = harness.settle(shape, broken, 1 << 20)
    assert [event.type for event in events] == ["error"] or events[-1].type == "error"
    assert result.stop_reason == "error"
    assert "checksum" in (result.error_message or "").lower(), result.error_message
