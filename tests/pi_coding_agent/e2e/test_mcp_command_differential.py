"""``pi mcp add``, ``remove`` and ``list`` (text and ``--json``), ours against Pi 1.6's CLI on the
same agent folder: the same lines, the same file written, the same exit codes."""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.pi_coding_agent.e2e._harness import REPO, Sandbox, run_ours, run_pi
from tests.support.mcp_launch import serve_http

pytestmark = pytest.mark.usefixtures("forked_mcp_servers")  # several stdio starts of the probe

PROBE = (sys.executable, "-m", "tests.support.mcp_server")
COMMANDS: list[tuple[str, ...]] = [
    ("mcp", "list"),
    ("mcp", "add", "probe", "--exposure", "direct", "--cwd", str(REPO), "--", *PROBE),
    (
        "mcp",
        "add",
        "web",
        "--url",
        "http://127.0.0.1:9/mcp",
        "--bearer-token-env-var",
        "TOKEN",
        "--description",
        "Docs",
    ),
    ("mcp", "add", "-l", "local", "--env", "A=1", "--", "tool", "--flag"),
    ("mcp", "add", "bad", "--env", "A=1", "--url", "http://x"),
    ("mcp", "add", "bad name", "--", "x"),
    ("mcp", "add", "x", "--exposure", "loud", "--", "x"),
    ("mcp", "remove", "nope"),
    ("mcp", "remove", "local"),
    ("mcp", "remove", "web"),
    ("mcp", "list"),
    ("mcp", "list", "--json"),
    ("mcp", "frob"),
]


def _commands(url: str) -> list[tuple[str, ...]]:
    """The commands, with a streamable HTTP server (the probe on 127.0.0.1) added before the
    final listings."""
    return [
        *COMMANDS[:-3],
        ("mcp", "add", "live", "--url", url, "--header", "X-Probe=${HOME}"),
        *COMMANDS[-3:],
    ]


def _run(tmp_path: Path, program: str, url: str) -> list[tuple[int, str, str, str]]:
    sandbox = Sandbox.create(tmp_path / program, "http://127.0.0.1:9")
    answers = []
    for command in _commands(url):
        done = run_pi(sandbox, *command, current=True) if program == "pi" else run_ours(sandbox, *command)
        written = (
            (sandbox.agent_dir / "mcp.json").read_text(encoding="utf-8")
            if (sandbox.agent_dir / "mcp.json").exists()
            else ""
        )
        root = str(sandbox.root)
        answers.append(
            (
                done.returncode,
                done.stdout.replace(root, "<root>"),
                done.stderr.replace(root, "<root>"),
                written,
            )
        )
    return answers


def test_mcp_commands_match_pi_1_6(tmp_path: Path) -> None:
    with serve_http() as url, ThreadPoolExecutor(max_workers=2) as pool:  # each side in order, side by side
        theirs, ours = pool.map(lambda program: _run(tmp_path, program, url), ("pi", "ours"))
        answers = [
            (command, mine, pi) for command, mine, pi in zip(_commands(url), ours, theirs, strict=True)
        ]
    for command, mine, pi in answers:
        assert mine == pi, command
    assert "probe: connected, 11 tools (direct, global)" in ours[-3][1]
    assert "live: connected, 11 tools (codemode, global)" in ours[-3][1]
    assert ours[-3][0] == 0 and ours[-1][0] == 1
