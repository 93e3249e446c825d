"""anthropic-messages and openai-completions end to end against a real HTTP server on
127.0.0.1: SSE split into tiny chunks (inside UTF-8 characters and inside JSON), abort while
streaming, a stalled server, retries with Retry-After, cut connections, hooks and headers.
Nothing may raise out of a stream: every failure is an ``error`` event and a settled message."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any

import msgspec
import pytest

from pi_ai import (
    AbortController,
    AssistantMessage,
    Context,
    Model,
    ResponseInfo,
    SimpleStreamOptions,
    TextContent,
    Tool,
    ToolCall,
    UserMessage,
    stream_simple,
    to_builtins,
)
from pi_ai.api._http import close_clients
from tests.support.loopback import LoopbackServer, Reply, split

TEXT = "Héllo wörld — 😀 “quoted” 日本語"
ARGS = {"command": 'echo "ünïcode 😀" && ls -la', "timeout": 30}
TOOLS = [
    Tool(
        name="bash",
        description="Run a command",
        parameters={"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
    )
]


def _data(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def anthropic_body() -> str:
    args = json.dumps(ARGS, ensure_ascii=False)
    events = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_1",
                    "model": "claude-x",
                    "usage": {"input_tokens": 10, "output_tokens": 1},
                },
            },
        ),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        ),
        *[
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}},
            )
            for piece in (TEXT[:7], TEXT[7:])
        ],
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 1,
                "content_block": {"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {}},
            },
        ),
        *[
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 1,
                    "delta": {"type": "input_json_delta", "partial_json": args[i : i + 5]},
                },
            )
            for i in range(0, len(args), 5)
        ],
        ("content_block_stop", {"type": "content_block_stop", "index": 1}),
        (
            "message_delta",
            {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 42}},
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return "".join(f"event: {name}\ndata: {_data(data)}\n\n" for name, data in events)


def completions_body() -> str:
    args = json.dumps(ARGS, ensure_ascii=False)

    def chunk(delta: dict[str, Any], finish: str | None = None, usage: Any = None) -> str:
        return _data(
            {
                "id": "chatcmpl-1",
                "model": "gpt-x",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                "usage": usage,
            }
        )

    chunks = [chunk({"content": TEXT[:7]}), chunk({"content": TEXT[7:]})]
    chunks.append(
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "bash", "arguments": ""},
                    }
                ]
            }
        )
    )
    chunks += [
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": args[i : i + 5]}}]})
        for i in range(0, len(args), 5)
    ]
    chunks.append(chunk({}, "tool_calls"))
    chunks.append(
        _data(
            {
                "id": "chatcmpl-1",
                "model": "gpt-x",
                "choices": [],
                "usage": {"prompt_tokens": 10, "completion_tokens": 42},
            }
        )
    )
    chunks.append("[DONE]")
    return "".join(f"data: {item}\n\n" for item in chunks)


@dataclass(frozen=True)
class Api:
    name: str
    body: str
    error_body: Any
    error_message: str
    aborted_mid_stream: str

    def model(self, base_url: str) -> Model:
        return Model(
            id="test-model",
            name="test",
            api=self.name,
            provider="anthropic" if self.name == "anthropic-messages" else "openai",
            base_url=base_url,
            reasoning=False,
            context_window=200000,
            max_tokens=4096,
        )


APIS = [
    Api(
        "anthropic-messages",
        anthropic_body(),
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
        '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
        "This operation was aborted",
    ),
    Api(
        "openai-completions",
        completions_body(),
        {"error": {"message": "Overloaded", "type": "server_error"}},
        '529: {"message":"Overloaded","type":"server_error"}',
        "Request was aborted",
    ),
]


def _context() -> Context:
    return Context(system_prompt="sys", messages=[UserMessage(content="go", timestamp=1)], tools=TOOLS)


async def _run(
    model: Model, options: SimpleStreamOptions | None = None
) -> tuple[list[dict[str, Any]], AssistantMessage]:
    opts = options or SimpleStreamOptions()
    if opts.api_key is None:
        opts.api_key = "test-key"
    stream = stream_simple(model, _context(), opts)
    events = []
    async for event in stream:
        data = to_builtins(event)
        data.pop("partial", None)
        for key in ("message", "error"):
            if isinstance(data.get(key), dict):
                data[key]["timestamp"] = 0
                assert isinstance(data[key].pop("durationMs"), int)  # a time (Pi 1.6): not compared
        events.append(data)
    final = await stream.result()
    final.duration_ms = 0
    await close_clients()
    return events, final


@pytest.mark.parametrize("api", APIS, ids=lambda api: api.name)
async def test_tiny_chunks_split_inside_utf8_and_json(api: Api) -> None:
    async with LoopbackServer([Reply(chunks=[api.body.encode()])]) as server:
        whole_events, whole = await _run(api.model(server.url))
    for size in (1, 2, 3, 7):
        async with LoopbackServer([Reply(chunks=split(api.body, size))]) as server:
            events, final = await _run(api.model(server.url))
        assert events == whole_events, size
        assert to_builtins(final) == {**to_builtins(whole), "timestamp": final.timestamp}
    assert whole.stop_reason == "toolUse"
    assert whole.content[0] == TextContent(text=TEXT)
    assert isinstance(whole.content[1], ToolCall) and whole.content[1].arguments == ARGS
    deltas = "".join(event["delta"] for event in whole_events if event["type"] == "toolcall_delta")
    assert json.loads(deltas) == ARGS
    assert whole_events[0]["type"] == "start" and whole_events[-1]["type"] == "done"


@pytest.mark.parametrize("api", APIS, ids=lambda api: api.name)
async def test_request_hooks_and_header_removal(api: Api) -> None:
    seen: list[ResponseInfo] = []

    def on_payload(payload: Any, model: Model) -> Any:
        return {**payload, "temperature": 0.25}

    options = SimpleStreamOptions(
        on_payload=on_payload,
        on_response=lambda info, model: seen.append(info),
        headers={"X-Extra": "1", "User-Agent": None},
    )
    reply = Reply(
        headers={"content-type": "text/event-stream", "x-request-id": "r-1"}, chunks=[api.body.encode()]
    )
    async with LoopbackServer([reply]) as server:
        _, final = await _run(api.model(server.url), options)
    request = server.requests[0]
    assert final.stop_reason == "toolUse"
    assert request.json()["temperature"] == 0.25
    assert request.json()["stream"] is True
    assert request.headers["x-extra"] == "1"
    assert not request.headers.get("user-agent", "").startswith("pi/")
    assert seen and seen[0].status == 200 and seen[0].headers["x-request-id"] == "r-1"


@pytest.mark.parametrize("api", APIS, ids=lambda api: api.name)
async def test_http_error_is_an_error_event(api: Api) -> None:
    async with LoopbackServer([Reply.json(529, api.error_body)]) as server:
        events, final = await _run(api.model(server.url))
    assert [event["type"] for event in events] == ["error"]
    assert final.stop_reason == "error"
    assert final.error_message == api.error_message
    assert final.content == []


@pytest.mark.parametrize("api", APIS, ids=lambda api: api.name)
async def test_retry_after_then_success(api: Api) -> None:
    replies = [Reply.json(529, api.error_body, {"retry-after": "0.2"}), Reply(chunks=[api.body.encode()])]
    async with LoopbackServer(replies) as server:
        started = time.monotonic()
        _, final = await _run(api.model(server.url), SimpleStreamOptions(max_retries=2))
        elapsed = time.monotonic() - started
    assert final.stop_reason == "toolUse"
    assert len(server.requests) == 2
    assert elapsed >= 0.2


@pytest.mark.parametrize("api", APIS, ids=lambda api: api.name)
async def test_retry_delay_beyond_cap_fails_at_once(api: Api) -> None:
    async with LoopbackServer([Reply.json(429, api.error_body, {"retry-after": "5"})]) as server:
        _, final = await _run(
            api.model(server.url), SimpleStreamOptions(max_retries=3, max_retry_delay_ms=1000)
        )
    assert len(server.requests) == 1
    assert final.stop_reason == "error"
    assert final.error_message is not None
    assert final.error_message.startswith("Server requested 5s retry delay (max: 1s). 429 ")


@pytest.mark.parametrize("api", APIS, ids=lambda api: api.name)
async def test_abort_while_streaming(api: Api) -> None:
    controller = AbortController()
    half = len(api.body) // 2
    reply = Reply(chunks=[api.body[:half].encode(), api.body[half:].encode()], stall_after=1)
    async with LoopbackServer([reply]) as server:
        model = api.model(server.url)
        stream = stream_simple(model, _context(), SimpleStreamOptions(api_key="k", signal=controller.signal))
        types = []
        async for event in stream:
            types.append(event.type)
            if event.type == "text_delta" and types.count("text_delta") == 1:
                asyncio.get_running_loop().call_later(0.05, controller.abort)
        final = await stream.result()
        await asyncio.wait_for(server.disconnected.wait(), 5)
        await close_clients()
    assert final.stop_reason == "aborted"
    assert final.error_message == api.aborted_mid_stream
    assert types[-1] == "error"
    assert isinstance(final.content[0], TextContent) and final.content[0].text.startswith(TEXT[:7])


@pytest.mark.parametrize("api", APIS, ids=lambda api: api.name)
async def test_aborted_before_the_request(api: Api) -> None:
    controller = AbortController()
    controller.abort()
    async with LoopbackServer([Reply(chunks=[api.body.encode()])]) as server:
        events, final = await _run(api.model(server.url), SimpleStreamOptions(signal=controller.signal))
    assert [event["type"] for event in events] == ["error"]
    assert final.stop_reason == "aborted"
    assert final.error_message == "Request aborted"
    assert server.requests == []


@pytest.mark.parametrize("api", APIS, ids=lambda api: api.name)
async def test_stalled_body_fails_after_the_idle_timeout(api: Api) -> None:
    reply = Reply(chunks=[api.body[:40].encode(), api.body[40:].encode()], stall_after=1)
    async with LoopbackServer([reply]) as server:
        options = SimpleStreamOptions(timeout_ms=60_000, idle_timeout_ms=1000)
        _, final = await _run(api.model(server.url), options)
    assert final.stop_reason == "error"
    assert final.error_message == "terminated: no data received for 1000 ms"


@pytest.mark.parametrize("api", APIS, ids=lambda api: api.name)
async def test_silent_server_fails_at_the_request_timeout(api: Api) -> None:
    async with LoopbackServer([Reply(chunks=[api.body.encode()], head_delay=60)]) as server:
        options = SimpleStreamOptions(timeout_ms=300, idle_timeout_ms=60_000)
        _, final = await _run(api.model(server.url), options)
    assert final.stop_reason == "error"
    assert final.error_message == "Request timed out."


@pytest.mark.parametrize("api", APIS, ids=lambda api: api.name)
async def test_slow_live_stream_outlasts_the_request_timeout(api: Api) -> None:
    # three pieces 0.9 s apart: each silence is three times the request timeout (300 ms: it also
    # bounds the headers, which a loaded machine once took over 100 ms to send from this process)
    pieces = split(api.body, len(api.body) // 3 + 1)
    async with LoopbackServer([Reply(chunks=pieces, delay=0.9)]) as server:
        _, final = await _run(api.model(server.url), SimpleStreamOptions(timeout_ms=300))
    assert final.stop_reason != "error", final.error_message


@pytest.mark.parametrize("api", APIS, ids=lambda api: api.name)
async def test_connection_reset_mid_stream(api: Api) -> None:
    reply = Reply(chunks=[api.body[: len(api.body) // 2].encode(), b"rest"], reset_after=1)
    async with LoopbackServer([reply]) as server:
        _, final = await _run(api.model(server.url))
    assert final.stop_reason == "error"
    assert final.error_message is not None and final.error_message.startswith("terminated")


@pytest.mark.parametrize("api", APIS, ids=lambda api: api.name)
async def test_connection_refused(api: Api) -> None:
    async with LoopbackServer([]) as server:
        url = server.url
    _, final = await _run(api.model(url))
    assert final.stop_reason == "error"
    assert final.error_message is not None and final.error_message.startswith("Connection error.")


@pytest.mark.parametrize("api", APIS, ids=lambda api: api.name)
async def test_missing_key_is_an_error_event(api: Api) -> None:
    """As in both Pis: no exception, the stream's one event is the error."""
    model = api.model("http://127.0.0.1:9")
    events = [event async for event in stream_simple(model, _context(), SimpleStreamOptions(env={}))]
    assert [event.type for event in events] == ["error"]
    final = await stream_simple(model, _context(), SimpleStreamOptions(env={})).result()
    assert final.stop_reason == "error" and final.content == []
    assert final.error_message is not None and final.error_message.startswith("No API key for provider: ")


async def test_partial_arguments_are_objects_at_every_delta() -> None:
    api = APIS[0]
    # Paced writes so each delta reaches the consumer before the next one arrives.
    async with LoopbackServer([Reply(chunks=split(api.body, 11), delay=0.002)]) as server:
        stream = stream_simple(api.model(server.url), _context(), SimpleStreamOptions(api_key="k"))
        seen = []
        async for event in stream:
            if event.type == "toolcall_delta":
                block = event.partial.content[event.content_index]
                assert isinstance(block, ToolCall)
                seen.append(msgspec.json.decode(msgspec.json.encode(block.arguments)))
        await close_clients()
    assert all(isinstance(value, dict) for value in seen)
    assert seen[-1] == ARGS
    assert any(value.get("command", "").startswith("echo") and value != ARGS for value in seen)
