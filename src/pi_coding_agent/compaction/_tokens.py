"""How big a context is: provider-reported usage where there is one, ``chars / 4`` elsewhere.

Character counts are JavaScript string lengths (UTF-16 code units), as in Pi, so both
implementations cut a session at the same place.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pi_agent import AgentMessage
from pi_ai import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    encode,
)
from pi_ai.js_json import utf16_len
from pi_coding_agent.messages import (
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomRoleMessage,
)
from pi_coding_agent.settings import CompactionSettings

ESTIMATED_IMAGE_CHARS = 4800


js_length = utf16_len
"""``text.length`` in JavaScript: UTF-16 code units."""


def calculate_context_tokens(usage: Usage) -> int:
    return usage.total_tokens or (usage.input + usage.output + usage.cache_read + usage.cache_write)


def _content_chars(content: str | Sequence[TextContent | ImageContent]) -> int:
    if isinstance(content, str):
        return js_length(content)
    chars = 0
    for block in content:
        if isinstance(block, TextContent):
            chars += js_length(block.text)
        elif isinstance(block, ImageContent):
            chars += ESTIMATED_IMAGE_CHARS
    return chars


def estimate_tokens(message: AgentMessage) -> int:
    """A conservative token estimate of one message (``ceil(chars / 4)``)."""
    chars = 0
    if isinstance(message, UserMessage | ToolResultMessage | CustomRoleMessage):
        chars = _content_chars(message.content)
    elif isinstance(message, AssistantMessage):
        for block in message.content:
            if isinstance(block, TextContent):
                chars += js_length(block.text)
            elif isinstance(block, ThinkingContent):
                chars += js_length(block.thinking)
            elif isinstance(block, ToolCall):
                chars += js_length(block.name) + js_length(encode(block.arguments).decode())
    elif isinstance(message, BashExecutionMessage):
        chars = js_length(message.command) + js_length(message.output)
    elif isinstance(message, BranchSummaryMessage | CompactionSummaryMessage):
        chars = js_length(message.summary)
    return math.ceil(chars / 4)


def valid_usage(message: AgentMessage) -> Usage | None:
    """The usage of a finished assistant answer that actually reports tokens."""
    if (
        isinstance(message, AssistantMessage)
        and message.stop_reason not in ("aborted", "error")
        and calculate_context_tokens(message.usage) > 0
    ):
        return message.usage
    return None


@dataclass(frozen=True)
class ContextEstimate:
    tokens: int
    usage_tokens: int
    trailing_tokens: int
    last_usage_index: int | None


def estimate_context_tokens(messages: Sequence[AgentMessage]) -> ContextEstimate:
    """The last reported usage plus estimates for the messages after it."""
    for index in range(len(messages) - 1, -1, -1):
        usage = valid_usage(messages[index])
        if usage is not None:
            usage_tokens = calculate_context_tokens(usage)
            trailing = sum(estimate_tokens(m) for m in messages[index + 1 :])
            return ContextEstimate(usage_tokens + trailing, usage_tokens, trailing, index)
    estimated = sum(estimate_tokens(m) for m in messages)
    return ContextEstimate(estimated, 0, estimated, None)


def should_compact(context_tokens: int, context_window: int, settings: CompactionSettings) -> bool:
    return settings.enabled and context_tokens > context_window - settings.reserve_tokens
