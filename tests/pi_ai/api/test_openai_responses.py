"""openai-responses end to end against a real HTTP server on 127.0.0.1.

The server streams Responses SSE in small chunks (cut inside UTF-8 characters and inside
JSON), stalls, resets or answers with errors; the adapter must produce Pi's events, the
settled message and Pi's error texts.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from msgspec.structs import replace

from pi_ai import AbortController, Context, Model, ResponseInfo, SimpleStreamOptions, StreamOptions
from pi_ai._codec import to_builtins
from pi_ai._context import Tool
from pi_ai._messages import TextContent, ThinkingContent, ToolCall, UserMessage
from pi_ai.api.openai_responses import (
    API,
    OpenAIResponsesOptions,
    build_params,
    get_compat,
    stream,
    stream_simple,
)
from tests.support.loopback import LoopbackServer, Reply, split

MODEL = Model(
    id="gpt-5-mini",
    name="GPT-5 mini",
    api="openai-responses",
    provider="openai",
    base_url="http://unused/v1",
    reasoning=True,
    thinking_level_map={"off": None, "minimal": "minimal", "low": "low", "medium": "medium", "high": "high"},
    compat={"supportsStrictMode": True},
)
BASH = Tool(
    name="bash",
    description="Run a command.",
    parameters={"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
)
CONTEXT = Context(
    system_prompt="Be brief.",
    messages=[UserMessage(content="List the files, bitte 🙂", timestamp=1)],
    tools=[BASH],
)

REASONING = {
    "id": "rs_1",
    "type": "reasoning",
    "summary": [{"type": "summary_text", "text": "Denke über Dateien nach 🤔"}],
    "encrypted_content": "gAAAA==",
}
MESSAGE = {
    "id": "msg_1",
    "type": "message",
    "status": "completed",
    "role": "assistant",
    "content": [{"type": "output_text", "annotations": [], "text": "Ich führe `ls` aus — 🌍"}],
}
CALL = {
    "id": "fc_1",
    "type": "function_call",
    "status": "completed",
    "call_id": "call_1",
    "name": "bash",
    "arguments": '{"command":"ls -la ~/Größe"}',
}
USAGE = {
    "input_tokens": 1000,
    "input_tokens_details": {"cached_tokens": 600},
    "output_tokens": 300,
    "output_tokens_details": {"reasoning_tokens": 200},
    "total_tokens": 1300,
}


def sse(events: list[dict[str, Any]]) -> bytes:
    return "".join(
        f"event: {event['type']}\ndata: {json.dumps(event, ensure_ascii=False)}\n\n" for event in events
    ).encode()


def full_events() -> list[dict[str, Any]]:
    return [
        {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}},
        {"type": "response.output_item.added", "output_index": 0, "item": {**REASONING, "summary": []}},
        {"type": "response.reasoning_summary_text.delta", "output_index": 0, "delta": "Denke über "},
        {"type": "response.reasoning_summary_text.delta", "output_index": 0, "delta": "Dateien nach 🤔"},
        {"type": "response.output_item.done", "output_index": 0, "item": REASONING},
        {"type": "response.output_item.added", "output_index": 1, "item": {**MESSAGE, "content": []}},
        {"type": "response.output_text.delta", "output_index": 1, "delta": "Ich führe `ls` aus"},
        {"type": "response.output_text.delta", "output_index": 1, "delta": " — 🌍"},
        {"type": "response.output_item.done", "output_index": 1, "item": MESSAGE},
        {"type": "response.output_item.added", "output_index": 2, "item": {**CALL, "arguments": ""}},
        {"type": "response.function_call_arguments.delta", "output_index": 2, "delta": '{"command":'},
        {"type": "response.function_call_arguments.delta", "output_index": 2, "delta": '"ls -la ~/Grö'},
        {"type": "response.function_call_arguments.delta", "output_index": 2, "delta": 'ße"}'},
        {"type": "response.output_item.done", "output_index": 2, "item": CALL},
        {"type": "response.completed", "response": {"id": "resp_1", "status": "completed", "usage": USAGE}},
    ]


async def run(
    model: Model, options: StreamOptions, context: Context = CONTEXT
) -> tuple[list[dict[str, Any]], Any]:
    events = []
    handle = stream(model, context, options)
    async for event in handle:
        data = to_builtins(event)
        data.pop("partial", None)
        events.append(data)
    return events, await handle.result()


def options(**kwargs: Any) -> OpenAIResponsesOptions:
    return OpenAIResponsesOptions(api_key="sk-test", **kwargs)


@pytest.mark.parametrize("chunk_size", [1, 3, 7, 64, None])
async def test_stream_split_anywhere_gives_the_same_events(chunk_size: int | None) -> None:
    body = sse(full_events())
    chunks = split(body, chunk_size) if chunk_size else [body]
    async with LoopbackServer([Reply(chunks=chunks)]) as server:
        model = replace(MODEL, base_url=server.url + "/v1")
        events, final = await run(model, options(reasoning_effort="low"))
    types = [event["type"] for event in events]
    assert types == [
        "start",
        "thinking_start",
        "thinking_delta",
        "thinking_delta",
        "thinking_end",
        "text_start",
        "text_delta",
        "text_delta",
        "text_end",
        "toolcall_start",
        "toolcall_delta",
        "toolcall_delta",
        "toolcall_delta",
        "toolcall_end",
        "done",
    ]
    assert events[-2]["toolCall"] == {
        "type": "toolCall",
        "id": "call_1|fc_1",
        "name": "bash",
        "arguments": {"command": "ls -la ~/Größe"},
    }
    assert final.stop_reason == "toolUse"
    assert final.response_id == "resp_1"
    assert final.raw_stop_reason == "completed"
    thinking, text, call = final.content
    assert isinstance(thinking, ThinkingContent) and thinking.thinking == "Denke über Dateien nach 🤔"
    assert json.loads(thinking.thinking_signature or "") == REASONING
    assert isinstance(text, TextContent) and text.text == "Ich führe `ls` aus — 🌍"
    assert text.text_signature == '{"v":1,"id":"msg_1"}'
    assert isinstance(call, ToolCall)
    usage = final.usage
    assert (usage.input, usage.output, usage.cache_read, usage.reasoning, usage.total_tokens) == (
        400,
        300,
        600,
        200,
        1300,
    )


async def test_request_url_headers_and_body() -> None:
    seen: list[ResponseInfo] = []
    async with LoopbackServer([Reply(chunks=[sse(full_events())])]) as server:
        model = replace(MODEL, base_url=server.url + "/v1", headers={"X-Model": "m"})
        await run(
            model,
            options(
                session_id="sess-1",
                headers={"X-Extra": "1", "X-Stainless-Lang": None},
                on_response=lambda info, _model: seen.append(info),
                reasoning_effort="high",
                max_tokens=5,
            ),
        )
        request = server.requests[0]
    assert request.method == "POST"
    assert request.path == "/v1/responses"
    headers = request.headers
    assert headers["authorization"] == "Bearer sk-test"
    assert headers["session-id"] == "sess-1" and headers["x-client-request-id"] == "sess-1"
    assert headers["x-model"] == "m" and headers["x-extra"] == "1"
    assert "x-stainless-lang" not in headers
    assert headers["content-type"] == "application/json"
    assert headers["user-agent"].startswith("pi/1.6.0 (")
    body = request.json()
    assert body["input"][0] == {"role": "developer", "content": "Be brief."}
    assert body["max_output_tokens"] == 16
    assert body["prompt_cache_key"] == "sess-1"
    assert body["reasoning"] == {"effort": "high", "summary": "auto"}
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["tools"][0]["strict"] is False
    assert [info.status for info in seen] == [200]
    assert seen[0].headers["content-type"] == "text/event-stream"


async def test_on_payload_can_replace_the_body() -> None:
    async with LoopbackServer([Reply(chunks=[sse(full_events())])]) as server:
        model = replace(MODEL, base_url=server.url + "/v1")
        await run(model, options(on_payload=lambda payload, _m: {**payload, "store": True, "extra": 1}))
        body = server.requests[0].json()
    assert body["store"] is True and body["extra"] == 1


async def test_abort_while_streaming_keeps_the_partial_and_reports_aborted() -> None:
    controller = AbortController()
    body = sse(full_events())
    cut = body.index(b"response.output_text.delta") + 200
    reply = Reply(chunks=[body[:cut], body[cut:]], delay=0.0, stall_after=1)
    async with LoopbackServer([reply]) as server:
        model = replace(MODEL, base_url=server.url + "/v1")
        handle = stream(model, CONTEXT, options(signal=controller.signal))
        types = []
        async for event in handle:
            types.append(event.type)
            if event.type == "text_delta":
                controller.abort()
        final = await handle.result()
        await asyncio.wait_for(server.disconnected.wait(), 5)
    assert types[-1] == "error"
    assert final.stop_reason == "aborted"
    # The SDK ends its iterator quietly on abort, so Pi reports the missing terminal event.
    assert final.error_message == "OpenAI Responses stream ended before a terminal response event"
    assert isinstance(final.content[1], TextContent) and final.content[1].text.startswith("Ich führe")
    assert final.usage.input == 0  # usage only arrives with the terminal event


async def test_signal_aborted_before_the_request() -> None:
    controller = AbortController()
    controller.abort()
    payloads: list[Any] = []
    events, final = await run(
        MODEL, options(signal=controller.signal, on_payload=lambda p, _m: payloads.append(p))
    )
    assert [event["type"] for event in events] == ["error"]
    assert final.stop_reason == "aborted"
    assert final.error_message == "Request aborted"
    assert final.content == [] and len(payloads) == 1


async def test_stalled_body_fails_after_the_idle_timeout() -> None:
    body = sse(full_events())
    async with LoopbackServer([Reply(chunks=[body[:300], body[300:]], stall_after=1)]) as server:
        model = replace(MODEL, base_url=server.url + "/v1")
        events, final = await run(model, options(timeout_ms=60_000, idle_timeout_ms=1000))
    assert events[0]["type"] == "start"
    assert final.stop_reason == "error"
    assert final.error_message == "terminated: no data received for 1000 ms"


async def test_connection_reset_mid_stream() -> None:
    body = sse(full_events())
    async with LoopbackServer([Reply(chunks=[body[:400], body[400:]], reset_after=1)]) as server:
        model = replace(MODEL, base_url=server.url + "/v1")
        _, final = await run(model, options())
    assert final.stop_reason == "error"
    assert final.error_message is not None and final.error_message.startswith("terminated")


async def test_http_error_then_retry_succeeds() -> None:
    error = Reply.json(429, {"error": {"message": "slow down", "type": "requests"}}, {"retry-after-ms": "10"})
    async with LoopbackServer([error, Reply(chunks=[sse(full_events())])]) as server:
        model = replace(MODEL, base_url=server.url + "/v1")
        events, final = await run(model, options(max_retries=1))
        assert len(server.requests) == 2
    assert final.stop_reason == "toolUse"
    assert events[0]["type"] == "start"


async def test_http_error_message_is_pis() -> None:
    error = Reply.json(529, {"error": {"message": "Overloaded", "type": "overloaded_error", "code": None}})
    async with LoopbackServer([error]) as server:
        model = replace(MODEL, base_url=server.url + "/v1")
        events, final = await run(model, options())
    assert [event["type"] for event in events] == ["error"]
    assert final.error_message == (
        'OpenAI API error (529): {"message":"Overloaded","type":"overloaded_error","code":null}'
    )


async def test_retry_delay_over_the_cap_fails_at_once() -> None:
    error = Reply.json(429, {"error": {"message": "later"}}, {"retry-after": "120"})
    async with LoopbackServer([error]) as server:
        model = replace(MODEL, base_url=server.url + "/v1")
        _, final = await run(model, options(max_retries=3, max_retry_delay_ms=1000))
        assert len(server.requests) == 1
    assert final.error_message is not None
    assert final.error_message.startswith("Server requested 120s retry delay (max: 1s).")


async def test_malformed_event_json_is_reported_in_the_sdks_words() -> None:
    """Pi 1.6's OpenAI SDK (7.x) words it so; 0.85's passed V8's JSON.parse text on."""
    body = sse(full_events()[:3]) + b'data: {"type":"response.output_text.delta","delta":"x",}\n\n'
    async with LoopbackServer([Reply(chunks=split(body, 5))]) as server:
        model = replace(MODEL, base_url=server.url + "/v1")
        _, final = await run(model, options())
    assert final.error_message == "Error reading response: malformed server-sent event JSON."


async def test_stream_simple_needs_a_key_at_once() -> None:
    with pytest.raises(ValueError, match="No API key for provider: openai"):
        stream_simple(MODEL, CONTEXT, SimpleStreamOptions())
    assert API.api == "openai-responses"


def test_stream_simple_maps_reasoning_and_clamps_max_tokens() -> None:
    compat = get_compat(MODEL)
    small = replace(MODEL, context_window=10_000, max_tokens=128_000)
    params = build_params(
        small, CONTEXT, OpenAIResponsesOptions(reasoning_effort="minimal", max_tokens=100), compat, {}
    )
    assert params["reasoning"] == {"effort": "minimal", "summary": "auto"}
    assert params["max_output_tokens"] == 100
    no_reasoning = build_params(MODEL, CONTEXT, OpenAIResponsesOptions(), compat, {})
    assert "reasoning" not in no_reasoning  # thinking_level_map.off is None: nothing is sent
    gpt51 = replace(MODEL, thinking_level_map={"off": "none"})
    assert build_params(gpt51, CONTEXT, OpenAIResponsesOptions(), compat, {})["reasoning"] == {
        "effort": "none"
    }
