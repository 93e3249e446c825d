"""The Node process of the TypeScript extension host, and the JSON lines between us.

``request(op, fields)`` sends ``{id, op, state, ...}`` and waits for ``{re: id, ...}``; while it
waits, Node's calls (``{id: "n<k>", call, op, args}``) are answered by ``on_call`` and its
notifications (``{notify, op, args}``) go to ``on_notify``. Calls and notifications name the
request they happen inside (``op``), so a command's dialog reaches that command's context.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import sys
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any

from pi_coding_agent.core.node_runtime import NodeRuntime

CallHandler = Callable[[str, int | None, dict[str, Any]], Awaitable[Any]]
NotifyHandler = Callable[[str, int | None, dict[str, Any]], None]
_LINE_LIMIT = 64 * 1024 * 1024


class HostError(RuntimeError):
    """Node answered a request with an error (an extension threw): its message."""


async def spawn_host(runtime: NodeRuntime, cwd: str) -> asyncio.subprocess.Process:
    """Node running ``host.mjs``: it starts importing Pi's library at once, before any request."""
    script = resources.files("pi_coding_agent.customize.ts_extensions").joinpath("host.mjs")
    return await asyncio.create_subprocess_exec(
        runtime.node,
        str(script),
        runtime.pi_root,
        cwd=cwd,
        env=host_environment(),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        limit=_LINE_LIMIT,
    )


SUBAGENT_BINARY_ENV = "PI_SUBAGENT_PI_BINARY"
"""How ``pi-subagents`` (and the extensions built like it) is told which ``pi`` to start for a
child agent. Left unset, it would look for Pi's CLI next to the Pi library the host loads
(Pi 1.6's own ``pi``), where in Pi it finds the running CLI; so the host names ours."""


_LIBRARY = {"bundle": False}


def use_bundled_library(bundle: bool) -> None:
    """Whether hosts started from now on load Pi's published bundle (faster to load; every mode
    since host.mjs sets the bundle's pi-tui keys beside ``dist``'s) or ``dist``'s modules."""
    _LIBRARY["bundle"] = bundle


def host_environment() -> dict[str, str]:
    env = dict(os.environ)
    if _LIBRARY["bundle"]:
        env["PI_TS_HOST_BUNDLE"] = "1"
    ours = our_pi_command()
    if ours is not None:
        env.setdefault(SUBAGENT_BINARY_ENV, ours)
    return env


def our_pi_command() -> str | None:
    """The ``pi`` executable this process runs as (its console script), else ``pi`` on ``PATH``."""
    launched = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if os.path.basename(launched) in ("pi", "pi.exe") and os.access(launched, os.X_OK):
        return launched
    return shutil.which("pi")


class HostProcess:
    def __init__(
        self, process: asyncio.subprocess.Process, on_call: CallHandler, on_notify: NotifyHandler
    ) -> None:
        self._process = process
        self._on_call = on_call
        self._on_notify = on_notify
        self._next_id = 0
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._reader = asyncio.get_running_loop().create_task(self._read())
        self._tasks: set[asyncio.Task[None]] = set()

    @classmethod
    async def start(
        cls,
        runtime: NodeRuntime,
        cwd: str,
        on_call: CallHandler,
        on_notify: NotifyHandler,
        *,
        spawned: asyncio.subprocess.Process | None = None,
    ) -> HostProcess:
        """Talk to ``spawned`` (a host started early, ``spawn_host``) or a new host."""
        return cls(spawned if spawned is not None else await spawn_host(runtime, cwd), on_call, on_notify)

    async def request(self, op: str, fields: dict[str, Any]) -> tuple[int, asyncio.Future[dict[str, Any]]]:
        """Send a request; its id and the future of Node's reply (``ok``, ``result``/``error``)."""
        self._next_id += 1
        request_id = self._next_id
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = future
        await self._send({"id": request_id, "op": op, **fields})
        return request_id, future

    async def _send(self, message: dict[str, Any]) -> None:
        stdin = self._process.stdin
        if stdin is None or stdin.is_closing():
            raise HostError("the TypeScript extension host is not running")
        stdin.write(json.dumps(message, default=str).encode() + b"\n")
        await stdin.drain()

    async def _read(self) -> None:
        stdout = self._process.stdout
        assert stdout is not None
        while True:
            line = await stdout.readline()
            if not line:
                break
            try:
                message = json.loads(line)
            except ValueError:
                continue
            self._dispatch(message)
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(HostError("the TypeScript extension host exited"))
        self._waiting.clear()

    def _dispatch(self, message: dict[str, Any]) -> None:
        if "re" in message:
            future = self._waiting.pop(message["re"], None)
            if future is not None and not future.done():
                future.set_result(message)
        elif "call" in message:
            task = asyncio.get_running_loop().create_task(self._answer(message))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        elif "notify" in message:
            self._on_notify(str(message["notify"]), message.get("op"), message.get("args") or {})

    async def _answer(self, message: dict[str, Any]) -> None:
        try:
            result = await self._on_call(str(message["call"]), message.get("op"), message.get("args") or {})
            reply: dict[str, Any] = {"re": message["id"], "ok": True, "result": result}
        except Exception as error:
            reply = {"re": message["id"], "ok": False, "error": str(error) or type(error).__name__}
        with contextlib.suppress(HostError, ConnectionError):
            await self._send(reply)

    async def close(self) -> None:
        stdin = self._process.stdin
        if stdin is not None and not stdin.is_closing():
            stdin.close()
        try:
            await asyncio.wait_for(self._process.wait(), 5)
        except TimeoutError:
            self._process.kill()
            await self._process.wait()
        self._reader.cancel()
