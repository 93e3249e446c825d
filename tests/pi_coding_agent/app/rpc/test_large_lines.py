"""Huge malformed RPC lines: answered with Pi's parse error, quickly, and the server goes on.

The real ``pi --mode rpc`` is fed a 24 MB malformed array, 12 MB of garbage, a 24 MB object
cut short and a 24 MB unterminated prompt, then ``get_state``. Each bad line gets the answer
Pi 0.85 gives it (recorded from ``pi-cli --mode rpc``; compared live with Pi on the same lines
at 6 MB, ``PI_N``), and
``get_state`` is served. The time from a line's last byte to its answer is recorded as a
figure (before the linear error path, the 24 MB array took 10 to 19 s).
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.app.rpc._support import pi_cli
from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, OUR_PI, Sandbox
from tests.reliability.figures import record
from tests.support import oracle

N = 24 * 1024 * 1024
PI_N = 6 * 1024 * 1024
"""The size Pi is fed: its line reader scans its whole buffer again for each 64 KB read
(quadratic), so 24 MB lines took it 90 s on a busy machine; the answers depend on the size
only through the position of the unterminated string."""
PROMPT_START = '{"type":"prompt","message":"'


def bad_lines(size: int) -> dict[str, bytes]:
    """The four malformed lines, at ``size`` bytes (the garbage at half of it)."""
    return {
        f"{size >> 20} MB malformed array": ("[" + "1," * (size // 2) + "x]").encode(),
        f"{size >> 21} MB of garbage": b"x" * (size // 2),
        f"{size >> 20} MB object cut short": ('{"a":' + "1," * (size // 2)).encode(),
        f"{size >> 20} MB unterminated prompt": (PROMPT_START + "a" * size).encode(),
    }


def pi_answers(size: int) -> list[str]:
    """What Pi 0.85 answers each of ``bad_lines(size)`` (recorded from ``pi-cli --mode rpc``)."""
    end = len(PROMPT_START) + size
    return [
        "Failed to parse command: Unexpected token 'x', ...\"1,1,1,1,1,x]\" is not valid JSON",
        "Failed to parse command: Unexpected token 'x', \"xxxxxxxxxx\"... is not valid JSON",
        "Failed to parse command: Expected double-quoted property name in JSON at position 7 (line 1 column 8)",
        f"Failed to parse command: Unterminated string in JSON at position {end} (line 1 column {end + 1})",
    ]


def _serve(
    command: list[str], env: dict[str, str], cwd: Path, lines: dict[str, bytes]
) -> tuple[list[dict[str, Any]], list[float]]:
    """Feed the bad lines and ``get_state``; the answers and, per line, the seconds from its
    last byte written to its answer read."""
    process = subprocess.Popen(
        [*command, "--mode", "rpc", "--no-session"],
        cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )
    assert process.stdin is not None and process.stdout is not None
    written: list[float] = []

    def feed() -> None:
        assert process.stdin is not None
        for line in [*lines.values(), b'{"id":"s","type":"get_state"}']:
            process.stdin.write(line + b"\n")
            process.stdin.flush()
            written.append(time.monotonic())

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    answers, seconds = [], []
    try:
        for _ in range(len(lines) + 1):
            line = process.stdout.readline()
            assert line, "the server ended without answering"
            seconds.append(time.monotonic())
            answers.append(json.loads(line))
        writer.join(timeout=60)
    finally:
        process.kill()
        process.wait(timeout=30)
    return answers, [answered - sent for sent, answered in zip(written, seconds, strict=True)]


def _check(answers: list[dict[str, Any]], expected: list[str]) -> None:
    *errors, state = answers
    for error in errors:
        assert set(error) == {"type", "command", "success", "error"}
        assert (error["type"], error["command"], error["success"]) == ("response", "parse", False)
    assert [e["error"] for e in errors] == expected
    assert state["id"] == "s" and state["command"] == "get_state" and state["success"] is True


def test_huge_bad_lines_are_answered_and_the_server_goes_on(tmp_path: Path) -> None:
    box = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    lines = bad_lines(N)
    answers, seconds = _serve([str(OUR_PI), "--model", OPENAI_MODEL], box.env(), box.work, lines)
    _check(answers, pi_answers(N))
    for name, took in zip(lines, seconds, strict=False):
        record("rpc_bad_line", case=name, bytes=len(lines[name]), seconds=round(took, 3), target="ours")


@pytest.mark.oracle
def test_pi_answers_the_same_lines_alike(tmp_path: Path) -> None:
    cli = pi_cli()
    box = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    env = box.env(PI_ORACLE_HOME=str(oracle.oracle_home()), PI_CODING_AGENT_DIR=str(box.agent_dir))
    env.setdefault("PATH", os.environ.get("PATH", ""))
    lines = bad_lines(PI_N)
    answers, seconds = _serve([str(cli), "--model", OPENAI_MODEL], env, box.work, lines)
    _check(answers, pi_answers(PI_N))
    for name, took in zip(lines, seconds, strict=False):
        record("rpc_bad_line", case=name, bytes=len(lines[name]), seconds=round(took, 3), target="pi")
