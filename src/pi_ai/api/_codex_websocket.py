"""Codex's WebSocket transport (Pi 0.85's default ``auto``): not spoken yet, so every request
goes over SSE, which the Codex backend serves the same responses on."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_ai.api._codex_http import Exchange


async def run(exchange: Exchange, body: dict[str, Any], transport: str, cache_session: str | None) -> bool:
    """False: the caller sends the request over SSE."""
    return False
