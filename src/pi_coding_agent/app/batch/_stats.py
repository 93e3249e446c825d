"""Counters of a running batch, for the progress display and for callers of ``run_batch``."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from pi_coding_agent.app.batch._result import BatchResult, TokenUsage


@dataclass
class BatchStats:
    total: int = 0
    """Tasks in the batch, the ones finished by an earlier run included."""
    skipped: int = 0
    """Finished by an earlier run (their results are in the results file already)."""
    running: int = 0
    ok: int = 0
    failed: int = 0
    """Finished in this run with status error, timeout or budget."""
    usage: TokenUsage = field(default_factory=TokenUsage)
    """Of the tasks finished in this run."""
    started: float = field(default_factory=time.monotonic)

    @property
    def done(self) -> int:
        """Finished in this run."""
        return self.ok + self.failed

    @property
    def remaining(self) -> int:
        return self.total - self.skipped - self.done

    def record(self, result: BatchResult) -> None:
        if result.ok:
            self.ok += 1
        else:
            self.failed += 1
        self.usage = self.usage + result.usage

    def eta_seconds(self, now: float | None = None) -> float | None:
        """Time left at the rate tasks finished so far in this run; ``None`` before the first."""
        if not self.done:
            return None
        elapsed = (time.monotonic() if now is None else now) - self.started
        return self.remaining * elapsed / self.done
