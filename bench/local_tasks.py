#!/usr/bin/env python3
"""Thirty small coding tasks, solved offline by a local model: our ``pi`` against Pi 0.85, one run.

    .venv/bin/python bench/local_tasks.py [--model qwen2.5-coder-1.5b] [--agents ours,pi]
                                          [--split tuned|held_out|all] [--tasks fix-bug,create-file]
                                          [--timeout 900] [--json] [--log-dir DIR]

The tasks come in two fixed parts (``_local_tasks_data.py``): ``tuned`` (aids may be tuned on
them) and ``held_out`` (never looked at while tuning aids); the report gives each part apart.

Each task (``_local_tasks_data.py``) starts from a few files in a throwaway folder and is checked
by a script afterwards (the files, or the number in the printed answer). The agents:

- **ours**: ``./pi -p TASK --model local/<model>``: the embedded model, in process, with
  grammar-constrained tool calls.
- **pi**: Pi 0.85's own CLI (``../shared/oracle/pi-cli``) with a temporary agent folder whose
  ``models.json`` points at llama-cpp-python's OpenAI server on 127.0.0.1, serving the same GGUF
  file with the same context size. Pi cannot talk to that server directly (the server's chat
  template fails on list-form user content and it rejects ``content: null``), so a small proxy
  on 127.0.0.1 rewrites those two things in each request and nothing else.

Tasks alternate between the agents so both see the same machine load. Reported per task: solved,
wall seconds, tokens (prefill: prompt tokens evaluated; decode: tokens generated; cached: prompt
tokens reused from the cache, summed over the task's turns as each agent's usage reports them) and
decoded tokens per wall second; then the totals. The model files
and runtime come from pi's own cache (``python -m pi_coding_agent.core.local_model setup MODEL``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "bench"))

from _local_tasks_data import SPLITS, TASKS, Task  # noqa: E402
from _openai_fixup_proxy import FixupProxy  # noqa: E402
from pi_coding_agent.core.local_model import (  # noqa: E402
    RuntimeSpec,
    StderrProgress,
    ensure_model_file,
    find_spec,
    install_runtime,
)

PI_CLI = Path(os.environ.get("PI_ORACLE_DIR") or REPO.parent / "shared" / "oracle") / "pi-cli"
"""``PI_ORACLE_DIR`` (as the tests honour it) names the oracle folder when it is not beside the
repository (a git worktree, another checkout)."""


@dataclass
class Outcome:
    agent: str
    task: str
    solved: bool
    wall_s: float
    output_tokens: int
    prefill_tokens: int
    cached_tokens: int
    turns: int
    note: str = ""

    @property
    def tokens_per_s(self) -> float:
        return self.output_tokens / self.wall_s if self.wall_s else 0.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _answer_and_usage(jsonl: str) -> tuple[str, int, int, int, int]:
    """(last assistant text, output tokens, prefilled prompt tokens, cached prompt tokens, assistant
    turns) from ``--mode json``."""
    answer, output, prefill, cached, turns = "", 0, 0, 0, 0
    for line in jsonl.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        message = event.get("message") if event.get("type") == "message_end" else None
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        turns += 1
        usage = message.get("usage") or {}
        output += int(usage.get("output") or 0)
        prefill += int(usage.get("input") or 0)
        cached += int(usage.get("cacheRead") or 0)
        texts = [block.get("text", "") for block in message.get("content", []) if block.get("type") == "text"]
        if texts:
            answer = "\n".join(texts)
    return answer, output, prefill, cached, turns


def _run_agent(
    agent: str, command: list[str], task: Task, env: dict[str, str], *, timeout: float, log_dir: Path | None
) -> tuple[Outcome, str]:
    folder = Path(tempfile.mkdtemp(prefix=f"local-task-{task.name}-"))
    for name, text in task.files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    started = time.monotonic()
    note = ""
    try:
        result = subprocess.run(
            [*command, "--mode", "json", "--no-session", "-p", task.prompt],
            cwd=folder, env=env, capture_output=True, text=True, timeout=timeout, check=False,
        )
        stdout, code = result.stdout, result.returncode
        if code != 0:
            note = f"exit {code}: {(result.stderr.strip().splitlines() or [''])[-1][:120]}"
    except subprocess.TimeoutExpired as expired:
        stdout = expired.stdout.decode() if isinstance(expired.stdout, bytes) else (expired.stdout or "")
        note = f"timed out after {timeout:.0f}s"
    wall = time.monotonic() - started
    if log_dir is not None:
        log_dir.mkdir(parents=True, exist_ok=True)
        (log_dir / f"{task.name}.{agent}.jsonl").write_text(stdout)
    answer, output, prefill, cached, turns = _answer_and_usage(stdout)
    solved = task.check(folder, answer)
    shutil.rmtree(folder, ignore_errors=True)
    return Outcome(agent, task.name, solved, round(wall, 1), output, prefill, cached, turns, note), answer


class LlamaServer:
    """llama-cpp-python's OpenAI server with pi's runtime build, on 127.0.0.1."""

    def __init__(self, runtime: Path, model_path: Path, n_ctx: int, model_alias: str) -> None:
        self.port = _free_port()
        launcher = (
            "import runpy, sys; "
            f"sys.path.insert(0, {str(runtime / 'first')!r}); sys.path.append({str(runtime / 'deps')!r}); "
            "sys.argv[0] = 'llama_cpp.server'; runpy.run_module('llama_cpp.server', run_name='__main__')"
        )
        threads = str(len(os.sched_getaffinity(0)))
        self.process = subprocess.Popen(
            [sys.executable, "-c", launcher, "--model", str(model_path), "--model_alias", model_alias,
             "--n_ctx", str(n_ctx), "--n_threads", threads, "--n_threads_batch", threads,
             "--host", "127.0.0.1", "--port", str(self.port)],
            env={**os.environ, "OMP_WAIT_POLICY": "PASSIVE"},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited with {self.process.returncode}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/v1/models", timeout=5):
                    return
            except OSError:
                time.sleep(1)
        raise RuntimeError("llama_cpp.server did not start within 300 s")

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()


def _pi_agent_dir(proxy_port: int, model_id: str, context_window: int, max_tokens: int) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="local-tasks-pi-agent-"))
    models = {
        "providers": {
            "llama-cpp-python": {
                "baseUrl": f"http://127.0.0.1:{proxy_port}/v1",
                "api": "openai-completions",
                "apiKey": "none",
                "compat": {"supportsDeveloperRole": False, "supportsStore": False, "maxTokensField": "max_tokens"},
                "models": [
                    {"id": model_id, "contextWindow": context_window, "maxTokens": max_tokens, "input": ["text"]}
                ],
            }
        }
    }
    (folder / "models.json").write_text(json.dumps(models, indent=2))
    return folder


_COLUMNS = f"{'solved':>7}{'wall s':>8}{'prefill':>8}{'decode':>7}{'cached':>7}{'tok/s':>6}"


def _cells(found: Outcome | None) -> str:
    if found is None:
        return " " * len(_COLUMNS)
    return (
        f"{('yes' if found.solved else 'no'):>7}{found.wall_s:>8.1f}{found.prefill_tokens:>8}"
        f"{found.output_tokens:>7}{found.cached_tokens:>7}{found.tokens_per_s:>6.1f}"
    )


def _print_table(outcomes: list[Outcome], agents: list[str]) -> None:
    """One row per task, each agent's columns side by side (tokens: prefill, decode, cached)."""
    print(f"{'':<17}" + "".join(f"{agent:<{len(_COLUMNS)}}" for agent in agents))
    print(f"{'task':<17}" + _COLUMNS * len(agents))
    for task in dict.fromkeys(outcome.task for outcome in outcomes):
        row = f"{task:<17}"
        for agent in agents:
            row += _cells(next((o for o in outcomes if o.task == task and o.agent == agent), None))
        print(row)
    for agent in agents:
        mine = [o for o in outcomes if o.agent == agent]
        wall = sum(o.wall_s for o in mine)
        tokens = sum(o.output_tokens for o in mine)
        print(
            f"{agent}: {sum(o.solved for o in mine)}/{len(mine)} solved, {wall:.0f} s wall, "
            f"tokens: {sum(o.prefill_tokens for o in mine)} prefill, {tokens} decode "
            f"({tokens / wall if wall else 0:.1f}/s), {sum(o.cached_tokens for o in mine)} cached"
        )


def _chosen_tasks(split: str, names: str) -> list[Task]:
    wanted = [name for name in names.split(",") if name]
    return [task for task in TASKS if split in ("all", task.split) and (not wanted or task.name in wanted)]


def _print_split_tables(outcomes: list[Outcome], agents: list[str]) -> None:
    """One table per split, so the held-out figure is never mixed into the tuned one."""
    split_of = {task.name: task.split for task in TASKS}
    for split in SPLITS:
        part = [outcome for outcome in outcomes if split_of[outcome.task] == split]
        if part:
            print(f"\n== {split} ({len({outcome.task for outcome in part})} tasks) ==")
            _print_table(part, agents)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--agents", default="ours,pi")
    parser.add_argument("--split", choices=(*SPLITS, "all"), default="all", help="which part of the tasks to run")
    parser.add_argument("--tasks", default="")
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--log-dir", type=Path, help="keep each run's --mode json output here")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the server too when terminated
    spec = find_spec(args.model)
    if spec is None:
        parser.error(f"unknown embedded model {args.model}")
    agents = [agent.strip() for agent in args.agents.split(",") if agent.strip()]
    chosen = _chosen_tasks(args.split, args.tasks)
    progress = StderrProgress()
    model_path = ensure_model_file(spec, progress)

    ours_agent_dir = Path(tempfile.mkdtemp(prefix="local-tasks-ours-agent-"))
    ours_env = {**os.environ, "PI_CODING_AGENT_DIR": str(ours_agent_dir)}
    ours_command = [str(REPO / "pi"), "--model", f"local/{spec.id}"]
    server = proxy = None
    pi_env: dict[str, str] = {}
    if "pi" in agents:
        # Pi's side: llama-cpp-python's server from the source build (ours loads its own runtime).
        runtime = install_runtime(RuntimeSpec(), progress)
        server = LlamaServer(runtime, model_path, spec.context_window, spec.id)
        proxy = FixupProxy(server.port)
        pi_agent_dir = _pi_agent_dir(proxy.port, spec.id, spec.context_window, spec.max_tokens)
        pi_env = {**os.environ, "PI_CODING_AGENT_DIR": str(pi_agent_dir)}
    outcomes: list[Outcome] = []
    try:
        for task in chosen:
            for agent in agents:
                if agent == "ours":
                    outcome, answer = _run_agent("ours", ours_command, task, ours_env, timeout=args.timeout, log_dir=args.log_dir)
                else:
                    assert proxy is not None
                    before = proxy.streamed_chunks
                    command = [str(PI_CLI), "--model", f"llama-cpp-python/{spec.id}"]
                    outcome, answer = _run_agent("pi", command, task, pi_env, timeout=args.timeout, log_dir=args.log_dir)
                    if not outcome.output_tokens:  # the server sends no usage: one chunk per token
                        outcome.output_tokens = proxy.streamed_chunks - before
                outcomes.append(outcome)
                print(
                    f"{agent:>4} {task.name:<16} {'solved' if outcome.solved else 'FAILED'} {outcome.wall_s:>6.1f}s "
                    f"{outcome.turns} turns, tokens {outcome.prefill_tokens} prefill {outcome.output_tokens} decode "
                    f"{outcome.cached_tokens} cached {outcome.note} | {answer[:80]!r}",
                    file=sys.stderr, flush=True,
                )
    finally:
        if proxy is not None:
            proxy.close()
        if server is not None:
            server.close()
    if args.json:
        split_of = {task.name: task.split for task in TASKS}
        print(json.dumps(
            [asdict(o) | {"split": split_of[o.task], "tokens_per_s": round(o.tokens_per_s, 2)} for o in outcomes],
            indent=2,
        ))
    else:
        print(f"model: {spec.name}; {len(chosen)} tasks; timeout {args.timeout:.0f}s per task")
        _print_split_tables(outcomes, agents)
    return 0


if __name__ == "__main__":
    sys.exit(main())
