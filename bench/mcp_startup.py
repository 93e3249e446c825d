"""Start-up with three stdio MCP servers, ours against Pi 1.6, same run (issue 26).

Setup: PyPI's ``mcp-server-time`` (the MCP project's reference server, the one the
differential test uses) in its own virtual environment, installed once by
``tests.support.mcp_reference.time_server``. Each measured run gets a fresh agent dir whose
``mcp.json`` lists three copies of it (``time_a``, ``time_b``, ``time_c``, ``direct`` exposure,
so the first prompt waits for them) and whose ``models.json`` points at a scripted provider on
127.0.0.1.

Measured: launch of ``pi --no-session -p hi`` until the first request reaches the provider,
median of N fresh processes per CLI (after one warm-up each), ours and Pi 1.6's CLI
(``../shared/oracle/pi-cli-current``, ``PI_ORACLE_DIR`` honoured; offline, loopback only)
alternating. Each first request is checked: it must declare the three servers' tools
(``mcp__time_a__get_current_time``, ...), the same set for both CLIs (Pi 1.6 orders them by
which server connected first, ours as ``mcp.json`` lists them), so the time includes
the wait for the servers (a benchmark of a run that did not wait is no benchmark). Also
measured, for reference: both without ``mcp.json``, and the three servers alone (started
together, until each answered ``initialize`` and ``tools/list``), the floor under both.

Ours is ``.venv/bin/pi`` of this checkout, or, in a worktree without its own ``.venv``, this
interpreter running ``pi_coding_agent.app.cli`` from this checkout's ``src``.

Run: ``.venv/bin/python bench/mcp_startup.py [N] [--json]`` (default 3).
"""

from __future__ import annotations

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

from tests.support.mcp_reference import time_server  # noqa: E402

from _first_request import first_request, pi_current, sandbox  # noqa: E402

SERVERS = ("time_a", "time_b", "time_c")
LAUNCHER = "import sys; from pi_coding_agent.app.cli import main; sys.argv[0] = 'pi'; sys.exit(main())"


def _ours() -> tuple[list[str], dict[str, str]]:
    """Our command line and the environment it needs beyond the sandbox's."""
    script = REPO / ".venv" / "bin" / "pi"
    if script.exists():
        return [str(script)], {}
    return [sys.executable, "-c", LAUNCHER], {"PYTHONPATH": str(REPO / "src")}


def _mcp_json(server: str) -> dict[str, Any]:
    entry = {"command": server, "args": ["--local-timezone", "UTC"], "exposure": "direct"}
    return {"mcpServers": {name: dict(entry) for name in SERVERS}}


def _mcp_tools(body: dict[str, Any]) -> list[str]:
    names = (str(tool["function"]["name"]) for tool in body.get("tools") or [])
    return [name for name in names if name.startswith("mcp__")]


def timed(
    command: list[str], extra_env: dict[str, str], root: Path, server: str | None
) -> tuple[float, list[str]]:
    """Seconds from launch to the first request, and the MCP tools that request declares."""
    env, cwd, agent_dir = sandbox(root, {"retry": {"enabled": False}}, keep=("NODE_COMPILE_CACHE",))
    if server is not None:
        (agent_dir / "mcp.json").write_text(json.dumps(_mcp_json(server)), encoding="utf-8")
    env.update(extra_env)
    took, body, _ = first_request(command, "hi", env, cwd, agent_dir)
    return took, _mcp_tools(body)


_HANDSHAKE = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def servers_alone(server: str) -> float:
    """Seconds from starting the three servers together until each answered ``tools/list``:
    the floor under both CLIs' times with MCP (no CLI can declare the tools sooner)."""
    started = time.monotonic()
    processes = [
        subprocess.Popen(
            [server, "--local-timezone", "UTC"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        for _ in SERVERS
    ]
    try:
        for process in processes:
            assert process.stdin is not None
            process.stdin.write("".join(json.dumps(m) + "\n" for m in _HANDSHAKE).encode())
            process.stdin.flush()
        for process in processes:
            assert process.stdout is not None
            while True:
                line = process.stdout.readline()
                if not line:
                    raise RuntimeError(f"{server} closed its output before answering tools/list")
                if json.loads(line).get("id") == 2:
                    break
        return time.monotonic() - started
    finally:
        for process in processes:
            assert process.stdin is not None
            process.stdin.close()
            if process.wait(timeout=10) != 0:
                raise RuntimeError(f"{server} exited with {process.returncode}")


def measure(runs: int) -> dict[str, Any]:
    server = time_server()[0]
    load_before = [round(x, 2) for x in os.getloadavg()]
    ours, ours_env = _ours()
    pi = pi_current()
    seconds: dict[tuple[str, bool], list[float]] = {}
    tools: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory(prefix="mcp-startup-") as scratch:
        counter = 0
        for with_mcp in (False, True):
            for attempt in range(runs + 1):  # the first run of each is a warm-up
                for who, command, extra in (("ours", ours, ours_env), ("pi", pi, {})):
                    counter += 1
                    took, offered = timed(
                        command, extra, Path(scratch) / str(counter), server if with_mcp else None
                    )
                    if with_mcp:
                        _check_tools(who, offered)
                        tools[who] = offered
                    if attempt:
                        seconds.setdefault((who, with_mcp), []).append(took)
                if with_mcp:
                    alone = servers_alone(server)
                    if attempt:
                        seconds.setdefault(("servers", True), []).append(alone)
    # As a set: Pi 1.6 declares the servers' tools in the order the servers connected.
    if sorted(tools["ours"]) != sorted(tools["pi"]):
        raise SystemExit(f"the runs declare different MCP tools:\n ours {tools['ours']}\n pi   {tools['pi']}")
    rows: dict[str, dict[str, Any]] = {}
    for with_mcp, label in ((False, "no MCP"), (True, "3 stdio MCP servers")):
        mine, theirs = (statistics.median(seconds[who, with_mcp]) for who in ("ours", "pi"))
        rows[label] = {
            "ours": round(mine, 3),
            "pi": round(theirs, 3),
            "ratio": round(mine / theirs, 2),
            "ours_runs": [round(s, 3) for s in seconds["ours", with_mcp]],
            "pi_runs": [round(s, 3) for s in seconds["pi", with_mcp]],
        }
    floor = seconds["servers", True]
    rows["3 servers alone"] = {
        "seconds": round(statistics.median(floor), 3),
        "runs": [round(x, 3) for x in floor],
    }
    return {
        "runs": runs,
        "load_average_before": load_before,
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "tools": tools["ours"],
        "rows": rows,
    }


def _check_tools(who: str, offered: list[str]) -> None:
    """Every server's tools are in the first request: the run waited for all three."""
    for name in SERVERS:
        if not any(tool.startswith(f"mcp__{name}__") for tool in offered):
            raise SystemExit(f"{who}: the first request lacks the tools of {name}: {offered}")


def main(runs: int, as_json: bool) -> None:
    result = measure(runs)
    if as_json:
        print(json.dumps(result, indent=2))
        return
    print(f"MCP tools in the first request ({len(result['tools'])}): {', '.join(result['tools'])}")
    print(
        f"launch to first request, median of {runs} (s); load average {result['load_average_before']} -> {result['load_average_after']}"
    )
    print(f"{'':24}{'ours':>8}{'Pi 1.6':>8}{'ratio':>8}")
    for label, row in result["rows"].items():
        if "seconds" in row:
            print(f"{label:24}{row['seconds']:8.2f}  (initialize + tools/list, no CLI)")
        else:
            print(f"{label:24}{row['ours']:8.2f}{row['pi']:8.2f}{row['ratio']:8.2f}")


if __name__ == "__main__":
    arguments = [a for a in sys.argv[1:] if not a.startswith("--")]
    main(int(arguments[0]) if arguments else 3, "--json" in sys.argv)
