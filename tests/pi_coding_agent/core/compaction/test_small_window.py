"""Compaction against a small context window (our addition, docs/agent-session.md): settings fitted
to the window, and a summary request whose prompt and output cap fit it."""

from __future__ import annotations

from typing import Any

import msgspec

from pi_ai import (
    AssistantMessage,
    Context,
    Model,
    SimpleStreamOptions,
    TextContent,
    UserMessage,
    stream_simple,
)
from pi_ai.faux import faux_assistant_message, register_faux_provider
from pi_coding_agent.core.compaction import (
    SummaryRequest,
    compact,
    fit_summary_prompt,
    fit_to_window,
    prepare_compaction,
    should_compact,
)
from pi_coding_agent.core.compaction._window import CHARS_PER_TOKEN, DROPPED_NOTE
from pi_coding_agent.core.session import SessionManager
from pi_coding_agent.core.settings import CompactionSettings, RetrySettings


def test_windows_of_twice_the_reserve_or_more_keep_pi_s_settings() -> None:
    pi = CompactionSettings()
    assert fit_to_window(pi, 32_768) == pi
    assert fit_to_window(pi, 200_000) == pi
    assert fit_to_window(CompactionSettings(reserve_tokens=1000, keep_recent_tokens=60), 4000).reserve_tokens == 1000
    assert fit_to_window(pi, 0) == pi  # unknown window: nothing to fit


def test_a_small_window_reserves_and_keeps_a_quarter() -> None:
    fitted = fit_to_window(CompactionSettings(), 4096)
    assert (fitted.reserve_tokens, fitted.keep_recent_tokens, fitted.enabled) == (1024, 1024, True)
    assert fit_to_window(CompactionSettings(keep_recent_tokens=300), 4096).keep_recent_tokens == 300
    # Pi's settings would compact after every turn here; the fitted ones only past three quarters.
    assert should_compact(10, 4096, CompactionSettings())
    assert not should_compact(3000, 4096, fitted) and should_compact(3100, 4096, fitted)


def test_a_transcript_that_fits_is_left_alone() -> None:
    assert fit_summary_prompt("x" * 3000, 500, 800, 4096) == ("x" * 3000, 800)
    assert fit_summary_prompt("x" * 10**6, 500, 800, 0) == ("x" * 10**6, 800)


def test_the_oldest_part_of_a_long_transcript_is_dropped_to_fit_the_cap() -> None:
    transcript = "\n\n".join(f"[User]: message {n} " + "y" * 200 for n in range(200))
    fitted, cap = fit_summary_prompt(transcript, 500, 800, 4096)
    assert cap == 800
    assert fitted.startswith(DROPPED_NOTE + "[User]: message ")
    assert fitted.endswith(transcript[-300:])  # the newest messages stay
    assert 500 + len(fitted) / CHARS_PER_TOKEN + cap <= 4096


def test_a_frame_too_big_for_any_transcript_cut_lowers_the_cap_instead() -> None:
    fitted, cap = fit_summary_prompt("z" * 900, 3500, 800, 4096)
    assert fitted == "z" * 900 and 0 < cap < 800


async def _summary_request(window: int, settings: CompactionSettings) -> tuple[Context, SimpleStreamOptions, str, str]:
    """Compact a long session on a faux model with ``window``: the request it sent, the summary, and
    the text of the newest summarized message."""
    faux = register_faux_provider(api=f"faux-small-window-{window}")
    seen: list[tuple[Context, SimpleStreamOptions]] = []

    def recording(model: Model, context: Context, options: SimpleStreamOptions | None = None) -> Any:
        assert options is not None
        seen.append((context, options))
        return stream_simple(model, context, options)

    try:
        faux.set_responses([faux_assistant_message("## Goal\nkeep going")])
        model = msgspec.structs.replace(faux.get_model(), context_window=window, max_tokens=8192)
        manager = SessionManager.in_memory(".")
        manager.append_model_change("p", "m")
        for number in range(40):
            manager.append_message(UserMessage(content=[TextContent(text=f"step {number} " + "w" * 400)], timestamp=1))
            manager.append_message(
                AssistantMessage(content=[TextContent(text=f"did step {number}")], api="x", provider="p", model="m",
                                 stop_reason="stop", timestamp=1)
            )
        preparation = prepare_compaction(manager.get_branch(), fit_to_window(settings, window))
        assert preparation is not None
        request = SummaryRequest(model=model, stream_fn=recording, thinking_level="off", retry=RetrySettings(enabled=False))
        result = await compact(preparation, request)
    finally:
        faux.unregister()
    ((context, options),) = seen
    newest = preparation.messages_to_summarize[-1]
    assert isinstance(newest, AssistantMessage) and isinstance(newest.content[0], TextContent)
    return context, options, result.summary, newest.content[0].text


async def test_a_summary_request_fits_a_4096_window() -> None:
    context, options, summary, newest = await _summary_request(4096, CompactionSettings())
    (message,) = context.messages
    assert isinstance(message, UserMessage) and not isinstance(message.content, str)
    prompt = "".join(part.text for part in message.content if isinstance(part, TextContent))
    assert options.max_tokens == int(0.8 * 1024)  # our small-window cap: Pi 0.85's share of the (fitted) reserve
    assert prompt.startswith("<conversation>\n" + DROPPED_NOTE) and newest in prompt
    assert "step 0 " not in prompt
    assert (len(prompt) + len(context.system_prompt or "")) / CHARS_PER_TOKEN + options.max_tokens <= 4096
    assert summary.startswith("## Goal\nkeep going")


async def test_a_large_window_sends_pi_s_request() -> None:
    context, options, _, _ = await _summary_request(200_000, CompactionSettings(keep_recent_tokens=500))
    (message,) = context.messages
    assert isinstance(message, UserMessage) and not isinstance(message.content, str)
    prompt = "".join(part.text for part in message.content if isinstance(part, TextContent))
    assert options.max_tokens is None  # Pi 1.6: no output cap, the model's own limit applies
    assert DROPPED_NOTE not in prompt
