"""The ``bash`` tool with real subprocesses: limits, temp file, updates, and no process left behind."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from pi_agent import AgentToolResult
from pi_ai import AbortController, TextContent
from pi_coding_agent.core.tools import BashTool, ToolError
from pi_coding_agent.core.tools import _shell as shell_module
from tests.pi_coding_agent.core.tools.processes import alive, kill, read_and_remove, read_pid, wait_gone


def _text(result: AgentToolResult[Any]) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


async def test_abort_kills_the_whole_process_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    tool = BashTool(str(tmp_path))
    controller = AbortController()
    task = asyncio.ensure_future(
        tool.execute(
            "c", {"command": f"echo started; sleep 30 & echo $! > {pid_file}; wait"}, controller.signal, None
        )
    )
    child = await read_pid(pid_file)
    assert alive(child)
    controller.abort()
    with pytest.raises(ToolError) as error:
        await task
    assert str(error.value) == "started\n\n\nCommand aborted"
    assert await wait_gone(child), "the background sleep survived the abort"


async def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    tool = BashTool(str(tmp_path))
    loop = asyncio.get_running_loop()
    started = loop.time()
    with pytest.raises(ToolError) as error:
        await tool.execute(
            "c", {"command": f"sleep 30 & echo $! > {pid_file}; wait", "timeout": 0.3}, None, None
        )
    assert loop.time() - started < 3
    assert str(error.value) == "Command timed out after 0.3 seconds"
    assert await wait_gone(await read_pid(pid_file))


async def test_cancelling_the_task_kills_the_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    tool = BashTool(str(tmp_path))
    task = asyncio.ensure_future(
        tool.execute("c", {"command": f"sleep 30 & echo $! > {pid_file}; wait"}, None, None)
    )
    child = await read_pid(pid_file)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_gone(child)


async def test_background_process_does_not_hold_the_call(tmp_path: Path) -> None:
    tool = BashTool(str(tmp_path))
    loop = asyncio.get_running_loop()
    started = loop.time()
    result = await tool.execute("c", {"command": "sleep 30 & echo $!"}, None, None)
    pid = int(_text(result))
    try:
        assert loop.time() - started < 3
        assert alive(pid), "a normal exit leaves background processes running, as in Pi"
    finally:
        kill(pid)


async def test_late_output_after_exit_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The grace (100 ms of silence) is stretched so that a loaded machine's scheduling delay of
    # the background writer cannot pass for silence; what is tested is that reading goes on.
    monkeypatch.setattr(shell_module, "EXIT_IDLE_GRACE", 5.0)
    tool = BashTool(str(tmp_path))
    result = await tool.execute("c", {"command": "(sleep 0.05; echo late) & echo early"}, None, None)
    assert _text(result) == "early\nlate\n"


async def test_full_output_file_has_everything(tmp_path: Path) -> None:
    tool = BashTool(str(tmp_path))
    result = await tool.execute("c", {"command": "seq 1 5000"}, None, None)
    details = result.details
    assert details is not None
    path = details["fullOutputPath"]
    assert details["truncation"]["totalLines"] == 5000
    assert _text(result).startswith("3001\n")
    assert _text(result).endswith(f"\n\n[Showing lines 3001-5000 of 5000. Full output: {path}]")
    assert read_and_remove(Path(path)) == "".join(f"{i}\n" for i in range(1, 5001))


async def test_updates_stream_partial_output(tmp_path: Path) -> None:
    tool = BashTool(str(tmp_path))
    updates: list[AgentToolResult[Any]] = []
    await tool.execute("c", {"command": "echo one; sleep 0.25; echo two"}, None, updates.append)
    assert updates[0].content == [] and updates[0].details is None
    texts = [_text(u) for u in updates[1:]]
    assert texts[0] == "one\n" and texts[-1] == "one\ntwo\n"
    assert len(updates) <= 4


async def test_environment_prefix_and_bin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = BashTool(
        str(tmp_path),
        command_prefix="GREETING=hi",
        bin_dir=str(bin_dir),
        session_env=lambda: {"PI_SESSION_ID": "s-1", "PI_MODEL": "m"},
    )
    monkeypatch.setenv("PI_PROVIDER", "inherited-must-not-leak")
    result = await tool.execute(
        "c", {"command": 'echo "$GREETING $PI_SESSION_ID $PI_MODEL [$PI_PROVIDER] ${PATH%%:*}"'}, None, None
    )
    assert _text(result) == f"hi s-1 m [] {bin_dir}\n"
    assert tool.prompt_guidelines


async def test_output_is_not_ansi_stripped_and_stderr_is_merged(tmp_path: Path) -> None:
    tool = BashTool(str(tmp_path))
    result = await tool.execute(
        "c", {"command": "printf 'a\\033[1mb\\n'; echo err >&2; echo out"}, None, None
    )
    assert _text(result) == "a\x1b[1mb\nerr\nout\n"


async def test_custom_shell_must_exist(tmp_path: Path) -> None:
    tool = BashTool(str(tmp_path), shell_path=str(tmp_path / "no-shell"))
    with pytest.raises(ToolError, match="Custom shell path not found"):
        await tool.execute("c", {"command": "true"}, None, None)
