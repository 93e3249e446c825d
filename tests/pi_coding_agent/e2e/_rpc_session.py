"""One RPC session of ours or Pi's CLI for the MCP tests: each message is sent as a ``prompt``;
the answer to a command is awaited by its response, a prompt to the model by ``agent_end``.
``/mcp`` first makes the run wait until every MCP server settled (both programs wait for it),
so a slow server start on a busy machine cannot change which tools the model is offered."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.pi_coding_agent.app.interactive._scenario import pi_command


def rpc_session(
    which: str, cwd: Path, env: dict[str, str], args: tuple[str, ...], messages: list[str | dict[str, Any]]
) -> list[list[dict[str, Any]]]:
    """``which``: ``ours`` or ``pi16``. The lines each message brought, in order. A message that
    is a dict is an RPC command of its own (``{"type": "new_session"}``), answered by its response."""
    command = pi_command(which, "--mode", "rpc", *args)
    process = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    answers: list[list[dict[str, Any]]] = []
    try:
        for index, message in enumerate(messages):
            command_only = isinstance(message, dict) or message.startswith("/")
            sent = {**message, "id": f"m{index}"} if isinstance(message, dict) else {"id": f"m{index}", "type": "prompt", "message": message}
            process.stdin.write(json.dumps(sent) + "\n")
            process.stdin.flush()
            seen: list[dict[str, Any]] = []
            while True:
                line = json.loads(process.stdout.readline())
                seen.append(line)
                if command_only and line.get("id") == f"m{index}":
                    break
                if not command_only and line.get("type") == "agent_end":
                    break
            answers.append(seen)
    finally:
        process.stdin.close()
        process.wait(timeout=60)
    return answers


def notices(lines: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(str(r.get("notifyType")), str(r.get("message"))) for r in lines if r.get("method") == "notify"]
