"""Compaction for models whose context window is too small for Pi's settings (our addition).

Pi compacts when the context passes ``contextWindow - reserveTokens`` and keeps the newest
``keepRecentTokens``. Its defaults (16 384 and 20 000) assume a large window: with a 4 096-token
window (a local model, ``docs/providers/local.md``) the threshold is below zero, so Pi would
compact after every turn and keep everything, and a summary request of ``0.8 * reserveTokens``
output tokens cannot fit. Two rules keep compaction working there; both leave windows of at least
twice ``reserveTokens`` exactly as Pi handles them:

- ``fit_to_window``: when ``reserveTokens`` is half the window or more, a quarter of the window
  is reserved and at most a quarter is kept.
- ``fit_summary_prompt``: when the window has less room left after the prompt than Pi 0.85's
  output cap, the oldest part of the transcript is dropped so that the cap fits, and the cap is
  sent (Pi 1.6 sends summaries without one; so do we whenever everything fits). Tokens are estimated at three characters each here (code and JSON tokenize
  denser than Pi's four-characters estimate, and an overflowing summary request fails outright).
"""

from __future__ import annotations

import math
from dataclasses import replace

from pi_coding_agent.core.settings import CompactionSettings

WINDOW_SHARE = 4
"""For a small window: the reserve, and the most that is kept, are this fraction of it."""
CHARS_PER_TOKEN = 3
PROMPT_MARGIN_TOKENS = 64
"""Room left for the chat template's own tokens around the summary prompt."""
DROPPED_NOTE = "[... the beginning of the conversation was left out to fit the model's context window]\n\n"


def fit_to_window(settings: CompactionSettings, context_window: int) -> CompactionSettings:
    """``settings``, or for a window under twice their ``reserveTokens`` their small-window form."""
    if context_window <= 0 or settings.reserve_tokens * 2 <= context_window:
        return settings
    share = context_window // WINDOW_SHARE
    return replace(settings, reserve_tokens=share, keep_recent_tokens=min(settings.keep_recent_tokens, share))


def estimate_prompt_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def fit_summary_prompt(
    transcript: str, frame_tokens: int, max_tokens: int, context_window: int
) -> tuple[str, int]:
    """(``transcript``, output cap) for a summary request that fits ``context_window``.

    ``frame_tokens`` is the rest of the request (system prompt, instructions, previous summary).
    Without a window, or when everything fits, both come back unchanged.
    """
    if context_window <= 0:
        return transcript, max_tokens
    room = context_window - frame_tokens - PROMPT_MARGIN_TOKENS - estimate_prompt_tokens(transcript)
    if room >= max_tokens:
        return transcript, max_tokens
    budget = context_window - frame_tokens - PROMPT_MARGIN_TOKENS - max_tokens - estimate_prompt_tokens(DROPPED_NOTE)
    if budget <= 0:
        return transcript, max(1, room)
    tail = transcript[-budget * CHARS_PER_TOKEN :]
    boundary = tail.find("\n\n[")  # start at a whole message of the transcript when one is in view
    return DROPPED_NOTE + (tail[boundary + 2 :] if boundary >= 0 else tail), max_tokens
