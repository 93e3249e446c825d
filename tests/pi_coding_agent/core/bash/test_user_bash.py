"""User bash (``!cmd``): input parsing, output cleaning, rolling truncation, cancel, message."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from pi_ai import AbortController
from pi_ai._codec import encode
from pi_coding_agent.core.bash import (
    BashInput,
    StreamSanitizer,
    bash_execution_message,
    execute_bash,
    parse_bash_input,
    sanitize,
)
from pi_coding_agent.core.messages import convert_to_llm
from pi_coding_agent.core.tools import ToolError
from tests.pi_coding_agent.core.tools.pi_fixtures import normalize_user_bash
from tests.pi_coding_agent.core.tools.processes import alive, read_and_remove, read_pid, wait_gone


def test_parse_bash_input() -> None:
    assert parse_bash_input("  !ls -la  ") == BashInput("ls -la", False)
    assert parse_bash_input("!! git status") == BashInput("git status", True)
    assert parse_bash_input("!!!x") == BashInput("!x", True)
    assert parse_bash_input("!") is None
    assert parse_bash_input("!!  ") is None
    assert parse_bash_input("say !hi") is None
    assert parse_bash_input("\u00a0!echo\ufeff") == BashInput("echo", False)


def test_sanitize_strips_ansi_controls_and_carriage_returns() -> None:
    raw = "\x1b[1;31mred\x1b[0m \x1b]0;title\x07ok\r\n\x00\x07bell\tTab\ufff9\x1b[?25l!"
    assert sanitize(raw) == "red ok\nbell\tTab!"


def test_stream_sanitizer_handles_escape_split_across_chunks() -> None:
    cleaner = StreamSanitizer()
    pieces = [
        cleaner.feed("a\x1b["),
        cleaner.feed("3"),
        cleaner.feed("1mb\x1b]8;;http://x"),
        cleaner.feed("\x1b\\c\x1b"),
    ]
    assert "".join(pieces) + cleaner.flush() == "abc"


async def test_runs_in_cwd_and_reports_exit_code(tmp_path: Path) -> None:
    chunks: list[str] = []
    result = await execute_bash(
        "printf '\\033[32mgreen\\033[0m\\r\\n'; pwd; exit 3", str(tmp_path), on_chunk=chunks.append
    )
    assert result.output == f"green\n{tmp_path}\n"
    assert (result.exit_code, result.cancelled, result.truncated, result.full_output_path) == (
        3,
        False,
        False,
        None,
    )
    assert "".join(chunks) == result.output


async def test_missing_cwd(tmp_path: Path) -> None:
    with pytest.raises(
        ToolError, match=r"^Working directory does not exist: .*/gone\nCannot execute bash commands\.$"
    ):
        await execute_bash("echo hi", str(tmp_path / "gone"))


async def test_truncation_keeps_the_tail_and_saves_everything(tmp_path: Path) -> None:
    result = await execute_bash("seq 1 30000", str(tmp_path))
    assert result.truncated and result.exit_code == 0
    assert result.output.split("\n") == [str(i) for i in range(28001, 30001)]
    assert result.full_output_path is not None
    assert read_and_remove(Path(result.full_output_path)) == "".join(f"{i}\n" for i in range(1, 30001))


async def test_rolling_buffer_bounds_memory_by_bytes(tmp_path: Path) -> None:
    # 300 KB in long lines: the kept text is the last 50 KB worth of whole lines.
    result = await execute_bash("for i in $(seq 1 1500); do printf '%0199d\\n' $i; done", str(tmp_path))
    assert result.truncated
    lines = result.output.split("\n")
    assert lines[-1] == f"{1500:0199d}" and len(lines) == 51200 // 200
    assert result.full_output_path is not None
    assert len(read_and_remove(Path(result.full_output_path))) == 1500 * 200


async def test_cancel_kills_the_process_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    controller = AbortController()
    task = asyncio.ensure_future(
        execute_bash(
            f"echo begin; sleep 30 & echo $! > {pid_file}; wait", str(tmp_path), signal=controller.signal
        )
    )
    child = await read_pid(pid_file)
    assert alive(child)
    controller.abort()
    result = await task
    assert (result.output, result.exit_code, result.cancelled) == ("begin\n", None, True)
    assert await wait_gone(child), "the background sleep survived cancel"


async def test_message_for_bang_and_double_bang(tmp_path: Path) -> None:
    result = await execute_bash("echo hi; exit 1", str(tmp_path))
    shown = bash_execution_message("echo hi; exit 1", result, exclude_from_context=False, timestamp=5)
    assert encode(shown) == (
        b'{"role":"bashExecution","command":"echo hi; exit 1","output":"hi\\n","exitCode":1,'
        b'"cancelled":false,"truncated":false,"timestamp":5,"excludeFromContext":false}'
    )
    hidden = bash_execution_message("echo hi", result, exclude_from_context=True, timestamp=5)
    assert convert_to_llm([hidden]) == []
    (user,) = convert_to_llm([shown])
    assert user.content[0].text == "Ran `echo hi; exit 1`\n```\nhi\n\n```\n\nCommand exited with code 1"  # type: ignore[union-attr]


async def test_cancelled_message_omits_exit_code(tmp_path: Path) -> None:
    controller = AbortController()
    controller.abort()
    result = await execute_bash("echo never", str(tmp_path), signal=controller.signal)
    assert result.cancelled and result.exit_code is None
    assert b"exitCode" not in encode(bash_execution_message("echo never", result, timestamp=1))


PI_RECORDS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "pi_user_bash.json").read_text("utf-8")
)


@pytest.mark.parametrize("record", PI_RECORDS, ids=[r["case"]["command"][:30] for r in PI_RECORDS])
async def test_matches_pis_executor(record: dict[str, Any], tmp_path: Path) -> None:
    """Same commands as recorded from Pi 0.85's ``executeBashWithOperations``."""
    case = record["case"]
    cwd = _resolved(tmp_path)
    controller = AbortController()
    if "abortAfterMs" in case:
        asyncio.get_running_loop().call_later(case["abortAfterMs"] / 1000, controller.abort)
    result = await execute_bash(case["command"], cwd, signal=controller.signal)
    answer: dict[str, Any] = {"output": result.output}
    if result.exit_code is not None:
        answer["exitCode"] = result.exit_code
    answer |= {"cancelled": result.cancelled, "truncated": result.truncated}
    if result.full_output_path is not None:
        answer["fullOutputPath"] = result.full_output_path
    assert normalize_user_bash({"result": answer}, Path(cwd)) == record["pi"]


def _resolved(path: Path) -> str:
    return str(path.resolve())
