"""No command process outlives its run: the ``bash`` tool aborted or timed out, user bash
aborted, ``pi`` itself terminated or killed with SIGKILL in the middle of a tool call.

Every check runs ``leaks.spreading_command`` (background, double-forked and ``setsid``
children) and then reads the process table. What cannot be caught is pinned down at the end:
a process that leaves the process group *and* drops its environment.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from pathlib import Path

import pytest

from pi_ai import AbortController
from pi_coding_agent.core.bash import execute_bash
from pi_coding_agent.core.tools import BashTool, LocalShell, ShellAbortedError, ToolError
from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, OUR_PI, Sandbox
from tests.reliability.leaks import (
    NEEDS_PROC,
    children,
    command_line,
    left_behind,
    marker_of,
    spreading_command,
    wait_for_pids,
)
from tests.support.scripted_provider import ScriptedProvider

pytestmark = NEEDS_PROC


async def _pids_then(path: Path) -> list[int]:
    return await asyncio.to_thread(wait_for_pids, path)


async def test_bash_tool_abort_leaves_no_process(tmp_path: Path) -> None:
    pids_file = tmp_path / "pids"
    controller = AbortController()
    tool = BashTool(str(tmp_path))
    call = asyncio.ensure_future(
        tool.execute("c1", {"command": spreading_command(pids_file)}, controller.signal, None)
    )
    pids = await _pids_then(pids_file)
    marker = marker_of(pids[0])
    controller.abort()
    with pytest.raises(ToolError, match="Command aborted"):
        await call
    assert marker is not None
    assert left_behind(pids, marker) == []


async def test_bash_tool_timeout_leaves_no_process(tmp_path: Path) -> None:
    pids_file = tmp_path / "pids"
    tool = BashTool(str(tmp_path))
    call = asyncio.ensure_future(
        tool.execute("c1", {"command": spreading_command(pids_file), "timeout": 2}, None, None)
    )
    pids = await _pids_then(pids_file)
    marker = marker_of(pids[0])
    with pytest.raises(ToolError, match="Command timed out after 2 seconds"):
        await call
    assert left_behind(pids, marker) == []


async def test_user_bash_abort_leaves_no_process(tmp_path: Path) -> None:
    pids_file = tmp_path / "pids"
    controller = AbortController()
    run = asyncio.ensure_future(
        execute_bash(spreading_command(pids_file), str(tmp_path), signal=controller.signal)
    )
    pids = await _pids_then(pids_file)
    marker = marker_of(pids[0])
    controller.abort()
    result = await run
    assert result.cancelled and result.exit_code is None
    assert left_behind(pids, marker) == []


async def test_a_normal_exit_leaves_background_processes_running(tmp_path: Path) -> None:
    """As in Pi: a command may start a server and return; only abort, timeout and pi's death kill."""
    pids_file = tmp_path / "pids"
    output: list[bytes] = []
    command = f"sleep 300 > /dev/null 2>&1 & echo $! > {pids_file}"
    code = await LocalShell().exec(command, str(tmp_path), on_data=output.append)
    [server] = wait_for_pids(pids_file, 1)
    assert code == 0
    assert left_behind([server], None, within=0.5, meant_to_survive=True) == [server]  # it was running; now killed


# --------------------------------------------------------------------------- the CLI


def _tool_call_script(command: str) -> list[dict[str, object]]:
    return [
        {"tool_calls": [{"id": "call_1", "name": "bash", "arguments": {"command": command}}]},
        {"text": "done"},
    ]


def _start_pi(sandbox: Sandbox, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [str(OUR_PI), "--model", OPENAI_MODEL, *args, "-p", "go"],
        cwd=sandbox.work,
        env=sandbox.env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _watchdog_of(pi: int) -> int:
    [watchdog] = [pid for pid in children(pi) if "_watchdog.py" in command_line(pid)]
    return watchdog


@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM"])
def test_pi_killed_during_a_tool_call_leaves_no_process(tmp_path: Path, how: str) -> None:
    pids_file = tmp_path / "pids"
    with ScriptedProvider(_tool_call_script(spreading_command(pids_file))) as provider:
        sandbox = Sandbox.create(tmp_path / "sandbox", provider.base_url)
        pi = _start_pi(sandbox)
        try:
            pids = wait_for_pids(pids_file)
            marker = marker_of(pids[0])
            watchdog = _watchdog_of(pi.pid)
            pi.send_signal(getattr(signal, how))
            _, err = pi.communicate(timeout=60)
        finally:
            if pi.poll() is None:
                pi.kill()
    assert pi.returncode == (-9 if how == "SIGKILL" else 143), err
    assert marker is not None
    assert left_behind([*pids, watchdog], marker) == []


def test_the_watchdog_leaves_with_pi(tmp_path: Path) -> None:
    """A run that ends normally takes its watchdog with it (no orphan, no zombie left)."""
    pids_file = tmp_path / "pids"
    with ScriptedProvider(_tool_call_script(f"echo $PPID > {pids_file}")) as provider:
        sandbox = Sandbox.create(tmp_path / "sandbox", provider.base_url)
        pi = _start_pi(sandbox)
        [parent] = wait_for_pids(pids_file, 1)
        assert parent == pi.pid
        watchdogs = [pid for pid in children(pi.pid) if "_watchdog.py" in command_line(pid)]
        out, err = pi.communicate(timeout=60)
    assert (pi.returncode, out) == (0, b"done\n"), err
    assert len(watchdogs) <= 1
    assert left_behind(watchdogs, None) == []


async def test_a_killed_watchdog_is_replaced(tmp_path: Path) -> None:
    from pi_coding_agent.core.tools._process_guard import watchdog

    shell = LocalShell()
    await shell.exec("true", str(tmp_path), on_data=lambda data: None)
    first = watchdog().pid
    assert first is not None
    os.kill(first, signal.SIGKILL)
    await asyncio.to_thread(left_behind, [first], None)
    await shell.exec("true", str(tmp_path), on_data=lambda data: None)
    second = watchdog().pid
    assert second is not None and second != first


# --------------------------------------------------------------------------- the limits


async def test_what_leaves_the_group_and_drops_its_environment_escapes(tmp_path: Path) -> None:
    """The documented limit (docs/security.md): ``setsid`` plus ``env -i`` is out of reach."""
    escaped_file, caught_file = tmp_path / "escaped", tmp_path / "caught"
    controller = AbortController()
    command = (
        f"setsid env -i sh -c 'echo $$ > {escaped_file}; exec sleep 304' & "
        f"sleep 300 & echo $! > {caught_file}; wait"
    )
    run = asyncio.ensure_future(
        LocalShell().exec(command, str(tmp_path), on_data=lambda data: None, signal=controller.signal)
    )
    [escaped] = await asyncio.to_thread(wait_for_pids, escaped_file, 1)
    [caught] = await asyncio.to_thread(wait_for_pids, caught_file, 1)
    controller.abort()
    with pytest.raises(ShellAbortedError):
        await run
    assert left_behind([caught], None) == []
    assert left_behind([escaped], None, within=0.5, meant_to_survive=True) == [escaped]
