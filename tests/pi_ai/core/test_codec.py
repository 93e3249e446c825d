"""Decoding and re-encoding pi-ai messages: round trips, unknown keys, validation errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest

from pi_ai import (
    AssistantMessage,
    DecodeError,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    decode_message,
    encode,
    message_from_dict,
    to_builtins,
)
from pi_ai._codec import absent_keys, extra_keys
from tests.support.oracle import require_oracle_cases

PI_ROLES = {"user", "assistant", "toolResult"}
PROVIDER_WIRE_KEYS = {"payload", "request"}  # provider-format JSON, not Pi messages


def _messages_in(value: Any, *, inside_wire: bool = False) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        if not inside_wire and value.get("role") in PI_ROLES and "timestamp" in value:
            yield value
        for key, item in value.items():
            if key == "jsonl" and isinstance(item, str):
                for line in item.splitlines():
                    try:
                        entry = json.loads(line)
                    except json.JSONDecodeError:
                        continue
                    yield from _messages_in(entry)
            else:
                yield from _messages_in(item, inside_wire=inside_wire or key in PROVIDER_WIRE_KEYS)
    elif isinstance(value, list):
        for item in value:
            yield from _messages_in(item, inside_wire=inside_wire)


def _oracle_messages() -> list[tuple[str, dict[str, Any]]]:
    cases = require_oracle_cases()
    found = []
    for path in sorted(cases.rglob("*.json")):
        for index, message in enumerate(_messages_in(json.loads(path.read_text()))):
            found.append((f"{path.relative_to(cases)}#{index}", message))
    return found


def test_every_oracle_message_round_trips() -> None:
    messages = _oracle_messages()
    assert len(messages) > 200, "expected the oracle cases to contain hundreds of messages"
    roles = set()
    for where, message in messages:
        decoded = message_from_dict(message)
        roles.add(decoded.role)
        assert json.loads(encode(decoded)) == message, where
        assert decode_message(json.dumps(message)) == decoded, where
    assert roles == PI_ROLES


def test_unknown_keys_are_kept_at_every_level() -> None:
    raw = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "hi", "citations": [1, 2]},
            {"type": "toolCall", "id": "c1", "name": "ls", "arguments": {"path": "."}, "future": True},
        ],
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": "m",
        "usage": {
            "input": 1,
            "output": 2,
            "cacheRead": 0,
            "cacheWrite": 0,
            "totalTokens": 3,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0, "currency": "USD"},
            "serviceTier": "flex",
        },
        "stopReason": "stop",
        "timestamp": 5,
        "newTopLevel": {"nested": ["x"]},
    }
    decoded = message_from_dict(raw)
    assert isinstance(decoded, AssistantMessage)
    assert extra_keys(decoded) == {"newTopLevel": {"nested": ["x"]}}
    assert extra_keys(decoded.content[0]) == {"citations": [1, 2]}
    assert extra_keys(decoded.usage.cost) == {"currency": "USD"}
    assert json.loads(encode(decoded)) == raw
    assert to_builtins(decoded) == raw
    # Inside a list (a transcript) the keys survive too.
    assert json.loads(encode([decoded, decoded])) == [raw, raw]


def test_fast_path_has_no_extras() -> None:
    decoded = decode_message(b'{"role":"user","content":"hi","timestamp":1}')
    assert extra_keys(decoded) == {}
    assert encode(decoded) == b'{"role":"user","content":"hi","timestamp":1}'


@pytest.mark.parametrize(
    ("document", "reason", "path"),
    [
        ({"role": "robot", "content": "x", "timestamp": 1}, "Invalid value 'robot'", "$.role"),
        ({"role": "user", "content": 5, "timestamp": 1}, "Expected `str | array`, got `int`", "$.content"),
        (
            {"role": "user", "content": [{"type": "text", "text": 7}], "timestamp": 1},
            "Expected `str`, got `int`",
            "$.content[0].text",
        ),
        (
            {"role": "user", "content": [{"type": "video", "url": "x"}], "timestamp": 1},
            "Invalid value 'video'",
            "$.content[0].type",
        ),
        (
            {
                "role": "assistant",
                "content": [{"type": "toolCall", "id": "1", "name": "x", "arguments": []}],
                "api": "a",
                "provider": "p",
                "model": "m",
                "stopReason": "stop",
                "timestamp": 1,
            },
            "Expected `object`, got `array`",
            "$.content[0].arguments",
        ),
    ],
)
def test_malformed_messages_name_the_field(document: dict[str, Any], reason: str, path: str) -> None:
    for attempt in (lambda: message_from_dict(document), lambda: decode_message(json.dumps(document))):
        with pytest.raises(DecodeError) as caught:
            attempt()
        assert caught.value.path == path
        assert caught.value.reason.startswith(reason), caught.value.reason
        assert path in str(caught.value)


@pytest.mark.parametrize(
    ("document", "attribute", "stand_in"),
    [
        ({"role": "user", "content": "x"}, "timestamp", 0),
        (
            {"role": "toolResult", "toolCallId": "a", "toolName": "b", "content": [], "timestamp": 1},
            "is_error",
            False,
        ),
        (
            {
                "role": "assistant",
                "content": [],
                "provider": "p",
                "model": "m",
                "stopReason": "stop",
                "timestamp": 1,
            },
            "api",
            "",
        ),
    ],
)
def test_messages_lacking_fields_pi_does_not_require_are_read_as_pi_reads_them(
    document: dict[str, Any], attribute: str, stand_in: Any
) -> None:
    for decoded in (message_from_dict(document), decode_message(json.dumps(document))):
        assert getattr(decoded, attribute) == stand_in
        key = {"timestamp": "timestamp", "is_error": "isError", "api": "api"}[attribute]
        assert key in absent_keys(decoded)
        # Written back as it was read: the stand-in is not invented into the document.
        assert to_builtins(decoded) == document
        assert json.loads(encode(decoded)) == document


def _assistant_document(**fields: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": [], "api": "a", "provider": "p", "model": "m", **fields}


def test_unknown_stop_reason_and_null_flags_are_kept_as_pi_sees_them() -> None:
    document = _assistant_document(stopReason="injected", timestamp=1)
    decoded = message_from_dict(document)
    assert isinstance(decoded, AssistantMessage) and decoded.stop_reason == "injected"
    assert to_builtins(decoded) == document
    nulls = {
        "role": "toolResult",
        "toolCallId": "a",
        "toolName": "b",
        "content": [],
        "isError": None,
        "timestamp": 1,
    }
    result = message_from_dict(nulls)
    assert isinstance(result, ToolResultMessage) and result.is_error is False
    assert to_builtins(result) == nulls


def test_usage_counts_an_old_file_lacks_are_not_invented() -> None:
    document = _assistant_document(
        usage={"input": 5, "output": 1, "cacheRead": 0, "cacheWrite": 0}, stopReason="stop", timestamp=1
    )
    for decoded in (message_from_dict(document), decode_message(json.dumps(document))):
        assert isinstance(decoded, AssistantMessage)
        assert decoded.usage.total_tokens == 0 and decoded.usage.cost.total == 0  # zero to compute with
        assert to_builtins(decoded) == document
        assert json.loads(encode(decoded)) == document
    partial_cost = {**document, "usage": {**document["usage"], "cost": {"input": 0.5}}}
    assert to_builtins(message_from_dict(partial_cost)) == partial_cost
    # A usage built here writes every count, as Pi does.
    assert to_builtins(Usage(input=3)) == {
        "input": 3,
        "output": 0,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": 0,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }


def test_malformed_message_with_unknown_keys_still_reports_the_field() -> None:
    document = {"role": "user", "content": [{"type": "text", "text": 1, "x": 2}], "timestamp": 1, "y": 3}
    with pytest.raises(DecodeError) as caught:
        message_from_dict(document)
    assert caught.value.path == "$.content[0].text"


def test_invalid_json_is_a_decode_error() -> None:
    with pytest.raises(DecodeError, match="Invalid JSON"):
        decode_message(b'{"role": "user", ')


def test_encoding_follows_pi_key_order_and_omits_absent_fields() -> None:
    message = AssistantMessage(
        content=[TextContent(text="ok"), ToolCall(id="c", name="ls", arguments={"b": 1, "a": 2})],
        api="anthropic-messages",
        provider="anthropic",
        model="claude",
        usage=Usage(input=1, output=2, total_tokens=3),
        stop_reason="toolUse",
        timestamp=10,
        response_id="msg_1",
    )
    assert encode(message) == (
        b'{"role":"assistant","content":[{"type":"text","text":"ok"},'
        b'{"type":"toolCall","id":"c","name":"ls","arguments":{"b":1,"a":2}}],'
        b'"api":"anthropic-messages","provider":"anthropic","model":"claude",'
        b'"usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,'
        b'"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},'
        b'"stopReason":"toolUse","timestamp":10,"responseId":"msg_1"}'
    )
    result = ToolResultMessage(tool_call_id="c", tool_name="ls", content=[], is_error=False, timestamp=1)
    assert b"details" not in encode(result)
    with_null = ToolResultMessage(
        tool_call_id="c", tool_name="ls", content=[], details=None, is_error=False, timestamp=1
    )
    assert b'"details":null' in encode(with_null)
    assert UserMessage(content="é ✓", timestamp=1).role == "user"
    assert (
        encode(UserMessage(content="é ✓", timestamp=1))
        == '{"role":"user","content":"é ✓","timestamp":1}'.encode()
    )


def test_usage_optional_counts_are_omitted_until_set() -> None:
    usage = Usage(input=1)
    assert "reasoning" not in json.loads(encode(usage))
    usage.reasoning = 0
    usage.cache_write_1h = 4
    assert json.loads(encode(usage))["reasoning"] == 0
    assert json.loads(encode(usage))["cacheWrite1h"] == 4
    assert usage.reasoning is not msgspec.UNSET
