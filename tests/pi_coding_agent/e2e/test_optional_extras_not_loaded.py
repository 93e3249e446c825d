"""The optional extras stay unloaded unless their API is used: ``pi --version`` and a ``pi -p``
run with an OpenAI-compatible provider (through its first request, here to a closed port)
import none of botocore, google-auth, websockets, zstd or the crypto they bring (read from
Python's own ``-X importtime`` report of the real process)."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, OUR_PI, Sandbox

EXTRAS = ("botocore", "boto3", "google", "websockets", "backports", "zstandard", "cryptography", "ray")


def _imported(sandbox: Sandbox, *args: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    done = subprocess.run(
        [str(OUR_PI), *args],
        cwd=sandbox.work,
        env=sandbox.env(PYTHONPROFILEIMPORTTIME="1"),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    named = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    # The report also lists imports that failed (httpx tries zstandard and brotli, which are
    # not installed); only modules that exist were loaded.
    return done, {name for name in named if _installed(name.split(".")[0])}


def _installed(top: str) -> bool:
    return importlib.util.find_spec(top) is not None


def test_version_and_a_print_run_load_no_extra(tmp_path: Path) -> None:
    sandbox = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    version, at_version = _imported(sandbox, "--version")
    assert version.returncode == 0
    run, at_run = _imported(sandbox, "--model", OPENAI_MODEL, "--no-session", "-p", "hi")
    assert run.returncode == 1 and "Connection error" in run.stderr  # the request was made
    assert "httpx" in at_run
    assert all(_installed(top) for top in ("botocore", "google", "websockets", "cryptography"))  # else no test
    for modules in (at_version, at_run):
        assert sorted(m for m in modules if m.split(".")[0] in EXTRAS) == []


def test_a_run_without_mcp_json_loads_no_mcp(tmp_path: Path) -> None:
    """The MCP SDK (and our client and manager) load only when ``mcp.json`` names servers or an
    extension registers one: not in a run with an extension that could (and does not)."""
    sandbox = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    quiet = tmp_path / "quiet.py"
    quiet.write_text('def setup(pi):\n    pi.on("session_start", lambda event, ctx: None)\n', encoding="utf-8")
    for extension in ((), ("-e", str(quiet))):
        run, modules = _imported(sandbox, "--model", OPENAI_MODEL, "--no-session", *extension, "-p", "hi")
        assert run.returncode == 1 and "Connection error" in run.stderr
        assert sorted(m for m in modules if m.split(".")[0] == "mcp" or m.startswith("pi_coding_agent.core.mcp")) == []
