"""stream_proxy against a real HTTP server on 127.0.0.1 speaking Pi's proxy protocol."""

from __future__ import annotations

import functools
import json
from dataclasses import replace
from typing import Any

from pi_agent import Agent, stream_proxy
from pi_ai import (
    AbortController,
    AssistantMessage,
    Context,
    Model,
    SimpleStreamOptions,
    TextContent,
    ThinkingBudgets,
    ThinkingContent,
    Tool,
    ToolCall,
    UserMessage,
)
from tests.support.loopback import LoopbackServer, Reply

MODEL = Model(id="m1", name="M1", api="anthropic-messages", provider="anthropic", base_url="https://example.invalid")
CONTEXT = Context(system_prompt="sys", messages=[UserMessage(content="hi", timestamp=1)],
                  tools=[Tool(name="read", description="Read.", parameters={"type": "object"})])
USAGE = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


def sse(*events: dict[str, Any]) -> bytes:
    return b"".join(b"data: " + json.dumps(event).encode() + b"\n" for event in events)


def proxy_server(*replies: Reply) -> LoopbackServer:
    """A proxy on 127.0.0.1 answering the requests in turn, pacing its chunks a little."""
    return LoopbackServer([replace(reply, delay=0.005) for reply in replies])


def hold(reply: Reply) -> Reply:
    """``reply`` with the connection kept open after its chunks (until the client goes away)."""
    return replace(reply, stall_after=len(reply.chunks))


async def collect(stream: Any, seen_arguments: list[Any] | None = None) -> tuple[list[Any], AssistantMessage]:
    events = []
    async for event in stream:
        events.append(event)
        if seen_arguments is not None and event.type == "toolcall_delta":
            seen_arguments.append(dict(event.partial.content[event.content_index].arguments))
    return events, await stream.result()


FULL_STREAM = [
    sse({"type": "start"}, {"type": "thinking_start", "contentIndex": 0}),
    sse({"type": "thinking_delta", "contentIndex": 0, "delta": "hmm"},
        {"type": "thinking_end", "contentIndex": 0, "contentSignature": "sig"}),
    sse({"type": "text_start", "contentIndex": 1}, {"type": "text_delta", "contentIndex": 1, "delta": "Hel"}),
    b'data: {"type": "text_delta", "contentIndex": 1, ',  # an event split across chunks
    b'"delta": "lo"}\n' + sse({"type": "text_end", "contentIndex": 1}),
    sse({"type": "toolcall_start", "contentIndex": 2, "id": "c1", "toolName": "read"},
        {"type": "toolcall_delta", "contentIndex": 2, "delta": '{"path": "a'}),
    sse({"type": "toolcall_delta", "contentIndex": 2, "delta": '.txt"}'},
        {"type": "toolcall_end", "contentIndex": 2,
         "toolCall": {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a.txt"}}}),
    b'data: {"type": "done", "reason": "toolUse", "usage": ' + json.dumps(USAGE).encode() + b"}",  # no final newline
]


async def test_rebuilds_the_stream_and_sends_pis_request() -> None:
    async with proxy_server(Reply(chunks=FULL_STREAM)) as server:
        options = SimpleStreamOptions(reasoning="high", session_id="s1", temperature=0.5,
                                      thinking_budgets=ThinkingBudgets(high=2048))
        arguments: list[Any] = []
        events, final = await collect(stream_proxy(MODEL, CONTEXT, options, proxy_url=server.url, auth_token="tok"),
                                      arguments)
    request = server.requests[0]
    body = request.json()
    assert (request.method, request.path) == ("POST", "/api/stream")
    assert request.headers["authorization"] == "Bearer tok"
    assert request.headers["content-type"] == "application/json"
    assert body["model"]["id"] == "m1" and body["model"]["baseUrl"] == "https://example.invalid"
    assert body["context"]["systemPrompt"] == "sys"
    assert body["context"]["tools"][0]["name"] == "read"
    assert body["options"] == {"temperature": 0.5, "reasoning": "high", "sessionId": "s1",
                                          "thinkingBudgets": {"high": 2048}}
    assert [e.type for e in events] == [
        "start", "thinking_start", "thinking_delta", "thinking_end", "text_start", "text_delta", "text_delta",
        "text_end", "toolcall_start", "toolcall_delta", "toolcall_delta", "toolcall_end", "done"]
    assert arguments == [{"path": "a"}, {"path": "a.txt"}]  # partial JSON while streaming
    assert final.content == [ThinkingContent(thinking="hmm", thinking_signature="sig"), TextContent(text="Hello"),
                             ToolCall(id="c1", name="read", arguments={"path": "a.txt"})]
    assert (final.stop_reason, final.usage.total_tokens, final.api) == ("toolUse", 15, "anthropic-messages")


async def test_error_status_reports_the_servers_message_or_the_status() -> None:
    async with proxy_server(Reply(status=401, chunks=[b'{"error": "bad token"}']), Reply(status=500, chunks=[b"oops"])) as server:
        _, first = await collect(stream_proxy(MODEL, CONTEXT, proxy_url=server.url, auth_token="x"))
        _, second = await collect(stream_proxy(MODEL, CONTEXT, proxy_url=server.url, auth_token="x"))
    assert (first.stop_reason, first.error_message) == ("error", "Proxy error: bad token")
    assert second.error_message == "Proxy error: 500 Internal Server Error"


async def test_a_dropped_connection_and_a_bad_event_end_with_an_error() -> None:
    async with proxy_server(Reply(chunks=[sse({"type": "start"}, {"type": "text_start", "contentIndex": 0})]),
                            Reply(chunks=[sse({"type": "start"}, {"type": "text_start", "contentIndex": 0},
                                              {"type": "thinking_delta", "contentIndex": 0, "delta": "x"})])) as server:
        _, dropped = await collect(stream_proxy(MODEL, CONTEXT, proxy_url=server.url, auth_token="x"))
        _, wrong = await collect(stream_proxy(MODEL, CONTEXT, proxy_url=server.url, auth_token="x"))
    assert dropped.error_message == "Connection closed by proxy server before the response completed"
    assert dropped.content == [TextContent(text="")]
    assert (wrong.stop_reason, wrong.error_message) == ("error", "Received thinking_delta for non-thinking content")


async def test_abort_interrupts_a_pending_read() -> None:
    controller = AbortController()
    async with proxy_server(hold(Reply(chunks=[sse({"type": "start"}, {"type": "text_start", "contentIndex": 0},
                                                   {"type": "text_delta", "contentIndex": 0, "delta": "so far"})]))
                            ) as server:
        stream = stream_proxy(MODEL, CONTEXT, SimpleStreamOptions(signal=controller.signal),
                              proxy_url=server.url, auth_token="x")
        seen = []
        async for event in stream:
            seen.append(event.type)
            if event.type == "text_delta":
                controller.abort()
        final = await stream.result()
    assert seen[-1] == "error"
    assert (final.stop_reason, final.error_message) == ("aborted", "Request aborted by user")
    assert final.content == [TextContent(text="so far")]


async def test_an_agent_runs_through_the_proxy() -> None:
    answer = [sse({"type": "start"}, {"type": "text_start", "contentIndex": 0},
                  {"type": "text_delta", "contentIndex": 0, "delta": "Hi there"},
                  {"type": "text_end", "contentIndex": 0}, {"type": "done", "reason": "stop", "usage": USAGE})]
    async with proxy_server(Reply(chunks=answer)) as server:
        agent = Agent(model=MODEL, stream_fn=functools.partial(stream_proxy, proxy_url=server.url, auth_token="t"))
        await agent.prompt("hello")
    assert [m.role for m in agent.state.messages] == ["user", "assistant"]
    last = agent.state.messages[-1]
    assert isinstance(last, AssistantMessage) and last.content == [TextContent(text="Hi there")]
    assert server.requests[0].json()["context"]["messages"][0]["content"][0]["text"] == "hello"
