"""Start-up with twenty skills and twenty prompt templates, ours against Pi 0.85, same run.

Both CLIs get the same agent dir: ``skills/skill-NN/SKILL.md`` (a name, a description, a
body of a few lines) and ``prompts/template-NN.md`` (frontmatter and arguments), and run
``pi -p "/template-07 some args"`` against a scripted provider on 127.0.0.1. Measured:
launch until the first request reaches the provider (median of N fresh processes, after
one warm-up each). The same is measured without resources, so the table shows what the
resources themselves cost each CLI. Each run's request is checked: the skills section is
in the system prompt and the template was expanded (a benchmark of a broken run is no
benchmark).

Ours is ``.venv/bin/pi``; Pi is the real 0.85 CLI through ``../shared/oracle/pi-cli``
(offline, loopback-only). Goal: ours at most 1/3 of Pi's.

Run: ``.venv/bin/python bench/resources_startup.py [N]`` (default 7).
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

from tests.support import oracle  # noqa: E402
from tests.support.scripted_provider import ScriptedProvider, models_json  # noqa: E402

OURS = [str(REPO / ".venv" / "bin" / "pi")]
COUNT = 20


def _pi_command() -> list[str] | None:
    folder = oracle.oracle_dir()
    if folder is None or not oracle.runtime_installed():
        return None
    return [str(folder / "pi-cli")]


def write_resources(agent_dir: Path) -> None:
    for index in range(COUNT):
        skill = agent_dir / "skills" / f"skill-{index:02d}"
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text(
            f"---\nname: skill-{index:02d}\ndescription: Does task number {index} for the project. "
            f"Use when the user asks for task {index}.\n---\n\n# Skill {index}\n\nStep one.\nStep two.\n",
            encoding="utf-8",
        )
        prompts = agent_dir / "prompts"
        prompts.mkdir(exist_ok=True)
        (prompts / f"template-{index:02d}.md").write_text(
            f"---\ndescription: Template {index}\nargument-hint: <what>\n---\n"
            f"Template {index}: do $1 with ${{2:-care}}; all: $@\n",
            encoding="utf-8",
        )


def timed_first_request(
    command: list[str], env: dict[str, str], cwd: str, agent_dir: Path
) -> tuple[float, dict[str, Any]]:
    """Seconds from launching ``pi -p "/template-07 some args"`` to its first request, and that request's body."""
    with ScriptedProvider([{"text": "done"}]) as provider:
        (agent_dir / "models.json").write_text(json.dumps(models_json(provider.base_url)), encoding="utf-8")
        started = time.monotonic()
        done = subprocess.run(
            [*command, "--no-session", "--model", "scripted-openai/scripted-model", "-p", "/template-07 some args"],
            env=env, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, check=False,
        )
        if done.returncode != 0 or provider.first_request_at is None:
            raise RuntimeError(f"{command[0]}: exit {done.returncode}: {done.stderr.decode(errors='replace')}")
        return provider.first_request_at - started, provider.requests[0]["body"]


def _first_request(command: list[str], env: dict[str, str], cwd: str, agent_dir: Path,
                   with_resources: bool) -> float:
    seconds, body = timed_first_request(command, env, cwd, agent_dir)
    system = body["messages"][0]["content"]
    user = body["messages"][-1]["content"]
    user_text = user if isinstance(user, str) else "".join(part.get("text", "") for part in user)
    expanded = user_text.startswith("Template 7: do some with args")
    listed = "<name>skill-19</name>" in (system if isinstance(system, str) else json.dumps(system))
    if with_resources != expanded or with_resources != listed:
        raise RuntimeError(f"{command[0]}: resources not applied as expected (expanded={expanded}, listed={listed})")
    return seconds


def _home(root: Path, name: str, with_resources: bool) -> tuple[dict[str, str], Path]:
    home = root / name
    agent_dir = home / ".pi" / "agent"
    agent_dir.mkdir(parents=True)
    (agent_dir / "settings.json").write_text(json.dumps({"retry": {"enabled": False}}), encoding="utf-8")
    if with_resources:
        write_resources(agent_dir)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "PI_CODING_AGENT_DIR": str(agent_dir),
        "PI_ORACLE_HOME": str(oracle.oracle_home()),
    }
    return env, agent_dir


def main() -> int:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    pi = _pi_command()
    commands = [("ours", OURS)] + ([("Pi 0.85", pi)] if pi else [])
    results: dict[tuple[str, bool], float] = {}
    with tempfile.TemporaryDirectory(prefix="pi-resources-") as tmp:
        root = Path(tmp)
        work = root / "work"
        work.mkdir()
        for with_resources in (False, True):
            for name, command in commands:
                env, agent_dir = _home(root, f"{name.split()[0]}-{with_resources}", with_resources)
                _first_request(command, env, str(work), agent_dir, with_resources)  # warm the file cache
                samples = [_first_request(command, env, str(work), agent_dir, with_resources) for _ in range(runs)]
                results[(name, with_resources)] = statistics.median(samples)
    print(f"{runs} runs each, median time from launch to the first request")
    print(f"{'case':40} {'ours':>9} {'Pi 0.85':>9} {'ratio':>7}")
    for with_resources, label in ((False, "no resources"), (True, f"{COUNT} skills + {COUNT} templates")):
        ours = results[("ours", with_resources)]
        if pi is None:
            print(f"{label:40} {ours * 1000:7.0f}ms {'n/a':>9}")
            continue
        theirs = results[("Pi 0.85", with_resources)]
        print(f"{label:40} {ours * 1000:7.0f}ms {theirs * 1000:7.0f}ms {ours / theirs:7.2f}")
    if pi is not None:
        ours_cost = results[("ours", True)] - results[("ours", False)]
        pi_cost = results[("Pi 0.85", True)] - results[("Pi 0.85", False)]
        print(f"{'cost of the resources':40} {ours_cost * 1000:7.0f}ms {pi_cost * 1000:7.0f}ms")
    else:
        print("Pi 0.85 runtime not installed: ../shared/oracle/install.sh")
    return 0


if __name__ == "__main__":
    sys.exit(main())
