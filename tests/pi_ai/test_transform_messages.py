"""Cross-provider replay rules (transform_messages) and context-overflow detection."""

from __future__ import annotations

from typing import Any

import pytest

from pi_ai import (
    AssistantMessage,
    ImageContent,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    is_context_overflow,
    is_recoverable_length,
    transform_messages,
)

TARGET = Model(id="claude", name="c", api="anthropic-messages", provider="anthropic", base_url="https://x")


def _assistant(
    content: list[Any],
    *,
    model: str = "claude",
    api: str = "anthropic-messages",
    provider: str = "anthropic",
    stop: str = "stop",
) -> AssistantMessage:
    return AssistantMessage(
        content=content, api=api, provider=provider, model=model, stop_reason=stop, timestamp=1
    )  # type: ignore[arg-type]


def _rename(tool_call_id: str, model: Model, source: AssistantMessage) -> str:
    return tool_call_id.replace("|", "_")


def test_same_model_keeps_signatures_and_ids() -> None:
    message = _assistant(
        [
            ThinkingContent(thinking="", thinking_signature="sig"),
            ThinkingContent(thinking="r", thinking_signature="data", redacted=True),
            TextContent(text="t", text_signature="ts"),
            ToolCall(id="a|b", name="x", arguments={}, thought_signature="g"),
        ]
    )
    result = ToolResultMessage(tool_call_id="a|b", tool_name="x", content=[], is_error=False, timestamp=2)
    out = transform_messages([message, result], TARGET, _rename)
    assert out == [message, result]


def test_other_model_thinking_and_opaque_data_are_dropped() -> None:
    """Pi 1.6: another model's thinking is dropped, readable or not (0.85 replayed it as text)."""
    message = _assistant(
        [
            ThinkingContent(thinking="reason", thinking_signature="sig"),
            ThinkingContent(thinking="r", thinking_signature="data", redacted=True),
            ThinkingContent(thinking="  ", thinking_signature=""),
            TextContent(text="t", text_signature="ts"),
            ToolCall(id="a|b", name="x", arguments={"k": 1}, thought_signature="g"),
        ],
        model="gpt-5",
        api="openai-responses",
        provider="openai",
        stop="toolUse",
    )
    result = ToolResultMessage(
        tool_call_id="a|b", tool_name="x", content=[TextContent(text="ok")], is_error=False, timestamp=2
    )
    out = transform_messages([message, result], TARGET, _rename)
    assert isinstance(out[0], AssistantMessage)
    assert out[0].content == [
        TextContent(text="t"),
        ToolCall(id="a_b", name="x", arguments={"k": 1}),
    ]
    assert isinstance(out[1], ToolResultMessage) and out[1].tool_call_id == "a_b"
    assert message.content[4] == ToolCall(
        id="a|b", name="x", arguments={"k": 1}, thought_signature="g"
    )  # input untouched


def test_failed_turns_are_skipped_and_orphans_get_results() -> None:
    calls = [ToolCall(id="c1", name="bash", arguments={}), ToolCall(id="c2", name="read", arguments={})]
    messages = [
        UserMessage(content="go", timestamp=0),
        _assistant(calls, stop="toolUse"),
        ToolResultMessage(tool_call_id="c1", tool_name="bash", content=[], is_error=False, timestamp=2),
        _assistant([TextContent(text="half")], stop="aborted"),
        UserMessage(content="next", timestamp=3),
        _assistant([ToolCall(id="c3", name="bash", arguments={})], stop="toolUse"),
    ]
    out = transform_messages(messages, TARGET)
    roles = [(m.role, getattr(m, "tool_call_id", None)) for m in out]
    assert roles == [
        ("user", None),
        ("assistant", None),
        ("toolResult", "c1"),
        ("toolResult", "c2"),
        ("user", None),
        ("assistant", None),
        ("toolResult", "c3"),
    ]
    synthetic = out[3]
    assert isinstance(synthetic, ToolResultMessage)
    assert (
        synthetic.is_error
        and synthetic.content == [TextContent(text="No result provided")]
        and synthetic.tool_name == "read"
    )


def test_images_become_placeholders_for_text_only_models() -> None:
    text_only = Model(id="m", name="m", api="openai-completions", provider="p", base_url="x", input=["text"])
    image = ImageContent(data="AA==", mime_type="image/png")
    messages = [
        UserMessage(
            content=[TextContent(text="see"), image, image, TextContent(text="and"), image], timestamp=0
        ),
        ToolResultMessage(tool_call_id="c", tool_name="t", content=[image], is_error=False, timestamp=1),
    ]
    out = transform_messages(messages, text_only)
    placeholder = "(image omitted: model does not support images)"
    assert isinstance(out[0], UserMessage)
    assert out[0].content == [
        TextContent(text="see"),
        TextContent(text=placeholder),
        TextContent(text="and"),
        TextContent(text=placeholder),
    ]
    assert isinstance(out[1], ToolResultMessage)
    assert out[1].content == [TextContent(text="(tool image omitted: model does not support images)")]


def _message(stop: str, error: str | None = None, **usage: int) -> AssistantMessage:
    return AssistantMessage(
        content=[],
        api="a",
        provider="p",
        model="m",
        stop_reason=stop,
        timestamp=0,
        error_message=error,
        usage=Usage(**usage),  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    "text",
    [
        "prompt is too long: 213462 tokens > 200000 maximum",
        '400 {"type":"error","error":{"type":"invalid_request_error","message":"request_too_large"}}',
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens",
        '400: {"message":"Input tokens exceed the configured limit: exceeds the context window"}',
        "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
        "request (40000 tokens) exceeds the available context size (32768 tokens), try increasing it",
        "400 status code (no body)",
        "prompt too long; exceeded max context length by 100 tokens",
    ],
)
def test_overflow_messages(text: str) -> None:
    assert is_context_overflow(_message("error", text))


def test_not_overflow() -> None:
    assert not is_context_overflow(_message("error", "429 rate limit: too many tokens per minute"))
    assert not is_context_overflow(_message("error", "Overloaded"))
    assert not is_context_overflow(_message("stop", None, input=1000), 2000)


def test_silent_and_length_overflow() -> None:
    assert is_context_overflow(_message("stop", None, input=150000, cache_read=60000), 200000)
    assert not is_context_overflow(_message("stop", None, input=150000, cache_read=60000))
    assert is_context_overflow(_message("length", None, input=198500, output=0), 200000)
    assert not is_context_overflow(_message("length", None, input=198500, output=5), 200000)
    assert is_recoverable_length(_message("length", None, output=100), 4096)
    assert not is_recoverable_length(_message("stop", None, output=100), 4096)
