"""How many tokens a context takes, without a tokenizer (Pi's pi-ai ``utils/estimate``).

The newest usage a provider reported stands for the prompt up to that answer; what came after
is estimated at four characters a token (an image as 4,800 characters). Lengths are measured
as JavaScript measures them (UTF-16 code units), so the numbers that reach the wire
(``max_tokens``) and the compaction thresholds equal Pi's for the same conversation. The
coding agent's compaction estimate is built from these pieces (``pi_coding_agent.core.compaction``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pi_ai._codec import encode
from pi_ai._context import Context, Tool
from pi_ai._messages import (
    AssistantMessage,
    ContextMessage,
    ImageContent,
    SystemMessage,
    TextContent,
    ThinkingContent,
    ToolResultMessage,
    Usage,
)
from pi_ai._transcript import system_message_text
from pi_ai.js_json import utf16_len

__all__ = [
    "ContextEstimate",
    "calculate_context_tokens",
    "estimate_context_tokens",
    "estimate_message_tokens",
    "estimate_text_and_image_content_tokens",
    "estimate_text_tokens",
]

CHARS_PER_TOKEN = 4
ESTIMATED_IMAGE_CHARS = 4800


def _json_length(value: Any) -> int:
    return utf16_len(encode(value).decode("utf-8", "surrogatepass"))


def calculate_context_tokens(usage: Usage) -> int:
    """The prompt size a usage report stands for: ``totalTokens``, else the sum of its parts."""
    return usage.total_tokens or usage.input + usage.output + usage.cache_read + usage.cache_write


def estimate_text_tokens(text: str) -> int:
    return math.ceil(utf16_len(text) / CHARS_PER_TOKEN)


def estimate_text_and_image_content_tokens(content: str | Sequence[TextContent | ImageContent]) -> int:
    if isinstance(content, str):
        return estimate_text_tokens(content)
    chars = sum(
        utf16_len(block.text) if isinstance(block, TextContent) else ESTIMATED_IMAGE_CHARS for block in content
    )
    return math.ceil(chars / CHARS_PER_TOKEN)


def estimate_message_tokens(message: ContextMessage) -> int:
    if isinstance(message, SystemMessage):
        # Pi 1.6: the prompt it states, plus its tool declarations and removals as JSON.
        return (
            estimate_text_tokens(system_message_text(message))
            + _declarations_tokens(message.tools_added or [])
            + _declarations_tokens(message.tools_removed or [])
        )
    if not isinstance(message, AssistantMessage):
        return estimate_text_and_image_content_tokens(message.content)
    chars = 0
    for block in message.content:
        if isinstance(block, TextContent):
            chars += utf16_len(block.text)
        elif isinstance(block, ThinkingContent):
            chars += utf16_len(block.thinking)
        else:
            chars += utf16_len(block.name) + _json_length(block.arguments)
    return math.ceil(chars / CHARS_PER_TOKEN)


def _declarations_tokens(tools: list[dict[str, Any]]) -> int:
    return estimate_text_tokens(encode(tools).decode("utf-8", "surrogatepass")) if tools else 0


def _tools_tokens(tools: Sequence[Tool] | None) -> int:
    if not tools:
        return 0
    return estimate_text_tokens(encode(list(tools)).decode("utf-8", "surrogatepass"))


@dataclass(frozen=True, slots=True)
class ContextEstimate:
    tokens: int
    usage_tokens: int
    trailing_tokens: int
    last_usage_index: int | None


def _last_usage(messages: Sequence[ContextMessage]) -> tuple[Usage, int] | None:
    """The usage of the newest successful response that still describes the current prefix."""
    latest_prefix_timestamp = -math.inf
    found: tuple[Usage, int] | None = None
    for index, message in enumerate(messages):
        if (
            isinstance(message, AssistantMessage)
            and message.timestamp >= latest_prefix_timestamp
            and message.stop_reason not in ("aborted", "error")
            and calculate_context_tokens(message.usage) > 0
        ):
            found = (message.usage, index)
        latest_prefix_timestamp = max(latest_prefix_timestamp, message.timestamp)
    return found


def estimate_context_tokens(context: Context) -> ContextEstimate:
    """Pi's estimate of the prompt size: the last reported usage plus what came after it,
    or chars/4 of everything when no response reported usage yet."""
    messages = context.messages
    last = _last_usage(messages)
    if last is not None:
        usage, index = last
        usage_tokens = calculate_context_tokens(usage)
        trailing = sum(estimate_message_tokens(message) for message in messages[index + 1 :])
        added = {
            name
            for message in messages[index + 1 :]
            if isinstance(message, ToolResultMessage)
            for name in message.added_tool_names or ()
        }
        added_tokens = _tools_tokens([tool for tool in context.tools or () if tool.name in added])
        return ContextEstimate(
            usage_tokens + trailing + added_tokens, usage_tokens, trailing + added_tokens, index
        )
    tokens = sum(estimate_message_tokens(message) for message in messages)
    prefix = (estimate_text_tokens(context.system_prompt) if context.system_prompt else 0) + _tools_tokens(
        context.tools
    )
    return ContextEstimate(tokens + prefix, 0, tokens + prefix, None)
