"""``pi auth ...`` against Pi 0.85's own, run side by side in the same sandbox: the same
output, the same messages on stderr and the same exit status, for each subcommand and the
ways to get them wrong."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.pi_coding_agent.e2e._harness import Sandbox, run_ours, run_pi

pytestmark = pytest.mark.oracle

COPILOT = {
    "type": "oauth",
    "refresh": "gho_stored",
    "access": "tid=1;exp=1;proxy-ep=proxy.individual.githubcopilot.com;",
    "availableModelIds": ["gpt-5.4"],
}

CASES = [
    ["auth"],
    ["auth", "whoami"],
    ["auth", "check"],
    ["auth", "check", "--provider", "nope", "--json"],
    ["auth", "check", "--provider", "anthropic", "--json", "--credentials"],
    ["auth", "check", "--model", "no-such-model", "--json"],
    ["auth", "check", "--provider", "github-copilot", "--no-refresh", "--credentials"],
    ["auth", "check", "--bogus"],
    ["auth", "print-api-key", "--provider", "github-copilot"],
    ["auth", "print-api-key", "--model", "claude-sonnet-4-5"],
    ["auth", "print-api-key", "--provider", "openai", "--api-key", "sk-x"],
    ["auth", "print-bearer-token", "--provider", "github-copilot", "--min-expiry", "10m"],
    ["auth", "print-bearer-token", "--min-expiry", "soon"],
]


@pytest.mark.parametrize("args", CASES, ids=" ".join)
def test_auth_command_matches_pi(tmp_path: Path, args: list[str]) -> None:
    sandbox = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    (sandbox.agent_dir / "models.json").unlink()
    auth = {"github-copilot": {**COPILOT, "expires": int(time.time() * 1000) + 3_600_000}}
    (sandbox.agent_dir / "auth.json").write_text(json.dumps(auth, indent=2), encoding="utf-8")
    (sandbox.agent_dir / "auth.json").chmod(0o600)
    env = {"ANTHROPIC_API_KEY": "sk-ant-from-env"}
    theirs = run_pi(sandbox, *args, **env)
    ours = run_ours(sandbox, *args, **env)
    assert (ours.returncode, ours.stdout, ours.stderr) == (theirs.returncode, theirs.stdout, theirs.stderr)
