"""The codemode tool in the agent loop with the real built-in tools: nested calls go through the
loop's hooks, the result is laid out as Pi 1.6 lays it out, bash hands scripts its structured
value (also for a failing command), ``store()`` goes through the host, the loadout's modes."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

from pi_agent import (
    AgentContext,
    AgentEvent,
    AgentLoopConfig,
    AgentMessage,
    AgentTool,
    BeforeToolCallContext,
    BeforeToolCallResult,
    run_agent_loop,
)
from pi_ai import TextContent, ToolResultMessage
from pi_coding_agent.core.codemode import CodemodeHost, CodemodeTool, ToolFacts, prepare_loadout
from pi_coding_agent.core.tools import create_tools
from tests.pi_agent._support import faux_provider, reply, tool_calls, user


def _codemode(tools: list[AgentTool], **host: Any) -> CodemodeTool:
    return CodemodeTool(CodemodeHost(callable_tools=lambda: tools, **host))


async def _run_script(tmp_path: Path, code: str, before: Any = None, **host: Any) -> ToolResultMessage:
    tools = create_tools(str(tmp_path), ["read", "bash", "write"])
    codemode = _codemode(tools, **host)
    async with faux_provider(tool_calls(("call_1", "codemode", {"code": code})), reply("done")) as faux:
        async def emit(_event: AgentEvent) -> None:
            return None

        messages: list[AgentMessage] = await run_agent_loop(
            [user("go")], AgentContext(tools=[*tools, codemode]),
            AgentLoopConfig(model=faux.get_model(), before_tool_call=before), emit, stream_fn=faux.stream,
        )  # fmt: skip
    result = messages[2]
    assert isinstance(result, ToolResultMessage)
    return result


def _text(message: ToolResultMessage) -> str:
    return "".join(block.text for block in message.content if isinstance(block, TextContent))


def _scrub(text: str) -> str:
    return re.sub(r"Wall time [0-9.]+ seconds", "Wall time N seconds", text)


async def test_two_tools_in_parallel_filtered_by_the_script(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\nbeta\ngamma\n")
    code = (
        'const [a, b] = await Promise.all([tools.read({path: "a.txt"}), tools.bash({command: "echo hi"})]);\n'
        'console.log("lines", a.split("\\n").length);\n'
        'text(a.split("\\n").filter(l => l.includes("m")));\n'
        "return b.output.trim() + \" \" + b.exit_code;"
    )
    result = await _run_script(tmp_path, code)
    assert not result.is_error
    assert next(block.text for block in result.content if isinstance(block, TextContent)).startswith("Script completed\n")
    assert _scrub(_text(result)) == (
        "Script completed\nWall time N seconds\nOutput:\n"
        '==> text 1/2 <==\n["gamma"]\n==> text 2/2 <==\nhi 0\n<console_output>\nlines 4\n</console_output>'
    )
    calls = result.details["calls"]  # type: ignore[index]
    assert [(c["id"], c["name"], c["status"]) for c in calls] == [("call_1/1", "read", "ok"), ("call_1/2", "bash", "ok")]


async def test_a_failing_command_still_resolves_to_its_structured_value(tmp_path: Path) -> None:
    result = await _run_script(tmp_path, 'const r = await tools.bash({command: "echo out; exit 3"}); return [r.output, r.exit_code, r.truncated]')
    assert json.loads(_text(result).split("Output:\n", 1)[1]) == ["out\n", 3, False]


async def test_a_blocked_call_rejects_and_the_failure_lists_the_calls_made(tmp_path: Path) -> None:
    def before(ctx: BeforeToolCallContext, _signal: Any) -> BeforeToolCallResult | None:
        if ctx.tool_call.name == "write":
            return BeforeToolCallResult(block=True, reason="writes are not allowed here")
        return None

    code = 'await tools.bash({command: "true"});\ntext("partial");\nawait tools.write({path: "x", content: "y"});'
    result = await _run_script(tmp_path, code, before=before)
    assert result.is_error
    assert not (tmp_path / "x").exists()
    text = _scrub(_text(result))
    assert text.startswith("Script failed\nWall time N seconds\nOutput:\npartial\nScript error:\nError: writes are not allowed here\n")
    assert text.endswith("bash (ok), write (error)")


async def test_a_bad_options_line_fails_before_running(tmp_path: Path) -> None:
    result = await _run_script(tmp_path, '// @options: {"speed": 1}\nawait tools.bash({command: "touch ran"})')
    assert result.is_error and "`speed`" in _text(result)
    assert not (tmp_path / "ran").exists()


async def test_output_over_the_budget_keeps_its_ends_and_saves_the_rest(tmp_path: Path) -> None:
    result = await _run_script(tmp_path, '// @options: {"max_output_tokens": 10}\ntext("a".repeat(30) + "b".repeat(30))')
    text = _text(result)
    assert "a" * 20 + "…" in text and "…" + "b" * 20 in text
    saved = re.search(r"\[Full output: (\S+) ", text)
    assert saved is not None
    assert await asyncio.to_thread(Path(saved.group(1)).read_text) == "a" * 30 + "b" * 30


async def test_store_writes_reach_the_host_only_when_the_script_succeeds(tmp_path: Path) -> None:
    saved: list[tuple[dict[str, Any], list[str]]] = []
    host = {"load_store": lambda: {"seen": 1}, "save_store": lambda values, deleted: saved.append((values, deleted))}
    ok = await _run_script(tmp_path, 'store("seen", load("seen") + 1); return load("seen")', **host)
    assert _text(ok).endswith("Output:\n2") and saved == [({"seen": 2}, [])]
    await _run_script(tmp_path, 'store("seen", 9); throw new Error("no")', **host)
    assert saved == [({"seen": 2}, [])]


async def test_scripts_cannot_reach_codemode_itself(tmp_path: Path) -> None:
    result = await _run_script(tmp_path, 'return "codemode" in tools')
    assert _text(result).endswith("Output:\nfalse")


async def test_search_and_describe_find_tools(tmp_path: Path) -> None:
    code = 'const found = await searchTools("shell command"); return [found[0].name, (await describeTool("read")).includes("read(args:")]'
    result = await _run_script(tmp_path, code)
    assert json.loads(_text(result).split("Output:\n", 1)[1]) == ["bash", True]


def test_loadout_on_notes_declared_tools_and_only_hides_them(tmp_path: Path) -> None:
    tools = create_tools(str(tmp_path), ["read", "bash"])
    codemode = _codemode(tools)
    declared = [*tools, codemode]
    on = prepare_loadout(declared, tools, ToolFacts(), "on", 3000)
    assert on.hidden == [] and "tools.bash(args)" in on.descriptions["bash"]
    assert "Nested tools:" not in on.descriptions["codemode"]
    only = prepare_loadout(declared, tools, ToolFacts(), "only", 3000)
    assert only.hidden == ["read", "bash"] and "bash" not in only.descriptions
    assert "### `read`" in only.descriptions["codemode"] and "### `bash`" in only.descriptions["codemode"]
    tight = prepare_loadout(declared, tools, ToolFacts(), "only", 0)
    assert "### `" not in tight.descriptions["codemode"]


def test_store_values_are_the_branch_entries_applied_in_order() -> None:
    from pi_coding_agent.core.codemode import read_store
    from pi_coding_agent.core.session import CustomEntry

    def entry(custom_type: str, data: Any) -> CustomEntry:
        return CustomEntry(custom_type=custom_type, data=data, id="x", parent_id=None, timestamp="t")

    branch = [
        entry("codemode-store", {"set": {"a": 1, "b": [2]}, "delete": []}),
        entry("other", {"set": {"a": 9}, "delete": []}),
        entry("codemode-store", {"set": {"c": 3}, "delete": ["a"]}),
        entry("codemode-store", {"set": "not an object", "delete": []}),
    ]
    assert read_store(branch) == {"b": [2], "c": 3}


async def test_scripts_wait_for_a_free_worker_in_arrival_order(monkeypatch: Any, tmp_path: Path) -> None:
    from pi_coding_agent.core.codemode import _workers

    monkeypatch.setenv("PI_CODEMODE_MAX_WORKERS", "1")
    order: list[str] = []
    assert await _workers.reserve(1.0) == "reserved"
    waiting = [asyncio.ensure_future(_reserve_then_note(name, order)) for name in ("first", "second")]
    await asyncio.sleep(0)
    assert order == []
    _workers.release()
    await waiting[0]
    assert order == ["first"]
    _workers.release()
    await waiting[1]
    assert order == ["first", "second"]
    _workers.release()
    assert await _workers.reserve(0.01) == "reserved"
    assert await _workers.reserve(0.01) == "timeout"
    _workers.release()


async def _reserve_then_note(name: str, order: list[str]) -> None:
    from pi_coding_agent.core.codemode import _workers

    assert await _workers.reserve(5.0) == "reserved"
    order.append(name)


async def test_a_script_that_gets_no_worker_in_time_does_not_start(monkeypatch: Any, tmp_path: Path) -> None:
    from pi_coding_agent.core.codemode import _workers

    monkeypatch.setenv("PI_CODEMODE_MAX_WORKERS", "1")
    assert await _workers.reserve(1.0) == "reserved"
    try:
        result = await _run_script(tmp_path, '// @options: {"timeout_ms": 50}\nawait tools.bash({command: "touch ran"})')
    finally:
        _workers.release()
    assert result.is_error and not (tmp_path / "ran").exists()
    text = _text(result)
    assert "while waiting for a free codemode worker" in text and text.endswith("The script did not start.")
