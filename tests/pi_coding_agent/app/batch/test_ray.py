"""The Ray backend on one local cluster (two CPUs, started once for this module): the task mix
with the same results as locally, a worker killed midway whose task Ray runs again, session
files shipped back to the driver, limits kept across workers, and ``pi batch --ray ADDRESS``.

``PI_BATCH_RAY_SCALE`` sets the number of tasks of the mix (default 60: six of each of its ten
kinds, spread over at least two workers; 200 took 25 more seconds of a test worker's time for
the same checks, and the 200-task scale is ``test_scale.py``'s, through the real process)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_coding_agent.app.batch import BatchOptions, BatchResult, ProviderLimit, RayOptions, run_batch
from pi_coding_agent.app.batch._layout import BatchLayout
from tests.pi_coding_agent.app.batch._mix import build_mix, check_result
from tests.pi_coding_agent.app.batch._support import (
    MODEL,
    Sandbox,
    Scripts,
    assert_pi_reads_them_alike,
    git_repo,
    make_sandbox,
    read_jsonl,
)
from tests.support.oracle import REPO

COUNT = int(os.environ.get("PI_BATCH_RAY_SCALE", "60"))

# One cluster: every test of this module runs on the same xdist worker (SAME_WORKER, tests/conftest.py).
pytestmark = [pytest.mark.oracle, pytest.mark.slow]


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A local cluster for the module; its address lets a ``pi batch --ray`` process join it."""
    # In the dev extra (tools/bootstrap.py dev installs it): never skipped for want of it. Imported
    # here, not at collection (about 1.6 CPU-s in every pytest worker, most of which never use it).
    import ray

    os.environ["RAY_AUTH_MODE"] = "disabled"  # a throwaway cluster on loopback, shared with child processes
    context = ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        yield str(context.address_info["address"])
    finally:
        ray.shutdown()
        os.environ.pop("RAY_AUTH_MODE", None)


def _options(sandbox: Sandbox, **ray_options: Any) -> BatchOptions:
    return BatchOptions(
        out=str(sandbox.root / "results.jsonl"),
        agent_dir=str(sandbox.agent_dir),
        cwd=str(sandbox.work),
        jobs=4,
        ray=RayOptions(cpus_per_task=0.5, **ray_options),
    )


@pytest.mark.timeout(600)
def test_the_task_mix_on_ray(cluster: str, tmp_path: Path) -> None:
    scripts = Scripts()
    sandbox, provider = make_sandbox(tmp_path, scripts)
    tasks, expected = build_mix(COUNT, sandbox.work, tmp_path / "repo", scripts)
    git_repo(tmp_path / "repo", {"README": "repo\n"})
    with provider:
        results = list(run_batch(tasks, _options(sandbox)))
    assert sorted(r.id for r in results) == sorted(expected)
    lines = read_jsonl(sandbox.root / "results.jsonl")
    assert sorted(line["id"] for line in lines) == sorted(expected)
    for line in lines:
        check_result(line, expected[line["id"]])
        assert line["attempt"] == 1
    workers = {line["worker"] for line in lines}
    assert len(workers) >= 2 and all(worker.split(":")[1] != str(os.getpid()) for worker in workers)
    sessions = tmp_path / "results.batch" / "sessions"
    assert not list((tmp_path / "results.batch").glob("finished/*.json"))  # recorded, so cleared
    assert_pi_reads_them_alike(sorted(sessions.rglob("*.jsonl")))


@pytest.mark.timeout(300)
def test_a_task_whose_worker_is_killed_runs_again(cluster: str, tmp_path: Path) -> None:
    reached = threading.Event()
    release = threading.Event()

    def before(task: str, turn: int) -> None:
        if task == "victim" and not reached.is_set():
            reached.set()
            release.wait(60)  # hold the first request until its worker is dead

    scripts = Scripts(by_task={"victim": [{"tool_calls": [{"id": "c", "name": "ls", "arguments": {}}]}, {"text": "survived"}],
                               "bystander": [{"text": "fine"}]}, before=before)
    sandbox, provider = make_sandbox(tmp_path, scripts)
    tasks = [{"id": name, "prompt": f"[task:{name}] go", "model": MODEL} for name in ("victim", "bystander")]
    layout = BatchLayout(str(tmp_path / "results.batch"))
    with provider:
        collected: list[BatchResult] = []
        runner = threading.Thread(target=lambda: collected.extend(run_batch(tasks, _options(sandbox))))
        runner.start()
        assert reached.wait(120), "the victim never asked the model"
        [first] = layout.attempts("victim")
        os.kill(int(first["worker"].rsplit(":", 1)[1]), signal.SIGKILL)
        release.set()
        runner.join(240)
    results = {r.id: r for r in collected}
    victim = results["victim"]
    assert (victim.status, victim.answer, victim.attempt) == ("ok", "survived", 2)
    second = layout.attempts("victim")[1]
    assert victim.worker == second["worker"] != first["worker"]
    assert results["bystander"].status == "ok" and results["bystander"].attempt == 1
    assert scripts.count("victim", 0) == 2 and scripts.count("victim", 1) == 1


@pytest.mark.timeout(300)
def test_shipped_sessions_and_cluster_wide_limits(cluster: str, tmp_path: Path) -> None:
    lock = threading.Lock()
    active, peak = [0], [0]

    def before(_task: str, _turn: int) -> None:
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.2)
        with lock:
            active[0] -= 1

    scripts = Scripts(default=[{"tool_calls": [{"id": "c", "name": "write", "arguments": {"path": "f.txt", "content": "x\n"}}]},
                               {"text": "done"}], before=before)
    sandbox, provider = make_sandbox(tmp_path, scripts)
    git_repo(tmp_path / "repo", {"README": "r\n"})
    tasks = [{"id": f"s{i}", "prompt": f"[task:s{i}] go", "model": MODEL, "repo": str(tmp_path / "repo")} for i in range(4)]
    options = _options(sandbox, ship_sessions=True)
    options.rate_limits = {"scripted-openai": ProviderLimit(concurrency=1)}
    with provider:
        results = list(run_batch(tasks, options))
    assert [r.status for r in results] == ["ok"] * 4 and peak[0] == 1
    for result in results:
        path = Path(result.session_file or "")
        assert path.parent == tmp_path / "results.batch" / "sessions" / result.id and path.is_file()
        worktree = Path(read_jsonl(path)[0]["cwd"])  # in the worker's scratch folder, gone with it
        assert worktree.parent.parent.name.startswith("pi-batch-worker-") and not worktree.exists()
        assert result.diff is not None and "+++ b/f.txt" in result.diff
    # The workers' scratch folders went with their attempts; nothing was written in the state folder but sessions.
    assert sorted(p.name for p in (tmp_path / "results.batch").iterdir()) == ["sessions"]
    assert_pi_reads_them_alike([Path(r.session_file or "") for r in results])


@pytest.mark.timeout(300)
def test_the_command_joins_a_running_cluster(cluster: str, tmp_path: Path) -> None:
    scripts = Scripts(default=[{"text": "from a worker"}])
    sandbox, provider = make_sandbox(tmp_path, scripts)
    task_file = tmp_path / "tasks.jsonl"
    task_file.write_text("".join(json.dumps({"id": f"c{i}", "prompt": f"[task:c{i}] go"}) + "\n" for i in range(3)))
    out = tmp_path / "results.jsonl"
    env = {**sandbox.env(), "RAY_AUTH_MODE": "disabled"}
    with provider:
        done = subprocess.run(
            [str(REPO / ".venv" / "bin" / "pi"), "batch", str(task_file), "--out", str(out), "--model", MODEL,
             "--ray", cluster, "--ray-cpus-per-task", "0.5"],
            cwd=sandbox.work, env=env, capture_output=True, text=True, timeout=240, check=False,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = read_jsonl(out)
    assert sorted((line["id"], line["status"], line["answer"]) for line in lines) == [
        (f"c{i}", "ok", "from a worker") for i in range(3)]
    assert all(int(line["worker"].rsplit(":", 1)[1]) != os.getpid() for line in lines)
