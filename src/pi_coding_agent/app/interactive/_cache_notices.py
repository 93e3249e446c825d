"""Pi 1.6's cache-miss notices (``showCacheMissNotices``): after an answer whose prompt missed
the provider's cache by at least 20,000 tokens or 10 cents, a warning line says how much was
billed again and, where it shows, why (a model switch, an idle gap past the cache lifetime).
Shown live at the answer's end and again whenever the transcript is drawn from the session
(resume, ``/settings``), since misses are derived, never stored."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pi_ai import AssistantMessage
from pi_coding_agent.app.interactive.components import format_tokens
from pi_coding_agent.core.session import CACHE_TTL_MS, CacheMiss, cache_miss_of, cache_misses

if TYPE_CHECKING:
    from pi_coding_agent.runtime.agent_session import AgentSession

AnswerKey = tuple[int, str, str, int]


def answer_key(message: AssistantMessage) -> AnswerKey:
    """Names an answer across the session's entries and the agent's context."""
    return (message.timestamp, message.provider, message.model, int(message.usage.output))


def notice_text(miss: CacheMiss) -> str | None:
    """Pi's line for a miss, or ``None`` for one too small to mention."""
    if miss.missed_tokens < 20_000 and miss.missed_cost < 0.1:
        return None
    cost = f" (~${miss.missed_cost:.2f})" if miss.missed_cost >= 0.01 else ""
    if miss.model_changed:
        label = "Cache miss after model switch"
    elif miss.idle_ms >= CACHE_TTL_MS:
        label = f"Cache miss after {round(miss.idle_ms / 60_000)}m idle"
    else:
        label = "Cache miss"
    return f"{label}: {format_tokens(miss.missed_tokens)} tokens re-billed{cost}"


def _cache_read_price(session: AgentSession) -> Callable[[str, str], float]:
    def price(provider: str, model_id: str) -> float:
        model = session.catalog.find(provider, model_id)
        return float(model.cost.cache_read) if model is not None else 0.0

    return price


def live_notice(session: AgentSession, message: AssistantMessage) -> str | None:
    """The notice of an answer that just ended (not yet stored), if the setting is on."""
    if not session.settings.show_cache_miss_notices or message.stop_reason in ("aborted", "error"):
        return None
    miss = cache_miss_of(session.session_manager.get_entries(), message, _cache_read_price(session))
    return notice_text(miss) if miss is not None else None


def stored_notices(session: AgentSession) -> dict[AnswerKey, str]:
    """The notices of the session's stored answers, by ``answer_key``, if the setting is on."""
    if not session.settings.show_cache_miss_notices:
        return {}
    found = cache_misses(session.session_manager.get_entries(), _cache_read_price(session))
    return {answer_key(message): text for message, miss in found if (text := notice_text(miss)) is not None}
