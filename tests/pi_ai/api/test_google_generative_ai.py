"""google-generative-ai end to end against a real HTTP server on 127.0.0.1.

The server streams Gemini SSE (``data:`` chunks ended by CRLF CRLF) in small pieces cut
inside UTF-8 characters and JSON, stalls, resets or answers with errors.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from msgspec.structs import replace

from pi_ai import AbortController, Context, Model, SimpleStreamOptions, StreamOptions
from pi_ai._codec import to_builtins
from pi_ai._context import Tool
from pi_ai._messages import TextContent, ThinkingContent, ToolCall, UserMessage
from pi_ai.api._accumulator import StreamError
from pi_ai.api.google_generative_ai import API, GoogleOptions, GoogleStreamSplitter, stream, stream_simple
from tests.support.loopback import LoopbackServer, Reply, split

MODEL = Model(
    id="gemini-2.5-flash",
    name="Gemini 2.5 Flash",
    api="google-generative-ai",
    provider="google",
    base_url="http://unused/v1beta",
    reasoning=True,
)
BASH = Tool(
    name="bash",
    description="Run a command.",
    parameters={"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
)
CONTEXT = Context(
    system_prompt="Be brief.", messages=[UserMessage(content="Was ist hier? 🙂", timestamp=1)], tools=[BASH]
)
USAGE = {
    "promptTokenCount": 410,
    "candidatesTokenCount": 12,
    "totalTokenCount": 542,
    "cachedContentTokenCount": 256,
    "thoughtsTokenCount": 120,
}


def chunk(
    parts: list[dict[str, Any]], finish: str | None = None, usage: dict[str, Any] | None = None
) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    out: dict[str, Any] = {"candidates": [candidate], "responseId": "r-1"}
    if usage:
        out["usageMetadata"] = usage
    return out


def sse(chunks: list[dict[str, Any]]) -> bytes:
    return "".join(f"data: {json.dumps(c, ensure_ascii=False)}\r\n\r\n" for c in chunks).encode()


CHUNKS = [
    chunk([{"text": "Ich überlege 🤔", "thought": True, "thoughtSignature": "c2lnMQ=="}]),
    chunk([{"text": " weiter", "thought": True}]),
    chunk([{"text": "Ich führe ls aus — 🌍"}]),
    chunk(
        [
            {
                "functionCall": {"name": "bash", "args": {"command": "ls ~/Größe"}},
                "thoughtSignature": "c2lnMg==",
            }
        ]
    ),
    chunk([], finish="STOP", usage=USAGE),
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


def options(**kwargs: Any) -> GoogleOptions:
    return GoogleOptions(api_key="g-key", **kwargs)


@pytest.mark.parametrize("chunk_size", [1, 2, 5, 13, None])
async def test_stream_split_anywhere(chunk_size: int | None) -> None:
    body = sse(CHUNKS)
    chunks = split(body, chunk_size) if chunk_size else [body]
    before = time.time_ns() // 1_000_000
    async with LoopbackServer([Reply(chunks=chunks)]) as server:
        model = replace(MODEL, base_url=server.url + "/v1beta")
        events, final = await run(model, options())
    types = [event["type"] for event in events]
    assert types == [
        "start",
        "thinking_start",
        "thinking_delta",
        "thinking_delta",
        "thinking_end",
        "text_start",
        "text_delta",
        "text_end",
        "toolcall_start",
        "toolcall_delta",
        "toolcall_end",
        "done",
    ]
    assert events[9]["delta"] == '{"command":"ls ~/Größe"}'
    thinking, text, call = final.content
    assert isinstance(thinking, ThinkingContent)
    assert thinking.thinking == "Ich überlege 🤔 weiter" and thinking.thinking_signature == "c2lnMQ=="
    assert isinstance(text, TextContent) and text.text == "Ich führe ls aus — 🌍"
    assert isinstance(call, ToolCall) and call.thought_signature == "c2lnMg=="
    name, stamp, counter = call.id.split("_")
    assert name == "bash" and before <= int(stamp) <= time.time_ns() // 1_000_000 and int(counter) >= 1
    assert final.stop_reason == "toolUse" and final.raw_stop_reason == "STOP"
    assert final.response_id == "r-1"
    usage = final.usage
    assert (usage.input, usage.output, usage.cache_read, usage.reasoning, usage.total_tokens) == (
        154,
        132,
        256,
        120,
        542,
    )


async def test_request_url_headers_body_and_no_on_response() -> None:
    seen: list[Any] = []
    async with LoopbackServer([Reply(chunks=[sse(CHUNKS)])]) as server:
        model = replace(MODEL, base_url=server.url + "/v1beta", headers={"X-Model": "1"})
        await run(
            model,
            options(
                headers={"X-Extra": "e", "X-Model": None},
                on_response=lambda info, _m: seen.append(info),
                max_tokens=100,
                thinking=None,
            ),
        )
        request = server.requests[0]
    assert request.path == "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    assert request.headers["x-goog-api-key"] == "g-key"
    assert request.headers["x-extra"] == "e"
    assert "x-model" not in request.headers  # a None option header drops the model's header of that name
    assert request.headers["x-goog-api-client"].startswith("google-genai-sdk/1.52.0 ")
    assert request.headers["user-agent"].startswith("pi/1.6.0 (")
    body = request.json()
    assert list(body) == ["contents", "systemInstruction", "tools", "generationConfig"]
    assert body["systemInstruction"] == {"parts": [{"text": "Be brief."}], "role": "user"}
    assert body["generationConfig"] == {"maxOutputTokens": 100}
    assert seen == []  # Pi's Google adapter never calls on_response


async def test_abort_while_streaming() -> None:
    controller = AbortController()
    body = sse(CHUNKS)
    cut = body.index(b"functionCall")
    async with LoopbackServer([Reply(chunks=[body[:cut], body[cut:]], stall_after=1)]) as server:
        model = replace(MODEL, base_url=server.url + "/v1beta")
        handle = stream(model, CONTEXT, options(signal=controller.signal))
        async for event in handle:
            if event.type == "text_delta":
                controller.abort()
        final = await handle.result()
        await asyncio.wait_for(server.disconnected.wait(), 5)
    assert final.stop_reason == "aborted"
    assert final.error_message == "This operation was aborted"
    assert [block.type for block in final.content] == ["thinking", "text"]


async def test_signal_aborted_before_the_request_skips_the_payload_hook() -> None:
    controller = AbortController()
    controller.abort()
    payloads: list[Any] = []
    events, final = await run(
        MODEL, options(signal=controller.signal, on_payload=lambda p, _m: payloads.append(p))
    )
    assert [event["type"] for event in events] == ["error"]
    assert final.stop_reason == "aborted" and final.error_message == "Request aborted"
    assert payloads == []


async def test_stalled_body_fails_after_the_idle_timeout() -> None:
    body = sse(CHUNKS)
    async with LoopbackServer([Reply(chunks=[body[:50], body[50:]], stall_after=1)]) as server:
        model = replace(MODEL, base_url=server.url + "/v1beta")
        _, final = await run(model, options(idle_timeout_ms=1000))
    assert final.stop_reason == "error" and final.error_message == "terminated"


async def test_request_timeout_does_not_apply_and_silent_headers_fail_the_fetch() -> None:
    """Pi gives the Google SDK no timeout: only the idle limit bounds the wait for headers."""
    body = sse(CHUNKS)
    replies = [Reply(chunks=[body], head_delay=0.5), Reply(chunks=[body], head_delay=60)]
    async with LoopbackServer(replies) as server:
        model = replace(MODEL, base_url=server.url + "/v1beta")
        _, slow = await run(model, options(timeout_ms=100))
        _, silent = await run(model, options(timeout_ms=60_000, idle_timeout_ms=300))
    assert slow.stop_reason != "error", slow.error_message
    assert silent.stop_reason == "error" and silent.error_message == "fetch failed"


async def test_connection_reset_mid_stream() -> None:
    body = sse(CHUNKS)
    async with LoopbackServer([Reply(chunks=[body[:60], body[60:]], reset_after=1)]) as server:
        model = replace(MODEL, base_url=server.url + "/v1beta")
        _, final = await run(model, options())
    # Pi 1.6 adds undici's reason ("terminated: other side closed (UND_ERR_SOCKET)")
    assert final.stop_reason == "error" and (final.error_message or "").startswith("terminated: ")


async def test_retries_on_503_with_backoff_ignoring_retry_after() -> None:
    error = Reply.json(
        503, {"error": {"code": 503, "message": "busy", "status": "UNAVAILABLE"}}, {"retry-after": "600"}
    )
    async with LoopbackServer([error, Reply(chunks=[sse(CHUNKS)])]) as server:
        model = replace(MODEL, base_url=server.url + "/v1beta")
        started = time.monotonic()
        _, final = await run(model, options(max_retries=1))
        elapsed = time.monotonic() - started
        assert len(server.requests) == 2
    assert final.stop_reason == "toolUse"
    assert 0.3 < elapsed < 5  # 0.5 s backoff minus jitter; the 600 s Retry-After is not consulted


async def test_http_error_texts() -> None:
    json_error = Reply.json(429, {"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}})
    text_error = Reply(status=500, headers={"content-type": "text/plain"}, chunks=[b"oops"])
    async with LoopbackServer([json_error, text_error]) as server:
        model = replace(MODEL, base_url=server.url + "/v1beta")
        _, first = await run(model, options())
        _, second = await run(model, options())
    assert first.error_message == '{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED"}}'
    # A body that is not JSON: the status is the response's reason phrase.
    assert second.error_message == '{"error":{"message":"oops","code":500,"status":"Internal Server Error"}}'


async def test_error_object_inside_a_200_stream() -> None:
    error = {"error": {"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}}
    async with LoopbackServer([Reply(chunks=[json.dumps(error).encode()])]) as server:
        model = replace(MODEL, base_url=server.url + "/v1beta")
        events, final = await run(model, options())
    assert [event["type"] for event in events] == ["start", "error"]
    assert final.error_message == f"got status: UNAVAILABLE. {json.dumps(error, separators=(',', ':'))}"


def test_splitter_follows_the_sdk() -> None:
    splitter = GoogleStreamSplitter()
    body = (
        ': c\n\ndata: {"a":1}\r\n\r\nevent: x\ndata: {}\n\ndata:{"b":2}\r\r  data: {"c":"é"}  \n\n'.encode()
    )
    payloads = []
    for piece in split(body, 3):
        payloads.extend(splitter.feed(piece))
    splitter.finish()
    assert payloads == ['{"a":1}', '{"b":2}', '{"c":"é"}']
    leftover = GoogleStreamSplitter()
    leftover.feed(b'data: {"a":1}\n')
    with pytest.raises(StreamError, match="Incomplete JSON segment at the end"):
        leftover.finish()


def test_stream_simple_needs_a_key_and_valid_level_mapping() -> None:
    with pytest.raises(ValueError, match="No API key for provider: google"):
        stream_simple(MODEL, CONTEXT, SimpleStreamOptions())
    broken = replace(MODEL, id="gemini-3-pro-x", thinking_level_map={"low": "turbo"})
    with pytest.raises(
        ValueError, match="Unsupported Google thinking level mapping for google/gemini-3-pro-x: low -> turbo"
    ):
        stream_simple(broken, CONTEXT, SimpleStreamOptions(api_key="k", reasoning="low"))
    assert API.api == "google-generative-ai"
