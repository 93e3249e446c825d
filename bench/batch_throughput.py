#!/usr/bin/env python3
"""Throughput of ``pi batch`` with 1, 2 and 4 workers, locally and on Ray, against a provider
that takes a fixed time per response; and, side by side in the same run, what people do
without it: a pool of ``pi -p`` processes, ours and Pi 0.85's (through the oracle's ``pi-cli``).

    .venv/bin/python bench/batch_throughput.py [--tasks 64] [--delay 0.25] [--workers 1,2,4]
                                               [--pi-tasks 8] [--no-ray] [--no-pi] [--json]

Each task is one prompt answered by one response that the provider holds for ``--delay``
seconds (a model that is slow, not a machine that is busy). For each run:

* tasks/s = tasks / wall time of the whole command (process start to exit);
* overhead = wall * workers / tasks - delay: the time a worker spends per task on anything
  but waiting for the model (startup amortized in);
* steady overhead: the same from the first request to the last response, startup left out.

Ray runs join one local cluster started here (``--ray ADDRESS``), so its start is not counted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.support import oracle  # noqa: E402
from tests.support.scripted_provider import ScriptedProvider, models_json  # noqa: E402

OUR_PI = str(REPO / ".venv" / "bin" / "pi")
MODEL = "scripted-openai/scripted-model"


def _provider(delay: float) -> ScriptedProvider:
    def route(_body: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
        time.sleep(delay)
        return "", [{"text": "done"}]

    return ScriptedProvider([], route=route)


def _sandbox(root: Path, base_url: str) -> dict[str, str]:
    agent = root / "agent"
    agent.mkdir(parents=True)
    (root / "work").mkdir()
    (agent / "models.json").write_text(json.dumps(models_json(base_url)))
    (agent / "settings.json").write_text(json.dumps({"retry": {"enabled": False}}))
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "TMPDIR")}
    return {**keep, "HOME": str(root), "PI_CODING_AGENT_DIR": str(agent), "RAY_AUTH_MODE": "disabled",
            "PI_ORACLE_HOME": str(oracle.oracle_home())}  # HOME is the sandbox: say where Pi's runtime is


def _measure(provider: ScriptedProvider, run: Any, tasks: int, workers: int, delay: float) -> dict[str, float]:
    provider.first_request_at = None
    started = time.monotonic()
    run()
    wall = time.monotonic() - started
    steady = (provider.last_response_done or 0) - (provider.first_request_at or 0)
    print(f"  {workers} workers: {tasks / wall:.2f} tasks/s", file=sys.stderr, flush=True)
    return {
        "workers": workers,
        "tasks": tasks,
        "wall_s": round(wall, 3),
        "tasks_per_s": round(tasks / wall, 2),
        "overhead_ms": round((wall * workers / tasks - delay) * 1000, 1),
        "steady_overhead_ms": round((steady * workers / tasks - delay) * 1000, 1),
    }


def _batch(root: Path, env: dict[str, str], tasks: int, workers: int, ray: str | None) -> None:
    folder = Path(tempfile.mkdtemp(dir=root))
    task_file = folder / "tasks.jsonl"
    task_file.write_text("".join(json.dumps({"id": f"t{i}", "prompt": f"task {i}"}) + "\n" for i in range(tasks)))
    command = [OUR_PI, "batch", str(task_file), "--out", str(folder / "results.jsonl"), "--model", MODEL,
               "--jobs", str(workers), "--no-progress"]
    if ray is not None:
        command += ["--ray", ray, "--ray-cpus-per-task", "1"]
    done = subprocess.run(command, cwd=root / "work", env=env, capture_output=True, text=True, check=False)
    lines = (folder / "results.jsonl").read_text().splitlines()
    if done.returncode != 0 or len(lines) != tasks:
        raise RuntimeError(f"pi batch failed ({done.returncode}): {done.stderr[-2000:]}")


def _print_pool(root: Path, env: dict[str, str], command: list[str], tasks: int, workers: int) -> None:
    def one(index: int) -> None:
        done = subprocess.run([*command, "--no-session", "--model", MODEL, "-p", f"task {index}"], cwd=root / "work",
                              env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{command[0]} -p failed: {done.stderr[-2000:]}")

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(one, range(tasks)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=64)
    parser.add_argument("--delay", type=float, default=0.25)
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--pi-tasks", type=int, default=8)
    parser.add_argument("--no-ray", action="store_true")
    parser.add_argument("--no-pi", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    workers = [int(w) for w in args.workers.split(",")]
    report: dict[str, list[dict[str, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="pi-bench-batch-") as folder, _provider(args.delay) as provider:
        root = Path(folder)
        env = _sandbox(root, provider.base_url)
        print("pi batch (local)", file=sys.stderr)
        rows = report.setdefault("pi batch (local)", [])
        for count in workers:
            rows.append(_measure(provider, lambda c=count: _batch(root, env, args.tasks, c, None), args.tasks, count, args.delay))
        if not args.no_ray:
            import ray

            os.environ["RAY_AUTH_MODE"] = "disabled"
            context = ray.init(num_cpus=max(workers), include_dashboard=False, log_to_driver=False, configure_logging=False)
            address = str(context.address_info["address"])
            try:
                _batch(root, env, max(workers), max(workers), address)  # warm the workers up once
                print("pi batch --ray", file=sys.stderr)
                rows = report.setdefault("pi batch --ray", [])
                for count in workers:
                    rows.append(_measure(provider, lambda c=count: _batch(root, env, args.tasks, c, address),
                                         args.tasks, count, args.delay))
            finally:
                ray.shutdown()
        pools = [("pi -p pool (ours)", [OUR_PI])]
        pi_folder = oracle.oracle_dir()
        if not args.no_pi and pi_folder is not None and oracle.runtime_installed():
            pools.append(("pi -p pool (Pi 0.85)", [str(pi_folder / "pi-cli")]))
        for name, command in pools:
            print(name, file=sys.stderr)
            rows = report.setdefault(name, [])
            for count in workers:
                rows.append(_measure(provider, lambda c=count, cmd=command: _print_pool(root, env, cmd, args.pi_tasks, c),
                                     args.pi_tasks, count, args.delay))
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{args.tasks} tasks for pi batch, {args.pi_tasks} for the pi -p pools; {args.delay:g} s per response")
    print(f"{'runner':24} {'workers':>7} {'tasks/s':>8} {'overhead ms':>12} {'steady ms':>10}")
    for name, rows in report.items():
        for row in rows:
            print(f"{name:24} {row['workers']:>7} {row['tasks_per_s']:>8} {row['overhead_ms']:>12} {row['steady_overhead_ms']:>10}")
    pi_rows = report.get("pi -p pool (Pi 0.85)")
    if pi_rows:
        for ours in report["pi batch (local)"]:
            theirs = next(row for row in pi_rows if row["workers"] == ours["workers"])
            print(f"pi batch vs Pi's pi -p pool, {ours['workers']} workers: {ours['tasks_per_s'] / theirs['tasks_per_s']:.1f}x the tasks/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
