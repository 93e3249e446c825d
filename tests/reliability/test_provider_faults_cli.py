"""The provider fault matrix through the CLI: ``pi -p`` (text mode) for every wire API x every
fault, against the same loopback replies as the library matrix.

A fault that fails the answer must end the run with a non-zero exit, nothing on stdout and
exactly one line on stderr, which is not a traceback; an abort (SIGTERM once the answer has
begun) exits 143 the same way; a retried 429 and a huge event print the answer and exit 0.
With ``PI_RELIABILITY_FULL=1`` each run is repeated with Pi's own CLI (through the oracle's
loopback-guarded ``pi-cli``), which must fail or succeed alike.

The abort, and a reset in the middle of the body (what a process's shutdown would most likely
add a line to stderr after), run our ``pi`` as a process; the other faults run its ``main`` in
the test's process (``run_ours_in_process``: the same arguments, environment, folder and
streams, without a Python start each; a hang there is ended by the test's time limit).
"""

from __future__ import annotations

import asyncio
import json
import signal
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.pi_coding_agent.e2e._harness import OUR_PI, Completed, Sandbox, run_ours_in_process
from tests.reliability.faults import ANSWER, FAULTS, FULL, Fault
from tests.reliability.figures import record
from tests.reliability.wire import WIRES, Wire
from tests.support import oracle
from tests.support.loopback import LoopbackServer, Recorded, Reply, ReplySource, served_from_a_thread

HANG_SECONDS = 300 if FULL else 90
"""A bound on bugs, not timing: Pi's CLI took 15-20 s for a 2-4 MB Responses event here (ours
2.5 s), and the full run sends 8 MB."""
MODEL = "faulty/fault-model"
ARGS = ("--model", MODEL, "--no-session", "-p", "go")
AS_A_PROCESS = frozenset(("abort_mid_stream", "reset_mid_body"))
"""Faults whose CLI runs are separate ``pi`` processes (the abort needs one to signal)."""


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


def _settings(fault: Fault) -> dict[str, object]:
    settings: dict[str, object] = {"retry": {"enabled": False}}
    if fault.retries:
        settings["retry"] = {"enabled": True, "maxRetries": fault.retries, "baseDelayMs": 1}
    if fault.idle_timeout_ms is not None:
        settings["httpIdleTimeoutMs"] = fault.idle_timeout_ms
    return settings


async def _cli(program: list[str], sandbox: Sandbox, answering: asyncio.Event | None) -> Ran:
    process = await asyncio.create_subprocess_exec(
        *program,
        *ARGS,
        cwd=sandbox.work,
        env=sandbox.env(),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    if answering is not None:
        asyncio.get_running_loop().create_task(_interrupt_once_streaming(process, answering))
    try:
        out, err = await asyncio.wait_for(process.communicate(), HANG_SECONDS)
    except TimeoutError:
        process.kill()
        await process.wait()
        record("hang", surface="cli", program=program[0].rsplit("/", 1)[-1])
        pytest.fail(f"hang: {' '.join(program)} did not exit within {HANG_SECONDS} s")
    assert process.returncode is not None
    return Ran(process.returncode, out.decode(), err.decode())


async def _interrupt_once_streaming(process: asyncio.subprocess.Process, answering: asyncio.Event) -> None:
    """SIGTERM once the (stalling) answer has begun."""
    await answering.wait()
    await asyncio.sleep(0.3)
    if process.returncode is None:
        process.send_signal(signal.SIGTERM)


async def run_cli(program: list[str], wire: Wire, fault: Fault, root: Path) -> Ran:
    if fault.refused:
        async with LoopbackServer([]) as server:
            url = server.url
        return await _cli(program, _sandbox(root, wire, url, fault), None)
    answering = asyncio.Event() if fault.abort_at_first_delta else None
    replies: list[ReplySource] = list(fault.replies(wire))
    if answering is not None:
        replies[0] = _telling(answering, replies[0])
    async with LoopbackServer(replies) as server:
        return await _cli(program, _sandbox(root, wire, server.url, fault), answering)


def run_in_process(wire: Wire, fault: Fault, root: Path) -> Completed:
    """``run_cli`` for our ``pi`` run in this process (not for an abort: that needs a process)."""
    assert not fault.abort_at_first_delta
    if fault.refused:
        with served_from_a_thread(LoopbackServer([])) as server:
            url = server.url
        return run_ours_in_process(_sandbox(root, wire, url, fault), *ARGS)
    with served_from_a_thread(LoopbackServer(fault.replies(wire))) as server:
        return run_ours_in_process(_sandbox(root, wire, server.url, fault), *ARGS)


def _telling(answering: asyncio.Event, source: ReplySource) -> ReplySource:
    """``source``, setting ``answering`` when the request it answers arrives."""

    def reply(recorded: Recorded) -> Reply:
        answering.set()
        return source(recorded) if callable(source) else source

    return reply


def _sandbox(root: Path, wire: Wire, url: str, fault: Fault) -> Sandbox:
    sandbox = Sandbox.create(root, url, _settings(fault))
    (sandbox.agent_dir / "models.json").write_text(json.dumps(wire.models_json(url)), encoding="utf-8")
    return sandbox


def check_cli_outcome(ran: Ran | Completed, fault: Fault) -> None:
    assert "Traceback" not in ran.stderr, ran.stderr
    if fault.expect == "success":
        assert ran.returncode == 0, ran.stderr
        text = (fault.answer or (lambda: ANSWER))()
        assert ran.stdout == text + "\n"
        return
    lines = ran.stderr.splitlines()
    assert len(lines) == 1 and lines[0].strip(), ran.stderr
    assert ran.stdout == ""
    assert ran.returncode == (143 if fault.expect == "aborted" else 1), (ran.returncode, ran.stderr)


@pytest.mark.timeout(2 * HANG_SECONDS + 60)
@pytest.mark.parametrize("fault", FAULTS, ids=lambda fault: fault.name)
@pytest.mark.parametrize("wire", WIRES, ids=lambda wire: wire.api)
def test_cli_fault_is_one_line_and_an_exit_status(wire: Wire, fault: Fault, tmp_path: Path) -> None:
    record("provider_fault", surface="cli", api=wire.api, fault=fault.name)
    if fault.name in AS_A_PROCESS:
        ours: Ran | Completed = asyncio.run(run_cli([str(OUR_PI)], wire, fault, tmp_path / "ours"))
    else:
        ours = run_in_process(wire, fault, tmp_path / "ours")
    check_cli_outcome(ours, fault)
    record("provider_fault_settled", surface="cli", api=wire.api, fault=fault.name)
    if FULL:
        folder = oracle.require_live_oracle()
        pi = asyncio.run(run_cli([str(folder / "pi-cli")], wire, fault, tmp_path / "pi"))
        assert (pi.returncode == 0) == (ours.returncode == 0), (pi, ours)
