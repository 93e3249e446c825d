"""``pi batch TASKS.jsonl --out RESULTS.jsonl [options]`` (``docs/batch.md``).

Exit status: 0 when every task ended ``ok``; 1 when some ended otherwise (their results say
why); 2 when nothing ran because the input is unusable (each problem one line, naming file
and line); 130/143 when interrupted (the unfinished tasks run on the next call).
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from typing import Any, NoReturn

from pi_coding_agent.app.batch._execute import INTERRUPTED_MODES
from pi_coding_agent.app.batch._limits import merge_limits
from pi_coding_agent.app.batch._options import BatchError, BatchOptions, RayOptions
from pi_coding_agent.app.batch._progress import ProgressDisplay
from pi_coding_agent.app.batch._results_file import ResultsFileError
from pi_coding_agent.app.batch._runner import BatchRun
from pi_coding_agent.app.batch._task_file import TaskFileError, read_task_file

_MAX_PROBLEMS_SHOWN = 20


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"Error: {message} (see pi batch --help)\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="pi batch",
        description="Run every task of a JSONL file as its own headless agent session (docs/batch.md).",
    )
    parser.add_argument("tasks", metavar="TASKS.jsonl", help="one task object a line")
    parser.add_argument(
        "-o",
        "--out",
        required=True,
        metavar="RESULTS.jsonl",
        help="results, one line a task (appended; a re-run skips finished tasks)",
    )
    parser.add_argument("-j", "--jobs", type=_positive_int, default=4, help="tasks at once (default 4)")
    parser.add_argument(
        "--state-dir",
        metavar="DIR",
        help="sessions, worktrees and attempts (default: RESULTS.batch beside --out)",
    )
    parser.add_argument(
        "--session-dir", metavar="DIR", help="where session files go (default: STATE/sessions)"
    )
    defaults = parser.add_argument_group("defaults for tasks that do not set them")
    defaults.add_argument("--model", help="provider/id[:thinking]")
    defaults.add_argument("--thinking", choices=("off", "minimal", "low", "medium", "high", "xhigh"))
    defaults.add_argument("--tools", type=_names, metavar="A,B,...", help="only these tools ('' for none)")
    defaults.add_argument("--timeout", type=float, metavar="SECONDS", help="wall time per task")
    defaults.add_argument(
        "--budget-tokens", type=_positive_int, metavar="N", help="stop a task after N tokens"
    )
    defaults.add_argument(
        "--budget-cost", type=float, metavar="USD", help="stop a task after this many dollars"
    )
    trust = defaults.add_mutually_exclusive_group()
    trust.add_argument(
        "-a",
        "--approve",
        dest="approve",
        action="store_true",
        default=None,
        help="trust each task's project (.pi settings, skills, prompts); "
        "default: only a decision saved for its own folder",
    )
    trust.add_argument(
        "-na",
        "--no-approve",
        dest="approve",
        action="store_false",
        help="ignore each task's project .pi resources, even with a saved trust decision",
    )
    runs = parser.add_argument_group("re-runs and limits")
    runs.add_argument(
        "--interrupted",
        choices=INTERRUPTED_MODES,
        default="restart",
        help="a task cut off by a crash: start it clean (default) or resume its session",
    )
    runs.add_argument(
        "--retry-failed", action="store_true", help="also run again tasks whose last result is not ok"
    )
    runs.add_argument(
        "--skip-invalid", action="store_true", help="run the valid tasks when some lines are bad"
    )
    runs.add_argument(
        "--keep-worktrees", action="store_true", help="keep the scratch checkouts of repo tasks"
    )
    runs.add_argument(
        "--rate-limit",
        action="append",
        default=[],
        metavar="PROVIDER=N[/min|/s]",
        help="requests at once (N) or per minute/second for a provider (repeatable)",
    )
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument(
        "--progress",
        dest="progress",
        action="store_true",
        default=None,
        help="show progress even when stderr is not a terminal",
    )
    shown.add_argument("--no-progress", dest="progress", action="store_false", help="show no progress")
    ray = parser.add_argument_group("Ray (pip install 'pi-for-python[ray]')")
    ray.add_argument(
        "--ray",
        nargs="?",
        const="",
        metavar="ADDRESS",
        help="run tasks as Ray tasks: on the cluster at ADDRESS ('auto', ray://host:port), else on a local cluster started for the run",
    )
    ray.add_argument(
        "--ray-max-retries",
        type=int,
        default=3,
        metavar="N",
        help="runs of a task whose worker died (default 3)",
    )
    ray.add_argument(
        "--ray-cpus-per-task",
        type=float,
        default=1.0,
        metavar="N",
        help="CPUs Ray reserves per task (default 1)",
    )
    ray.add_argument(
        "--ray-local-cpus",
        type=_positive_int,
        metavar="N",
        help="CPUs of a local cluster started for the run",
    )
    ray.add_argument(
        "--ray-ship-sessions",
        action="store_true",
        help="workers send session files back (no shared state folder)",
    )
    return parser


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, not {text}")
    return value


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def _task_defaults(args: argparse.Namespace) -> dict[str, Any]:
    defaults: dict[str, Any] = {}
    for key in ("model", "thinking", "tools", "timeout", "approve"):
        if getattr(args, key) is not None:
            defaults[key] = getattr(args, key)
    budget = {k: v for k, v in (("tokens", args.budget_tokens), ("cost", args.budget_cost)) if v is not None}
    if budget:
        defaults["budget"] = budget
    return defaults


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    try:
        limits = merge_limits(args.rate_limit)
    except ValueError as error:
        print(f"Error: {error}", file=sys.stderr)
        return 2
    try:
        loaded = read_task_file(args.tasks, _task_defaults(args))
    except TaskFileError as error:
        return _refuse(error)
    display = ProgressDisplay(enabled=args.progress)
    options = BatchOptions(
        out=args.out,
        state_dir=args.state_dir,
        session_dir=args.session_dir,
        jobs=args.jobs,
        interrupted=args.interrupted,
        retry_failed=args.retry_failed,
        skip_invalid=args.skip_invalid,
        keep_worktrees=args.keep_worktrees,
        rate_limits=limits,
        ray=_ray_options(args),
        on_progress=display.update,
    )
    try:
        run = BatchRun(loaded, options)
        for problem in run.invalid:
            print(f"Warning: skipped {problem}", file=sys.stderr)
        return asyncio.run(_run(run, display))
    except TaskFileError as error:
        return _refuse(error)
    except (ResultsFileError, BatchError) as error:
        print(f"Error: {error}", file=sys.stderr)
        return 2


def _ray_options(args: argparse.Namespace) -> RayOptions | None:
    if args.ray is None:
        return None
    return RayOptions(
        address=args.ray or None,
        max_retries=args.ray_max_retries,
        cpus_per_task=args.ray_cpus_per_task,
        ship_sessions=args.ray_ship_sessions,
        local_cpus=args.ray_local_cpus,
    )


def _refuse(error: TaskFileError) -> int:
    for problem in error.problems[:_MAX_PROBLEMS_SHOWN]:
        print(f"Error: {problem}", file=sys.stderr)
    hidden = len(error.problems) - _MAX_PROBLEMS_SHOWN
    if hidden > 0:
        print(f"Error: ... and {hidden} more problems", file=sys.stderr)
    print("Nothing was run (fix the tasks, or pass --skip-invalid to run the others).", file=sys.stderr)
    return 2


async def _run(run: BatchRun, display: ProgressDisplay) -> int:
    loop = asyncio.get_running_loop()
    main = asyncio.current_task()
    assert main is not None
    received: list[int] = []

    def interrupt(code: int) -> None:
        if not received:
            received.append(code)
            main.cancel()

    for signum, code in ((signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)):
        loop.add_signal_handler(signum, interrupt, code)
    try:
        async for _result in run:
            pass
    except asyncio.CancelledError:
        if not received:
            raise
        display.finish(run.stats)
        unfinished = run.stats.remaining
        print(
            f"pi batch: interrupted; {unfinished} unfinished tasks run when the same command runs again",
            file=sys.stderr,
        )
        return received[0]
    display.finish(run.stats)
    return 0 if run.stats.failed == 0 else 1
