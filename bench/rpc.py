"""``pi --mode rpc``, ours against Pi 0.85 in the same run: round-trip latency and event throughput.

* **Round trip**: ``get_state`` sent and its answer read back, one at a time, ``--calls``
  times on a warm process (the first answers, startup included, are not counted): median
  and 95th percentile.
* **Event throughput**: one prompt whose answer streams ``--chunks`` text deltas from a
  scripted OpenAI-compatible server on 127.0.0.1 (prepared up front, sent as fast as the
  socket takes it): events written by the agent per second, from the prompt's answer to
  ``agent_settled``, and the CPU time the agent process spent on that prompt.

Both sides are driven by the same small asyncio client over pipes; each gets its own copy
of the scripted server and a throwaway agent folder. Ours is ``.venv/bin/pi``, Pi is 0.85
through ``../shared/oracle/pi-cli`` (offline, loopback only). Results are medians over
``--runs`` fresh processes.

Run: ``.venv/bin/python bench/rpc.py [--runs 3] [--calls 300] [--chunks 5000] [--json]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.support import oracle  # noqa: E402
from tests.support.scripted_provider import ScriptedProvider, models_json  # noqa: E402

OURS = [str(REPO / ".venv" / "bin" / "pi")]
MODEL = "scripted-openai/scripted-model"
WARMUP_CALLS = 20


def _pi_command() -> list[str] | None:
    folder = oracle.oracle_dir()
    if folder is None or not oracle.runtime_installed():
        return None
    return [str(folder / "pi-cli")]


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process and its waited-for children (Linux ``/proc``).

    ``pi-cli`` ``exec``\\ s node, so for Pi the pid is node's own."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(value) for value in fields[11:15])
    return ticks / os.sysconf("SC_CLK_TCK")


class Agent:
    """One ``--mode rpc`` process and the lines it writes."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.buffer = b""
        self.next_id = 0

    async def line(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        while b"\n" not in self.buffer:
            chunk = await self.process.stdout.read(1 << 16)
            if not chunk:
                raise RuntimeError("the agent closed its output")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return dict(json.loads(line))

    async def call(self, command: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.next_id += 1
        request_id = f"b{self.next_id}"
        self.process.stdin.write(json.dumps({**command, "id": request_id}).encode() + b"\n")
        await self.process.stdin.drain()
        while True:
            message = await self.line()
            if message.get("type") == "response" and message.get("id") == request_id:
                return message


@dataclass
class Result:
    median_ms: float
    p95_ms: float
    events_per_s: float
    events: int
    prompt_cpu_s: float


async def _one_run(command: list[str], base_url: str, calls: int) -> Result:
    with tempfile.TemporaryDirectory(prefix="pi-bench-rpc-") as folder:
        root = Path(folder)
        agent_dir, work = root / "agent", root / "work"
        agent_dir.mkdir()
        work.mkdir()
        (agent_dir / "models.json").write_text(json.dumps(models_json(base_url)), encoding="utf-8")
        (agent_dir / "settings.json").write_text(json.dumps({"retry": {"enabled": False}}), encoding="utf-8")
        env = {
            "PATH": os.environ.get("PATH", ""), "HOME": str(root), "PI_CODING_AGENT_DIR": str(agent_dir),
            "PI_ORACLE_HOME": str(oracle.oracle_home()),
        }
        process = await asyncio.create_subprocess_exec(
            *command, "--mode", "rpc", "--model", MODEL, "--no-session", cwd=work, env=env,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        )
        agent = Agent(process)
        try:
            for _ in range(WARMUP_CALLS):
                await agent.call({"type": "get_state"})
            times = []
            for _ in range(calls):
                started = time.perf_counter()
                await agent.call({"type": "get_state"})
                times.append((time.perf_counter() - started) * 1000)
            cpu_before = _cpu_seconds(process.pid)
            started = time.perf_counter()
            await agent.call({"type": "prompt", "message": "stream a long answer"})
            events = 0
            while (await agent.line()).get("type") != "agent_settled":
                events += 1
            elapsed = time.perf_counter() - started
            cpu = _cpu_seconds(process.pid) - cpu_before
        finally:
            if process.stdin is not None:
                process.stdin.close()
            await process.wait()
    times.sort()
    return Result(statistics.median(times), times[int(len(times) * 0.95) - 1], events / elapsed, events, cpu)


def _measure(command: list[str], runs: int, calls: int, chunks: int) -> Result:
    script = [{"text": "abcd" * chunks}]
    results = []
    for _ in range(runs):
        with ScriptedProvider(script) as provider:
            results.append(asyncio.run(_one_run(command, provider.base_url, calls)))
    return Result(
        statistics.median(r.median_ms for r in results),
        statistics.median(r.p95_ms for r in results),
        statistics.median(r.events_per_s for r in results),
        results[0].events,
        statistics.median(r.prompt_cpu_s for r in results),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--chunks", type=int, default=5000)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    pi = _pi_command()
    measured = {"ours": _measure(OURS, options.runs, options.calls, options.chunks)}
    if pi is not None:
        measured["pi"] = _measure(pi, options.runs, options.calls, options.chunks)
    if options.json:
        print(json.dumps({name: vars(result) for name, result in measured.items()}))
        return 0
    print(f"{'':24}{'ours':>12}{'pi 0.85':>12}{'ours/pi':>10}")
    for label, key, unit in (
        ("get_state median", "median_ms", "ms"),
        ("get_state p95", "p95_ms", "ms"),
        ("events per second", "events_per_s", "/s"),
        ("prompt CPU", "prompt_cpu_s", "s"),
    ):
        ours = getattr(measured["ours"], key)
        line = f"{label:24}{ours:>10.3f}{unit:>2}"
        if "pi" in measured:
            theirs = getattr(measured["pi"], key)
            line += f"{theirs:>10.3f}{unit:>2}{ours / theirs:>10.2f}"
        print(line)
    print(f"(events per streamed answer: ours {measured['ours'].events}"
          + (f", pi {measured['pi'].events})" if "pi" in measured else ")"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
