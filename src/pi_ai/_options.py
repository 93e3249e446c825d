"""Options of one model call.

``StreamOptions`` are understood by every API; ``SimpleStreamOptions`` add the unified
reasoning level and tool choice that ``stream_simple`` maps onto each provider's knobs.
Provider-specific options are subclasses defined next to each API implementation.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from pi_ai._abort import AbortSignal
from pi_ai._model import Model

CacheRetention: TypeAlias = Literal["none", "short", "long"]
ReasoningLevel: TypeAlias = Literal["minimal", "low", "medium", "high", "xhigh", "max"]


@dataclass(frozen=True, slots=True)
class ResponseInfo:
    """What ``on_response`` sees once HTTP response headers arrived."""

    status: int
    headers: Mapping[str, str]


PayloadHook = Callable[[Any, Model], Any | Awaitable[Any]]
"""Receives the request body before it is sent; a non-None return value replaces it."""
ResponseHook = Callable[[ResponseInfo, Model], Awaitable[None] | None]


@dataclass(kw_only=True)
class StreamOptions:
    signal: AbortSignal | None = None
    api_key: str | None = None
    env: Mapping[str, str] | None = None
    """Environment overrides for this call; they win over the process environment."""
    on_payload: PayloadHook | None = None
    on_response: ResponseHook | None = None
    headers: Mapping[str, str | None] | None = None
    """Extra headers; a ``None`` value removes a default header."""
    timeout_ms: int | None = None
    """Deadline for the response headers (the SDKs' ``timeout``; default 600 000 ms)."""
    idle_timeout_ms: int | None = None
    """Longest silence allowed before the headers and between body bytes (Pi's
    ``httpIdleTimeoutMs``; default 300 000 ms, 0 = no limit)."""
    response_timeout_ms: int | None = None
    """Deadline for the whole response, from the call to its last event, however live the
    stream looks (keepalive comments, endless deltas, a byte a second reset the idle timeout
    for ever). On expiry the call is stopped (its connection closed) and the stream ends as an
    ``error`` saying so. Default ``DEFAULT_RESPONSE_TIMEOUT_MS`` (an hour); 0 = no limit.
    Honoured by ``stream`` and ``stream_simple`` for every API (``pi_ai._registry``)."""
    websocket_connect_timeout_ms: int | None = None
    """How long opening a WebSocket may take, for the APIs that use one (Codex; Pi's
    ``websocketConnectTimeoutMs``; default 15 000 ms, 0 = no limit)."""
    max_retries: int = 0
    max_retry_delay_ms: int = 60_000
    """Cap on a server-requested retry delay; a longer request fails at once. 0 = no cap."""
    temperature: float | None = None
    sampling_params: Mapping[str, Any] | None = None
    max_tokens: int | None = None
    cache_retention: CacheRetention | None = None
    session_id: str | None = None
    metadata: Mapping[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    """Options for a user-registered API that the dataclass fields do not cover."""


@dataclass(kw_only=True)
class ThinkingBudgets:
    minimal: int | None = None
    low: int | None = None
    medium: int | None = None
    high: int | None = None


@dataclass(kw_only=True)
class SimpleStreamOptions(StreamOptions):
    reasoning: ReasoningLevel | None = None
    """Unified thinking level; ``None`` means thinking off."""
    thinking_budgets: ThinkingBudgets | None = None
    tool_choice: Literal["auto", "none"] | None = None
