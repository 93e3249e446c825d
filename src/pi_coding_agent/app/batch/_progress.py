"""The progress line on stderr: done / running / failed, tokens and cost so far, ETA.

On a terminal one line is redrawn in place (at most a few times a second); elsewhere nothing
is shown unless asked for (``--progress``), and then one plain line per finished task.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from pi_coding_agent.app.batch._result import BatchResult
from pi_coding_agent.app.batch._stats import BatchStats


def _duration(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def _tokens(count: int) -> str:
    if count >= 1_000_000:
        return f"{count / 1_000_000:.1f}M"
    if count >= 10_000:
        return f"{count / 1000:.0f}k"
    return str(count)


def _cost(dollars: float) -> str:
    """Cents once it adds up; below a dollar, enough digits to see cheap runs move."""
    return f"${dollars:.2f}" if dollars >= 1 else f"${dollars:.4f}"


def status_line(stats: BatchStats) -> str:
    finished = stats.skipped + stats.done
    eta = stats.eta_seconds()
    parts = [
        f"{finished}/{stats.total} done",
        f"{stats.running} running",
        f"{stats.failed} failed",
        f"{_tokens(stats.usage.total_tokens)} tokens",
        _cost(stats.usage.cost),
        f"ETA {_duration(eta)}"
        if eta is not None and stats.remaining
        else f"{_duration(time.monotonic() - stats.started)} elapsed",
    ]
    return "batch: " + ", ".join(parts)


class ProgressDisplay:
    """Listener of a batch run that writes to ``stream``."""

    def __init__(
        self, stream: TextIO | None = None, *, enabled: bool | None = None, interval: float = 0.2
    ) -> None:
        self.stream = stream or sys.stderr
        self.live = _isatty(self.stream)
        self.enabled = self.live if enabled is None else enabled
        self.interval = interval
        self._last_draw = 0.0
        self._drawn = False

    def update(self, stats: BatchStats, result: BatchResult | None) -> None:
        if not self.enabled:
            return
        if self.live:
            now = time.monotonic()
            if result is None and (now - self._last_draw < self.interval or not stats.running):
                return  # nothing to show before a task starts (Ray may still be printing its start)
            self._last_draw = now
            self.stream.write("\r\x1b[K" + status_line(stats))
            self._drawn = True
        elif result is not None:
            detail = f" ({result.error})" if result.error else ""
            self.stream.write(f"{result.id}: {result.status}{detail} | {status_line(stats)}\n")
        self.stream.flush()

    def finish(self, stats: BatchStats) -> None:
        if not self.enabled:
            return
        if self.live:
            self.stream.write("\r\x1b[K")
        self.stream.write(status_line(stats) + "\n")
        self.stream.flush()


def _isatty(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())
