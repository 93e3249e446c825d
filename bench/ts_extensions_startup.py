"""Start-up with five published TypeScript extensions, ours against Pi 1.6, same run.

Setup (once, cached in ``~/.cache/pi-for-python/bench-npm/<key>``): five popular Pi packages
from npm (``PACKAGES``) installed with npm into one npm project laid out as Pi lays out
``<agent dir>/npm`` (``npm install <specs> --prefix ... --legacy-peer-deps``). Each measured run
gets a fresh agent dir whose ``npm`` folder links that project and whose settings list the five
as ``npm:name@version`` packages, as ``pi install`` leaves them, plus a ``models.json`` pointing
at a scripted provider on 127.0.0.1.

Measured: launch of ``pi --no-session -p hello`` until the first request reaches the provider,
median of N fresh processes per CLI (after one warm-up each), ours and Pi 1.6's CLI
(``../shared/oracle/pi-cli-current``, offline, loopback only) alternating. Each request is
checked: it offers the tools the five register (``subagent``, ``web_search``, ``mcp``, ...),
the same set for both (a benchmark of a broken run is no benchmark). Also measured: both
without any extension, which shows each CLI's own start; the ratio of interest is ours / Pi's
with the five.

``--interactive`` measures the terminal UI instead: launch of ``pi --no-session`` in a tmux
pane (100x30) until its first frame with the editor (two horizontal rules and the footer's
model name), then until the five packages' commands are offered (``/subag`` typed into the editor
offers ``subagent...``, a command of ``pi-subagents``), same alternation and medians.

``--phases`` also runs ours once with ``PI_TS_TIMING`` and prints where the time goes
(Python start, Node start, Pi library import, extension loading, round trips).

Run: ``.venv/bin/python bench/ts_extensions_startup.py [N] [--phases] [--interactive]``
(default 5).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
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

from tests.support.scripted_provider import ScriptedProvider, models_json  # noqa: E402

from _first_request import MODEL, first_request, pi_current, sandbox  # noqa: E402
from pi_coding_agent.core.node_runtime import cache_root  # noqa: E402

OURS = [str(REPO / ".venv" / "bin" / "pi")]
PACKAGES = [
    ("pi-subagents", "0.67.0"),
    ("pi-web-access", "0.28.0"),
    ("pi-mcp-adapter", "2.36.0"),
    ("pi-prompt-template-model", "0.12.2"),
    ("pi-aliases", "1.0.7"),
]


def _cache() -> Path:
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "pi-for-python" / "bench-npm"


def npm_project() -> Path:
    """The five packages installed into one npm project (Pi's ``<agent dir>/npm``), once."""
    specs = [f"{name}@{version}" for name, version in PACKAGES]
    folder = _cache() / hashlib.sha256(" ".join(specs).encode()).hexdigest()[:16]
    if (folder / "node_modules" / PACKAGES[-1][0] / "package.json").is_file():
        return folder
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("npm is needed to install the benchmark's packages")
    _cache().mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix="partial-", dir=_cache()))
    (staging / "package.json").write_text('{"name": "pi-extensions", "private": true}\n', encoding="utf-8")
    print(f"installing {' '.join(specs)} (once) ...", file=sys.stderr)
    subprocess.run(
        [npm, "install", *specs, "--prefix", str(staging), "--legacy-peer-deps", "--no-audit", "--no-fund"],
        cwd=staging,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    shutil.rmtree(folder, ignore_errors=True)
    os.replace(staging, folder)
    return folder


def _sandbox(root: Path, project: Path | None) -> tuple[dict[str, str], str, Path]:
    settings: dict[str, Any] = {"retry": {"enabled": False}}
    if project is not None:
        settings["packages"] = [f"npm:{name}@{version}" for name, version in PACKAGES]
    env, cwd, agent_dir = sandbox(root, settings)
    if project is not None:
        (agent_dir / "npm").symlink_to(project)
    env["PI_NODE_CACHE"] = str(cache_root())  # Node and Pi's libraries as installed on this machine
    return env, cwd, agent_dir


def _tools(body: dict[str, Any]) -> list[str]:
    return sorted(str(tool["function"]["name"]) for tool in body.get("tools") or [])


def timed(
    command: list[str], root: Path, project: Path | None, extra_env: dict[str, str] | None = None
) -> tuple[float, list[str], str]:
    """Seconds from launch to the first request, the tools it offers, and stderr."""
    env, cwd, agent_dir = _sandbox(root, project)
    env.update(extra_env or {})
    took, body, stderr = first_request(command, "hello", env, cwd, agent_dir)
    return took, _tools(body), stderr


def _editor_drawn(screen: str) -> bool:
    rules = [line for line in screen.split("\n") if line.startswith("──")]
    return len(rules) >= 2 and "scripted-model" in screen


def timed_tui(command: list[str], root: Path, project: Path | None) -> tuple[float, float]:
    """Seconds from launch to the first frame with the editor, and to the packages' commands
    offered when ``/subag`` is typed (with no packages: the same as the first)."""
    from tests.pi_coding_agent.app.interactive._tmux import TmuxPane

    env, cwd, agent_dir = _sandbox(root, project)
    env["TERM"] = "xterm-256color"
    with ScriptedProvider([{"text": "done"}]) as provider:
        (agent_dir / "models.json").write_text(json.dumps(models_json(provider.base_url)), encoding="utf-8")
        started = time.monotonic()
        pane = TmuxPane([*command, "--no-session", "--model", MODEL], Path(cwd), env)
        try:
            pane.wait_until(_editor_drawn, "the editor was never drawn", limit=300, poll=0.01)
            drawn = time.monotonic() - started
            if project is None:
                return drawn, drawn
            while True:  # "/subag" is typed until the completion list offers a package's command
                pane.type("/subag")
                try:
                    pane.wait_until(lambda s: "subagent" in s, "", limit=0.5, poll=0.01)
                    break
                except AssertionError:
                    if time.monotonic() - started > 300:
                        raise RuntimeError(f"{command[0]}: the packages' commands never showed") from None
                    pane.send("C-u")
            return drawn, time.monotonic() - started
        finally:
            pane.close()


def main_tui(runs: int) -> None:
    project = npm_project()
    pi = pi_current()
    results: dict[tuple[str, bool], list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="ts-startup-tui-") as scratch:
        counter = 0
        for with_extensions in (False, True):
            for attempt in range(runs + 1):  # the first run of each is a warm-up
                for who, command in (("ours", OURS), ("pi", pi)):
                    counter += 1
                    measured = timed_tui(command, Path(scratch) / str(counter), project if with_extensions else None)
                    if attempt:
                        results.setdefault((who, with_extensions), []).append(measured)
    print(f"interactive: launch to the first editor frame / to the packages' commands, median of {runs} (s)")
    print(f"{'':28}{'ours':>8}{'Pi 1.6':>8}{'ratio':>8}")
    for with_extensions, label in ((False, "no extensions"), (True, "5 TypeScript packages")):
        for index, what in ((0, "editor"), (1, "commands")) if with_extensions else ((0, "editor"),):
            ours = statistics.median(m[index] for m in results[("ours", with_extensions)])
            theirs = statistics.median(m[index] for m in results[("pi", with_extensions)])
            print(f"{label + ', ' + what:28}{ours:8.2f}{theirs:8.2f}{ours / theirs:8.2f}")


def main(runs: int, phases: bool) -> None:
    project = npm_project()
    pi = pi_current()
    results: dict[tuple[str, bool], list[float]] = {}
    tools: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory(prefix="ts-startup-") as scratch:
        counter = 0
        for with_extensions in (False, True):
            for attempt in range(runs + 1):  # the first run of each is a warm-up
                for who, command in (("ours", OURS), ("pi", pi)):
                    counter += 1
                    seconds, offered, _ = timed(
                        command, Path(scratch) / str(counter), project if with_extensions else None
                    )
                    if with_extensions:
                        tools[who] = offered
                    if attempt:
                        results.setdefault((who, with_extensions), []).append(seconds)
        if tools["ours"] != tools["pi"]:
            raise SystemExit(f"the runs offer different tools:\n ours {tools['ours']}\n pi   {tools['pi']}")
        print(f"tools offered with the five packages ({len(tools['ours'])}): {', '.join(tools['ours'])}")
        print(f"launch to first request, median of {runs} (s)")
        print(f"{'':28}{'ours':>8}{'Pi 1.6':>8}{'ratio':>8}")
        for with_extensions, label in ((False, "no extensions"), (True, "5 TypeScript packages")):
            ours = statistics.median(results[("ours", with_extensions)])
            theirs = statistics.median(results[("pi", with_extensions)])
            print(f"{label:28}{ours:8.2f}{theirs:8.2f}{ours / theirs:8.2f}")
        if phases:
            counter += 1
            _, _, stderr = timed(OURS, Path(scratch) / str(counter), project, {"PI_TS_TIMING": "launch"})
            print("\nours, where the time goes (PI_TS_TIMING, seconds since launch):")
            for line in stderr.splitlines():
                if line.startswith("[ts-timing]"):
                    print(" ", line)


if __name__ == "__main__":
    arguments = [a for a in sys.argv[1:] if not a.startswith("--")]
    if "--interactive" in sys.argv:
        main_tui(int(arguments[0]) if arguments else 5)
    else:
        main(int(arguments[0]) if arguments else 5, "--phases" in sys.argv)
