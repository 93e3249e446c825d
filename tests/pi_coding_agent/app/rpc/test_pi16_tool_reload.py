"""Tools across a reload, and the order of ``--tools`` naming an extension tool first, ours
against Pi 1.6 itself (``pi --mode rpc`` with ``tool_reload.ts`` / ``tool_reload.py``).

Each scenario turns tools off (``/off NAME``), rewrites ``defaultTools`` in the user's
settings file, reloads (``/reload-now``: the extension's ``ctx.reload()``, Pi's ``/reload``),
then prompts once: compared is the list of tools in the request the provider got.
"""

from __future__ import annotations

import json
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, OUR_PI, Sandbox
from tests.support import oracle
from tests.support.scripted_provider import ScriptedProvider

HERE = Path(__file__).resolve().parent

# (settings at start, flags, steps): a step is a command, or a dict: the new ``defaultTools``.
Step = str | list[str]
SCENARIOS: list[tuple[dict[str, Any], tuple[str, ...], list[Step]]] = [
    # grep newly added; bash turned off stays off; edit and write, removed, stay on.
    ({"defaultTools": ["read", "bash", "edit", "write"]}, (), ["/off bash", ["read", "grep"], "/reload-now"]),
    # a change list: +ls newly added, -read removed (read stays on).
    ({}, (), ["/off probe", ["-read", "+ls"], "/reload-now"]),
    # no change: the tools turned off stay off.
    ({}, (), ["/off edit", "/reload-now"]),
    # an allowlist: defaultTools no longer matter.
    ({}, ("--tools", "read,bash"), [["grep"], "/reload-now"]),
    # an extension tool named before a built-in one.
    ({}, ("--tools", "probe,read,grep"), []),
    ({}, ("--tools", "grep,probe,read"), ["/reload-now"]),
    # codemode newly added to defaultTools is turned on by /reload.
    ({}, (), [["+codemode"], "/reload-now"]),
]


def _send(process: subprocess.Popen[str], request: dict[str, Any]) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps(request) + "\n")
    process.stdin.flush()


def _wait_for(process: subprocess.Popen[str], done: Any) -> None:
    assert process.stdout is not None
    for line in process.stdout:
        if line.strip() and done(json.loads(line)):
            return
    raise AssertionError("the process ended early")


def _run(root: Path, side: str, index: int) -> list[str] | None:
    settings, flags, steps = SCENARIOS[index]
    with ScriptedProvider([{"text": "ok"}]) as provider:
        box = Sandbox.create(
            root / side / str(index), provider.base_url, {**settings, "retry": {"enabled": False}}
        )
        program = (
            [str(oracle.require_live_oracle(True) / "pi-cli-current")] if side == "pi" else [str(OUR_PI)]
        )
        fixture = HERE / ("tool_reload.ts" if side == "pi" else "tool_reload.py")
        process = subprocess.Popen(
            [
                *program,
                "--mode",
                "rpc",
                "--no-session",
                "--no-mcp",
                "--model",
                OPENAI_MODEL,
                "-e",
                str(fixture),
                *flags,
            ],
            cwd=box.work,
            env=box.env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            for number, step in enumerate(steps):
                if isinstance(step, list):
                    (box.agent_dir / "settings.json").write_text(
                        json.dumps({**settings, "defaultTools": step, "retry": {"enabled": False}}),
                        encoding="utf-8",
                    )
                    continue
                _send(process, {"id": str(number), "type": "prompt", "message": step})
                _wait_for(
                    process,
                    lambda line, n=str(number): line.get("id") == n and line.get("type") == "response",
                )
            _send(process, {"id": "last", "type": "prompt", "message": "hi"})
            _wait_for(process, lambda line: line.get("type") == "agent_end")
        finally:
            assert process.stdin is not None
            process.stdin.close()
            process.wait(timeout=30)
        requests = provider.requests
    if not requests:
        return None
    return [tool["function"]["name"] for tool in requests[0]["body"].get("tools", [])]


@pytest.mark.timeout(300)
def test_tools_across_reload_and_extension_first_as_pi16(tmp_path: Path) -> None:
    oracle.require_live_oracle(True)
    jobs = [(side, index) for index in range(len(SCENARIOS)) for side in ("pi", "ours")]
    with ThreadPoolExecutor(2) as pool:
        answers = dict(zip(jobs, pool.map(lambda job: _run(tmp_path, *job), jobs), strict=True))
    pi_only = {"powershell", "tool_search"}
    for index in range(len(SCENARIOS)):
        theirs = answers["pi", index]
        assert theirs is not None
        assert answers["ours", index] == [name for name in theirs if name not in pi_only], SCENARIOS[index]
    assert "codemode" in (answers["ours", len(SCENARIOS) - 1] or [])
