"""How big a context is, for compaction: Pi's coding-agent ``estimateTokens`` and
``estimateContextTokens``, built on pi_ai's estimate (``chars / 4``, JavaScript string lengths).

Two differences from pi_ai's ``estimate_context_tokens`` are Pi's own: the coding agent's
roles (``bashExecution``, ``custom``, summaries) are counted, and the newest successful usage
counts even when a message inserted before it (a compaction summary) is newer than it.
"""

from __future__ import annotations

from collections.abc import Sequence

from pi_agent import AgentMessage
from pi_ai import (
    AssistantMessage,
    ContextEstimate,
    ToolResultMessage,
    Usage,
    UserMessage,
    calculate_context_tokens,
    estimate_message_tokens,
    estimate_text_and_image_content_tokens,
    estimate_text_tokens,
)
from pi_coding_agent.core.messages import (
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomRoleMessage,
)
from pi_coding_agent.core.settings import CompactionSettings


def estimate_tokens(message: AgentMessage) -> int:
    """A conservative token estimate of one message (``ceil(chars / 4)``); 0 for roles Pi
    does not count."""
    if isinstance(message, UserMessage | ToolResultMessage | AssistantMessage):
        return estimate_message_tokens(message)
    if isinstance(message, CustomRoleMessage):
        return estimate_text_and_image_content_tokens(message.content)
    if isinstance(message, BashExecutionMessage):
        return estimate_text_tokens(message.command + message.output)
    if isinstance(message, BranchSummaryMessage | CompactionSummaryMessage):
        return estimate_text_tokens(message.summary)
    return 0


def valid_usage(message: AgentMessage) -> Usage | None:
    """The usage of a finished assistant answer that actually reports tokens."""
    if (
        isinstance(message, AssistantMessage)
        and message.stop_reason not in ("aborted", "error")
        and calculate_context_tokens(message.usage) > 0
    ):
        return message.usage
    return None


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
