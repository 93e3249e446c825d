"""``pi --mode rpc``: commands as JSON lines on stdin, responses and events as JSON lines on stdout.

Each input line is handled as soon as it arrives, concurrently with the ones before it (as
in Pi): a long ``bash`` does not hold up ``abort_bash``, a running prompt does not hold up
``get_state``. Answers carry the command's ``id``. ``prompt`` answers once the prompt is
accepted (or queued), before its events; a failure after that shows in the events only.
A line that is not JSON is answered with ``command: "parse"``; an unknown command with its
own type. ``extension_ui_response`` lines go to the waiting extension dialog.

stdout carries nothing but protocol: the process's own stdout (file descriptor 1) is
pointed at stderr for the whole run, so a stray write by anything else lands there.
Output is written in batches, once per turn of the event loop (``bench/rpc.py`` measures
event throughput). End of input (the client closed stdin) stops whatever runs and exits
0; SIGTERM exits 143 and SIGHUP 129, as Pi does.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from typing import Any, BinaryIO

from pi_ai import DecodeError, decode
from pi_coding_agent.agent_session import AgentSessionRuntime, SessionEvent
from pi_coding_agent.modes import to_json_event
from pi_coding_agent.rpc._commands import NO_DATA, Command, CommandError, Commands
from pi_coding_agent.rpc._jsonl import LineSplitter, serialize_line
from pi_coding_agent.rpc._ui import RpcExtensionUI

READ_SIZE = 65536


class _Output:
    """Protocol lines to one stream, flushed once per event-loop turn."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._pending: list[bytes] = []
        self._scheduled = False
        self.closed = False

    def write(self, value: Any) -> None:
        if self.closed:
            return
        self._pending.append(serialize_line(value))
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        self._scheduled = False
        if not self._pending or self.closed:
            return
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
        self._commands = Commands(runtime)
        self._tasks: set[asyncio.Task[None]] = set()
        self._unsubscribe = runtime.subscribe(self._on_event)

    def _on_event(self, event: SessionEvent) -> None:
        self._output.write(to_json_event(event))

    def write(self, value: Any) -> None:
        self._output.write(value)

    # ---------------------------------------------------------------- input

    def handle_line(self, line: bytes) -> None:
        """Start handling one input record (without its line end)."""
        task = asyncio.get_running_loop().create_task(self._handle(line))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _handle(self, line: bytes) -> None:
        try:
            parsed = decode(line, Any)
        except DecodeError as error:
            self.write(_error(None, "parse", f"Failed to parse command: {error.reason}"))
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
        try:
            if command.type == "prompt":
                await self._prompt(command)
                return
            handler = self._commands.handler(command.type)
            if handler is None:
                self.write(_error(command.id, command.type, f"Unknown command: {command.type}"))
                return
            data = await handler(self._commands, command)
        except Exception as error:  # every failure is an answer, never a crash of the server
            self.write(_error(command.id, command.type, _message(error)))
            return
        self.write(_response(command.id, command.type, data))

    async def _prompt(self, command: Command) -> None:
        accepted = False

        def on_accepted() -> None:
            nonlocal accepted
            accepted = True
            self.write(_response(command.id, "prompt"))

        behavior = command.choice("streamingBehavior", ("steer", "followUp"), required=False)
        try:
            await self.runtime.session.prompt(
                command.text("message"),
                command.images(),
                streaming_behavior=behavior,  # type: ignore[arg-type]
                on_accepted=on_accepted,
            )
        except Exception as error:
            if not accepted:
                raise
            print(f"pi: prompt failed after it was accepted: {_message(error)}", file=sys.stderr)

    # ---------------------------------------------------------------- lifetime

    async def serve(self, chunks: asyncio.Queue[bytes]) -> None:
        """Handle the records in ``chunks`` (raw input, ``b""`` at its end) until input ends."""
        splitter = LineSplitter()
        while chunk := await chunks.get():
            for line in splitter.feed(chunk):
                self.handle_line(line)
        for line in splitter.finish():
            self.handle_line(line)
        await asyncio.sleep(0)

    async def close(self) -> None:
        """Stop listening, stop the session (its last events are not written), flush."""
        self._unsubscribe()
        self._output.flush()
        self._output.closed = True
        for task in list(self._tasks):
            task.cancel()
        await self.runtime.dispose()


def _message(error: BaseException) -> str:
    if isinstance(error, CommandError):
        return str(error)
    return str(error) or type(error).__name__


def read_in_background(fd: int, loop: asyncio.AbstractEventLoop) -> asyncio.Queue[bytes]:
    """Chunks read from ``fd`` by a daemon thread (works for pipes, files and terminals alike,
    and never keeps the process alive once serving is over); ``b""`` marks the end."""
    import threading

    chunks: asyncio.Queue[bytes] = asyncio.Queue()

    def pump() -> None:
        while True:
            try:
                chunk = os.read(fd, READ_SIZE)
            except OSError:
                chunk = b""
            try:
                loop.call_soon_threadsafe(chunks.put_nowait, chunk)
            except RuntimeError:  # the loop is closed: nobody is listening any more
                return
            if not chunk:
                return

    threading.Thread(target=pump, name="rpc-stdin", daemon=True).start()
    return chunks


async def run_rpc_mode(runtime: AgentSessionRuntime) -> int:
    """Serve stdin/stdout until stdin ends or a signal arrives; the process exit status."""
    import signal

    protocol = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    server = RpcServer(runtime, protocol)
    loop = asyncio.get_running_loop()
    serving = loop.create_task(server.serve(read_in_background(sys.stdin.fileno(), loop)))
    exit_code = [0]

    def stop(code: int) -> None:
        exit_code[0] = code
        serving.cancel()

    for signum, code in ((signal.SIGTERM, 143), (signal.SIGHUP, 129)):
        loop.add_signal_handler(signum, stop, code)
    with contextlib.suppress(asyncio.CancelledError):
        await serving
    await server.close()
    return exit_code[0]
