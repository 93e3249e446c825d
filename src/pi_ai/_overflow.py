"""Did a response fail because the prompt no longer fits the model's context window?

Providers say so in many ways; the agent layer uses ``is_context_overflow`` to decide to
compact the conversation and retry. Three signals, as in Pi:

1. an ``error`` response whose message matches a known overflow wording (and none of the
   rate-limit wordings that merely look similar);
2. a "silent" overflow: a ``stop`` response that reports more prompt tokens than the window
   (some servers truncate instead of failing);
3. a ``length`` response with no output at all whose prompt filled 99 % of the window.
"""

from __future__ import annotations

import re

from pi_ai._messages import AssistantMessage

__all__ = ["OVERFLOW_PATTERNS", "is_context_overflow", "is_recoverable_length"]

_I = re.IGNORECASE
OVERFLOW_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(r"prompt is too long", _I),  # Anthropic
    re.compile(r"request_too_large", _I),  # Anthropic, request bytes (413)
    re.compile(r"input is too long for requested model", _I),  # Amazon Bedrock
    re.compile(r"exceeds the context window", _I),  # OpenAI
    re.compile(
        r"exceeds (?:the )?(?:model'?s )?maximum context length(?: of [\d,]+ tokens?|\s*\([\d,]+\))", _I
    ),
    re.compile(r"input token count.*exceeds the maximum", _I),  # Google
    re.compile(r"maximum prompt length is \d+", _I),  # xAI
    re.compile(r"reduce the length of the messages", _I),  # Groq
    re.compile(r"maximum context length is \d+ tokens", _I),  # OpenRouter
    re.compile(r"exceeds (?:the )?maximum allowed input length of [\d,]+ tokens?", _I),
    re.compile(
        r"input \(\d+ tokens\) is longer than the model'?s context length \(\d+ tokens\)", _I
    ),  # Together
    re.compile(r"exceeds the limit of \d+", _I),  # GitHub Copilot
    re.compile(r"exceeds the available context size", _I),  # llama.cpp server
    re.compile(r"greater than the context length", _I),  # LM Studio
    re.compile(r"context window exceeds limit", _I),  # MiniMax
    re.compile(r"exceeded model token limit", _I),  # Kimi
    re.compile(r"too large for model with \d+ maximum context length", _I),  # Mistral
    re.compile(r"prompt has [\d,]+ tokens?, but the configured context size is [\d,]+ tokens?", _I),
    re.compile(r"model_context_window_exceeded", _I),  # z.ai
    re.compile(r"prompt too long; exceeded (?:max )?context length", _I),  # Ollama
    re.compile(r"range of input length should be", _I),  # DashScope / Qwen
    re.compile(r"context[_ ]length[_ ]exceeded", _I),
    re.compile(r"too many tokens", _I),
    re.compile(r"token limit exceeded", _I),
    re.compile(r"^4(?:00|13)\s*(?:status code)?\s*\(no body\)", _I),  # Cerebras: empty 400/413
)
_NOT_OVERFLOW: tuple[re.Pattern[str], ...] = (
    re.compile(r"^(Throttling error|Service unavailable):", _I),
    re.compile(r"rate limit", _I),
    re.compile(r"too many requests", _I),
)


def is_context_overflow(message: AssistantMessage, context_window: int | None = None) -> bool:
    """Whether ``message`` reports that the prompt exceeded the context window."""
    text = message.error_message
    if (
        message.stop_reason == "error"
        and text
        and not any(pattern.search(text) for pattern in _NOT_OVERFLOW)
        and any(pattern.search(text) for pattern in OVERFLOW_PATTERNS)
    ):
        return True
    if context_window:
        prompt_tokens = message.usage.input + message.usage.cache_read
        if message.stop_reason == "stop" and prompt_tokens > context_window:
            return True
        if (
            message.stop_reason == "length"
            and message.usage.output == 0
            and prompt_tokens >= context_window * 0.99
        ):
            return True
    return False


def is_recoverable_length(message: AssistantMessage, desired_max_output: int) -> bool:
    """A ``length`` stop that produced fewer tokens than wanted (a retry with more room may help)."""
    return (
        message.stop_reason == "length"
        and desired_max_output > 0
        and message.usage.output < desired_max_output
    )
