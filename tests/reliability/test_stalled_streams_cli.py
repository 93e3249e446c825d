"""The overall response deadline (``responseTimeoutMs``) through the CLI: ``pi -p`` and ``pi
batch`` against a 127.0.0.1 server whose stream never ends (``stalls.py``: keepalive comments,
endless deltas, a byte a second). Each run ends on its own shortly after the small deadline:
``pi -p`` with one line on stderr naming the limit and exit 1, a batch task as ``error``
saying the same; a task's own ``timeout`` still stops it first when it is shorter. A stalled
answer is retried under the ``retry`` settings like any other timed-out answer.
"""

from __future__ import annotations

import asyncio
import json
import time
from contextlib import AsyncExitStack
from pathlib import Path

import pytest

from pi_ai._event_stream import response_timeout_message
from tests.pi_coding_agent.e2e._harness import OUR_PI, Sandbox
from tests.reliability.figures import record
from tests.reliability.stalls import ANSWER, HANG_SECONDS, KINDS, Kind, StallServer
from tests.reliability.wire import WIRES
from tests.support import oracle

DEADLINE_MS = 800
NO_RETRY: dict[str, object] = {"enabled": False}


def _sandbox(root: Path, servers: dict[str, StallServer], settings: dict[str, object]) -> Sandbox:
    """A home whose ``models.json`` has one provider per server (named by its key)."""
    sandbox = Sandbox.create(root, "http://127.0.0.1:9", settings)
    providers = {}
    for name, server in servers.items():
        provider = server.wire.models_json(server.url)["providers"]["faulty"]
        providers[name] = provider
    (sandbox.agent_dir / "models.json").write_text(json.dumps({"providers": providers}), encoding="utf-8")
    return sandbox


async def _run(sandbox: Sandbox, *args: str) -> tuple[int, str, str, float]:
    """(exit status, stdout, stderr, seconds) of ``pi ARGS`` in the sandbox."""
    started = time.monotonic()
    process = await _start(sandbox, str(OUR_PI), *args)
    try:
        out, err = await asyncio.wait_for(process.communicate(), HANG_SECONDS)
    except TimeoutError:
        process.kill()
        await process.wait()
        record("hang", surface="cli", check="response_deadline")
        pytest.fail(f"hang: pi {' '.join(args)} did not exit within {HANG_SECONDS} s")
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode(), time.monotonic() - started


PI_CURRENT_HOME = Path("~/.cache/pi-oracle-1.6.0").expanduser()
"""Where ``install-current.sh`` puts Pi 1.6 (``pi-cli-current`` looks under ``$HOME``, which a sandbox moves)."""


async def _start(sandbox: Sandbox, *program: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        *program,
        cwd=sandbox.work,
        env=sandbox.env(PI_CURRENT_HOME=str(PI_CURRENT_HOME)),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


@pytest.mark.parametrize("kind", KINDS)
async def test_pi_p_on_a_stalled_stream_fails_with_one_line_at_the_deadline(kind: Kind, tmp_path: Path) -> None:
    wire = WIRES[KINDS.index(kind) % len(WIRES)]
    record("stalled_stream", surface="cli", api=wire.api, kind=kind)
    async with StallServer(wire, kind) as server:
        sandbox = _sandbox(tmp_path, {"stalled": server}, {"retry": NO_RETRY, "responseTimeoutMs": DEADLINE_MS})
        code, out, err, seconds = await _run(sandbox, "--model", "stalled/fault-model", "--no-session", "-p", "go")
        assert (code, out) == (1, ""), (code, out, err)
        assert err.splitlines() == [response_timeout_message(DEADLINE_MS)], err
        await asyncio.wait_for(server.closed.wait(), HANG_SECONDS)
    # The process's whole life (start-up included) past the deadline: an upper bound on the delay.
    record("stalled_stream_settled", surface="cli", api=wire.api, kind=kind, deadline_ms=DEADLINE_MS,
           delay_ms=round(seconds * 1000 - DEADLINE_MS))


async def test_rpc_mode_ends_a_stalled_answer_at_the_deadline(tmp_path: Path) -> None:
    """The same deadline in ``--mode rpc`` (all modes build their sessions alike): the run ends
    with the failed answer and the server keeps going."""
    wire = WIRES[2]
    async with StallServer(wire, "keepalive") as server:
        sandbox = _sandbox(tmp_path, {"stalled": server}, {"retry": NO_RETRY, "responseTimeoutMs": DEADLINE_MS})
        process = await asyncio.create_subprocess_exec(
            str(OUR_PI), "--mode", "rpc", "--model", "stalled/fault-model", "--no-session",
            cwd=sandbox.work, env=sandbox.env(),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        )
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(b'{"type":"prompt","message":"go"}\n')
        try:
            while (event := json.loads(await asyncio.wait_for(process.stdout.readline(), HANG_SECONDS)))["type"] != "agent_end":
                pass
        except TimeoutError:
            process.kill()
            record("hang", surface="rpc", check="response_deadline")
            pytest.fail(f"hang: no agent_end within {HANG_SECONDS} s")
        finally:
            process.stdin.close()
            await process.wait()
        answer = event["messages"][-1]
        assert (answer["stopReason"], answer["errorMessage"]) == ("error", response_timeout_message(DEADLINE_MS))
        assert process.returncode == 0


async def test_a_stalled_answer_is_retried_like_other_timeouts(tmp_path: Path) -> None:
    wire = WIRES[0]
    async with StallServer(wire, "deltas", stalls=1) as server:
        retry = {"enabled": True, "maxRetries": 1, "baseDelayMs": 1}
        sandbox = _sandbox(tmp_path, {"stalled": server}, {"retry": retry, "responseTimeoutMs": DEADLINE_MS})
        code, out, err, _ = await _run(sandbox, "--model", "stalled/fault-model", "--no-session", "-p", "go")
        assert (code, out) == (0, ANSWER + "\n"), (code, out, err)
        assert server.requests == 2


async def test_pi_batch_tasks_end_at_the_deadline_and_a_shorter_task_timeout_still_wins(tmp_path: Path) -> None:
    async with AsyncExitStack() as stack:
        servers = {
            f"stall-{kind}": await stack.enter_async_context(StallServer(WIRES[index % len(WIRES)], kind))
            for index, kind in enumerate(KINDS)
        }
        servers["stall-timeout"] = await stack.enter_async_context(StallServer(WIRES[1], "keepalive"))
        sandbox = _sandbox(tmp_path, servers, {"retry": NO_RETRY, "responseTimeoutMs": DEADLINE_MS})
        tasks = [{"id": kind, "prompt": "go", "model": f"stall-{kind}/fault-model"} for kind in KINDS]
        for kind in KINDS:
            record("stalled_stream", surface="batch", kind=kind)
        # The task's own limit (1 s) comes before its deadline (60 s, the task's own setting).
        tasks.append({"id": "timeout", "prompt": "go", "model": "stall-timeout/fault-model", "timeout": 1,
                      "settings": {"responseTimeoutMs": 60_000}})
        (sandbox.work / "tasks.jsonl").write_text("".join(json.dumps(task) + "\n" for task in tasks))
        code, _, err, _ = await _run(sandbox, "batch", "tasks.jsonl", "-o", "results.jsonl", "--jobs", "4")
        assert code == 1, err
        results = {
            row["id"]: row for row in map(json.loads, (sandbox.work / "results.jsonl").read_text().splitlines())
        }
        for kind in KINDS:
            assert (results[kind]["status"], results[kind]["error"]) == (
                "error",
                response_timeout_message(DEADLINE_MS),
            ), results[kind]
            record("stalled_stream_settled", surface="batch", kind=kind, deadline_ms=DEADLINE_MS,
                   delay_ms=round(results[kind]["wallTimeMs"] - DEADLINE_MS))
        assert results["timeout"]["status"] == "timeout", results["timeout"]
        # Each connection that was made is closed. (On a loaded machine a task's deadline may
        # pass before its request was even sent: then there is no connection to close.)
        for server in servers.values():
            if server.requests:
                await asyncio.wait_for(server.closed.wait(), HANG_SECONDS)


@pytest.mark.parametrize("cli", ["pi-cli", "pi-cli-current"])
async def test_pis_cli_has_no_such_bound(cli: str, tmp_path: Path) -> None:
    """The difference we document: Pi (0.85 and 1.6) has no overall deadline, so a stream of
    keepalive comments keeps its ``pi -p`` running, ``httpIdleTimeoutMs`` or not; it is still
    running at four times the deadline ours stops at, counted from its request (not from its
    start, which takes longer than the deadline itself on a loaded machine), and still connected."""
    folder = oracle.require_live_oracle()
    async with StallServer(WIRES[0], "keepalive") as server:
        settings = {"retry": NO_RETRY, "httpIdleTimeoutMs": 300, "responseTimeoutMs": DEADLINE_MS}
        sandbox = _sandbox(tmp_path, {"stalled": server}, settings)
        process = await _start(sandbox, str(folder / cli), "--model", "stalled/fault-model", "--no-session", "-p", "go")
        try:
            await asyncio.wait_for(server.asked.wait(), HANG_SECONDS)
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(process.wait(), 4 * DEADLINE_MS / 1000)
            assert server.requests == 1 and not server.closed.is_set()
        finally:
            if process.returncode is None:
                process.kill()
            await process.communicate()
