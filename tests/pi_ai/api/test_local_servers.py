"""Compat for OpenAI-compatible servers on local URLs: the request rewrites and tool calls in text."""

from __future__ import annotations

from typing import Any

import pytest

from pi_ai import (
    AssistantMessage,
    Context,
    Model,
    StreamOptions,
    TextContent,
    Tool,
    ToolCall,
    UserMessage,
    stream,
)
from pi_ai.api._local_servers import (
    adapt_local_request,
    extract_text_tool_calls,
    is_local_base_url,
    local_server_compat,
    with_pi_request_shape,
)
from tests.support.scripted_provider import ScriptedProvider


def _model(base_url: str, compat: dict[str, Any] | None = None) -> Model:
    return Model(
        id="qwen", name="qwen", api="openai-completions", provider="ollama", base_url=base_url, compat=compat,
        reasoning=True,
    )


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://127.0.0.1:8080/v1", True),
        ("http://localhost:11434/v1", True),
        ("http://[::1]:8000/v1", True),
        ("http://192.168.1.20:1234/v1", True),
        ("http://10.0.0.5/v1", True),
        ("http://gpu-box.local:8000/v1", True),
        ("https://api.openai.com/v1", False),
        ("https://8.8.8.8/v1", False),
        ("not a url", False),
    ],
)
def test_local_base_urls(url: str, local: bool) -> None:
    assert is_local_base_url(url) is local


def _body() -> dict[str, Any]:
    return {
        "messages": [
            {"role": "developer", "content": "be brief"},
            {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
            {"role": "user", "content": [{"type": "text", "text": "see"}, {"type": "image_url", "image_url": {"url": "x"}}]},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "1"}]},
        ],
        "max_completion_tokens": 100,
    }


def test_rewrites_for_a_local_server() -> None:
    body = adapt_local_request(_body(), local_server_compat(_model("http://127.0.0.1:8080/v1")))
    messages = body["messages"]
    assert messages[0]["role"] == "system"
    assert messages[1]["content"] == "ab"
    assert isinstance(messages[2]["content"], list)  # an image stays a part list
    assert messages[3]["content"] == ""
    assert body["max_tokens"] == 100 and "max_completion_tokens" not in body


def test_remote_servers_and_explicit_keys_are_left_alone() -> None:
    assert adapt_local_request(_body(), local_server_compat(_model("https://api.openai.com/v1"))) == _body()
    off = {"sendTextContentAsString": False, "nullContentAsEmpty": False, "maxTokensField": "max_completion_tokens",
           "supportsDeveloperRole": True}
    assert adapt_local_request(_body(), local_server_compat(_model("http://127.0.0.1:8080/v1", off))) == _body()
    forced = local_server_compat(_model("https://api.example.com/v1", {"sendTextContentAsString": True}))
    assert adapt_local_request(_body(), forced)["messages"][1]["content"] == "ab"
    # Pi's request shape, as the conformance runner compares it: nothing rewritten.
    pinned = with_pi_request_shape(_model("http://127.0.0.1:8080/v1"))
    assert adapt_local_request(_body(), local_server_compat(pinned)) == _body()


NAMES = {"read", "bash"}


@pytest.mark.parametrize(
    "text",
    [
        '<tool_call>\n{"name": "read", "arguments": {"path": "README.md"}}\n</tool_call>',
        '```json\n{\n  "name": "read",\n  "arguments": {\n    "path": "README.md"\n  }\n}\n```',
        '{"name": "read", "arguments": {"path": "README.md"}}',
        '<tools>\n{"name": "read", "parameters": {"path": "README.md"}}\n</tools>',
        '{"name": "read", "arguments": "{\\"path\\": \\"README.md\\"}"}',
    ],
)
def test_tool_calls_written_as_text(text: str) -> None:
    assert extract_text_tool_calls(text, NAMES) == ("", [("read", {"path": "README.md"})])


def test_text_around_calls_stays_and_foreign_json_is_not_a_call() -> None:
    text = 'I will look.\n```json\n{"name": "bash", "arguments": {"command": "ls"}}\n```\nDone.'
    assert extract_text_tool_calls(text, NAMES) == ("I will look.\n\nDone.", [("bash", {"command": "ls"})])
    for other in ('{"name": "delete_everything", "arguments": {}}', '```json\n{"a": 1}\n```', "plain words"):
        assert extract_text_tool_calls(other, NAMES) == (other, [])


TOOLS = [Tool(name="read", description="Read a file", parameters={"type": "object", "properties": {"path": {"type": "string"}}})]


async def _ask(model: Model) -> tuple[AssistantMessage, list[str]]:
    context = Context(messages=[UserMessage(content=[TextContent(text="read it")], timestamp=0)], tools=TOOLS)
    events = stream(model, context, StreamOptions(api_key="none"))
    kinds = [event.type async for event in events]
    return await events.result(), kinds


async def test_a_local_server_reply_with_a_fenced_call_becomes_a_tool_call() -> None:
    reply = 'Sure.\n```json\n{"name": "read", "arguments": {"path": "README.md"}}\n```'
    with ScriptedProvider([{"text": reply}]) as server:
        model = Model(id="m", name="m", api="openai-completions", provider="p", base_url=f"{server.base_url}/v1")
        message, kinds = await _ask(model)
        request = server.requests[0]["body"]
    assert message.stop_reason == "toolUse", message.error_message
    assert [type(block) for block in message.content] == [TextContent, ToolCall]
    assert message.content[0] == TextContent(text="Sure.")
    call = message.content[1]
    assert isinstance(call, ToolCall) and (call.name, call.arguments) == ("read", {"path": "README.md"})
    assert kinds.count("toolcall_start") == kinds.count("toolcall_end") == 1
    assert kinds.index("toolcall_start") < kinds.index("toolcall_end") < kinds.index("done")
    # And the request was the plain shape local servers accept.
    assert request["messages"][0]["content"] == "read it"
    assert "max_tokens" not in request or "max_completion_tokens" not in request


async def test_parsing_can_be_turned_off() -> None:
    reply = '{"name": "read", "arguments": {"path": "README.md"}}'
    with ScriptedProvider([{"text": reply}]) as server:
        model = Model(
            id="m", name="m", api="openai-completions", provider="p", base_url=f"{server.base_url}/v1",
            compat={"parseToolCallsFromText": False},
        )
        message, _ = await _ask(model)
    assert message.stop_reason == "stop" and message.content == [TextContent(text=reply)]
