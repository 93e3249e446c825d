"""Codex's WebSocket transport against a WebSocket server on 127.0.0.1: the handshake, the
``response.create`` frame, a session's socket kept and its next turn sent as a delta, the
retries Pi makes, and the fallback to SSE (with its diagnostic) when no socket opens."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from msgspec.structs import replace

from pi_ai import AbortController, Context, SimpleStreamOptions, stream, stream_simple
from pi_ai._messages import DiagnosticError, ToolResultMessage, UserMessage
from pi_ai.api import _codex_websocket
from pi_ai.api.openai_codex_responses import OpenAICodexResponsesOptions
from pi_ai.models import get_model
from tests.support.responses_server import ResponsesServer, ResponsesWebSocketServer, chatgpt_token

TURNS = [
    {"tool_call": {"call_id": "call_1", "name": "read", "arguments": {"path": "a.txt"}}},
    {"text": "a.txt says hi"},
]


def _token() -> str:
    return chatgpt_token("acct-ws")


@pytest.fixture(autouse=True)
async def _forget_sockets() -> AsyncIterator[None]:
    yield
    await _codex_websocket.close_sessions()


async def _turn(url: str, context: Context, **options: Any) -> Any:
    model = get_model("openai-codex", "gpt-5.6-sol")
    assert model is not None
    events = stream(replace(model, base_url=url), context, OpenAICodexResponsesOptions(api_key=_token(), **options))
    async for _ in events:
        pass
    return await events.result()


async def _two_turns(url: str, **options: Any) -> tuple[Any, Any]:
    context = Context(system_prompt="Be brief.", messages=[UserMessage(content="Read a.txt", timestamp=0)])
    first = await _turn(url, context, **options)
    assert first.stop_reason == "toolUse", first.error_message
    call = first.content[0]
    context.messages += [
        first,
        ToolResultMessage(
            tool_call_id=call.id, tool_name="read", content=[{"type": "text", "text": "hi"}], is_error=False, timestamp=0
        ),
    ]
    return first, await _turn(url, context, **options)


async def test_a_session_keeps_its_socket_and_sends_the_next_turn_as_a_delta() -> None:
    with ResponsesWebSocketServer(TURNS) as server:
        first, second = await _two_turns(server.url, session_id="ws-session")
    assert second.stop_reason == "stop" and second.content[0].text == "a.txt says hi"
    assert first.diagnostics is None and second.diagnostics is None
    assert server.connections == 1
    full, delta = (frame.body for frame in server.frames)
    assert full["type"] == "response.create" and full["prompt_cache_key"] == "ws-session"
    roles = [item.get("role") for item in full["input"]]
    assert roles == ["developer", "user"] and "previous_response_id" not in full
    assert delta["previous_response_id"] == first.response_id == "resp_1"
    assert [item["type"] for item in delta["input"]] == ["function_call_output"]
    headers = server.frames[0].headers
    assert headers["openai-beta"] == "responses_websockets=2026-02-06"
    assert headers["session-id"] == headers["x-client-request-id"] == "ws-session"
    assert headers["authorization"] == f"Bearer {_token()}" and headers["chatgpt-account-id"] == "acct-ws"
    assert headers["originator"] == "pi" and "content-type" not in headers and "accept" not in headers
    assert server.frames[0].path == "/codex/responses"


async def test_websocket_transport_without_cache_resends_the_conversation() -> None:
    with ResponsesWebSocketServer(TURNS) as server:
        _, second = await _two_turns(server.url, session_id="ws-plain", transport="websocket")
    assert second.stop_reason == "stop", second.error_message
    assert server.connections == 1  # the socket is still kept for the session
    assert "previous_response_id" not in server.frames[1].body
    assert [item.get("type") for item in server.frames[1].body["input"]][-1] == "function_call_output"


async def test_a_request_that_changed_besides_its_input_is_sent_whole() -> None:
    with ResponsesWebSocketServer(TURNS) as server:
        context = Context(messages=[UserMessage(content="Read a.txt", timestamp=0)])
        first = await _turn(server.url, context, session_id="ws-changed")
        context.messages.append(first)
        await _turn(server.url, context, session_id="ws-changed", text_verbosity="high")
    assert server.connections == 1
    assert "previous_response_id" not in server.frames[1].body
    assert server.frames[1].body["text"] == {"verbosity": "high"}


async def test_a_new_event_loop_opens_a_new_socket() -> None:
    with ResponsesWebSocketServer(TURNS) as server:
        context = Context(messages=[UserMessage(content="Read a.txt", timestamp=0)])
        await asyncio.to_thread(asyncio.run, _turn(server.url, context, session_id="ws-loops"))
        again = await _turn(server.url, context, session_id="ws-loops")
    assert again.stop_reason == "toolUse", again.error_message
    assert server.connections == 2 and "previous_response_id" not in server.frames[1].body


async def test_without_a_session_each_request_opens_its_own_socket() -> None:
    with ResponsesWebSocketServer(TURNS) as server:
        await _two_turns(server.url)
    assert server.connections == 2 and "previous_response_id" not in server.frames[1].body


async def test_connection_limit_and_missing_previous_response_are_tried_again() -> None:
    errors = [{"code": "websocket_connection_limit_reached", "message": "Too many connections"}]
    with ResponsesWebSocketServer(TURNS, errors=errors) as server:
        first = await _turn(server.url, Context(messages=[UserMessage(content="Read a.txt", timestamp=0)]))
    assert first.stop_reason == "toolUse" and first.diagnostics is None
    assert len(server.frames) == 2

    with ResponsesWebSocketServer(TURNS) as server:
        first, _ = await _two_turns(server.url, session_id="ws-missing")
        server.errors.append({"code": "previous_response_not_found", "message": "gone"})
        context = Context(messages=[UserMessage(content="Read a.txt", timestamp=0), first])
        again = await _turn(server.url, context, session_id="ws-missing")
    assert again.stop_reason == "stop", again.error_message
    refused, retried = server.frames[-2:]
    assert refused.body == retried.body and "previous_response_id" not in retried.body


async def test_a_codex_error_event_ends_the_request_without_falling_back() -> None:
    errors = [{"code": "context_length_exceeded", "message": "Your input is too long"}]
    with ResponsesWebSocketServer(TURNS, errors=errors) as server:
        final = await _turn(server.url, Context(messages=[UserMessage(content="hi", timestamp=0)]))
    assert (final.stop_reason, final.error_message) == ("error", "Codex error: Your input is too long")
    assert final.diagnostics is None


async def test_a_socket_lost_after_the_first_event_fails_with_a_diagnostic() -> None:
    with ResponsesWebSocketServer(TURNS, close_after=2) as server:
        final = await _turn(server.url, Context(messages=[UserMessage(content="hi", timestamp=0)]))
    assert (final.stop_reason, final.error_message) == ("error", "WebSocket closed 1011 server went away")
    (diagnostic,) = final.diagnostics
    assert diagnostic.type == "provider_transport_failure"
    assert diagnostic.details["phase"] == "after_message_stream_start" and "fallbackTransport" not in diagnostic.details


async def test_no_socket_falls_back_to_sse_once_per_session() -> None:
    with ResponsesServer(TURNS) as server:  # answers the upgrade with 404
        first, second = await _two_turns(server.url, session_id="ws-fallback")
    assert first.stop_reason == "toolUse" and second.stop_reason == "stop", second.error_message
    (diagnostic,) = first.diagnostics
    assert diagnostic.type == "provider_transport_failure"
    assert diagnostic.details == {
        "configuredTransport": "auto",
        "fallbackTransport": "sse",
        "eventsEmitted": False,
        "phase": "before_message_stream_start",
        "requestBytes": diagnostic.details["requestBytes"],
    }
    assert second.diagnostics is None  # the session stays on SSE without trying again
    assert len(server.requests) == 2


async def _released(server: ResponsesServer) -> int:
    """The held upgrades the client has closed, once it closed all of them (bounded wait)."""
    for _ in range(200):
        if server.released >= server.held:
            break
        await asyncio.sleep(0.05)
    return server.released


async def test_a_handshake_that_never_completes_times_out_and_falls_back_to_sse() -> None:
    """``websocket_connect_timeout_ms`` through ``stream_simple`` (Pi's ``websocketConnectTimeoutMs``):
    the server accepts TCP but never answers the upgrade; the socket attempt is given up (and its
    connection closed), the request goes over SSE."""
    model = get_model("openai-codex", "gpt-5.6-sol")
    assert model is not None
    context = Context(messages=[UserMessage(content="Read a.txt", timestamp=0)])
    with ResponsesServer(TURNS, hold_upgrades=True) as server:
        options = SimpleStreamOptions(api_key=_token(), websocket_connect_timeout_ms=200)
        final = await stream_simple(replace(model, base_url=server.url), context, options).result()
        released = await _released(server)
    assert final.stop_reason == "toolUse", final.error_message
    (diagnostic,) = final.diagnostics
    assert diagnostic.error == DiagnosticError(name="Error", message="WebSocket connect timeout after 200ms")
    assert diagnostic.details["fallbackTransport"] == "sse"
    assert (server.held, released, len(server.requests)) == (1, 1, 1)


async def test_a_connect_timeout_of_zero_waits_for_the_handshake() -> None:
    """0 disables the limit: an abort, not a timeout, ends the wait (and closes the connection)."""
    model = get_model("openai-codex", "gpt-5.6-sol")
    assert model is not None
    context = Context(messages=[UserMessage(content="hi", timestamp=0)])
    controller = AbortController()
    with ResponsesServer(TURNS, hold_upgrades=True) as server:
        options = SimpleStreamOptions(api_key=_token(), websocket_connect_timeout_ms=0, signal=controller.signal)
        events = stream_simple(replace(model, base_url=server.url), context, options)
        for _ in range(200):
            if server.held:
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)  # well past a short limit; 0 must still be waiting
        assert not server.requests
        controller.abort()
        final = await events.result()
        released = await _released(server)
    assert final.stop_reason == "aborted"
    assert (server.held, released, len(server.requests)) == (1, 1, 0)
