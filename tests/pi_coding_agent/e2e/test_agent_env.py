"""What a process pi starts learns about it: ``PI_CODING_AGENT=true`` and ``AI_AGENT=pi`` in
the environment of the bash tool and of the user's ``!`` commands (RPC ``bash``), set over
any inherited value, as Pi 0.85 and Pi 1.6 set them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.pi_coding_agent.e2e._harness import OUR_PI, Sandbox, run_ours, run_pi
from tests.support import oracle
from tests.support.scripted_provider import ScriptedProvider

pytestmark = pytest.mark.timeout(300)

SHOW = 'printf "%s/%s" "$AI_AGENT" "$PI_CODING_AGENT"'
SCRIPT = [
    {"tool_calls": [{"id": "call_env", "name": "bash", "arguments": {"command": SHOW}}]},
    {"text": "done"},
]
INHERITED = {"AI_AGENT": "someone-else", "PI_CODING_AGENT": "false"}


def _tool_output(provider: ScriptedProvider) -> str:
    [tool] = [m for m in provider.requests[-1]["body"]["messages"] if m.get("role") == "tool"]
    content = tool["content"]
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


def _user_command_output(command: list[str], sandbox: Sandbox) -> str:
    """An RPC client's ``bash`` command (what ``!`` runs in the TUI): its output."""
    process = subprocess.Popen(
        [*command, "--mode", "rpc", "--no-session"],
        cwd=sandbox.work,
        env=sandbox.env(**INHERITED),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps({"id": "1", "type": "bash", "command": SHOW}) + "\n")
    process.stdin.flush()
    try:
        for line in process.stdout:
            answer = json.loads(line)
            if answer.get("id") == "1" and answer.get("type") == "response":
                return str(answer["data"]["output"])
        raise AssertionError("pi ended without answering the bash command")
    finally:
        process.stdin.close()
        process.wait(timeout=60)


@pytest.mark.parametrize("which", ["ours", "pi", "pi-1.6"])
def test_the_bash_tool_and_user_commands_see_pi_s_variables(tmp_path: Path, which: str) -> None:
    with ScriptedProvider(SCRIPT) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url)
        args = ("-p", "--no-session", "show the environment")
        if which == "ours":
            done, command = run_ours(sandbox, *args, **INHERITED), [str(OUR_PI)]
        else:
            current = which == "pi-1.6"
            done = run_pi(sandbox, *args, current=current, **INHERITED)
            command = [str(oracle.require_live_oracle(current) / ("pi-cli-current" if current else "pi-cli"))]
        assert done.returncode == 0, done.stderr
        assert _tool_output(provider) == "pi/true"
        assert _user_command_output(command, sandbox) == "pi/true"
