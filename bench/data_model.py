"""Which data-model library for the message model: msgspec Structs or pydantic v2?

Decodes and encodes the same realistic transcript (user prompts, assistant turns with thinking,
text and tool calls, tool results) with our msgspec structs and with equivalent pydantic v2
models (discriminated unions, camelCase aliases, unknown keys allowed), and reports time and
memory per message. Run: ``.venv/bin/python bench/data_model.py [N]``.
"""

from __future__ import annotations

import gc
import json
import sys
import time
import tracemalloc
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from pydantic.alias_generators import to_camel

from pi_ai import Message, decode, encode


def transcript(turns: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for turn in range(turns):
        ts = 1_760_000_000_000 + turn * 10
        messages.append(
            {
                "role": "user",
                "content": [{"type": "text", "text": f"Please fix bug #{turn} in src/app.py " * 4}],
                "timestamp": ts,
            }
        )
        messages.append(
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "thinking",
                        "thinking": "Let me look at the file first. " * 8,
                        "thinkingSignature": "EqQBCkgIARABGAIiQL" * 10,
                    },
                    {"type": "text", "text": "I'll read the file and then edit it."},
                    {
                        "type": "toolCall",
                        "id": f"toolu_{turn:06d}",
                        "name": "read",
                        "arguments": {"path": "src/app.py", "offset": 1, "limit": 200},
                    },
                ],
                "api": "anthropic-messages",
                "provider": "anthropic",
                "model": "claude-sonnet-4-5",
                "usage": {
                    "input": 1200,
                    "output": 300,
                    "cacheRead": 5000,
                    "cacheWrite": 0,
                    "totalTokens": 6500,
                    "cost": {
                        "input": 0.0036,
                        "output": 0.0045,
                        "cacheRead": 0.0015,
                        "cacheWrite": 0,
                        "total": 0.0096,
                    },
                },
                "stopReason": "toolUse",
                "timestamp": ts + 1,
                "responseId": f"msg_{turn:08d}",
            }
        )
        messages.append(
            {
                "role": "toolResult",
                "toolCallId": f"toolu_{turn:06d}",
                "toolName": "read",
                "content": [{"type": "text", "text": "def main():\n    return 1\n" * 40}],
                "details": {"truncation": None},
                "isError": False,
                "timestamp": ts + 2,
            }
        )
    return messages


# ----------------------------------------------------------------------------- pydantic twin


class _P(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")


class PText(_P):
    type: Literal["text"]
    text: str
    text_signature: str | None = None


class PThinking(_P):
    type: Literal["thinking"]
    thinking: str
    thinking_signature: str | None = None
    redacted: bool | None = None


class PImage(_P):
    type: Literal["image"]
    data: str
    mime_type: str


class PToolCall(_P):
    type: Literal["toolCall"]
    id: str
    name: str
    arguments: dict[str, Any]


class PCost(_P):
    input: float
    output: float
    cache_read: float
    cache_write: float
    total: float


class PUsage(_P):
    input: int
    output: int
    cache_read: int
    cache_write: int
    total_tokens: int
    cost: PCost


class PUser(_P):
    role: Literal["user"]
    content: str | list[Annotated[PText | PImage, Field(discriminator="type")]]
    timestamp: int


class PAssistant(_P):
    role: Literal["assistant"]
    content: list[Annotated[PText | PThinking | PToolCall, Field(discriminator="type")]]
    api: str
    provider: str
    model: str
    usage: PUsage
    stop_reason: str
    timestamp: int
    response_id: str | None = None
    error_message: str | None = None


class PToolResult(_P):
    role: Literal["toolResult"]
    tool_call_id: str
    tool_name: str
    content: list[Annotated[PText | PImage, Field(discriminator="type")]]
    details: Any = None
    is_error: bool
    timestamp: int


PMessage = TypeAdapter(list[Annotated[PUser | PAssistant | PToolResult, Field(discriminator="role")]])


def _best(fn: Any, repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def _retained(fn: Any) -> int:
    gc.collect()
    tracemalloc.start()
    kept = fn()
    size, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del kept
    return size


def main() -> None:
    turns = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    data = transcript(turns)
    blob = json.dumps(data, separators=(",", ":")).encode()
    count = len(data)
    ours = decode(blob, list[Message])
    theirs = PMessage.validate_json(blob)
    assert json.loads(encode(ours)) == data
    assert json.loads(PMessage.dump_json(theirs, by_alias=True, exclude_none=True)) == data

    rows = [
        (
            "decode JSON -> typed",
            _best(lambda: decode(blob, list[Message])),
            _best(lambda: PMessage.validate_json(blob)),
        ),
        (
            "encode typed -> JSON",
            _best(lambda: encode(ours)),
            _best(lambda: PMessage.dump_json(theirs, by_alias=True, exclude_none=True)),
        ),
    ]
    mem = (_retained(lambda: decode(blob, list[Message])), _retained(lambda: PMessage.validate_json(blob)))
    print(f"{count} messages, {len(blob) / 1e6:.1f} MB of JSON")
    print(f"{'operation':24} {'msgspec':>12} {'pydantic v2':>12} {'ratio':>7}")
    for name, a, b in rows:
        print(f"{name:24} {a / count * 1e6:9.2f} us {b / count * 1e6:9.2f} us {b / a:6.1f}x")
    print(
        f"{'memory per message':24} {mem[0] / count:9.0f} B  {mem[1] / count:9.0f} B  {mem[1] / mem[0]:6.1f}x"
    )


if __name__ == "__main__":
    main()
