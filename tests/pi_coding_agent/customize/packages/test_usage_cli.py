"""The package commands' usage lines and their misuse messages, ours beside Pi 0.85's CLI:
``pi <command> --help`` opens with the same usage line, and a wrong option, a missing value or
an extra argument is answered with the same two lines on stderr (an unknown option points at
``--help``, the others repeat the usage)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pi_coding_agent.e2e._harness import Sandbox, run_ours, run_pi

pytestmark = pytest.mark.oracle


@pytest.mark.parametrize("command", ["install", "remove", "update", "list"])
def test_help_opens_with_pis_usage_line(tmp_path: Path, command: str) -> None:
    box = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    ours, pi = run_ours(box, command, "--help"), run_pi(box, command, "--help")
    assert ours.returncode == pi.returncode == 0
    assert ours.stdout.splitlines()[:2] == pi.stdout.splitlines()[:2]
    assert ours.stdout.startswith(f"Usage:\n  pi {command} ")


@pytest.mark.parametrize(
    "args",
    [
        ("update", "--bogus"),
        ("update", "--extension"),
        ("update", "one", "two"),
        ("update", "--models", "--self"),
        ("update", "--force", "-l"),
        ("list", "-l"),
        ("install", "a", "b"),
        ("install",),
    ],
    ids="-".join,
)
def test_misuse_reads_as_pis(tmp_path: Path, args: tuple[str, ...]) -> None:
    box = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    ours, pi = run_ours(box, *args), run_pi(box, *args)
    assert ours.returncode == pi.returncode == 1
    assert ours.stdout == pi.stdout == ""
    assert ours.stderr == pi.stderr
    assert len(ours.stderr.splitlines()) == 2
