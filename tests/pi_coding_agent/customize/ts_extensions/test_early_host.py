"""When Node starts: only for TypeScript extensions, once, and early (issue 25 item 6); and the
``pi`` its extensions start for child agents.

``PI_NODE`` points at a wrapper that logs each start of Node, then runs the real one; the
runs go against a scripted provider on 127.0.0.1 in a throwaway home.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from pi_coding_agent.core.startup_timing import TIMING_ENV
from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, OUR_PI, Sandbox, run_ours
from tests.support.npm_packages import node_cache
from tests.support.scripted_provider import ScriptedProvider

WEATHER = Path(__file__).resolve().parent / "fixtures" / "weather.ts"
PYTHON_EXTENSION = (
    "def setup(pi):\n    pi.register_command('hello-py', lambda args, ctx: None, description='hi')\n"
)


@pytest.fixture(scope="module")
def real_node() -> str:
    from pi_coding_agent.core.node_runtime import ensure_node_runtime

    return ensure_node_runtime().node


def _logging_node(folder: Path, real: str) -> tuple[Path, Path]:
    log = folder / "node-starts.log"
    wrapper = folder / "node"
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> {log}\nexec {real} "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    return wrapper, log


def _host_starts(log: Path) -> int:
    if not log.exists():
        return 0
    return sum("host.mjs" in line for line in log.read_text(encoding="utf-8").splitlines())


def _run(tmp_path: Path, real_node: str, prepare: object, *args: str) -> tuple[int, str, int]:
    wrapper, log = _logging_node(tmp_path, real_node)
    with ScriptedProvider([{"text": "ok"}]) as provider:
        box = Sandbox.create(tmp_path / "box", provider.base_url)
        if callable(prepare):
            prepare(box)
        env = {"PI_NODE": str(wrapper), "PI_NODE_CACHE": node_cache(), TIMING_ENV: str(time.time())}
        done = run_ours(box, "--model", OPENAI_MODEL, *args, "-p", "hi", timeout=180, **env)
    assert (done.returncode, done.stdout.strip()) == (0, "ok"), done.stderr
    return done.returncode, done.stderr, _host_starts(log)


def test_no_node_without_a_typescript_extension(tmp_path: Path, real_node: str) -> None:
    """A Python extension and a skill: the host never starts (Node is not even asked its version)."""

    def prepare(box: Sandbox) -> None:
        (box.agent_dir / "extensions").mkdir()
        (box.agent_dir / "extensions" / "hello.py").write_text(PYTHON_EXTENSION, encoding="utf-8")
        skill = box.agent_dir / "skills" / "notes"
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text(
            "---\nname: notes\ndescription: Take notes.\n---\nBody\n", encoding="utf-8"
        )

    _, _, starts = _run(tmp_path, real_node, prepare)
    assert starts == 0
    assert not (tmp_path / "node-starts.log").exists()


def test_one_host_for_a_typescript_extension_in_the_extensions_folder(tmp_path: Path, real_node: str) -> None:
    """A ``.ts`` file in ``extensions/``: the host is started early (before the list is resolved)
    and that same host loads it; Node runs the host once."""

    def prepare(box: Sandbox) -> None:
        (box.agent_dir / "extensions").mkdir()
        (box.agent_dir / "extensions" / "weather.ts").write_text(
            WEATHER.read_text(encoding="utf-8"), encoding="utf-8"
        )

    _, stderr, starts = _run(tmp_path, real_node, prepare, "--units", "imperial")
    assert starts == 1, stderr
    assert "host started early taken" in stderr  # the start-up marks PI_TS_TIMING asks for


def test_one_host_for_an_e_typescript_extension(tmp_path: Path, real_node: str) -> None:
    _, stderr, starts = _run(tmp_path, real_node, None, "-e", str(WEATHER))
    assert starts == 1, stderr


def test_a_guess_that_finds_no_typescript_extension_stops_the_early_host(
    tmp_path: Path, real_node: str
) -> None:
    """A ``.ts`` file in an untrusted project's ``.pi/extensions``: the host is started on the
    guess (before trust is known), then stopped unused; the extension never loads."""

    def prepare(box: Sandbox) -> None:
        (box.work / ".pi" / "extensions").mkdir(parents=True)
        (box.work / ".pi" / "extensions" / "weather.ts").write_text(
            WEATHER.read_text(encoding="utf-8"), encoding="utf-8"
        )

    _, stderr, starts = _run(tmp_path, real_node, prepare)
    assert starts == 1, stderr
    assert "host started early" not in stderr and "host: extensions loaded" not in stderr
    assert "TypeScript" not in stderr


SPAWN_PROBE = """
export default function (pi) {
  pi.registerTool({
    name: "which_pi",
    label: "Which pi",
    description: "Names the pi a child agent would be started with",
    parameters: { type: "object", properties: {} },
    async execute() {
      return { content: [{ type: "text", text: String(process.env.PI_SUBAGENT_PI_BINARY) }], details: {} };
    },
  });
}
"""


def test_child_agents_of_typescript_extensions_start_our_pi(tmp_path: Path) -> None:
    """``pi-subagents`` starts a child ``pi`` from ``PI_SUBAGENT_PI_BINARY`` when set (else Pi's
    CLI next to the library the host loads): the host names ours."""
    probe = tmp_path / "which_pi.ts"
    probe.write_text(SPAWN_PROBE, encoding="utf-8")
    turns = [{"tool_calls": [{"id": "c1", "name": "which_pi", "arguments": {}}]}, {"text": "ok"}]
    with ScriptedProvider(turns) as provider:
        box = Sandbox.create(tmp_path / "box", provider.base_url)
        done = run_ours(
            box,
            "--model",
            OPENAI_MODEL,
            "-e",
            str(probe),
            "-p",
            "hi",
            timeout=180,
            PI_NODE_CACHE=node_cache(),
        )
        assert done.returncode == 0, done.stderr
        results = [m["content"] for m in provider.requests[1]["body"]["messages"] if m["role"] == "tool"]
    assert results == [str(OUR_PI)]
