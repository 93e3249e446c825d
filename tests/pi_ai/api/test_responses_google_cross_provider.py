"""One conversation that hops Anthropic -> OpenAI Responses -> Google -> Anthropic, each turn
streamed by the real adapter from a server on 127.0.0.1. Every request must be valid for its
API, and provider-private data (signatures, reasoning items, item ids) must survive exactly
when the turn goes back to the model that produced it."""

from __future__ import annotations

import json
from typing import Any

from msgspec.structs import replace

from pi_ai import Context, Model, StreamOptions
from pi_ai._messages import (
    AssistantMessage,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi_ai.api import anthropic_messages, google_generative_ai, openai_responses
from tests.support.loopback import LoopbackServer, Reply, split

CLAUDE = Model(
    id="claude-sonnet-4-5",
    name="c",
    api="anthropic-messages",
    provider="anthropic",
    base_url="http://unused",
    reasoning=True,
)
GPT = Model(
    id="gpt-5-mini",
    name="g",
    api="openai-responses",
    provider="openai",
    base_url="http://unused/v1",
    reasoning=True,
)
GEMINI = Model(
    id="gemini-3-flash-preview",
    name="m",
    api="google-generative-ai",
    provider="google",
    base_url="http://unused/v1beta",
    reasoning=True,
)
ANTHROPIC_SIGNATURE = "EqQBCkYIBxgCKkDclaudeSignature=="


def anthropic_sse() -> bytes:
    events = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_a",
                    "model": "claude-sonnet-4-5",
                    "usage": {"input_tokens": 10, "output_tokens": 1},
                },
            },
        ),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "thinking", "thinking": ""},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "thinking_delta", "thinking": "Ich prüfe 🙂"},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "signature_delta", "signature": ANTHROPIC_SIGNATURE},
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 1,
                "content_block": {"type": "tool_use", "id": "toolu_01A", "name": "bash", "input": {}},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": '{"command":"ls"}'},
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 1}),
        (
            "message_delta",
            {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 20}},
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


REASONING = {
    "id": "rs_9",
    "type": "reasoning",
    "summary": [{"type": "summary_text", "text": "Plan"}],
    "encrypted_content": "enc==",
}


def responses_sse() -> bytes:
    call = {
        "id": "fc_9",
        "type": "function_call",
        "call_id": "call_9",
        "name": "bash",
        "arguments": '{"command":"pwd"}',
    }
    events = [
        {"type": "response.created", "response": {"id": "resp_9"}},
        {"type": "response.output_item.added", "output_index": 0, "item": {**REASONING, "summary": []}},
        {"type": "response.output_item.done", "output_index": 0, "item": REASONING},
        {"type": "response.output_item.added", "output_index": 1, "item": {**call, "arguments": ""}},
        {"type": "response.function_call_arguments.delta", "output_index": 1, "delta": '{"command":"pwd"}'},
        {"type": "response.output_item.done", "output_index": 1, "item": call},
        {
            "type": "response.completed",
            "response": {
                "id": "resp_9",
                "status": "completed",
                "usage": {"input_tokens": 5, "output_tokens": 5, "total_tokens": 10},
            },
        },
    ]
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


def gemini_sse() -> bytes:
    chunks = [
        {
            "candidates": [
                {
                    "content": {
                        "parts": [{"text": "Gedanke", "thought": True, "thoughtSignature": "dGhvdWdodA=="}],
                        "role": "model",
                    }
                }
            ]
        },
        {
            "candidates": [
                {
                    "content": {
                        "parts": [
                            {
                                "functionCall": {"name": "bash", "args": {"command": "id"}},
                                "thoughtSignature": "Y2FsbA==",
                            }
                        ],
                        "role": "model",
                    },
                    "finishReason": "STOP",
                }
            ],
            "usageMetadata": {"promptTokenCount": 3, "totalTokenCount": 4},
        },
    ]
    return "".join(f"data: {json.dumps(c)}\r\n\r\n" for c in chunks).encode()


async def turn(
    module: Any, model: Model, messages: list[Message], body: bytes, options: StreamOptions
) -> tuple[AssistantMessage, Any]:
    async with LoopbackServer([Reply(chunks=split(body, 9))]) as server:
        served = replace(model, base_url=server.url + model.base_url.removeprefix("http://unused"))
        handle = module.stream(served, Context(system_prompt="sys", messages=list(messages)), options)
        async for _ in handle:
            pass
        final = await handle.result()
        request = server.requests[0].json()
    assert final.stop_reason == "toolUse", final.error_message
    return final, request


def answer(messages: list[Message], final: AssistantMessage, output: str) -> None:
    messages.append(final)
    for block in final.content:
        if isinstance(block, ToolCall):
            messages.append(
                ToolResultMessage(
                    tool_call_id=block.id,
                    tool_name=block.name,
                    content=[TextContent(text=output)],
                    is_error=False,
                    timestamp=0,
                )
            )


async def test_provider_hops_keep_payloads_valid_and_signatures_for_their_owner() -> None:
    messages: list[Message] = [UserMessage(content="Wo bin ich?", timestamp=0)]

    first, _ = await turn(
        anthropic_messages, CLAUDE, messages, anthropic_sse(), anthropic_messages.OPTIONS(api_key="k")
    )
    assert (
        isinstance(first.content[0], ThinkingContent)
        and first.content[0].thinking_signature == ANTHROPIC_SIGNATURE
    )
    answer(messages, first, "a.txt")

    second, gpt_request = await turn(
        openai_responses, GPT, messages, responses_sse(), openai_responses.OPTIONS(api_key="k")
    )
    items = gpt_request["input"]
    # Claude's thinking is plain text for GPT, its tool call keeps a sanitized id and the result follows it.
    assert {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Ich prüfe 🙂", "annotations": []}],
        "status": "completed",
        "id": "msg_pi_1",
    } in items
    calls = [item for item in items if item.get("type") == "function_call"]
    outputs = [item for item in items if item.get("type") == "function_call_output"]
    assert [c["call_id"] for c in calls] == ["toolu_01A"] and "id" not in calls[0]
    assert [o["call_id"] for o in outputs] == ["toolu_01A"] and items.index(outputs[0]) > items.index(
        calls[0]
    )
    answer(messages, second, "/home")

    third, gemini_request = await turn(
        google_generative_ai, GEMINI, messages, gemini_sse(), google_generative_ai.OPTIONS(api_key="k")
    )
    contents = gemini_request["contents"]
    model_turns = [c for c in contents if c["role"] == "model"]
    # Gemini 3 needs ids: the Responses id "call_9|fc_9" is sanitized; no foreign signature leaks.
    ids = [p["functionCall"]["id"] for c in model_turns for p in c["parts"] if "functionCall" in p]
    assert ids == ["toolu_01A", "call_9_fc_9"]
    responses = [
        p["functionResponse"]["id"]
        for c in contents
        if c["role"] == "user"
        for p in c["parts"]
        if "functionResponse" in p
    ]
    assert responses == ids
    assert all("thoughtSignature" not in p for c in model_turns for p in c["parts"])
    assert {"text": "Plan"} in model_turns[1]["parts"]  # GPT's reasoning summary became text
    answer(messages, third, "uid=0")

    _, claude_request = await turn(
        anthropic_messages, CLAUDE, messages, anthropic_sse(), anthropic_messages.OPTIONS(api_key="k")
    )
    blocks = [
        block
        for message in claude_request["messages"]
        if message["role"] == "assistant"
        for block in message["content"]
    ]
    # Back at Claude: its own thinking and signature are replayed untouched, foreign ids are sanitized.
    assert blocks[0] == {"type": "thinking", "thinking": "Ich prüfe 🙂", "signature": ANTHROPIC_SIGNATURE}
    tool_ids = [block["id"] for block in blocks if block["type"] == "tool_use"]
    assert tool_ids[0] == "toolu_01A" and all(id_ == id_.replace("|", "_") for id_ in tool_ids)
    assert len(tool_ids) == 3
    results = [
        block["tool_use_id"]
        for message in claude_request["messages"]
        if message["role"] == "user" and isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    assert results == tool_ids

    # Going back to GPT, its own reasoning item and fc_ item id are replayed verbatim.
    fourth_messages = [*messages]
    _, gpt_again = await turn(
        openai_responses, GPT, fourth_messages, responses_sse(), openai_responses.OPTIONS(api_key="k")
    )
    assert REASONING in gpt_again["input"]
    assert {
        "type": "function_call",
        "id": "fc_9",
        "call_id": "call_9",
        "name": "bash",
        "arguments": '{"command":"pwd"}',
    } in gpt_again["input"]
