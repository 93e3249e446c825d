"""Options of a batch run (plain data, shared by the runner, the backends and the CLI)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from pi_coding_agent.app.batch._execute import InterruptedMode
from pi_coding_agent.app.batch._limits import ProviderLimit
from pi_coding_agent.app.batch._result import BatchResult
from pi_coding_agent.app.batch._stats import BatchStats
from pi_coding_agent.app.batch._task import BatchTask


class BatchError(Exception):
    """The batch cannot start (Ray missing or unreachable, say); one line, nothing ran."""


ProgressListener = Callable[[BatchStats, BatchResult | None], None]
"""Called when a task starts (``None``) or finishes (its result), on the runner's loop."""


@dataclass
class RayOptions:
    address: str | None = None
    """An existing cluster (``auto``, ``ray://host:port``, ``host:port``); ``None``: start a local one."""
    max_retries: int = 3
    """How often a task whose worker died is run again."""
    cpus_per_task: float = 1.0
    ship_sessions: bool = False
    """Workers write in a local scratch folder and send session files back, instead of writing
    into the state folder directly (which then has to be shared by every node)."""
    local_cpus: int | None = None
    """CPUs of a local cluster started for the run (default: the machine's)."""


@dataclass
class BatchOptions:
    out: str | None = None
    """The results file (JSONL). Without it nothing is recorded, and a re-run starts over."""
    state_dir: str | None = None
    """Sessions, worktrees, attempts; default: ``<out>`` with ``.batch`` instead of ``.jsonl``."""
    session_dir: str | None = None
    jobs: int = 4
    """Tasks at once (on Ray: tasks in flight)."""
    agent_dir: str | None = None
    """Where settings, models and credentials come from (default: ``~/.pi/agent``)."""
    cwd: str | None = None
    """Working directory of tasks without ``cwd`` or ``repo`` (default: the current one)."""
    interrupted: InterruptedMode = "restart"
    retry_failed: bool = False
    skip_invalid: bool = False
    """Run the valid tasks when some are not (they are listed in ``BatchRun.invalid``)."""
    keep_worktrees: bool = False
    rate_limits: Mapping[str, ProviderLimit] = field(default_factory=dict)
    ray: RayOptions | None = None
    on_progress: ProgressListener | None = None


class Backend(Protocol):
    def run(
        self, work: list[tuple[BatchTask, bool]], started: Callable[[BatchTask], None]
    ) -> AsyncIterator[BatchResult]:
        """Run ``(task, rerun)`` pairs; yield results in the order they finish."""
        ...
