"""``entry_appended``: an extension's ``pi.appendEntry`` reaches RPC clients as the entry it
wrote (Pi 1.6's event; 0.85 had none), ours against Pi 1.6's ``--mode rpc`` with the same
extension in each language (``note_entry.ts`` / ``note_entry.py``)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.pi_coding_agent.e2e._harness import OUR_PI, Sandbox
from tests.support import oracle
from tests.support.scripted_provider import ScriptedProvider

HERE = Path(__file__).resolve().parent


def _events(root: Path, side: str, base_url: str) -> list[dict[str, Any]]:
    box = Sandbox.create(root / side, base_url)
    program = [str(oracle.require_live_oracle(True) / "pi-cli-current")] if side == "pi" else [str(OUR_PI)]
    fixture = HERE / ("note_entry.ts" if side == "pi" else "note_entry.py")
    process = subprocess.Popen(
        [*program, "--mode", "rpc", "-e", str(fixture)], cwd=box.work, env=box.env(PI_OFFLINE="1"),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    lines: list[dict[str, Any]] = []
    # One command at a time: each answered before the next is sent.
    for command in ({"id": "1", "type": "prompt", "message": "/note first words"}, {"id": "2", "type": "get_entries"}):
        process.stdin.write(json.dumps(command) + "\n")
        process.stdin.flush()
        while not lines or lines[-1].get("id") != command["id"]:
            line = process.stdout.readline()
            assert line, process.stderr.read()[-2000:] if process.stderr else ""
            lines.append(json.loads(line))
    process.stdin.close()
    assert process.wait(timeout=60) == 0
    return lines


def test_an_appended_entry_reaches_the_rpc_client_as_in_pi16(tmp_path: Path) -> None:
    with ScriptedProvider([]) as provider:
        sides = {side: _events(tmp_path, side, provider.base_url) for side in ("pi", "ours")}
    shown: dict[str, dict[str, Any]] = {}
    for side, lines in sides.items():
        (appended,) = [line for line in lines if line.get("type") == "entry_appended"]
        (entries,) = [line for line in lines if line.get("id") == "2"]
        stored = entries["data"]["entries"][-1]
        assert appended["entry"] == stored, side  # the entry as the session file holds it
        shown[side] = {k: v for k, v in appended["entry"].items() if k not in ("id", "parentId", "timestamp")}
    assert shown["ours"] == shown["pi"] == {"type": "custom", "customType": "note",
                                            "data": {"text": "first words", "count": 2}}  # fmt: skip
