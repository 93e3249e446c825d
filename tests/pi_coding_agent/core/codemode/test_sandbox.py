"""The QuickJS sandbox on its own: host calls in parallel and in order, output, errors as the
model reads them, limits (deadline while computing and while waiting, memory), store, exit."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from pi_ai import AbortController, AbortSignal
from pi_coding_agent.core.codemode import CallRejected, HostGlobal, HostTool, run_script


class Recorder:
    """A host tool that records when calls start and finish; ``wait`` holds a call until released."""

    def __init__(self) -> None:
        self.started: list[Any] = []
        self.finished: list[Any] = []
        self.gates: dict[str, asyncio.Event] = {}
        self.changed = asyncio.Event()

    async def __call__(self, args: Any, signal: AbortSignal) -> Any:
        self.started.append(args["id"])
        self.changed.set()
        gate = self.gates.get(args["id"])
        if gate is not None:
            await gate.wait()
        if args.get("fail"):
            raise CallRejected(f"call {args['id']} failed")
        self.finished.append(args["id"])
        self.changed.set()
        return {"id": args["id"], "n": len(self.started)}

    async def until(self, condition: Any) -> None:
        while not condition():
            self.changed.clear()
            await self.changed.wait()


def tool(recorder: Recorder, name: str = "probe") -> HostTool:
    return HostTool(name, f"the {name} tool", recorder)


async def test_parallel_calls_start_together_and_resolve_in_call_order() -> None:
    recorder = Recorder()
    recorder.gates = {"a": asyncio.Event(), "b": asyncio.Event()}

    async def release_b_then_a() -> None:
        await recorder.until(lambda: len(recorder.started) == 2)  # both in flight before either ends
        recorder.gates["b"].set()
        await recorder.until(lambda: "b" in recorder.finished)
        recorder.gates["a"].set()

    script = 'const r = await Promise.all([tools.probe({id: "a"}), tools.probe({id: "b"})]); return r.map(x => x.id)'
    result, _ = await asyncio.gather(run_script(script, tools=[tool(recorder)]), release_b_then_a())
    assert result.ok, result.error
    assert recorder.started == ["a", "b"]
    assert recorder.finished == ["b", "a"]
    assert json.loads(result.value_json or "null") == ["a", "b"]


async def test_output_items_keep_their_order_and_kinds() -> None:
    result = await run_script('text("one"); console.log("c", 1, {a: 2}); text({b: 3}); console.warn("w"); return 5')
    assert result.ok
    assert [(item.kind, item.data) for item in result.output] == [
        ("text", "one"), ("console", 'c 1 {"a":2}'), ("text", '{"b":3}'), ("console", "w"),
    ]
    assert result.value_json == "5"


async def test_a_failed_call_rejects_and_can_be_caught() -> None:
    recorder = Recorder()
    script = (
        'const s = await Promise.allSettled([tools.probe({id: "x", fail: true}), tools.probe({id: "y"})]);'
        "return s.map(r => r.status === 'fulfilled' ? r.value.id : r.reason.message)"
    )
    result = await run_script(script, tools=[tool(recorder)])
    assert json.loads(result.value_json or "null") == ["call x failed", "y"]


async def test_an_uncaught_failure_ends_the_script_with_the_error_text() -> None:
    result = await run_script('await tools.probe({id: "x", fail: true}); text("after")', tools=[tool(Recorder())])
    assert not result.ok and result.error is not None
    assert (result.error.kind, result.error.name, result.error.message) == ("script", "Error", "call x failed")
    assert result.output == []


async def test_script_errors_carry_the_script_frames_only() -> None:
    result = await run_script('function f() {\n  null.x;\n}\nf()')
    assert result.error is not None and result.error.stack is not None
    lines = result.error.stack.splitlines()
    assert lines[0] == "TypeError: cannot read property 'x' of null"
    assert all("codemode.js" in line for line in lines[1:]) and lines[1:], lines
    assert "codemode.js:2:" in lines[1]


async def test_syntax_errors_are_script_errors() -> None:
    result = await run_script("let x = ;")
    assert result.error is not None and (result.error.kind, result.error.name) == ("script", "SyntaxError")


async def test_unknown_tools_are_named_with_what_exists() -> None:
    result = await run_script("await tools.prob({})", tools=[tool(Recorder()), tool(Recorder(), "my-tool")])
    assert result.error is not None
    assert "tools.prob is not defined" in result.error.message
    assert "tools.probe" in result.error.message


async def test_tool_names_become_identifiers() -> None:
    recorder = Recorder()
    result = await run_script('return [(await tools.my_tool({id: "a"})).id, ALL_TOOLS.map(t => t.name)]', tools=[tool(recorder, "my-tool")])
    assert json.loads(result.value_json or "null") == ["a", ["my_tool"]]


async def test_a_deadline_stops_a_script_that_computes_forever() -> None:
    result = await run_script("while (true) {}", timeout_ms=200)
    assert result.error is not None
    assert (result.error.kind, result.error.message) == ("timeout", "Execution timed out after 200 ms")


async def test_a_deadline_stops_a_script_waiting_for_a_call_and_cancels_it() -> None:
    cancelled = asyncio.Event()

    async def forever(args: Any, signal: AbortSignal) -> Any:
        try:
            await asyncio.Event().wait()
        finally:
            cancelled.set()

    result = await run_script("await tools.slow({})", tools=[HostTool("slow", "", forever)], timeout_ms=100)
    assert result.error is not None and result.error.kind == "timeout"
    assert cancelled.is_set()


async def test_an_abort_stops_a_waiting_script() -> None:
    controller = AbortController()

    async def forever(args: Any, signal: AbortSignal) -> Any:
        controller.abort()
        await asyncio.Event().wait()

    result = await run_script("await tools.slow({})", tools=[HostTool("slow", "", forever)], signal=controller.signal)
    assert result.error is not None and result.error.kind == "aborted"


async def test_running_out_of_memory_is_the_scripts_error() -> None:
    result = await run_script('const a = []; while (true) a.push("x".repeat(100000) + a.length)', memory_limit=32 * 1024 * 1024)
    assert result.error is not None
    assert (result.error.kind, result.error.name, result.error.message) == ("script", "InternalError", "out of memory")


async def test_waiting_on_nothing_fails_at_once() -> None:
    result = await run_script("await new Promise(() => {})")
    assert result.error is not None and "nothing can settle" in result.error.message


async def test_exit_ends_successfully_and_keeps_earlier_output() -> None:
    result = await run_script('text("before"); exit(); text("after")')
    assert result.ok and [item.data for item in result.output] == ["before"]


async def test_store_reads_given_values_and_reports_writes() -> None:
    result = await run_script('store("n", load("n") + 1); store("gone", undefined); return load("n")', store={"n": 1, "gone": True})
    assert result.ok and result.value_json == "2"
    assert (result.store_set, result.store_delete) == ({"n": 2}, ["gone"])


async def test_store_refuses_oversized_values() -> None:
    result = await run_script('store("big", "x".repeat(300000))')
    assert result.error is not None and result.error.name == "RangeError"


async def test_output_past_the_item_limit_fails_the_script() -> None:
    result = await run_script('for (let i = 0; i < 100001; i++) console.log("")')
    assert result.error is not None and result.error.name == "RangeError"


async def test_images_are_checked_and_typed() -> None:
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    result = await run_script(f'image("data:image/png;base64,{png}"); image({{type: "image", data: "{png}", mimeType: "x"}})')
    assert result.ok
    assert [(item.kind, item.mime_type) for item in result.output] == [("image", "image/png"), ("image", "image/png")]
    remote = await run_script('image("https://example.com/a.png")')
    assert remote.error is not None and "remote" in remote.error.message


async def test_host_globals_take_spread_arguments() -> None:
    async def add(args: list[Any], signal: AbortSignal) -> Any:
        return sum(args)

    result = await run_script("return await searchTools(1, 2, 3)", host_globals=[HostGlobal("searchTools", add)])
    assert result.value_json == "6"


@pytest.mark.parametrize("patch", ["JSON.stringify = () => '\"patched\"'", "Promise.prototype.then = null"])
async def test_patched_builtins_do_not_change_what_the_host_gets(patch: str) -> None:
    result = await run_script(f'{patch}; text("ok"); return {{a: 1}}')
    assert [item.data for item in result.output] == ["ok"]
    assert result.value_json == '{"a":1}'
