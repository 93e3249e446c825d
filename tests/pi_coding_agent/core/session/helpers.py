"""Messages and files shared by the session tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_ai import AssistantMessage, TextContent, ToolCall, ToolResultMessage, Usage, UserMessage


def user(text: str, timestamp: int = 1) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)], timestamp=timestamp)


def assistant(
    text: str, timestamp: int = 2, provider: str = "anthropic", model: str = "claude-sonnet-4-5"
) -> AssistantMessage:
    return AssistantMessage(
        content=[TextContent(text=text)],
        api="anthropic-messages",
        provider=provider,
        model=model,
        usage=Usage(input=10, output=2, total_tokens=12),
        stop_reason="stop",
        timestamp=timestamp,
    )


def tool_turn(call_id: str = "call_1") -> tuple[AssistantMessage, ToolResultMessage]:
    call = AssistantMessage(
        content=[ToolCall(id=call_id, name="ls", arguments={"path": "."})],
        api="anthropic-messages",
        provider="anthropic",
        model="claude-sonnet-4-5",
        stop_reason="toolUse",
        timestamp=3,
    )
    result = ToolResultMessage(
        tool_call_id=call_id,
        tool_name="ls",
        content=[TextContent(text="README.md")],
        is_error=False,
        timestamp=4,
    )
    return call, result


def lines(path: str | Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def write(path: Path, rows: list[dict[str, Any] | str]) -> Path:
    text = "".join(
        (row if isinstance(row, str) else json.dumps(row, separators=(",", ":"))) + "\n" for row in rows
    )
    path.write_text(text)
    return path


HEADER = {
    "type": "session",
    "version": 3,
    "id": "s-1",
    "timestamp": "2026-01-01T00:00:00.000Z",
    "cwd": "/home/dev/project",
}
