"""Third-party RPC clients, used as their users use them, against ours and Pi 1.6.

* ``pi-acp``, the Agent Client Protocol bridge (npm): an editor's side (``acp_driver.mjs``, the
  ACP SDK's ``ClientSideConnection``) starts the bridge, which runs ``pi --mode rpc`` from PATH.
* ``pi-agent-python-sdk`` (PyPI), which refuses a ``pi`` whose ``pi --version`` is not a bare
  version of at least 0.85.1, reads the prompt's ``disposition`` and waits for ``agent_settled``
  (``sdk_driver.py``, in the SDK's own virtual environment).

Each runs the same two prompts (a greeting; a tool call) against one scripted provider per
run; what the user sees must be what Pi 1.6 gives. ``pi`` on PATH is a one-line script that
runs ours or the oracle's ``pi-cli-current``.
"""

from __future__ import annotations

import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tests.pi_coding_agent.app.rpc._support import pi_cli
from tests.pi_coding_agent.app.rpc.third_party import _install
from tests.pi_coding_agent.e2e._harness import OUR_PI, Sandbox
from tests.support.scripted_provider import ScriptedProvider

HERE = Path(__file__).resolve().parent
TURNS = [
    {"text": "Hello from the scripted model."},
    {
        "thinking": "Read it.",
        "tool_calls": [{"id": "call_1", "name": "read", "arguments": {"path": "notes.txt"}}],
    },
    {"text": "It says hi."},
]
MODEL = "scripted-openai/scripted-model"


def _path_with_pi(folder: Path, target: Path) -> str:
    """A PATH whose ``pi`` runs ``target``, and whose ``npm`` answers nothing: pi-acp asks the
    npm registry for Pi's newest version when a session starts (to suggest an update), and
    tests stay off the network."""
    folder.mkdir()
    for name, body in (("pi", f'exec "{target}" "$@"'), ("npm", "exit 1")):
        (folder / name).write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
        (folder / name).chmod(0o755)
    return os.pathsep.join([str(folder), os.environ.get("PATH", "")])


def _run_client(tmp_path: Path, name: str, target: Path, command: list[str], settings: dict[str, Any]) -> Any:
    with ScriptedProvider(TURNS, sequential=True) as provider:
        box = Sandbox.create(tmp_path / name, provider.base_url, {"retry": {"enabled": False}, **settings})
        (box.work / "notes.txt").write_text("hi\n", encoding="utf-8")
        env = box.env(PATH=_path_with_pi(tmp_path / name / "bin", target))
        done = subprocess.run(
            command, cwd=box.work, env=env, capture_output=True, text=True, timeout=120, check=False
        )
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout)


def _both(tmp_path: Path, command: list[str], settings: dict[str, Any]) -> dict[str, Any]:
    """The client against ours and against Pi 1.6, side by side (each its own provider and home:
    the clients' waits overlap)."""
    sides = {"ours": OUR_PI, "pi16": pi_cli(current=True)}
    with ThreadPoolExecutor(len(sides)) as pool:
        runs = {
            name: pool.submit(_run_client, tmp_path, name, target, command, settings)
            for name, target in sides.items()
        }
        return {name: run.result() for name, run in runs.items()}


def _version(target: Path) -> str:
    return subprocess.run(
        [str(target), "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_acp_bridge_drives_ours_like_pi(tmp_path: Path) -> None:
    bridge, sdk = _install.acp_bridge()
    command = [
        "node",
        str(HERE / "acp_driver.mjs"),
        str(bridge),
        str(sdk),
        json.dumps(["Say hello", "Read notes.txt"]),
    ]
    settings = {"defaultProvider": "scripted-openai", "defaultModel": "scripted-model"}
    seen = _both(tmp_path, command, settings)
    for name, target in (("ours", OUR_PI), ("pi16", pi_cli(current=True))):
        # The bridge opens the first answer with "pi v<pi --version>" and a rule.
        prelude = f"pi v{_version(target)}\n---\n"
        assert seen[name]["turns"][0]["text"].startswith(prelude), seen[name]
        seen[name]["turns"][0]["text"] = seen[name]["turns"][0]["text"][len(prelude) :]
    assert seen["ours"] == seen["pi16"]
    assert seen["ours"]["session"] == {"hasId": True, "model": MODEL}
    assert [(t["stopReason"], t["text"], t["thoughts"], t["tools"]) for t in seen["ours"]["turns"]] == [
        ("end_turn", "Hello from the scripted model.", "", []),
        ("end_turn", "It says hi.", "Read it.", [{"title": "read", "status": "completed"}]),
    ]
    # Reopened in a new bridge: listed under its /name, its history replayed.
    assert seen["ours"]["reopened"]["listed"] == [{"title": "demo", "same": True}]
    assert [(u["kind"], u.get("text") or u.get("title")) for u in seen["ours"]["reopened"]["replay"]] == [
        ("user_message_chunk", "Say hello"),
        ("agent_message_chunk", "Hello from the scripted model."),
        ("user_message_chunk", "Read notes.txt"),
        ("tool_call", "read"),
        ("agent_message_chunk", "It says hi."),
    ]


def test_version_checking_python_sdk_drives_ours_like_pi(tmp_path: Path) -> None:
    """The SDK runs unchanged (no ``allow_unknown_version``): it accepts our ``pi --version``."""
    python = _install.python_sdk()
    command = [str(python), str(HERE / "sdk_driver.py"), MODEL]
    seen = _both(tmp_path, command, {})
    assert seen["ours"] == seen["pi16"]  # messageCount too: both count the system message
    assert seen["ours"]["runs"] == [["Hello from the scripted model.", "stop"], ["It says hi.", "stop"]]
    assert seen["ours"]["tools"] == ["read"] and "agent_settled" in seen["ours"]["kinds"]
    assert seen["ours"]["bash"] == [0, "hi\n"] and seen["ours"]["stats"][:3] == [2, 3, 1]
    assert seen["ours"]["afterNew"] == [0, True]
