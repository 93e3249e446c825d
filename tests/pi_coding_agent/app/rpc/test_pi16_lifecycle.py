"""RPC mode's shutdown and its extension UI, ours against Pi 1.6 itself (``pi --mode rpc`` with
``ui_calls.ts`` / ``ui_calls.py``, the same extension in each language).

At startup the extension calls every ``ctx.ui`` method, each followed by a notify naming it and
what it returned: the requests on stdout show which calls send one (``set_widget`` lines,
``set_title``, ``paste_to_editor`` as ``set_editor_text``...) and which do nothing in RPC mode.
Then each run ends one way: end of input, SIGTERM, SIGHUP, SIGINT, end of input followed by one
SIGTERM, and ``ctx.shutdown()`` from a command. Compared: exit status, stdout (request ids left
out) and whether the extensions got ``session_shutdown``.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.e2e._harness import OUR_PI, Sandbox
from tests.support import oracle
from tests.support.scripted_provider import ScriptedProvider

HERE = Path(__file__).resolve().parent
ENDINGS = ["eof", "SIGTERM", "SIGHUP", "SIGINT", "eof+SIGTERM", "ctx.shutdown"]


def _run(root: Path, side: str, ending: str, base_url: str) -> dict[str, Any]:
    box = Sandbox.create(root / side / ending.replace("+", "_"), base_url)
    record = box.root / "record.txt"
    program = [str(oracle.require_live_oracle(True) / "pi-cli-current")] if side == "pi" else [str(OUR_PI)]
    fixture = HERE / ("ui_calls.ts" if side == "pi" else "ui_calls.py")
    process = subprocess.Popen(
        [*program, "--mode", "rpc", "--no-session", "-e", str(fixture)],
        cwd=box.work,
        env=box.env(PI_TEST_RECORD=str(record), PI_OFFLINE="1"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    first = process.stdout.readline()  # the extension has started
    if ending.startswith("SIG"):
        process.send_signal(getattr(signal, ending))
    elif ending == "ctx.shutdown":
        process.stdin.write(json.dumps({"id": "1", "type": "prompt", "message": "/bye"}) + "\n")
        process.stdin.flush()
    else:
        process.stdin.close()
        if ending == "eof+SIGTERM":
            _wait_for_shutdown_to_begin(process, record)
            process.send_signal(signal.SIGTERM)
    code = process.wait(timeout=60)
    lines = [json.loads(line) for line in (first + process.stdout.read()).splitlines() if line.strip()]
    for line in lines:
        if line.get("type") == "extension_ui_request":
            line.pop("id")
    shutdown = record.read_text(encoding="utf-8").splitlines() if record.exists() else []
    return {"code": code, "stdout": lines, "shutdown": shutdown}


def _wait_for_shutdown_to_begin(process: subprocess.Popen[str], record: Path) -> None:
    """Until the extension recorded ``session_shutdown`` (or the process is gone): a fixed delay
    raced the shutdown, which may take longer than it on a loaded machine or less than it here."""
    deadline = time.monotonic() + 30
    while not record.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)


@pytest.mark.timeout(300)
def test_rpc_shutdown_and_extension_ui_as_pi16(tmp_path: Path) -> None:
    oracle.require_live_oracle(True)
    with ScriptedProvider([]) as provider, ThreadPoolExecutor(2) as pool:
        runs = {
            (side, ending): pool.submit(_run, tmp_path, side, ending, provider.base_url)
            for ending in ENDINGS
            for side in ("pi", "ours")
        }
        results = {key: future.result() for key, future in runs.items()}
    for ending in ENDINGS:
        assert results["ours", ending] == results["pi", ending], ending
    pi = {ending: results["pi", ending] for ending in ENDINGS}
    assert [pi[e]["code"] for e in ENDINGS] == [0, 143, 129, -signal.SIGINT, 0, 0]
    assert pi["SIGINT"]["shutdown"] == [] and pi["SIGTERM"]["shutdown"] == ["session_shutdown quit"]
    methods = [line["method"] for line in pi["eof"]["stdout"] if line["method"] != "notify"]
    assert methods == [
        "setWidget",
        "setWidget",
        "setTitle",
        "set_editor_text",
        "set_editor_text",
        "setStatus",
    ]
