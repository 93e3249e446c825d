"""Small pieces every built-in tool shares: the error type, abort checks, JS number text,
abortable work in a thread, and the capped listing result of ``grep``, ``find`` and ``ls``."""

from __future__ import annotations

import asyncio
import math
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from pi_agent import AgentToolResult, ToolFailure
from pi_ai import AbortSignal, ImageContent, TextContent
from pi_ai.js_json import well_formed
from pi_coding_agent.core.tools._truncate import DEFAULT_MAX_BYTES, format_size, truncate_head

ABORTED_MESSAGE = "Operation aborted"
NO_LINE_LIMIT = (1 << 53) - 1
"""JavaScript's ``Number.MAX_SAFE_INTEGER``: the line cap of a listing (none), stored in details."""

Notice = tuple[str, str, Any]
"""A bracketed notice after a listing: (text, ``details`` key, ``details`` value)."""


class ToolError(ToolFailure):
    """A failure whose message is exactly the text the model reads in the error result (and,
    optionally, a structured value for ``codemode`` scripts)."""


def raise_if_aborted(signal: AbortSignal | None) -> None:
    if signal is not None and signal.aborted:
        raise ToolError(ABORTED_MESSAGE)


T = TypeVar("T")


async def run_in_thread(work: Callable[[threading.Event], T], signal: AbortSignal | None) -> T:
    """``work(cancelled)`` in a worker thread. ``cancelled`` is set when ``signal`` fires (``work``
    checks it to stop early); the call then fails with ``Operation aborted``."""
    cancelled = threading.Event()
    remove = signal.add_listener(cancelled.set) if signal is not None else None
    try:
        result = await asyncio.to_thread(work, cancelled)
    finally:
        if remove is not None:
            remove()
    if cancelled.is_set():
        raise ToolError(ABORTED_MESSAGE)
    return result


def text_content(text: str) -> list[TextContent | ImageContent]:
    return [TextContent(text=text)]


def optional_number(params: dict[str, Any], key: str) -> float | None:
    """A numeric argument, ``None`` when absent or null (the agent loop already validated types)."""
    value = params.get(key)
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return value
    raise ToolError(f"Invalid {key}: expected a number")


def js_int(value: float) -> int:
    """JavaScript's ToIntegerOrInfinity for finite values (truncation toward zero)."""
    return int(value) if math.isfinite(value) else (1 << 62 if value > 0 else -(1 << 62))


def utf8_bytes(text: str) -> bytes:
    """UTF-8 of ``text``; lone surrogates become U+FFFD, as Node writes them."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return well_formed(text).encode("utf-8")


def listing_result(
    lines: Sequence[str], limit_notice: Notice | None, extra_notice: Notice | None = None
) -> AgentToolResult[Any]:
    """``lines`` cut to ``DEFAULT_MAX_BYTES``, then Pi's notices in brackets: the result limit,
    the byte cap, then ``extra_notice``; each notice also sets its key in ``details``."""
    truncation = truncate_head("\n".join(lines), max_lines=NO_LINE_LIMIT)
    text = truncation.content
    details: dict[str, Any] = {}
    notices: list[str] = []
    if limit_notice is not None:
        notices.append(limit_notice[0])
        details[limit_notice[1]] = limit_notice[2]
    if truncation.truncated:
        notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
        details["truncation"] = truncation.to_json()
    if extra_notice is not None:
        notices.append(extra_notice[0])
        details[extra_notice[1]] = extra_notice[2]
    if notices:
        text += f"\n\n[{'. '.join(notices)}]"
    return AgentToolResult(content=text_content(text), details=details or None)
