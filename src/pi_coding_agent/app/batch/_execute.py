"""Running one task in this process: working copy, session, prompts, limits, result.

The same code runs a task for the local runner and inside a Ray worker. Each start of a task
is an attempt (recorded in the state folder). An attempt first looks at what earlier ones
left: a recorded result is returned as it is; a session whose prompts are all answered is
turned into a result without calling the model (the runner died before recording it); an
unfinished session is continued (``interrupted="resume"``: the leaf goes back to the last
point of the cut-off prompt the conversation can go on from, the agent continues from there,
the working copy stays as it was) or set aside for a new session in a fresh working copy
(``"restart"``, the default).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from pi_agent import MessageEndEvent
from pi_ai import AssistantMessage
from pi_coding_agent.app.batch._layout import BatchLayout
from pi_coding_agent.app.batch._limits import Limiter, limited_stream_fn
from pi_coding_agent.app.batch._result import BatchResult, Status
from pi_coding_agent.app.batch._session_setup import ModelResolver, TaskSetupError, build_task_session
from pi_coding_agent.app.batch._task import BatchTask
from pi_coding_agent.app.batch._transcript import (
    SessionTotals,
    add_message,
    answer_text,
    last_assistant,
    prompt_progress,
    session_totals,
)
from pi_coding_agent.app.batch._workspace import (
    Workspace,
    WorkspaceError,
    directory_workspace,
    release_leftover_worktree,
    release_workspace,
    scratch_workspace,
    task_diff,
)
from pi_coding_agent.core.messages import now_iso
from pi_coding_agent.core.model_registry import ModelCatalog
from pi_coding_agent.core.session import SessionError as SessionFileError
from pi_coding_agent.core.session import SessionManager
from pi_coding_agent.runtime.agent_session import (
    AgentSession,
    AgentSessionEvent,
    SessionError,
    is_retryable_error,
)

InterruptedMode = Literal["restart", "resume"]
INTERRUPTED_MODES: tuple[InterruptedMode, ...] = ("restart", "resume")


@dataclass(frozen=True)
class WorkerConfig:
    """What every task of a batch shares (plain data: it travels to Ray workers)."""

    agent_dir: str
    state_dir: str
    session_dir: str | None = None
    default_cwd: str = "."
    interrupted: InterruptedMode = "restart"
    keep_worktrees: bool = False
    record_finished: bool = False
    """Write each result to the state folder too (Ray workers: the driver may not get it)."""
    stop_grace: float = 30.0
    """Seconds a stopped task (timeout, budget) gets to settle before it is cancelled."""


class TaskExecutor:
    """Runs tasks in this process; the model catalog is read once and shared by them."""

    def __init__(
        self, config: WorkerConfig, limiter: Limiter | None = None, *, catalog: ModelCatalog | None = None
    ) -> None:
        self.config = config
        self.layout = BatchLayout(config.state_dir, config.session_dir)
        self.limiter = limiter
        self._catalog = catalog
        self._models: ModelResolver | None = None
        self.outside_git: set[str] = set()
        self.worker = f"{os.uname().nodename}:{os.getpid()}"

    @property
    def catalog(self) -> ModelCatalog:
        if self._catalog is None:
            from pi_coding_agent.core.auth import AuthStorage

            home = Path(self.config.agent_dir)
            self._catalog = ModelCatalog.load(home, AuthStorage.load(home / "auth.json"))
        return self._catalog

    @property
    def models(self) -> ModelResolver:
        if self._models is None:
            self._models = ModelResolver(self.catalog)
        return self._models

    async def run(self, task: BatchTask, *, rerun: bool = False) -> BatchResult:
        """The task's result; never raises for a problem of the task itself."""
        if rerun:
            self.layout.discard_finished(task.id)
        else:
            recorded = self.layout.read_finished(task.id)
            if recorded is not None:
                if not self.config.keep_worktrees:
                    await release_leftover_worktree(task, self.layout)
                return recorded
        started_at = now_iso()
        attempt = self.layout.record_attempt(task.id, {"worker": self.worker, "startedAt": started_at})
        run = _TaskRun(self, task, attempt, started_at)
        try:
            result = await run.execute()
        except (WorkspaceError, TaskSetupError, SessionError, SessionFileError, OSError) as error:
            result = run.failed(str(error))
        except Exception as error:
            result = run.failed(f"internal error ({type(error).__name__}): {error}")
        finally:
            await run.close()
        release = run.workspace is not None and run.workspace.scratch_of and not self.config.keep_worktrees
        if self.config.record_finished or release:
            # Before the worktree goes: a runner killed before it appends the result line would
            # otherwise rebuild the result from the session with the diff lost.
            await asyncio.to_thread(self.layout.write_finished, result)
        if release:
            assert run.workspace is not None
            await release_workspace(run.workspace)
        return result


@dataclass
class _TaskRun:
    executor: TaskExecutor
    task: BatchTask
    attempt: int
    started_at: str
    clock: float = field(default_factory=time.monotonic)
    workspace: Workspace | None = None
    manager: SessionManager | None = None
    session: AgentSession | None = None
    warnings: list[str] = field(default_factory=list)
    stopped: Status | None = None
    stop_reason: str | None = None
    live: SessionTotals = field(default_factory=SessionTotals)
    stop_requested: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def layout(self) -> BatchLayout:
        return self.executor.layout

    async def execute(self) -> BatchResult:
        previous = self.layout.latest_session_file(self.task.id)
        manager = SessionManager.open(previous) if previous else None
        progress = prompt_progress(manager) if manager is not None else None
        complete = progress is not None and progress.answered >= len(self.task.prompts)
        resumable = progress is not None and (not progress.cut_off or progress.resume_at is not None)
        resuming = manager is not None and (
            complete or (self.executor.config.interrupted == "resume" and resumable)
        )
        if manager is not None and not resuming:
            manager.close()
            manager = None
        self.workspace = await self._workspace(keep=resuming)
        if manager is None:
            manager = SessionManager.create(self.workspace.cwd, self.layout.session_folder(self.task.id))
        self.manager = manager
        if complete:
            return await self._result(None)
        answered, cut_off = 0, False
        if progress is not None and resuming:
            answered = progress.answered
            if progress.cut_off and progress.resume_at is not None:
                manager.branch(progress.resume_at)
                cut_off = True
        return await self._drive(answered, continue_first=cut_off)

    async def _workspace(self, *, keep: bool) -> Workspace:
        task, layout = self.task, self.layout
        if task.repo is not None:
            return await scratch_workspace(task, layout, fresh=not keep)
        directory = task.cwd or self.executor.config.default_cwd
        recorded = layout.recorded_base(task.id)
        workspace = await directory_workspace(directory, recorded, self.executor.outside_git)
        if workspace.base is not None and recorded is None:
            layout.record_base(task.id, workspace.base)
        return workspace

    async def _drive(self, answered: int, *, continue_first: bool) -> BatchResult:
        assert self.workspace is not None and self.manager is not None
        limiter = self.executor.limiter
        built = build_task_session(
            self.task,
            cwd=self.workspace.cwd,
            agent_dir=Path(self.executor.config.agent_dir),
            models=self.executor.models,
            manager=self.manager,
            limit_stream=None if limiter is None else lambda inner: limited_stream_fn(inner, limiter),
        )
        session = self.session = built.session
        self.warnings.extend(built.warnings)
        self.live = session_totals(self.manager)
        session.subscribe(self._watch_budget)
        rest = self.task.prompts[answered + 1 :] if continue_first else self.task.prompts[answered:]
        prompts = asyncio.ensure_future(self._send(session, rest, continue_first=continue_first))
        remaining = None if self.task.timeout is None else max(0.0, self.task.timeout - self._elapsed())
        done, _ = await asyncio.wait({prompts}, timeout=remaining)
        if not done:
            self._stop("timeout", f"timed out after {self.task.timeout:g} s")
            done, _ = await asyncio.wait({prompts}, timeout=self.executor.config.stop_grace)
            if not done:
                prompts.cancel()
                await asyncio.gather(prompts, return_exceptions=True)
                return self.failed(self.stop_reason or "stopped")
        prompts.result()  # a SessionError (no model, no credentials) propagates
        return await self._result(session)

    async def _send(self, session: AgentSession, prompts: tuple[str, ...], *, continue_first: bool) -> None:
        """The prompts in order; first, with ``continue_first``, the cut-off one from where it stopped."""
        if continue_first:
            await self._continue(session)
            if self._failed_last():
                return
        for prompt in prompts:
            if self.stopped:
                return
            await session.prompt(prompt)
            if self._failed_last():
                return

    async def _continue(self, session: AgentSession) -> None:
        """Go on from where the conversation was cut off, retrying as the session's prompts do.

        ``AgentSession`` has no public continue, so this goes through its agent and applies
        the session's ``retry`` settings itself: a retryable error (Pi's rules) is dropped from
        the context and the call made again after ``baseDelayMs`` doubling, up to
        ``maxRetries`` times; the failed answers stay in the session file, as with prompts.
        """
        retry = session.settings.retry
        for attempt in range(1, retry.max_retries + 2):
            await session.agent.continue_()
            last = last_assistant(self.manager) if self.manager is not None else None
            window = session.model.context_window if session.model is not None else 0
            if last is None or last.stop_reason != "error" or self.stopped:
                return
            if not retry.enabled or attempt > retry.max_retries or not is_retryable_error(last, window):
                return
            messages = session.agent.state.messages
            if messages and isinstance(messages[-1], AssistantMessage):
                session.agent.state.messages = messages[:-1]
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(
                    self.stop_requested.wait(), retry.base_delay_ms * 2 ** (attempt - 1) / 1000
                )
            if self.stop_requested.is_set():
                return

    def _failed_last(self) -> bool:
        last = last_assistant(self.manager) if self.manager is not None else None
        return last is None or last.stop_reason in ("error", "aborted")

    def _watch_budget(self, event: AgentSessionEvent) -> None:
        if not isinstance(event, MessageEndEvent) or not isinstance(event.message, AssistantMessage):
            return
        add_message(self.live, event.message)
        budget = self.task.budget
        if (
            budget is None
            or self.stopped
            or not budget.exceeded(self.live.usage.total_tokens, self.live.usage.cost)
        ):
            return
        limits = [f"{budget.tokens} tokens"] if budget.tokens is not None else []
        limits += [f"${budget.cost:g}"] if budget.cost is not None else []
        used = f"{self.live.usage.total_tokens} tokens, ${self.live.usage.cost:.4f}"
        self._stop("budget", f"budget of {' / '.join(limits)} reached ({used} used)")

    def _stop(self, status: Status, reason: str) -> None:
        self.stopped, self.stop_reason = status, reason
        self.stop_requested.set()
        session = self.session
        if session is not None:
            session.abort_retry()
            session.abort_bash()
            session.agent.abort()

    def _elapsed(self) -> float:
        return time.monotonic() - self.clock

    async def _result(self, session: AgentSession | None) -> BatchResult:
        assert self.manager is not None and self.workspace is not None
        manager = self.manager
        totals = session_totals(manager)
        last = last_assistant(manager)
        status: Status = "ok"
        error: str | None = None
        if self.stopped is not None:
            status, error = self.stopped, self.stop_reason
        elif last is None:
            status, error = "error", "no answer"
        elif last.stop_reason in ("error", "aborted"):
            status, error = "error", " ".join((last.error_message or f"request {last.stop_reason}").split())
        model = session.model if session is not None else None
        if model is not None:
            model_name: str | None = f"{model.provider}/{model.id}"
        else:
            model_name = f"{last.provider}/{last.model}" if last is not None else None
        return replace(
            self.failed(error),
            status=status,
            answer=answer_text(last),
            usage=totals.usage,
            turns=totals.turns,
            tool_calls=sum(totals.tool_calls.values()),
            tool_calls_by_name=dict(sorted(totals.tool_calls.items())),
            diff=await task_diff(self.workspace),
            model=model_name,
        )

    def failed(self, error: str | None) -> BatchResult:
        """A result with what is known now (the status is ``error``)."""
        manager = self.manager
        return BatchResult(
            id=self.task.id,
            status="error",
            error=error,
            wall_time_ms=int(self._elapsed() * 1000),
            session_file=manager.get_session_file() if manager is not None and _written(manager) else None,
            attempt=self.attempt,
            started_at=self.started_at,
            finished_at=now_iso(),
            worker=self.executor.worker,
            warnings=tuple(dict.fromkeys(self.warnings)),
            metadata=self.task.metadata,
        )

    async def close(self) -> None:
        if self.session is not None:
            self.session.dispose()
        if self.manager is not None:
            self.manager.close()


def _written(manager: SessionManager) -> bool:
    path = manager.get_session_file()
    return path is not None and os.path.exists(path)
