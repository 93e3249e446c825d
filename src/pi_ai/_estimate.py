"""How many tokens a context takes, without a tokenizer (Pi's pi-ai ``utils/estimate``).

The newest usage a provider reported stands for the prompt up to that answer; what came after
is estimated at four characters a token (an image as 4,800 characters). Lengths are measured
as JavaScript measures them (UTF-16 code units), so the numbers that reach the wire
(``max_tokens``) and the compaction thresholds equal Pi's for the same conversation. The
coding agent's compaction estimate is built from these pieces (``pi_coding_agent.core.compaction``).

``estimate_request_tokens`` is Pi 1.6's estimate, which fits ``max_tokens`` into the context
window (``pi_ai._simple_options.clamp_max_tokens_to_context``): 3.5 characters a token, the
prompt and tools counted as the leading system message they travel as. Compaction keeps Pi
0.85's four characters (docs/pi-1.6/models.md, "Output clamp").
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
    "estimate_request_tokens",
    "estimate_text_and_image_content_tokens",
    "estimate_text_tokens",
]

CHARS_PER_TOKEN = 4
REQUEST_CHARS_PER_TOKEN = 3.5
"""Pi 1.6's ratio, for the output clamp only."""
ESTIMATED_IMAGE_CHARS = 4800


def _json_length(value: Any) -> int:
    return utf16_len(encode(value).decode("utf-8", "surrogatepass"))


def calculate_context_tokens(usage: Usage) -> int:
    """The prompt size a usage report stands for: ``totalTokens``, else the sum of its parts."""
    return usage.total_tokens or usage.input + usage.output + usage.cache_read + usage.cache_write


def estimate_text_tokens(text: str, per_token: float = CHARS_PER_TOKEN) -> int:
    return math.ceil(utf16_len(text) / per_token)


def estimate_text_and_image_content_tokens(
    content: str | Sequence[TextContent | ImageContent], per_token: float = CHARS_PER_TOKEN
) -> int:
    if isinstance(content, str):
        return estimate_text_tokens(content, per_token)
    chars = sum(
        utf16_len(block.text) if isinstance(block, TextContent) else ESTIMATED_IMAGE_CHARS for block in content
    )
    return math.ceil(chars / per_token)


def estimate_message_tokens(message: ContextMessage, per_token: float = CHARS_PER_TOKEN) -> int:
    if isinstance(message, SystemMessage):
        # Pi 1.6: the prompt it states, plus its tool declarations and removals as JSON.
        return (
            estimate_text_tokens(system_message_text(message), per_token)
            + _declarations_tokens(message.tools_added or [], per_token)
            + _declarations_tokens(message.tools_removed or [], per_token)
        )
    if not isinstance(message, AssistantMessage):
        return estimate_text_and_image_content_tokens(message.content, per_token)
    chars = 0
    for block in message.content:
        if isinstance(block, TextContent):
            chars += utf16_len(block.text)
        elif isinstance(block, ThinkingContent):
            chars += utf16_len(block.thinking)
        else:
            chars += utf16_len(block.name) + _json_length(block.arguments)
    return math.ceil(chars / per_token)


def _declarations_tokens(tools: list[dict[str, Any]], per_token: float = CHARS_PER_TOKEN) -> int:
    return estimate_text_tokens(encode(tools).decode("utf-8", "surrogatepass"), per_token) if tools else 0


def _tools_tokens(tools: Sequence[Tool] | None, per_token: float = CHARS_PER_TOKEN) -> int:
    if not tools:
        return 0
    return estimate_text_tokens(encode(list(tools)).decode("utf-8", "surrogatepass"), per_token)


@dataclass(frozen=True, slots=True)
class ContextEstimate:
    tokens: int
    usage_tokens: int
    trailing_tokens: int
    last_usage_index: int | None


def _last_usage(
    messages: Sequence[ContextMessage], latest_prefix_timestamp: float = -math.inf
) -> tuple[Usage, int] | None:
    """The usage of the newest successful response that still describes the current prefix
    (``latest_prefix_timestamp``: the newest message before ``messages``)."""
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


def estimate_request_tokens(context: Context) -> int:
    """Pi 1.6's estimate of the prompt a request sends (``REQUEST_CHARS_PER_TOKEN``): the last
    reported usage plus the messages after it, else every message, the prompt and tools
    counted as the leading system message Pi 1.6 folds them into (timestamp 0). Tools a tool
    result added after the last usage are not counted, as in 1.6."""
    per_token = REQUEST_CHARS_PER_TOKEN
    messages = context.messages
    has_head = bool(context.system_prompt) or bool(context.tools)
    last = _last_usage(messages, 0 if has_head else -math.inf)
    if last is not None:
        usage, index = last
        return calculate_context_tokens(usage) + sum(
            estimate_message_tokens(message, per_token) for message in messages[index + 1 :]
        )
    head = (
        estimate_text_tokens(context.system_prompt or "", per_token) + _tools_tokens(context.tools, per_token)
        if has_head
        else 0
    )
    return head + sum(estimate_message_tokens(message, per_token) for message in messages)
