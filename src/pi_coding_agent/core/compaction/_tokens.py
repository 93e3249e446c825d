"""How big a context is, for compaction: Pi's coding-agent ``estimateTokens`` and
``estimateContextTokens``, built on pi_ai's estimate (``chars / 4``, JavaScript string lengths).

Two differences from pi_ai's ``estimate_context_tokens`` are Pi's own: the coding agent's
roles (``bashExecution``, ``custom``, summaries) are counted, and the newest successful usage
counts even when a message inserted before it (a compaction summary) is newer than it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pi_agent import AgentMessage
from pi_ai import (
    AssistantMessage,
    ContextEstimate,
    TextContent,
    ToolResultMessage,
    Usage,
    UserMessage,
    calculate_context_tokens,
    estimate_message_tokens,
    estimate_text_and_image_content_tokens,
    estimate_text_tokens,
)
from pi_ai.js_json import stringify, utf16_len
from pi_coding_agent.core.messages import (
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomRoleMessage,
    SystemMessage,
    current_system_message,
)
from pi_coding_agent.core.session import ProjectedEntry, SessionEntry
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
    if isinstance(message, SystemMessage):
        return _system_tokens(message)
    return 0


_IMAGE_CHARS = 4800
"""What Pi counts an image as, in characters."""


def _system_tokens(message: SystemMessage) -> int:
    """Pi 1.6's coding-agent measure of a system message: its content, its sections and its
    added tools as JSON, in one ``chars / 4`` (removed tools do not count)."""
    content = message.content
    if isinstance(content, str):
        chars = utf16_len(content)
    else:
        chars = sum(utf16_len(b.text) if isinstance(b, TextContent) else _IMAGE_CHARS for b in content)
    chars += sum(utf16_len(text) for text in (message.sections or {}).values() if text)
    if message.tools_added:
        chars += utf16_len(stringify(message.tools_added))
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


def estimate_projected_context_tokens(
    projected: Sequence[ProjectedEntry], path: Sequence[SessionEntry]
) -> ContextEstimate:
    """Pi 1.6's estimate of a projected branch: the last usage counts only when its answer comes
    after the latest ``context_edit`` or compaction of ``path`` (which change what that usage
    measured); otherwise every message is estimated, the system messages as their sum."""
    messages = [message for entry in projected for message in entry.messages]
    estimate = estimate_context_tokens(messages)
    if estimate.last_usage_index is not None:
        usage_id = _entry_id_of_message(projected, estimate.last_usage_index)
        ids = [entry.id for entry in path]
        usage_at = ids.index(usage_id) if usage_id in ids else -1
        types = [entry.type for entry in path]
        invalidated_at = max(
            (i for i, kind in enumerate(types) if kind in ("context_edit", "compaction")), default=-1
        )
        if usage_at > invalidated_at:
            return estimate
    system = current_system_message(messages)
    tokens = (estimate_tokens(system) if system is not None else 0) + sum(
        estimate_tokens(m) for m in messages if not isinstance(m, SystemMessage)
    )
    return ContextEstimate(tokens, 0, tokens, None)


def _entry_id_of_message(projected: Sequence[ProjectedEntry], index: int) -> str | None:
    seen = 0
    for entry in projected:
        seen += len(entry.messages)
        if index < seen:
            return entry.source.id
    return None


def should_compact(context_tokens: int, context_window: int, settings: CompactionSettings) -> bool:
    return settings.enabled and context_tokens > context_window - settings.reserve_tokens
