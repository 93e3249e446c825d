"""``pi --mode rpc``: commands as JSON lines on stdin, responses and events as JSON lines on stdout.

Each input line is handled as soon as it arrives, concurrently with the ones before it (as
in Pi): a long ``bash`` does not hold up ``abort_bash``, a running prompt does not hold up
``get_state``. Answers carry the command's ``id``. ``prompt`` answers once the prompt is
accepted (or queued), before its events; a failure after that shows in the events only.
A line that is not JSON is answered with ``command: "parse"``; an unknown command with its
own type. ``extension_ui_response`` lines go to the waiting extension dialog.

stdout carries nothing but protocol: the process's own stdout (file descriptor 1) is
pointed at stderr for the whole run, so a stray write by anything else lands there.
Events are written in batches, once per turn of the event loop; an answer is written at
once, after the events queued before it (``bench/rpc.py`` measures both).

Shutdown, as in Pi 1.6: end of input (the client closed stdin) stops whatever runs, the
extensions get ``session_shutdown``, and the process exits 0; SIGTERM does the same and exits
143, SIGHUP 129. One signal while that shutdown runs does not cut it (process managers close
stdin and send SIGTERM together); a second one exits at once. SIGINT is not handled: it ends the
process as the signal's default does, without ``session_shutdown``. An extension's
``ctx.shutdown()`` shuts down (exit 0) once no command is being handled and the agent is idle.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
import sys
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, BinaryIO, Final

from pi_ai.js_json import JsonParseError, parse
from pi_coding_agent.app.print_mode import to_json_event
from pi_coding_agent.app.rpc._commands import NO_DATA, Command, CommandError, Commands
from pi_coding_agent.app.rpc._jsonl import LineSplitter, serialize_line
from pi_coding_agent.app.rpc._ui import RpcExtensionUI
from pi_coding_agent.runtime.agent_session import AgentSessionEvent, AgentSessionRuntime

READ_SIZE = 65536
PROMPTED: Final = object()
"""What ``_prompt`` returns: its answer was already written."""
DISPOSE_TIMEOUT = 10.0
"""Seconds the session gets to stop at the end of input or on a signal."""


class _Output:
    """Protocol lines to one stream, flushed once per event-loop turn."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._pending: list[bytes] = []
        self._scheduled = False
        self.closed = False

    def write(self, value: Any, *, now: bool = False) -> None:
        """Queue one line; ``now`` writes it (and everything before it) at once."""
        if self.closed:
            return
        self._pending.append(serialize_line(value))
        if now:
            self.flush()
        elif not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        if not self._pending or self.closed:
            return
        self._scheduled = False
        data, self._pending = b"".join(self._pending), []
        try:
            self._stream.write(data)
            self._stream.flush()
        except (BrokenPipeError, ValueError):
            self.closed = True


def _response(command_id: str | None, command: str, data: Any = NO_DATA) -> dict[str, Any]:
    response: dict[str, Any] = {} if command_id is None else {"id": command_id}
    response.update(type="response", command=command, success=True)
    if data is not NO_DATA:
        response["data"] = data
    return response


def _error(command_id: str | None, command: str, message: str) -> dict[str, Any]:
    response: dict[str, Any] = {} if command_id is None else {"id": command_id}
    response.update(type="response", command=command, success=False, error=message)
    return response


class RpcServer:
    """Serves one runtime over a pair of byte streams (stdin/stdout in ``pi --mode rpc``)."""

    def __init__(self, runtime: AgentSessionRuntime, output: BinaryIO) -> None:
        self.runtime = runtime
        self._output = _Output(output)
        self.ui = RpcExtensionUI(self._output.write)
        """The extension UI of this mode (``runtime.ui`` too)."""
        runtime.bind_ui(self.ui, "rpc")
        runtime.on_extension_error(lambda error: self._output.write(error.to_json()))
        self._commands = Commands(runtime)
        self._tasks: set[asyncio.Task[None]] = set()
        self._splitter = LineSplitter()
        self._input_ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        """Done when serving should stop: the input ended or an extension asked to shut down."""
        self._shutdown_requested = False
        self._unsubscribe = runtime.subscribe(self._on_event)

    def _on_event(self, event: AgentSessionEvent) -> None:
        self._output.write(to_json_event(event))
        if event.type == "agent_settled":
            self._check_shutdown()

    def request_shutdown(self) -> None:
        """An extension's ``ctx.shutdown()``: checked on the next loop turn (the requesting handler
        finishes first), then whenever a command finishes or the agent settles."""
        self._shutdown_requested = True
        asyncio.get_running_loop().call_soon(self._check_shutdown)

    def _check_shutdown(self) -> None:
        if not self._shutdown_requested or self._input_ended.done() or self._tasks:
            return
        if self.runtime.session.is_idle:
            self._input_ended.set_result(None)

    def write(self, value: Any) -> None:
        """An answer: written at once, after the events before it (events go out in batches)."""
        self._output.write(value, now=True)

    # ---------------------------------------------------------------- input

    def handle_line(self, line: bytes) -> None:
        """Handle one input record (without its line end).

        A command that needs no waiting is answered right here; one that waits (a prompt,
        ``bash``, ``abort``, a compaction, a session replacement, ...) runs as a task, so the
        lines after it are handled meanwhile. Answering inline saves a task and an event-loop
        turn per command (``bench/rpc.py``, ``get_state`` round trip).
        """
        try:
            parsed = parse(line)  # JSON.parse: what it accepts, and V8's message for what it does not
        except JsonParseError as error:
            self.write(_error(None, "parse", f"Failed to parse command: {error}"))
            return
        if not isinstance(parsed, dict) or not isinstance(parsed.get("type"), str):
            self.write(
                _error(None, "parse", 'Failed to parse command: expected a JSON object with a string "type"')
            )
            return
        if parsed["type"] == "extension_ui_response":
            self.ui.resolve(parsed)
            return
        command = Command(parsed)
        if command.type == "prompt":
            self._spawn(self._answer_later(command, self._prompt(command)))
            return
        handler = self._commands.handler(command.type)
        if handler is None:
            self.write(_error(command.id, command.type, f"Unknown command: {command.type}"))
            return
        try:
            data = handler(self._commands, command)
        except Exception as error:  # every failure is an answer, never a crash of the server
            self.write(_error(command.id, command.type, _message(error)))
            return
        if inspect.isawaitable(data):
            self._spawn(self._answer_later(command, data))
        else:
            self.write(_response(command.id, command.type, data))
        self._check_shutdown()

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._command_done)

    def _command_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        self._check_shutdown()

    async def _answer_later(self, command: Command, work: Awaitable[Any]) -> None:
        """Await ``work`` and answer with its result (``prompt`` answers by itself: ``PROMPTED``)."""
        try:
            data = await work
        except Exception as error:  # every failure is an answer, never a crash of the server
            self.write(_error(command.id, command.type, _message(error)))
            return
        if data is not PROMPTED:
            self.write(_response(command.id, command.type, data))

    async def _prompt(self, command: Command) -> object:
        """Run a prompt; its answer is written once it is accepted, before its events."""
        accepted = False

        def on_accepted(disposition: str) -> None:
            nonlocal accepted
            accepted = True
            self.write(_response(command.id, "prompt", {"disposition": disposition}))

        behavior = command.choice("streamingBehavior", ("steer", "followUp"), required=False)
        try:
            await self.runtime.session.prompt(
                command.text("message"),
                command.images(),
                streaming_behavior=behavior,  # type: ignore[arg-type]
                on_accepted=on_accepted,
                source="rpc",
            )
        except Exception as error:
            if not accepted:
                raise
            print(f"pi: prompt failed after it was accepted: {_message(error)}", file=sys.stderr)
        return PROMPTED

    # ---------------------------------------------------------------- lifetime

    def feed(self, chunk: bytes) -> None:
        """Raw input as it arrives; ``b""`` is its end."""
        lines = self._splitter.feed(chunk) if chunk else self._splitter.finish()
        for line in lines:
            self.handle_line(line)
        if not chunk and not self._input_ended.done():
            self._input_ended.set_result(None)

    async def serve(self) -> None:
        """Return once the input has ended (and the last records were started), or once an
        extension's shutdown request can be honoured."""
        await self._input_ended
        await asyncio.sleep(0)

    async def close(self) -> None:
        """Stop writing, then stop the session: a run in progress is aborted and its aborted
        answer recorded in the session file (its events are not written any more)."""
        self._unsubscribe()
        self._output.flush()
        self._output.closed = True
        try:
            await asyncio.wait_for(self.runtime.dispose(), DISPOSE_TIMEOUT)
        except TimeoutError:
            print(
                f"pi: the session did not stop within {DISPOSE_TIMEOUT:.0f} s; exiting anyway",
                file=sys.stderr,
            )
        finally:
            for task in list(self._tasks):
                task.cancel()


def _message(error: BaseException) -> str:
    if isinstance(error, CommandError):
        return str(error)
    return str(error) or type(error).__name__


def read_input(fd: int, loop: asyncio.AbstractEventLoop, feed: Callable[[bytes], None]) -> None:
    """Give ``feed`` every chunk of input as it arrives, and ``b""`` at its end.

    A pipe or socket (what editors and ``RpcClient`` give us) is watched by the event loop
    itself, each chunk handled in the callback: no thread hop and no queue per command
    (``bench/rpc.py``, ``get_state`` round trip). Anything else (a file, a terminal) is read
    by a daemon thread, which never keeps the process alive once serving is over.
    """
    import stat

    mode = os.fstat(fd).st_mode
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        os.set_blocking(fd, False)

        def readable() -> None:
            try:
                chunk = os.read(fd, READ_SIZE)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                loop.remove_reader(fd)
            feed(chunk)

        loop.add_reader(fd, readable)
        return
    import threading

    def pump() -> None:
        while True:
            try:
                chunk = os.read(fd, READ_SIZE)
            except OSError:
                chunk = b""
            try:
                loop.call_soon_threadsafe(feed, chunk)
            except RuntimeError:  # the loop is closed: nobody is listening any more
                return
            if not chunk:
                return

    threading.Thread(target=pump, name="rpc-stdin", daemon=True).start()


async def run_rpc_mode(runtime: AgentSessionRuntime) -> int:
    """Serve stdin/stdout until stdin ends, a signal arrives or an extension asks to shut down;
    the process exit status."""
    import signal

    protocol = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # Pi's RPC mode leaves SIGINT to its default
    server = RpcServer(runtime, protocol)
    runner = runtime.session.extensions
    if runner is not None:
        runner.on_shutdown_request = server.request_shutdown
    loop = asyncio.get_running_loop()
    exit_code = 0
    shutting_down = False
    signals = 0

    def on_signal(code: int) -> None:
        nonlocal exit_code, signals
        signals += 1
        if not shutting_down:
            exit_code = code
            serving.cancel()
        elif signals > 1:
            os._exit(code)  # a repeated signal skips the rest of the shutdown

    serving = loop.create_task(server.serve())
    for signum, code in ((signal.SIGTERM, 143), (signal.SIGHUP, 129)):
        loop.add_signal_handler(signum, on_signal, code)
    await runtime.start_extensions()
    read_input(sys.stdin.fileno(), loop, server.feed)
    with contextlib.suppress(asyncio.CancelledError):
        await serving
    shutting_down = True
    await server.close()
    _ignore_late_signals(loop)
    return exit_code


def _ignore_late_signals(loop: asyncio.AbstractEventLoop) -> None:
    """After the shutdown, a SIGTERM or SIGHUP (a process manager's, right after it closed
    stdin) changes nothing: the exit status is decided and what is left is closing files and
    the interpreter's teardown. Ignored, not handled in Python: the interpreter puts Python
    handlers back to the default as it finalizes, and a signal then killed the process instead
    of letting it exit 0 as Pi does (tests/pi_coding_agent/app/rpc/test_pi16_lifecycle.py)."""
    import signal

    late = {signal.SIGTERM, signal.SIGHUP}
    signal.pthread_sigmask(signal.SIG_BLOCK, late)  # (the loop's removal resets to the default)
    for signum in late:
        loop.remove_signal_handler(signum)
        signal.signal(signum, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, late)
