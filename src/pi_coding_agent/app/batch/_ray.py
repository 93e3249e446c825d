"""The Ray backend: each task a Ray task, results recorded by the driver as with local runs.

Ray is imported only here, and this module only for ``--ray``. The driver connects to the
cluster at the given address (or starts a local one for the run and stops it after), keeps
``jobs`` tasks in flight, and records results as they come back. A task whose worker process
died is run again by Ray (``max_retries``); the new attempt finds what the dead one left in
the state folder and continues per ``interrupted``, exactly like a re-run after a crash of
the local runner.

Where files go: by default workers write into the state folder itself, which must then be
the same path on every node (a shared filesystem; trivially so on one machine). With
``ship_sessions`` each attempt works in a scratch folder of its worker and sends its session
file back with the result; the driver stores it under its own state folder. An attempt on a
replacement worker then starts clean, since the partial session died with the old one.

Per-provider limits are kept by one actor that every task asks before a model request.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

from pi_coding_agent.app.batch._execute import TaskExecutor, WorkerConfig
from pi_coding_agent.app.batch._layout import BatchLayout
from pi_coding_agent.app.batch._limits import LocalLimiter, ProviderLimit
from pi_coding_agent.app.batch._options import BatchError, RayOptions
from pi_coding_agent.app.batch._result import BatchResult
from pi_coding_agent.app.batch._task import BatchTask
from pi_coding_agent.core.model_registry import ModelCatalog

RAY_MISSING = (
    "pi batch --ray needs Ray, an optional extra: pip install 'pi-for-python[ray]' (or pip install ray)"
)


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise BatchError(RAY_MISSING) from None
    return ray


class RayBackend:
    def __init__(
        self, config: WorkerConfig, options: RayOptions, jobs: int, limits: Mapping[str, ProviderLimit]
    ) -> None:
        self.config = config
        self.options = options
        self.jobs = max(1, jobs)
        self.limits = dict(limits)
        self.layout = BatchLayout(config.state_dir, config.session_dir)

    def _connect(self, ray: Any) -> bool:
        """Connect (or start a local cluster); True when this run owns the cluster."""
        if ray.is_initialized():
            return False
        try:
            if self.options.address:
                ray.init(address=self.options.address, log_to_driver=False, configure_logging=False)
                return True
            ray.init(
                num_cpus=self.options.local_cpus,
                include_dashboard=False,
                log_to_driver=False,
                configure_logging=False,
            )
        except (ConnectionError, RuntimeError, ValueError) as error:
            where = self.options.address or "a local cluster"
            raise BatchError(f"cannot start Ray on {where}: {' '.join(str(error).split())}") from None
        return True

    async def run(
        self, work: list[tuple[BatchTask, bool]], started: Callable[[BatchTask], None]
    ) -> AsyncIterator[BatchResult]:
        ray = _import_ray()
        owned = self._connect(ray)
        remote = ray.remote(run_task_on_worker).options(
            max_retries=self.options.max_retries, retry_exceptions=False, num_cpus=self.options.cpus_per_task
        )
        limiter = self._limiter_actor(ray)
        pending = iter(work)
        flight: dict[asyncio.Future[Any], tuple[Any, BatchTask]] = {}

        def submit() -> None:
            for task, rerun in pending:
                ref = remote.remote(task, self.config, limiter, self.options.ship_sessions, rerun)
                flight[asyncio.wrap_future(ref.future())] = (ref, task)
                started(task)
                return

        try:
            for _ in range(min(self.jobs, len(work))):
                submit()
            while flight:
                done, _ = await asyncio.wait(set(flight), return_when=asyncio.FIRST_COMPLETED)
                for future in done:
                    _ref, task = flight.pop(future)
                    yield self._collect(ray, future, task)
                    submit()
        finally:
            for ref, _task in flight.values():
                ray.cancel(ref, force=True)
            if owned:
                ray.shutdown()

    def _limiter_actor(self, ray: Any) -> Any:
        if not self.limits:
            return None
        actor = ray.remote(LimiterActor).options(max_concurrency=10_000, num_cpus=0)
        return RemoteLimiter(actor.remote(self.limits), set(self.limits))

    def _collect(self, ray: Any, future: asyncio.Future[Any], task: BatchTask) -> BatchResult:
        try:
            data, session = future.result()
        except ray.exceptions.RayError as error:
            reason = " ".join(str(error).split())[:2000]
            result = BatchResult(
                id=task.id, status="error", error=f"Ray task failed: {reason}", metadata=task.metadata
            )
            self.layout.write_finished(result)
            return result
        result = BatchResult.from_json(data)
        if session is not None and result.session_file:
            folder = self.layout.session_folder(task.id)
            os.makedirs(folder, exist_ok=True)
            path = os.path.join(folder, os.path.basename(result.session_file))
            with open(path, "wb") as file:
                file.write(session)
            result = result.with_session_file(path)
        return result


class LimiterActor:
    """The per-provider limits of the whole cluster (a Ray actor; async, so waits overlap)."""

    def __init__(self, limits: Mapping[str, ProviderLimit]) -> None:
        self._limits = dict(limits)
        self._limiter: LocalLimiter | None = None

    def _local(self) -> LocalLimiter:
        if self._limiter is None:
            self._limiter = LocalLimiter(self._limits)  # made on the actor's own event loop
        return self._limiter

    async def acquire(self, provider: str) -> None:
        await self._local().acquire(provider)

    async def release(self, provider: str) -> None:
        await self._local().release(provider)


class RemoteLimiter:
    """A worker's view of the ``LimiterActor`` (picklable: a Ray actor handle and names)."""

    def __init__(self, actor: Any, providers: set[str]) -> None:
        self.actor = actor
        self.providers = providers

    def limits(self, provider: str) -> bool:
        return provider in self.providers

    async def acquire(self, provider: str) -> None:
        call = self.actor.acquire.remote(provider)
        try:
            await call
        except asyncio.CancelledError:
            # The actor grants the slot anyway once it is free; hand it straight back then.
            releasing = asyncio.ensure_future(self._release_when_granted(call, provider))
            _releases.add(releasing)
            releasing.add_done_callback(_releases.discard)
            raise

    async def _release_when_granted(self, call: Any, provider: str) -> None:
        await call
        await self.release(provider)

    async def release(self, provider: str) -> None:
        await self.actor.release.remote(provider)


_releases: set[asyncio.Future[None]] = set()

_catalogs: dict[str, ModelCatalog] = {}
"""The model catalog of each agent folder, read once per worker process."""


def run_task_on_worker(
    task: BatchTask, config: WorkerConfig, limiter: RemoteLimiter | None, ship: bool, rerun: bool
) -> tuple[dict[str, Any], bytes | None]:
    """The Ray task: run ``task`` here; (result as JSON, the session file when ``ship``)."""
    scratch = tempfile.mkdtemp(prefix="pi-batch-worker-") if ship else None
    if scratch is not None:
        config = dataclasses.replace(config, state_dir=scratch, session_dir=None)
    else:
        config = dataclasses.replace(config, record_finished=True)
    executor = TaskExecutor(config, limiter, catalog=_catalogs.get(config.agent_dir))
    try:
        result = asyncio.run(executor.run(task, rerun=rerun))
        _catalogs[config.agent_dir] = executor.catalog
        session = None
        if scratch is not None and result.session_file and os.path.exists(result.session_file):
            with open(result.session_file, "rb") as file:
                session = file.read()
        return result.to_json(), session
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
