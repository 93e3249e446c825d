"""Abort in the middle of an answer, for each wire API added with issue 14 (Bedrock's event
stream, Vertex, Mistral, Codex over SSE and over its WebSocket, pi-messages), against a server
on 127.0.0.1 that sends the first part of a well-formed answer and then nothing.

After the first text delta the caller aborts; the stream must settle at once as ``aborted``
(one terminal ``error`` event, last; the text received so far kept, except by pi-messages,
which like Pi reports failures on an empty message; an error text for a person), the
connection must be closed by the client, and nothing the request started may be left
running."""

from __future__ import annotations

import asyncio
import re

import pytest

import pi_ai
from pi_ai import AbortController, Context, TextContent, UserMessage
from pi_ai.api._http import close_clients
from tests.support.shape_servers import LoopbackServer, MessagesWebSocket, http_reply, websocket_messages
from tests.support.wire_shapes import SHAPES, TEXT, Shape

HANG_SECONDS = 30
"""A bound on a bug (a stream that never settles), not a timing."""
PYTHON_INTERNALS = re.compile(r"Traceback|Error\b.*line \d+|NoneType|CancelledError|object has no attribute")
CONTEXT = Context(messages=[UserMessage(content="hi", timestamp=0)])


def _prefix(shape: Shape) -> bytes:
    """The answer up to and including its second text delta (the rest never comes)."""
    events = shape.events()
    cut = next(index for index, event in enumerate(events) if TEXT[1] in str(event)) + 1
    return shape.render(events[:cut])


async def _abort_after_first_delta(shape: Shape, url: str) -> tuple[list[str], pi_ai.AssistantMessage]:
    controller = AbortController()
    options = shape.options()
    options.signal = controller.signal
    events = pi_ai.stream(shape.model(url), CONTEXT, options)
    kinds: list[str] = []
    async for event in events:
        kinds.append(event.type)
        if event.type == "text_delta" and kinds.count("text_delta") == 1:
            controller.abort()
    return kinds, await events.result()


async def _settled_tasks(before: set[asyncio.Task[object]]) -> set[asyncio.Task[object]]:
    """Tasks started since ``before`` still running once the loop had the chance to finish
    them (bounded wait)."""
    current = asyncio.current_task()
    for _ in range(100):
        left = {task for task in asyncio.all_tasks() if task not in before and task is not current and not task.done()}
        if not left:
            return left
        await asyncio.sleep(0.05)
    return left


def _check(shape: Shape, kinds: list[str], final: pi_ai.AssistantMessage) -> None:
    assert final.stop_reason == "aborted", (final.stop_reason, final.error_message)
    terminal = [kind for kind in kinds if kind in ("done", "error")]
    assert terminal == ["error"] and kinds[-1] == "error", kinds
    message = final.error_message or ""
    assert message.strip() and not PYTHON_INTERNALS.search(message), message
    texts = [block.text for block in final.content if isinstance(block, TextContent)]
    if shape.keeps_partial:
        assert texts and texts[0].startswith(TEXT[0]), final.content
    else:
        assert final.content == [], final.content
    assert kinds.count("text_delta") >= 1


@pytest.mark.parametrize("shape", [s for s in SHAPES if s.transport == "http"], ids=lambda s: s.name)
async def test_abort_mid_stream_over_http(shape: Shape) -> None:
    before = set(asyncio.all_tasks())
    async with LoopbackServer([http_reply(shape, _prefix(shape), stall_after=1)]) as server:
        kinds, final = await asyncio.wait_for(_abort_after_first_delta(shape, server.url), HANG_SECONDS)
        await asyncio.wait_for(server.disconnected.wait(), HANG_SECONDS)  # the client hung up
        await close_clients()
        assert len(server.requests) == 1
    _check(shape, kinds, final)
    assert await _settled_tasks(before) == set()


@pytest.mark.parametrize("shape", [s for s in SHAPES if s.transport == "websocket"], ids=lambda s: s.name)
async def test_abort_mid_stream_over_websocket(shape: Shape) -> None:
    from pi_ai.api import _codex_websocket

    before = set(asyncio.all_tasks())
    async with MessagesWebSocket() as server:
        server.messages = websocket_messages(_prefix(shape))
        server.stall = True
        kinds, final = await asyncio.wait_for(_abort_after_first_delta(shape, server.url), HANG_SECONDS)
        await asyncio.wait_for(server.closed_by_client.wait(), HANG_SECONDS)
        await _codex_websocket.close_sessions()
        await close_clients()
        assert server.opened == 1
    _check(shape, kinds, final)
    assert final.diagnostics is None  # an abort is no transport failure: no fallback to SSE
    assert await _settled_tasks(before) == set()
