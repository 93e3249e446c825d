"""What every test shares: the order tests start in, and the embedded model's threads per worker.

Tests marked ``slow`` (a real model, a Ray cluster, hundreds of kills: tens of seconds each) are
started first, in their collection order, so that with ``pytest -n N`` the workers share them
and do not end with one of them alone at the tail of the run. The tests of a module in
``SAME_WORKER`` go to one worker together, so its module-scoped fixture (the Ray cluster, Node's
messages for the long JSON texts) is built once: xdist's ``--dist loadgroup`` cannot do that under pytest 9 (it renames ``item._nodeid``,
which ``nodeid`` no longer reads), so ``-n N`` gets a scheduler of our own, xdist's load-scope
scheduler with every other test a unit of its own.

Every Node process the tests start shares one compile cache (``NODE_COMPILE_CACHE``).

Collection runs with Python's cyclic garbage collector off: importing about 440 test modules (each
assert-rewritten by pytest, which builds and drops large syntax trees) on top of a heap of hundreds
of megabytes triggers full collections that found nothing to free, about a third of the
collection's CPU in each pytest worker. It is back on before the first test runs.

Under xdist, each worker's embedded model (``pi_ai.api.local``, and ``pi`` processes started with
``tests.support.local_model.cache_env()``) gets the CPUs divided by the number of workers
(``PI_LOCAL_THREADS``; a value set by hand is kept): llama.cpp's threads wait for one another at
every layer, so two workers that each start one thread per CPU slow each other down.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.mcp_fork import fork_server

SLOW = "slow"
SAME_WORKER = frozenset(
    {
        "tests/pi_coding_agent/app/batch/test_ray.py",
        "tests/pi_ai/test_js_json_large.py",  # Node reads its 250 MB of long texts once
    }
)


def pytest_configure(config: pytest.Config) -> None:
    # Node (the oracle, Pi's CLIs, our TypeScript extension host) keeps the bytecode of the modules
    # it compiled here and reuses it in the next process: about a fifth less CPU per Node start,
    # and the suite starts Node hundreds of times. Sandboxes that pass a few variables on pass it.
    os.environ.setdefault("NODE_COMPILE_CACHE", str(Path.home() / ".cache" / "pi-for-python" / "node-compile-cache"))
    workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT", "")
    if workers.isdigit() and int(workers) > 1:
        cpus = len(os.sched_getaffinity(0))
        os.environ.setdefault("PI_LOCAL_THREADS", str(max(1, cpus // int(workers))))


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Generator[None, object, object]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return (yield)
    finally:
        if was_enabled:
            gc.enable()


@pytest.fixture(scope="module")
def forked_mcp_servers() -> Iterator[None]:
    """The module's stdio starts of ``tests.support.mcp_server`` are forked from one process that
    imported the MCP SDK once (``tests/support/mcp_fork.py``): about 0.8 CPU-s less a start, for
    about 1 CPU-s once. For modules that start the server several times (``usefixtures``)."""
    with fork_server():
        yield


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.get_closest_marker(SLOW) is None)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") != "load":
        return None  # a --dist chosen on the command line is kept
    from xdist.scheduler import LoadScopeScheduling

    class Scheduler(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return module if module in SAME_WORKER else nodeid

    return Scheduler(config, log)
