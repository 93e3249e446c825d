"""Helpers behind every ``stream_simple``: max-token clamping (with the context-size estimate
of ``pi_ai._estimate``) and thinking budgets, with Pi's constants.

Lengths are measured as JavaScript measures them (UTF-16 code units) so the numbers that
reach the wire (``max_tokens``, ``budget_tokens``) equal Pi's for the same conversation.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pi_ai._context import Context
from pi_ai._estimate import estimate_request_tokens
from pi_ai._model import THINKING_LEVELS, Model, clamp_thinking_level
from pi_ai._options import SimpleStreamOptions, StreamOptions, ThinkingBudgets

__all__ = [
    "DEFAULT_THINKING_BUDGETS",
    "MIN_ANSWER_TOKENS",
    "adjust_max_tokens_for_thinking",
    "base_options",
    "clamp_max_tokens_to_context",
    "clamp_reasoning",
    "clamp_thinking_budget_to_answer_room",
    "merge_sampling_params",
    "stream_option_values",
    "thinking_budget_for_level",
]

CONTEXT_SAFETY_TOKENS = 4096
CONTEXT_SAFETY_RATIO = 0.15
"""Pi 1.6 also leaves 15 % of the estimated input unused: a host that tokenizes the prompt itself
(OpenRouter) may find it larger than our estimate and refuse a request whose input plus
``max_tokens`` then exceeds the window."""
MIN_OUTPUT_WITH_RATIO_MARGIN = 32768
"""Below this much room for output the proportional margin is dropped (small windows, nearly
full ones): only the fixed 4,096 tokens stay free, and the output may not exceed this size."""
MIN_MAX_TOKENS = 1
MIN_ANSWER_TOKENS = 1024
"""Tokens always left for the answer when a thinking budget shares the output cap."""
DEFAULT_THINKING_BUDGETS: dict[str, int] = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}


# --------------------------------------------------------------------------- clamping


def clamp_max_tokens_to_context(model: Model, context: Context, max_tokens: int) -> int:
    """``max_tokens`` reduced so prompt + output fit the context window with a safety margin
    (Pi 1.6's: the larger of 4,096 tokens and 15 % of the input, see the constants)."""
    if model.context_window <= 0:
        return max(MIN_MAX_TOKENS, max_tokens)
    tokens = estimate_request_tokens(context)
    margin = max(CONTEXT_SAFETY_TOKENS, math.ceil(tokens * CONTEXT_SAFETY_RATIO))
    room = model.context_window - tokens - margin
    if room < MIN_OUTPUT_WITH_RATIO_MARGIN:
        room = min(MIN_OUTPUT_WITH_RATIO_MARGIN, model.context_window - tokens - CONTEXT_SAFETY_TOKENS)
    return min(max_tokens, max(MIN_MAX_TOKENS, room))


def merge_sampling_params(
    model: Model, level: str, requested: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    """Extra body fields (Pi 1.6's ``resolveSamplingParams``): the model's ``samplingParams``,
    then its ``samplingParamsByThinkingLevel`` entry for ``level`` (clamped to what the model
    supports), then the request's own; None when there are none."""
    by_level = model.sampling_params_by_thinking_level or {}
    level_params = by_level.get(clamp_thinking_level(model, level) if level in THINKING_LEVELS else level)
    if not model.sampling_params and not level_params and not requested:
        return None
    return {**(model.sampling_params or {}), **(level_params or {}), **(requested or {})}


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
        "idle_timeout_ms": options.idle_timeout_ms,
        "response_timeout_ms": options.response_timeout_ms,
        "websocket_connect_timeout_ms": options.websocket_connect_timeout_ms,
        "max_retries": options.max_retries,
        "max_retry_delay_ms": options.max_retry_delay_ms,
        "temperature": options.temperature,
        "sampling_params": merge_sampling_params(model, options.reasoning or "off", options.sampling_params),
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
