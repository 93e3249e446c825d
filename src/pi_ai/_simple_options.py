"""Helpers behind every ``stream_simple``: context-size estimates, max-token clamping and
thinking budgets, with Pi's constants.

Lengths are measured as JavaScript measures them (UTF-16 code units) so the numbers that
reach the wire (``max_tokens``, ``budget_tokens``) equal Pi's for the same conversation.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pi_ai._codec import encode
from pi_ai._context import Context, Tool
from pi_ai._messages import (
    AssistantMessage,
    ImageContent,
    Message,
    TextContent,
    ThinkingContent,
    ToolResultMessage,
    Usage,
)
from pi_ai._model import Model
from pi_ai._options import SimpleStreamOptions, StreamOptions, ThinkingBudgets
from pi_ai.js_json import utf16_len

__all__ = [
    "DEFAULT_THINKING_BUDGETS",
    "MIN_ANSWER_TOKENS",
    "ContextEstimate",
    "adjust_max_tokens_for_thinking",
    "base_options",
    "clamp_max_tokens_to_context",
    "clamp_reasoning",
    "clamp_thinking_budget_to_answer_room",
    "estimate_context_tokens",
    "js_length",
    "merge_sampling_params",
    "stream_option_values",
    "thinking_budget_for_level",
]

CHARS_PER_TOKEN = 4
ESTIMATED_IMAGE_CHARS = 4800
CONTEXT_SAFETY_TOKENS = 4096
MIN_MAX_TOKENS = 1
MIN_ANSWER_TOKENS = 1024
"""Tokens always left for the answer when a thinking budget shares the output cap."""
DEFAULT_THINKING_BUDGETS: dict[str, int] = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}


js_length = utf16_len
"""``text.length`` in JavaScript: UTF-16 code units (characters beyond U+FFFF count twice)."""


def _json_length(value: Any) -> int:
    return js_length(encode(value).decode("utf-8", "surrogatepass"))


# --------------------------------------------------------------------------- context estimate


def context_tokens_of_usage(usage: Usage) -> int:
    return usage.total_tokens or usage.input + usage.output + usage.cache_read + usage.cache_write


def _content_chars(content: str | Sequence[TextContent | ImageContent]) -> int:
    if isinstance(content, str):
        return js_length(content)
    return sum(
        js_length(block.text) if isinstance(block, TextContent) else ESTIMATED_IMAGE_CHARS
        for block in content
    )


def estimate_message_tokens(message: Message) -> int:
    if isinstance(message, AssistantMessage):
        chars = 0
        for block in message.content:
            if isinstance(block, TextContent):
                chars += js_length(block.text)
            elif isinstance(block, ThinkingContent):
                chars += js_length(block.thinking)
            else:
                chars += js_length(block.name) + _json_length(block.arguments)
        return math.ceil(chars / CHARS_PER_TOKEN)
    return math.ceil(_content_chars(message.content) / CHARS_PER_TOKEN)


def _tools_tokens(tools: Sequence[Tool] | None) -> int:
    if not tools:
        return 0
    return math.ceil(_json_length(list(tools)) / CHARS_PER_TOKEN)


@dataclass(frozen=True, slots=True)
class ContextEstimate:
    tokens: int
    usage_tokens: int
    trailing_tokens: int
    last_usage_index: int | None


def _last_usage(messages: Sequence[Message]) -> tuple[Usage, int] | None:
    """The usage of the newest successful response that still describes the current prefix."""
    latest_prefix_timestamp = -math.inf
    found: tuple[Usage, int] | None = None
    for index, message in enumerate(messages):
        if (
            isinstance(message, AssistantMessage)
            and message.timestamp >= latest_prefix_timestamp
            and message.stop_reason not in ("aborted", "error")
            and context_tokens_of_usage(message.usage) > 0
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
        usage_tokens = context_tokens_of_usage(usage)
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
    prefix = (
        math.ceil(js_length(context.system_prompt) / CHARS_PER_TOKEN) if context.system_prompt else 0
    ) + (_tools_tokens(context.tools))
    return ContextEstimate(tokens + prefix, 0, tokens + prefix, None)


# --------------------------------------------------------------------------- clamping


def clamp_max_tokens_to_context(model: Model, context: Context, max_tokens: int) -> int:
    """``max_tokens`` reduced so prompt + output fit the context window with a safety margin."""
    if model.context_window <= 0:
        return max(MIN_MAX_TOKENS, max_tokens)
    available = model.context_window - estimate_context_tokens(context).tokens - CONTEXT_SAFETY_TOKENS
    return min(max_tokens, max(MIN_MAX_TOKENS, available))


def merge_sampling_params(model: Model, requested: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Model defaults overlaid with the request's extra body parameters (None when neither)."""
    if not model.sampling_params and not requested:
        return None
    return {**(model.sampling_params or {}), **(requested or {})}


def base_options(model: Model, context: Context, options: SimpleStreamOptions) -> dict[str, Any]:
    """The ``StreamOptions`` fields every ``stream_simple`` passes on (Pi's ``buildBaseOptions``):
    the caller's transport settings, merged sampling parameters, and ``max_tokens`` (requested,
    else the model's cap) clamped to what the context window leaves."""
    requested = options.max_tokens if options.max_tokens is not None else model.max_tokens
    return {
        "signal": options.signal,
        "api_key": options.api_key,
        "env": options.env,
        "on_payload": options.on_payload,
        "on_response": options.on_response,
        "headers": options.headers,
        "timeout_ms": options.timeout_ms,
        "max_retries": options.max_retries,
        "max_retry_delay_ms": options.max_retry_delay_ms,
        "temperature": options.temperature,
        "sampling_params": merge_sampling_params(model, options.sampling_params),
        "max_tokens": clamp_max_tokens_to_context(model, context, requested),
        "cache_retention": options.cache_retention,
        "session_id": options.session_id,
        "metadata": options.metadata,
        "extra": dict(options.extra),
    }


def stream_option_values(options: StreamOptions) -> dict[str, Any]:
    """The ``StreamOptions`` fields of any options object (to rebuild it as a subclass)."""
    import dataclasses

    return {field.name: getattr(options, field.name) for field in dataclasses.fields(StreamOptions)}


def clamp_reasoning(level: str) -> str:
    """``xhigh`` and ``max`` use the ``high`` budget."""
    return "high" if level in ("xhigh", "max") else level


def thinking_budget_for_level(level: str, custom: ThinkingBudgets | None = None) -> int:
    budgets = dict(DEFAULT_THINKING_BUDGETS)
    if custom is not None:
        for name in ("minimal", "low", "medium", "high"):
            value = getattr(custom, name)
            if value is not None:
                budgets[name] = value
    return budgets[clamp_reasoning(level)]


def clamp_thinking_budget_to_answer_room(budget: int, ceiling: int) -> int:
    """At most ``ceiling - MIN_ANSWER_TOKENS`` (never negative)."""
    return min(budget, max(0, ceiling - MIN_ANSWER_TOKENS))


def adjust_max_tokens_for_thinking(
    base_max_tokens: int | None, model_max_tokens: int, level: str, custom: ThinkingBudgets | None = None
) -> tuple[int, int]:
    """``(max_tokens, thinking_budget)`` when a thinking budget shares the output cap.

    ``base_max_tokens`` None means no explicit cap: the model's cap is used and thinking fits
    inside it; otherwise the budget is added on top, up to the model's cap.
    """
    budget = thinking_budget_for_level(level, custom)
    max_tokens = (
        model_max_tokens if base_max_tokens is None else min(base_max_tokens + budget, model_max_tokens)
    )
    if max_tokens <= budget:
        budget = clamp_thinking_budget_to_answer_room(budget, max_tokens)
    return max_tokens, budget
