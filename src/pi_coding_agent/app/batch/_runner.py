"""``run_batch``: every task of a batch, results as they finish, recorded durably.

The runner decides what to run (tasks without a result in the results file; with
``retry_failed``, also those whose last result is not ``ok``), hands the tasks to a backend
(this process with ``jobs`` tasks at a time, or Ray), and records each result in the results
file (synced) before it yields it. A task interrupted by the end of the run (a signal, the
caller leaving the loop) gets no result and runs again next time.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping
from typing import Any

from pi_coding_agent.app.batch._execute import TaskExecutor, WorkerConfig
from pi_coding_agent.app.batch._layout import BatchLayout
from pi_coding_agent.app.batch._limits import LocalLimiter
from pi_coding_agent.app.batch._options import Backend, BatchOptions
from pi_coding_agent.app.batch._result import BatchResult
from pi_coding_agent.app.batch._results_file import ResultsFile
from pi_coding_agent.app.batch._stats import BatchStats
from pi_coding_agent.app.batch._task import BatchTask
from pi_coding_agent.app.batch._task_file import LoadedTasks, TaskFileError, TaskProblem, coerce_tasks


def default_state_dir(out: str) -> str:
    stem = out[: -len(".jsonl")] if out.endswith(".jsonl") else out
    return stem + ".batch"


class BatchRun:
    """Iterate with ``async for`` (inside a loop) or ``for`` (anywhere else) to run the batch."""

    def __init__(
        self, tasks: Iterable[BatchTask | Mapping[str, Any]] | LoadedTasks, options: BatchOptions
    ) -> None:
        self.options = options
        base = os.path.abspath(options.cwd or os.getcwd())
        loaded = tasks if isinstance(tasks, LoadedTasks) else coerce_tasks(tasks, base)
        self.tasks = loaded.tasks
        self._where = loaded.where
        self.config = self._config()
        self.executor = TaskExecutor(
            self.config, LocalLimiter(options.rate_limits) if options.rate_limits else None
        )
        self.invalid = [*loaded.problems, *self._check_models()]
        """Tasks left out (``skip_invalid``); otherwise any of them raises ``TaskFileError``."""
        if self.invalid and (not options.skip_invalid or not self.tasks):
            raise TaskFileError(self.invalid)
        self.stats = BatchStats(total=len(self.tasks))
        self._stop = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._main: asyncio.Task[None] | None = None

    def _config(self) -> WorkerConfig:
        from pi_coding_agent.core.paths import get_agent_dir

        options = self.options
        if options.state_dir:
            state_dir = options.state_dir
        elif options.out:
            state_dir = default_state_dir(options.out)
        else:
            state_dir = tempfile.mkdtemp(prefix="pi-batch-")
        return WorkerConfig(
            agent_dir=os.path.abspath(options.agent_dir or get_agent_dir()),
            state_dir=os.path.abspath(state_dir),
            session_dir=os.path.abspath(options.session_dir) if options.session_dir else None,
            default_cwd=os.path.abspath(options.cwd or os.getcwd()),
            interrupted=options.interrupted,
            keep_worktrees=options.keep_worktrees,
        )

    def _plan(self, finished: Mapping[str, BatchResult]) -> list[tuple[BatchTask, bool]]:
        work: list[tuple[BatchTask, bool]] = []
        for task in self.tasks:
            previous = finished.get(task.id)
            if previous is None:
                work.append((task, False))
            elif self.options.retry_failed and not previous.ok:
                work.append((task, True))
            else:
                self.stats.skipped += 1
        return work

    def _check_models(self) -> list[TaskProblem]:
        """Unknown models are found before anything runs, like any other bad task."""
        problems: list[TaskProblem] = []
        for task in self.tasks:
            error = self.executor.models.resolve(task.model, task.thinking).error if task.model else None
            if error:
                problems.append(TaskProblem(self._where.get(task.id, f"task {task.id}"), f"model: {error}"))
        bad = {problem.where for problem in problems}
        self.tasks = [task for task in self.tasks if self._where.get(task.id, f"task {task.id}") not in bad]
        return problems

    async def __aiter__(self) -> AsyncIterator[BatchResult]:
        config, executor = self.config, self.executor
        results_file = ResultsFile(self.options.out) if self.options.out else None
        try:
            work = self._plan(results_file.finished if results_file else {})
            self.stats.started = time.monotonic()
            self._notify(None)
            backend = self._backend(config, executor)
            async for result in backend.run(work, self._started):
                await self._record(result, results_file, executor.layout)
                yield result
        finally:
            self.stats.running = 0  # the run is over: a task cut off by its end runs next time
            if results_file is not None:
                results_file.close()

    def _backend(self, config: WorkerConfig, executor: TaskExecutor) -> Backend:
        if self.options.ray is not None:
            from pi_coding_agent.app.batch._ray import RayBackend

            return RayBackend(config, self.options.ray, self.options.jobs, self.options.rate_limits)
        return LocalBackend(executor, self.options.jobs)

    def _started(self, _task: BatchTask) -> None:
        self.stats.running += 1
        self._notify(None)

    async def _record(
        self, result: BatchResult, results_file: ResultsFile | None, layout: BatchLayout
    ) -> None:
        if results_file is not None:
            # fsync takes milliseconds: off the loop, so running tasks keep streaming meanwhile.
            await asyncio.to_thread(results_file.append, result)
        layout.discard_finished(result.id)
        self.stats.running = max(0, self.stats.running - 1)
        self.stats.record(result)
        self._notify(result)

    def _notify(self, result: BatchResult | None) -> None:
        if self.options.on_progress is not None:
            self.options.on_progress(self.stats, result)

    def __iter__(self) -> Iterator[BatchResult]:
        """Run the batch on a private event loop in a thread; results come as they finish."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            raise RuntimeError("inside an event loop use `async for result in run_batch(...)`")
        items: queue.Queue[tuple[str, Any]] = queue.Queue()

        async def pump() -> None:
            try:
                async for result in self:
                    items.put(("result", result))
            except BaseException as error:
                items.put(("error", error))
            finally:
                items.put(("end", None))

        def run() -> None:
            asyncio.run(self._guarded(pump()))

        thread = threading.Thread(target=run, name="pi-batch", daemon=True)
        thread.start()
        try:
            while True:
                kind, value = items.get()
                if kind == "result":
                    yield value
                elif kind == "error":
                    if not isinstance(value, asyncio.CancelledError):
                        raise value
                else:
                    break
        finally:
            self.stop()
            thread.join()

    async def _guarded(self, work: Any) -> None:
        self._loop = asyncio.get_running_loop()
        self._main = asyncio.ensure_future(work)
        if self._stop.is_set():
            self._main.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._main

    def stop(self) -> None:
        """End the run soon (from any thread): running tasks are cancelled and get no result."""
        self._stop.set()
        loop, main = self._loop, self._main
        if loop is not None and main is not None and not loop.is_closed():
            loop.call_soon_threadsafe(main.cancel)


def run_batch(
    tasks: Iterable[BatchTask | Mapping[str, Any]], options: BatchOptions | None = None
) -> BatchRun:
    """The batch of ``tasks`` (``BatchTask`` objects or task mappings), ready to iterate.

    Raises ``TaskFileError`` at once when a task is invalid (every problem listed).
    """
    return BatchRun(tasks, options or BatchOptions())


class LocalBackend:
    """Tasks in this process, ``jobs`` at a time, each its own ``AgentSession``."""

    def __init__(self, executor: TaskExecutor, jobs: int) -> None:
        self.executor = executor
        self.jobs = max(1, jobs)

    async def run(
        self, work: list[tuple[BatchTask, bool]], started: Callable[[BatchTask], None]
    ) -> AsyncIterator[BatchResult]:
        pending = iter(work)
        finished: asyncio.Queue[BatchResult] = asyncio.Queue()

        async def worker() -> None:
            for task, rerun in pending:
                started(task)
                await finished.put(await self.executor.run(task, rerun=rerun))

        workers = [asyncio.ensure_future(worker()) for _ in range(min(self.jobs, len(work)))]
        try:
            for _ in range(len(work)):
                yield await _next_result(finished, workers)
        finally:
            for task in workers:
                task.cancel()
            await asyncio.gather(*workers, return_exceptions=True)


async def _next_result(
    finished: asyncio.Queue[BatchResult], workers: list[asyncio.Task[None]]
) -> BatchResult:
    """The next result; a worker that crashed (a bug, not a task problem) raises its error."""
    getter = asyncio.ensure_future(finished.get())
    while True:
        done, _ = await asyncio.wait(
            {getter, *[w for w in workers if not w.done()]}, return_when=asyncio.FIRST_COMPLETED
        )
        if getter in done:
            return getter.result()
        for task in done:
            if task.exception() is not None:
                getter.cancel()
                raise task.exception()  # type: ignore[misc]
        if all(w.done() for w in workers):
            return await getter
