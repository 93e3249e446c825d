"""Running one script in a QuickJS VM (the ``quickjs-ng`` binding) with calls out to the host.

The VM lives on a thread of its own (the binding's contexts must stay on the thread that made
them, and the binding lets other threads run while JavaScript computes), so the event loop stays
free while a script computes. The script runs until it has nothing to do but wait for the host;
then the host starts the tool calls the script asked for, and each completed call is handed back
to the VM, which runs on until it waits again. Calls run as asyncio tasks, so ``Promise.all``
over tools runs them in parallel.

Limits: the VM's heap (``memory_limit``; running out is the script's ``InternalError: out of
memory``), and a deadline (``timeout_ms``) that covers waiting for calls; JavaScript that computes
without awaiting is stopped by the binding's CPU-time limit set to what is left of the deadline.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal

from pi_ai import AbortSignal
from pi_coding_agent.core.codemode._identifier import to_identifier
from pi_coding_agent.core.codemode._prelude import prelude_source

DEFAULT_MEMORY_LIMIT = 256 * 1024 * 1024
_STACK_LIMIT = 1024 * 1024
_SCRIPT_OPEN = "(async (tools, console) => {"
_SCRIPT_CLOSE = "\n})"

ErrorKind = Literal["script", "timeout", "aborted", "sandbox"]


class CallRejected(Exception):
    """Raised by a host call to reject the script's promise with this text."""


@dataclass(frozen=True, slots=True)
class HostTool:
    """A tool as the script sees it: ``tools.<js name>(args)`` awaits ``call(args, signal)``, whose
    value must be JSON-serialisable; ``CallRejected`` (or any exception) rejects the promise."""

    name: str
    description: str
    call: Callable[[Any, AbortSignal], Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class HostGlobal:
    """A global function (``searchTools``, or ``group.member``) taking its arguments as a list."""

    name: str
    call: Callable[[list[Any], AbortSignal], Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class OutputItem:
    kind: Literal["text", "console", "image"]
    data: str
    """The text, or an image's base64 data."""
    mime_type: str | None = None


@dataclass(frozen=True, slots=True)
class ScriptError:
    kind: ErrorKind
    message: str
    name: str | None = None
    stack: str | None = None


@dataclass(slots=True)
class ScriptResult:
    ok: bool
    output: list[OutputItem] = field(default_factory=list)
    value_json: str | None = None
    """What a successful script returned, as JSON (``None``: nothing)."""
    error: ScriptError | None = None
    store_set: dict[str, Any] = field(default_factory=dict)
    store_delete: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Inbox:
    """What the VM asked of the host during one step (filled on the VM's thread)."""

    calls: list[tuple[str, int, str, str | None]] = field(default_factory=list)
    output: list[OutputItem] = field(default_factory=list)
    done: tuple[bool, str | None, str | None] | None = None


class _Vm:
    """The QuickJS context and the one thread that may touch it."""

    def __init__(self) -> None:
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pi-codemode")
        self.inbox = _Inbox()
        self._context: Any = None
        self._api: Any = None

    async def run(self, work: Callable[[], None], cpu_seconds: float | None) -> None:
        def step() -> None:
            if self._context is not None:
                self._context.set_time_limit(-1 if cpu_seconds is None else max(cpu_seconds, 0.001))
            try:
                work()
            finally:
                if self._api is not None:
                    for message in json.loads(self._api("take")):
                        self._host(*message)

        await asyncio.get_running_loop().run_in_executor(self._thread, step)

    def _host(self, kind: str, a: Any = None, b: Any = None, c: Any = None, d: Any = None) -> None:
        inbox = self.inbox
        if kind in ("call", "global"):
            inbox.calls.append((kind, int(a), str(b), None if c is None else str(c)))
        elif kind == "output":
            inbox.output.append(OutputItem(a, str(b), None if c is None else str(c)))
        elif kind == "done" and inbox.done is None:
            inbox.done = (bool(a), None if b is None else str(b), None if c is None else str(c))

    def start(self, memory_limit: int, tools_json: str, globals_json: str, store_json: str) -> Callable[[], None]:
        def create() -> None:
            import quickjs

            context = quickjs.Context()
            context.set_memory_limit(memory_limit)
            context.set_max_stack_size(_STACK_LIMIT)
            self._context = context
            make = context.eval(prelude_source())
            self._api = make(tools_json, globals_json, store_json)

        return create

    def launch(self, code: str) -> Callable[[], None]:
        def work() -> None:
            import quickjs

            try:
                body = self._context.eval(f"{_SCRIPT_OPEN}{code}{_SCRIPT_CLOSE}")
            except quickjs.JSException as error:
                self.inbox.done = (False, _exception_json(error), None)
                return
            self._api("run", body)
            self._drain()

        return work

    def settle(self, call_id: int, ok: bool, payload: str | None) -> Callable[[], None]:
        def work() -> None:
            self._api("settle", call_id, ok, payload)
            self._drain()

        return work

    def check_stalled(self) -> Callable[[], None]:
        return lambda: self._api("stalled")

    def _drain(self) -> None:
        while self._context.execute_pending_job():
            pass

    async def close(self) -> None:
        def drop() -> None:
            self._api = None
            self._context = None

        try:
            await asyncio.get_running_loop().run_in_executor(self._thread, drop)
        finally:
            self._thread.shutdown(wait=False)


def _exception_json(error: BaseException) -> str:
    """A compile-time error (a ``SyntaxError``) as the prelude reports errors."""
    lines = [line for line in str(error).splitlines() if line.strip()]
    head = lines[0] if lines else "SyntaxError"
    name, _, message = head.partition(": ")
    frames = [line.replace("<input>", "codemode.js") for line in lines[1:]]
    return json.dumps({"name": name, "message": message, "stack": "\n".join([head, *frames])})


def _error_from_json(payload: str | None) -> ScriptError:
    try:
        data = json.loads(payload or "{}")
    except ValueError:
        data = {}
    if not isinstance(data, dict):
        data = {}
    message = str(data.get("message", ""))
    name = data.get("name")
    stack = data.get("stack")
    return ScriptError("script", message, str(name) if name is not None else None, str(stack) if stack else None)


def _store_changes(writes_json: str | None) -> tuple[dict[str, Any], list[str]]:
    set_values: dict[str, Any] = {}
    deleted: list[str] = []
    for entry in json.loads(writes_json or "[]"):
        if len(entry) == 2:
            set_values[entry[0]] = json.loads(entry[1])
        else:
            deleted.append(entry[0])
    return set_values, deleted


def tools_listing(tools: Sequence[HostTool]) -> str:
    return json.dumps([{"name": t.name, "jsName": to_identifier(t.name), "description": t.description} for t in tools])


class _Script:
    """One run: the VM, the calls in flight, and the deadline."""

    def __init__(self, tools: Sequence[HostTool], host_globals: Sequence[HostGlobal], signal: AbortSignal, deadline: float | None) -> None:
        self.vm = _Vm()
        self.tools = {tool.name: tool for tool in tools}
        self.globals = {entry.name: entry for entry in host_globals}
        self.signal = signal
        self.deadline = deadline
        self.output: list[OutputItem] = []
        self.in_flight: dict[asyncio.Task[Any], int] = {}

    def _left(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()

    async def step(self, work: Callable[[], None]) -> tuple[bool, str | None, str | None] | None:
        """Run VM work, then start the calls it asked for; the script's end if it ended."""
        await self.vm.run(work, self._left())
        inbox, self.vm.inbox = self.vm.inbox, _Inbox()
        self.output.extend(inbox.output)
        for kind, call_id, name, args_json in inbox.calls:
            task = asyncio.ensure_future(self._call(kind, name, args_json))
            self.in_flight[task] = call_id
        return inbox.done

    async def _call(self, kind: str, name: str, args_json: str | None) -> str | None:
        args = None if args_json is None else json.loads(args_json)
        if kind == "call":
            value = await self.tools[name].call(args, self.signal)
        else:
            value = await self.globals[name].call(list(args or []), self.signal)
        return None if value is None else json.dumps(value, ensure_ascii=False)

    async def next_settled(self, aborted: asyncio.Future[None]) -> list[tuple[int, bool, str | None]] | Literal["aborted", "timeout"]:
        """Wait for calls to finish: their answers, or why the wait ended."""
        left = self._left()
        if left is not None and left <= 0:
            return "timeout"
        done, _ = await asyncio.wait({*self.in_flight, aborted}, timeout=left, return_when=asyncio.FIRST_COMPLETED)
        if aborted in done:
            return "aborted"
        if not done:
            return "timeout"
        answers: list[tuple[int, bool, str | None]] = []
        for task in done:
            call_id = self.in_flight.pop(task)  # type: ignore[call-overload]
            error = task.exception()
            if error is None:
                answers.append((call_id, True, task.result()))
            else:
                answers.append((call_id, False, str(error) or type(error).__name__))
        return sorted(answers)

    async def cancel_calls(self) -> None:
        for task in self.in_flight:
            task.cancel()
        if self.in_flight:
            await asyncio.gather(*self.in_flight, return_exceptions=True)
        self.in_flight.clear()


async def run_script(
    code: str,
    *,
    tools: Sequence[HostTool] = (),
    host_globals: Sequence[HostGlobal] = (),
    store: dict[str, Any] | None = None,
    timeout_ms: float | None = None,
    memory_limit: int = DEFAULT_MEMORY_LIMIT,
    signal: AbortSignal | None = None,
) -> ScriptResult:
    """Run ``code`` as the body of an async function. Never raises for what the script does."""
    signal = signal or AbortSignal()
    deadline = None if timeout_ms is None else time.monotonic() + timeout_ms / 1000
    script = _Script(tools, host_globals, signal, deadline)
    loop = asyncio.get_running_loop()
    aborted: asyncio.Future[None] = loop.create_future()
    remove = signal.add_listener(lambda: None if aborted.done() else aborted.set_result(None))
    store_json = json.dumps({key: json.dumps(value) for key, value in (store or {}).items()})
    globals_json = json.dumps([{"name": entry.name, "spread": True} for entry in host_globals])
    try:
        setup = _Setup(memory_limit, tools_listing(tools), globals_json, store_json, timeout_ms)
        outcome = await _drive(script, code, setup, aborted)
    finally:
        remove()
        await script.cancel_calls()
        await script.vm.close()
    outcome.output = script.output
    return outcome


@dataclass(frozen=True, slots=True)
class _Setup:
    memory_limit: int
    tools_json: str
    globals_json: str
    store_json: str
    timeout_ms: float | None


async def _drive(script: _Script, code: str, setup: _Setup, aborted: asyncio.Future[None]) -> ScriptResult:
    """Start the VM, run the script, and answer its calls until it ends."""
    import quickjs

    def timed_out() -> ScriptResult:
        return ScriptResult(False, error=ScriptError("timeout", f"Execution timed out after {_ms(setup.timeout_ms)} ms"))

    try:
        await script.vm.run(script.vm.start(setup.memory_limit, setup.tools_json, setup.globals_json, setup.store_json), None)
        done = await script.step(script.vm.launch(code))
        while done is None:
            if not script.in_flight:
                done = await script.step(script.vm.check_stalled())
                if done is None:  # the script finished its work without reporting: cannot happen
                    return ScriptResult(False, error=ScriptError("sandbox", "The script stopped without an outcome"))
                break
            answers = await script.next_settled(aborted)
            if answers == "aborted":
                return ScriptResult(False, error=ScriptError("aborted", _abort_reason(script.signal)))
            if isinstance(answers, str):
                return timed_out()
            for call_id, ok, payload in answers:
                done = await script.step(script.vm.settle(call_id, ok, payload))
                if done is not None:
                    break
    except quickjs.JSException as error:
        if "interrupted" in str(error) and script.deadline is not None:
            return timed_out()
        return ScriptResult(False, error=ScriptError("sandbox", str(error).splitlines()[0] if str(error) else "VM failure"))
    except ImportError:
        raise
    except Exception as error:
        return ScriptResult(False, error=ScriptError("sandbox", f"{type(error).__name__}: {error}"))
    ok, payload, writes = done
    if not ok:
        return ScriptResult(False, error=_error_from_json(payload))
    set_values, deleted = _store_changes(writes)
    return ScriptResult(True, value_json=payload, store_set=set_values, store_delete=deleted)


def _ms(value: float | None) -> str:
    return str(int(value)) if value is not None and float(value).is_integer() else str(value)


def _abort_reason(signal: AbortSignal) -> str:
    reason = signal.reason
    return str(reason) if isinstance(reason, (str, BaseException)) and str(reason) else "Execution aborted"
