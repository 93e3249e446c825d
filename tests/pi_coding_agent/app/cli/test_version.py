"""``pi --version``: a bare version line, the same as Pi 1.6's, that version-checking clients
(which parse it and compare it with the minimum Pi they need) accept."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from tests.pi_coding_agent.e2e._harness import OUR_PI, Sandbox, run_pi
from tests.support.scripted_provider import ScriptedProvider


def _ours(*args: str) -> str:
    done = subprocess.run([str(OUR_PI), *args], capture_output=True, text=True, check=True, timeout=60)
    return done.stdout


def test_version_is_the_pi_release_followed(tmp_path: Path) -> None:
    with ScriptedProvider([]) as provider:
        theirs = run_pi(Sandbox.create(tmp_path, provider.base_url), "--version", current=True)
    assert theirs.returncode == 0
    assert _ours("--version") == theirs.stdout == "1.6.0\n"
    assert _ours("-v") == theirs.stdout
    version = tuple(int(part) for part in _ours("--version").strip().split("."))
    assert version >= (0, 85, 1)  # what the Python SDK for Pi requires


def test_verbose_and_help_name_our_own_version_too() -> None:
    assert re.fullmatch(r"1\.6\.0 \(Pi for Python \d+\.\d+\.\d+\)\n", _ours("--version", "--verbose"))
    assert "compatible with Pi 1.6.0" in _ours("--help")
