"""The provider faults, as replies of the loopback server (``tests/support/loopback.py``).

Every fault must *settle*: the stream ends with exactly one terminal event and a final
message, whose outcome is the one listed (``error``, ``aborted``, or ``success`` after a
retry). Pi's exact texts for the body faults are checked by the conformance cases
(``tests/conformance/cases/parse-stream``, ``fault_*`` among them); here it is the shape.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from tests.reliability.wire import Wire
from tests.support.loopback import Reply, split

FULL = os.environ.get("PI_RELIABILITY_FULL") == "1"
"""The larger opt-in run: bigger events, more chunkings."""

ANSWER = "Fault-free answer: ünïcode 😀 and more text."
HUGE_EVENT_BYTES = (8 if FULL else 2) * 1024 * 1024
IDLE_TIMEOUT_MS = 300

Outcome = Literal["error", "aborted", "success"]


@dataclass(frozen=True)
class Fault:
    name: str
    replies: Callable[[Wire], list[Reply]]
    expect: Outcome
    retries: int = 0
    idle_timeout_ms: int | None = None
    abort_at_first_delta: bool = False
    refused: bool = False
    """Nothing listens on the port."""
    answer: Callable[[], str] | None = None
    """For ``success``: the text the final message must hold (default ``ANSWER``)."""


def _frames(wire: Wire) -> list[bytes]:
    return [frame.encode() for frame in wire.frames(ANSWER, 5)]


def _body(wire: Wire) -> bytes:
    return wire.body(ANSWER)


def _huge_text() -> str:
    return "x" * (HUGE_EVENT_BYTES - 1) + "."


def _huge(wire: Wire) -> list[Reply]:
    """The whole answer in one text delta (one event), written 64 KB at a time."""
    text = _huge_text()
    return [Reply(chunks=split(wire.body(text, len(text)), 65536))]


def _cut_mid_event(wire: Wire) -> list[Reply]:
    body = _body(wire)
    return [Reply(chunks=[body[: len(body) // 2]])]


def _invalid_json(wire: Wire) -> list[Reply]:
    frames = _frames(wire)
    broken = frames[2].replace(b'":', b'" ', 1)
    return [Reply(chunks=[*frames[:2], broken, *frames[3:]])]


FAULTS: list[Fault] = [
    Fault("connection_refused", lambda wire: [], "error", refused=True),
    Fault(
        "reset_mid_body",
        lambda wire: [Reply(chunks=[_body(wire)[: len(_body(wire)) // 2], b"rest"], reset_after=1)],
        "error",
    ),
    Fault("http_400_json", lambda wire: [Reply.json(400, wire.error_body)], "error"),
    Fault("http_500_json", lambda wire: [Reply.json(500, wire.error_body)], "error"),
    Fault(
        "http_502_html",
        lambda wire: [
            Reply(status=502, headers={"content-type": "text/html"}, chunks=[b"<html>Bad gateway</html>"])
        ],
        "error",
    ),
    Fault(
        "http_503_no_body",
        lambda wire: [Reply(status=503, headers={"content-type": "text/plain"}, body=b"")],
        "error",
    ),
    Fault(
        "http_429_retry_after_then_success",
        lambda wire: [
            Reply.json(429, wire.rate_limited_body, {"retry-after": "0"}),
            Reply(chunks=[_body(wire)]),
        ],
        "success",
        retries=2,
    ),
    Fault("truncated_sse", _cut_mid_event, "error"),
    Fault("invalid_json_event", _invalid_json, "error"),
    Fault("empty_body_200", lambda wire: [Reply(body=b"")], "error"),
    Fault(
        "wrong_content_type_200",
        lambda wire: [
            Reply(headers={"content-type": "text/html"}, body=b"<html><body>captive portal</body></html>")
        ],
        "error",
    ),
    Fault(
        "stalled_body",
        lambda wire: [Reply(chunks=_frames(wire), stall_after=3)],
        "error",
        idle_timeout_ms=IDLE_TIMEOUT_MS,
    ),
    Fault("huge_event", _huge, "success", answer=_huge_text),
    Fault(
        "abort_mid_stream",
        lambda wire: [Reply(chunks=_frames(wire), stall_after=4)],
        "aborted",
        abort_at_first_delta=True,
    ),
]
