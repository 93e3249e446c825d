"""One conversation that hops Anthropic -> OpenAI Responses -> Google -> Anthropic -> OpenAI
Responses, every turn through the real adapters and a real server on 127.0.0.1. Each request
must be a valid payload for its API, and provider-private data (signatures, reasoning items,
item ids) must survive exactly when the turn goes back to the model that produced it: the
Anthropic turn's signed thinking comes back intact in its original block order, the Responses
turn's reasoning item and ``fc_`` item id come back verbatim."""

from __future__ import annotations

import importlib.util
import json
import re
from typing import Any

import msgspec
import pytest

from pi_ai import (
    AssistantMessage,
    Context,
    Message,
    Model,
    SimpleStreamOptions,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    stream_simple,
)
from pi_ai.api._http import close_clients
from tests.support.loopback import LoopbackServer, Reply, split

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("pi_ai.api.openai_responses") is None
    or importlib.util.find_spec("pi_ai.api.google_generative_ai") is None,
    reason="needs the openai-responses and google-generative-ai adapters",
)

TOOLS = [
    Tool(
        name="bash",
        description="Run a command",
        parameters={"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
    )
]
SIGNATURE = "EqQBCgIYAhIMAnthropicSignature=="


def _events(*items: tuple[str | None, Any]) -> str:
    return "".join(
        (f"event: {name}\n" if name else "") + f"data: {json.dumps(data, separators=(',', ':'))}\n\n"
        for name, data in items
    )


ANTHROPIC_TURN = _events(
    (
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": "msg_a1",
                "model": "claude-sonnet-4-5",
                "usage": {"input_tokens": 50, "output_tokens": 1},
            },
        },
    ),
    (
        "content_block_start",
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "thinking", "thinking": "", "signature": ""},
        },
    ),
    (
        "content_block_delta",
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "List first 🙂"},
        },
    ),
    (
        "content_block_delta",
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "signature_delta", "signature": SIGNATURE},
        },
    ),
    ("content_block_stop", {"type": "content_block_stop", "index": 0}),
    (
        "content_block_start",
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
    ),
    (
        "content_block_delta",
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Listing."}},
    ),
    ("content_block_stop", {"type": "content_block_stop", "index": 1}),
    (
        "content_block_start",
        {
            "type": "content_block_start",
            "index": 2,
            "content_block": {"type": "tool_use", "id": "toolu_01X", "name": "bash", "input": {}},
        },
    ),
    (
        "content_block_delta",
        {
            "type": "content_block_delta",
            "index": 2,
            "delta": {"type": "input_json_delta", "partial_json": '{"command": "ls"}'},
        },
    ),
    ("content_block_stop", {"type": "content_block_stop", "index": 2}),
    (
        "message_delta",
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 20}},
    ),
    ("message_stop", {"type": "message_stop"}),
)

REASONING_ITEM = {
    "id": "rs_abc",
    "type": "reasoning",
    "encrypted_content": "gAAAA==",
    "summary": [{"type": "summary_text", "text": "Count them."}],
}
CALL_ITEM = {
    "id": "fc_abc123",
    "type": "function_call",
    "status": "completed",
    "arguments": '{"command":"wc -l *"}',
    "call_id": "call_R1+/=",
    "name": "bash",
}
RESPONSES_TURN = _events(
    (
        "response.created",
        {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress", "output": []}},
    ),
    (
        "response.output_item.added",
        {"type": "response.output_item.added", "output_index": 0, "item": {**REASONING_ITEM, "summary": []}},
    ),
    (
        "response.reasoning_summary_text.delta",
        {
            "type": "response.reasoning_summary_text.delta",
            "output_index": 0,
            "summary_index": 0,
            "delta": "Count them.",
        },
    ),
    (
        "response.output_item.done",
        {"type": "response.output_item.done", "output_index": 0, "item": REASONING_ITEM},
    ),
    (
        "response.output_item.added",
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": {**CALL_ITEM, "arguments": "", "status": "in_progress"},
        },
    ),
    (
        "response.function_call_arguments.delta",
        {
            "type": "response.function_call_arguments.delta",
            "output_index": 1,
            "delta": '{"command":"wc -l *"}',
        },
    ),
    (
        "response.output_item.done",
        {"type": "response.output_item.done", "output_index": 1, "item": CALL_ITEM},
    ),
    (
        "response.completed",
        {
            "type": "response.completed",
            "response": {
                "id": "resp_1",
                "status": "completed",
                "output": [REASONING_ITEM, CALL_ITEM],
                "usage": {"input_tokens": 80, "output_tokens": 30, "total_tokens": 110},
            },
        },
    ),
)

GOOGLE_TURN = _events(
    (
        None,
        {
            "candidates": [
                {
                    "content": {
                        "parts": [{"text": "Checking", "thought": True, "thoughtSignature": "R29vZ2xlU2ln"}],
                        "role": "model",
                    },
                    "index": 0,
                }
            ],
            "responseId": "g1",
        },
    ),
    (
        None,
        {
            "candidates": [
                {
                    "content": {
                        "parts": [
                            {
                                "functionCall": {"name": "bash", "args": {"command": "du -sh"}},
                                "thoughtSignature": "VG9vbFNpZw==",
                            }
                        ],
                        "role": "model",
                    },
                    "finishReason": "STOP",
                    "index": 0,
                }
            ],
            "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110},
            "responseId": "g1",
        },
    ),
)

MODELS = {
    "anthropic": Model(
        id="claude-sonnet-4-5",
        name="s",
        api="anthropic-messages",
        provider="anthropic",
        base_url="",
        reasoning=True,
        max_tokens=8000,
    ),
    "openai": Model(
        id="gpt-5-mini",
        name="g",
        api="openai-responses",
        provider="openai",
        base_url="",
        reasoning=True,
        compat={"supportsStrictMode": True},
    ),
    "google": Model(
        id="gemini-3-pro-preview",
        name="gem",
        api="google-generative-ai",
        provider="google",
        base_url="",
        reasoning=True,
    ),
}
PATHS = {"anthropic": "", "openai": "/v1", "google": "/v1beta"}


async def _turn(history: list[Message], provider: str, body: str) -> tuple[dict[str, Any], AssistantMessage]:
    async with LoopbackServer([Reply(chunks=split(body, 9))]) as server:
        model = msgspec.structs.replace(MODELS[provider], base_url=server.url + PATHS[provider])
        stream = stream_simple(
            model,
            Context(system_prompt="sys", messages=list(history), tools=TOOLS),
            SimpleStreamOptions(api_key="k", reasoning="medium"),
        )
        final = await stream.result()
        await close_clients()
    assert final.stop_reason == "toolUse", final.error_message
    return server.requests[0].json(), final


def _answer(history: list[Message], message: AssistantMessage, output: str) -> None:
    history.append(message)
    for block in message.content:
        if isinstance(block, ToolCall):
            history.append(
                ToolResultMessage(
                    tool_call_id=block.id,
                    tool_name=block.name,
                    content=[TextContent(text=output)],
                    is_error=False,
                    timestamp=0,
                )
            )


async def test_anthropic_responses_google_anthropic_responses() -> None:
    history: list[Message] = [UserMessage(content="How big is this repo?", timestamp=0)]

    payload, first = await _turn(history, "anthropic", ANTHROPIC_TURN)
    assert [block.type for block in first.content] == ["thinking", "text", "toolCall"]
    assert isinstance(first.content[0], ThinkingContent) and first.content[0].thinking_signature == SIGNATURE
    _answer(history, first, "a.py b.py")

    payload, second = await _turn(history, "openai", RESPONSES_TURN)
    items = payload["input"]
    outputs = [item for item in items if item.get("type") == "function_call_output"]
    calls = [item for item in items if item.get("type") == "function_call"]
    assert [item["call_id"] for item in calls] == [item["call_id"] for item in outputs] == ["toolu_01X"]
    assert "id" not in calls[0]  # no item id for a foreign call
    assert items.index(calls[0]) < items.index(outputs[0])
    assert not any(item.get("type") == "reasoning" for item in items)
    assert "List first 🙂" not in json.dumps(items, ensure_ascii=False)  # foreign thinking dropped (Pi 1.6)
    assert (
        isinstance(second.content[0], ThinkingContent)
        and json.loads(second.content[0].thinking_signature or "")["id"] == "rs_abc"
    )
    _answer(history, second, "10 lines")

    payload, third = await _turn(history, "google", GOOGLE_TURN)
    contents = payload["contents"]
    for index, content in enumerate(contents):
        responses = [part["functionResponse"] for part in content["parts"] if "functionResponse" in part]
        if responses:
            called = {
                part["functionCall"].get("id")
                for part in contents[index - 1]["parts"]
                if "functionCall" in part
            }
            assert {response.get("id") for response in responses} <= called
        for part in content["parts"]:
            if "functionCall" in part:
                assert re.match(r"^[a-zA-Z0-9_-]{1,64}$", part["functionCall"]["id"])
                assert "thoughtSignature" not in part  # signatures of other models are dropped
    model_turns = [content for content in contents if content["role"] == "model"]
    # Gemini 3 needs ids: the Responses id "call_R1+/=|fc_abc123" is sanitized.
    ids = [part["functionCall"]["id"] for turn in model_turns for part in turn["parts"] if "functionCall" in part]
    assert ids == ["toolu_01X", "call_R1____fc_abc123"]
    answered_ids = [
        part["functionResponse"]["id"]
        for content in contents
        if content["role"] == "user"
        for part in content["parts"]
        if "functionResponse" in part
    ]
    assert answered_ids == ids
    assert "Count them." not in json.dumps(contents)  # GPT's reasoning summary dropped (Pi 1.6)
    _answer(history, third, "12K")

    payload, fourth = await _turn(history, "anthropic", ANTHROPIC_TURN)
    messages = payload["messages"]
    first_reply = messages[1]
    assert first_reply["role"] == "assistant"
    assert [block["type"] for block in first_reply["content"]] == ["thinking", "text", "tool_use"]
    assert first_reply["content"][0] == {
        "type": "thinking",
        "thinking": "List first 🙂",
        "signature": SIGNATURE,
    }
    for index, message in enumerate(messages):
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block["type"] == "tool_use":
                assert re.match(r"^[a-zA-Z0-9_-]{1,64}$", block["id"])
                answered = [
                    b["tool_use_id"] for b in messages[index + 1]["content"] if b["type"] == "tool_result"
                ]
                assert block["id"] in answered
            assert block["type"] != "redacted_thinking"
    foreign_thinking = [
        block
        for message in messages[2:]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block["type"] == "thinking"
    ]
    assert foreign_thinking == []  # only the same model's thinking is replayed as thinking
    tool_ids = [
        block["id"]
        for message in messages
        if message["role"] == "assistant"
        for block in message["content"]
        if block["type"] == "tool_use"
    ]
    assert len(tool_ids) == 3 and tool_ids[0] == "toolu_01X"
    results = [
        block["tool_use_id"]
        for message in messages
        if message["role"] == "user" and isinstance(message["content"], list)
        for block in message["content"]
        if block["type"] == "tool_result"
    ]
    assert results == tool_ids
    _answer(history, fourth, "done")

    # Back at GPT: its own reasoning item and fc_ item id are replayed verbatim.
    payload, _ = await _turn(history, "openai", RESPONSES_TURN)
    assert REASONING_ITEM in payload["input"]
    assert {
        "type": "function_call",
        "id": "fc_abc123",
        "call_id": "call_R1+/=",
        "name": "bash",
        "arguments": '{"command":"wc -l *"}',
    } in payload["input"]
