"""``RpcClient``: start ``pi --mode rpc`` and drive it from Python (Pi's ``RpcClient``, in asyncio).

```python
async with RpcClient(args=["--model", "anthropic/claude-sonnet-4-5"]) as pi:
    async with pi.events() as events:
        await pi.prompt("Explain src/app.py")
        async for event in events:
            if event["type"] == "message_update":
                delta = event["assistantMessageEvent"]
                if delta["type"] == "text_delta":
                    print(delta["delta"], end="")
            if event["type"] == "agent_settled":
                break
```

Every command is a method returning the response's data (typed dictionaries from
``pi_coding_agent.app.rpc._types``); a ``success: false`` answer raises ``RpcError``. Requests
carry ids ``req_1``, ``req_2``, ... so answers find their caller whatever else arrives in
between. Everything that is not an answer to a pending request is an event: it goes to
each ``events()`` stream and ``on_event`` listener. The client works with any program
speaking the protocol (``command=[".../pi-cli"]`` drives Pi 0.85 itself).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, cast

from pi_coding_agent.app.rpc._jsonl import LineSplitter
from pi_coding_agent.app.rpc._types import (
    BashResultJson,
    Cancellable,
    CompactionResultJson,
    EntriesAnswer,
    ForkAnswer,
    ForkMessage,
    Json,
    ModelCycle,
    NavigateAnswer,
    PromptDisposition,
    QueueContents,
    QueuedInputDisposition,
    QueueModeName,
    SessionState,
    SessionStatsJson,
    SlashCommand,
    ThinkingLevelName,
    TreeAnswer,
)

EventListener = Callable[[Json], None]
DEFAULT_TIMEOUT = 60.0
STOP_GRACE = 5.0
"""Seconds ``stop`` waits for the agent to exit before terminating it (and as long again before killing)."""


class RpcError(Exception):
    """The agent answered ``success: false`` (or the process ended before answering)."""

    def __init__(self, command: str, message: str) -> None:
        super().__init__(f"{command}: {message}")
        self.command = command
        self.message = message


def default_command() -> list[str]:
    """The ``pi`` installed next to this interpreter (a virtualenv's), else ``pi`` on PATH."""
    beside = Path(sys.executable).parent / "pi"
    return [str(beside) if beside.exists() else "pi"]


def _decode(line: bytes) -> Any:
    try:
        return json.loads(line)
    except RecursionError:
        # A session tree nests one level per entry; allow it for this document only.
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, line.count(b"{") + 1000))
        try:
            return json.loads(line)
        finally:
            sys.setrecursionlimit(limit)


class EventStream:
    """Events from the moment it was created, as an async iterator (``async for``).

    Iteration ends when the agent process ends. Use it as a context manager (or call
    ``close``) so the client stops queueing events for it.
    """

    def __init__(self, client: RpcClient) -> None:
        self._client = client
        self._queue: asyncio.Queue[Json | None] = asyncio.Queue()
        client._streams.append(self._queue)

    def __aiter__(self) -> EventStream:
        return self

    async def __anext__(self) -> Json:
        event = await self._queue.get()
        if event is None:
            raise StopAsyncIteration
        return event

    def close(self) -> None:
        if self._queue in self._client._streams:
            self._client._streams.remove(self._queue)

    async def __aenter__(self) -> EventStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()


class RpcClient:
    def __init__(
        self,
        command: Sequence[str] | None = None,
        *,
        args: Sequence[str] = (),
        provider: str | None = None,
        model: str | None = None,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        """``command`` runs the agent (default ``pi``); ``--mode rpc``, the model and ``args`` follow.

        ``timeout`` (seconds) bounds the wait for each answer and for ``wait_for_idle`` and
        the other waits for ``agent_settled``.
        """
        argv = [*(command or default_command()), "--mode", "rpc"]
        if provider:
            argv += ["--provider", provider]
        if model:
            argv += ["--model", model]
        self.argv = [*argv, *args]
        self.cwd = cwd
        self.env = {**os.environ, **(env or {})}
        self.timeout = timeout
        self._process: asyncio.subprocess.Process | None = None
        self._pending: dict[str, asyncio.Future[Json]] = {}
        self._listeners: list[EventListener] = []
        self._taps: list[EventListener] = []
        self._streams: list[asyncio.Queue[Json | None]] = []
        self._next_id = 0
        self._tasks: list[asyncio.Task[None]] = []
        self._stderr = bytearray()

    # ---------------------------------------------------------------- lifetime

    async def start(self) -> None:
        if self._process is not None:
            raise RuntimeError("Client already started")
        self._process = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=self.cwd,
            env=self.env,
        )
        self._tasks = [asyncio.create_task(self._read_stdout()), asyncio.create_task(self._read_stderr())]

    async def stop(self) -> int | None:
        """Close stdin (the agent stops and exits), then terminate it if it lingers; the exit status."""
        process = self._process
        if process is None:
            return None
        if process.stdin is not None and not process.stdin.is_closing():
            process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), STOP_GRACE)
        except TimeoutError:
            process.terminate()
            try:
                await asyncio.wait_for(process.wait(), STOP_GRACE)
            except TimeoutError:
                process.kill()
                await process.wait()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        return process.returncode

    async def __aenter__(self) -> RpcClient:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()

    @property
    def stderr(self) -> str:
        """Everything the agent wrote to stderr so far (warnings, diagnostics)."""
        return self._stderr.decode("utf-8", "replace")

    @property
    def returncode(self) -> int | None:
        return self._process.returncode if self._process is not None else None

    # ---------------------------------------------------------------- events

    def events(self) -> EventStream:
        """A new stream of the events from now on (see ``EventStream``)."""
        return EventStream(self)

    def on_message(self, listener: EventListener) -> Callable[[], None]:
        """Call ``listener`` for every JSON object the agent writes, answers included, in order
        (for logging and protocol tests; ``on_event`` is what applications want)."""
        self._taps.append(listener)
        return lambda: self._taps.remove(listener) if listener in self._taps else None

    def on_event(self, listener: EventListener) -> Callable[[], None]:
        """Call ``listener`` for every event; returns the function that removes it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    async def wait_for_idle(self) -> None:
        """Wait for the next ``agent_settled`` (the run, its retries and queued messages are done)."""
        async with self.events() as events:
            await self._until_settled(events, "wait_for_idle")

    async def collect_events(self) -> list[Json]:
        """Every event until the next ``agent_settled`` (included)."""
        async with self.events() as events:
            return await self._until_settled(events, "collect_events")

    async def prompt_and_wait(self, message: str, images: Sequence[Json] | None = None) -> list[Json]:
        """Send a prompt and return its events up to ``agent_settled`` (none when an extension
        handled the prompt: no run starts, so none settles)."""
        async with self.events() as events:
            if await self.prompt(message, images) == "handled":
                return []
            return await self._until_settled(events, "prompt")

    async def _until_settled(self, events: EventStream, waiting_for: str) -> list[Json]:
        collected: list[Json] = []
        async with asyncio.timeout(self.timeout):
            async for event in events:
                collected.append(event)
                if event.get("type") == "agent_settled":
                    return collected
        raise RpcError(waiting_for, f"the agent exited before settling; stderr: {self.stderr}")

    # ---------------------------------------------------------------- transport

    async def send(self, command: Json) -> Json:
        """Send one command (an ``id`` is added) and return its raw response."""
        process = self._process
        if process is None or process.stdin is None:
            raise RuntimeError("Client not started")
        if process.returncode is not None:
            raise RpcError(
                str(command.get("type")), f"agent process exited ({process.returncode}); {self.stderr}"
            )
        self._next_id += 1
        request_id = f"req_{self._next_id}"
        waiter: asyncio.Future[Json] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = waiter
        body = {key: value for key, value in command.items() if value is not None}
        process.stdin.write(json.dumps({**body, "id": request_id}, ensure_ascii=False).encode() + b"\n")
        try:
            await process.stdin.drain()
            return await asyncio.wait_for(waiter, self.timeout)
        finally:
            self._pending.pop(request_id, None)

    async def _call(self, command_type: str, **fields: Any) -> Any:
        response = await self.send({"type": command_type, **fields})
        if not response.get("success"):
            raise RpcError(command_type, str(response.get("error")))
        return response.get("data")

    async def _read_stdout(self) -> None:
        process = self._process
        assert process is not None and process.stdout is not None
        splitter = LineSplitter()
        while chunk := await process.stdout.read(65536):
            for line in splitter.feed(chunk):
                self._dispatch(line)
        for line in splitter.finish():
            self._dispatch(line)
        await process.wait()
        for waiter in self._pending.values():
            if not waiter.done():
                waiter.set_exception(
                    RpcError("agent", f"process exited ({process.returncode}); {self.stderr}")
                )
        for queue in self._streams:
            queue.put_nowait(None)

    async def _read_stderr(self) -> None:
        process = self._process
        assert process is not None and process.stderr is not None
        while chunk := await process.stderr.read(65536):
            self._stderr += chunk

    def _dispatch(self, line: bytes) -> None:
        try:
            data = _decode(line)
        except ValueError:
            return  # not protocol (Pi's client ignores such lines too)
        if not isinstance(data, dict):
            return
        for tap in list(self._taps):
            tap(data)
        if data.get("type") == "response":
            waiter = self._pending.get(str(data.get("id")))
            if waiter is not None and not waiter.done():
                waiter.set_result(data)
                return
        for listener in list(self._listeners):
            listener(data)
        for queue in self._streams:
            queue.put_nowait(data)

    # ---------------------------------------------------------------- prompting

    async def prompt(
        self, message: str, images: Sequence[Json] | None = None, *, streaming_behavior: str | None = None
    ) -> PromptDisposition | None:
        """Send a prompt; returns its disposition once it is accepted (its events follow).

        While a run is active, ``streaming_behavior`` (``"steer"`` or ``"followUp"``) says how
        to queue it; without one the agent refuses the prompt. ``"handled"``: an extension
        took it and no run starts, so do not wait for ``agent_settled``. ``None`` from an
        agent older than Pi 1.6, which gives no disposition.
        """
        data = await self._call(
            "prompt",
            message=message,
            images=list(images) if images else None,
            streamingBehavior=streaming_behavior,
        )
        return _disposition(data)

    async def steer(
        self, message: str, images: Sequence[Json] | None = None
    ) -> QueuedInputDisposition | None:
        """Queue a steering message: ``"queued"``, or ``"handled"`` by an extension's ``input`` handler."""
        data = await self._call("steer", message=message, images=list(images) if images else None)
        return cast(QueuedInputDisposition | None, _disposition(data))

    async def follow_up(
        self, message: str, images: Sequence[Json] | None = None
    ) -> QueuedInputDisposition | None:
        """Queue a follow-up: ``"queued"``, or ``"handled"`` by an extension's ``input`` handler."""
        data = await self._call("follow_up", message=message, images=list(images) if images else None)
        return cast(QueuedInputDisposition | None, _disposition(data))

    async def abort(self) -> None:
        await self._call("abort")

    async def clear_queue(self) -> QueueContents:
        return cast(QueueContents, await self._call("clear_queue"))

    # ---------------------------------------------------------------- sessions

    async def new_session(self, parent_session: str | None = None) -> Cancellable:
        return cast(Cancellable, await self._call("new_session", parentSession=parent_session))

    async def switch_session(self, session_path: str) -> Cancellable:
        return cast(Cancellable, await self._call("switch_session", sessionPath=session_path))

    async def fork(self, entry_id: str) -> ForkAnswer:
        return cast(ForkAnswer, await self._call("fork", entryId=entry_id))

    async def clone(self) -> Cancellable:
        return cast(Cancellable, await self._call("clone"))

    async def get_state(self) -> SessionState:
        return cast(SessionState, await self._call("get_state"))

    async def get_messages(self) -> list[Json]:
        return cast(list[Json], (await self._call("get_messages"))["messages"])

    # ---------------------------------------------------------------- models and thinking

    async def set_model(self, provider: str, model_id: str) -> Json:
        return cast(Json, await self._call("set_model", provider=provider, modelId=model_id))

    async def cycle_model(self) -> ModelCycle | None:
        return cast("ModelCycle | None", await self._call("cycle_model"))

    async def get_available_models(self) -> list[Json]:
        return cast(list[Json], (await self._call("get_available_models"))["models"])

    async def set_thinking_level(self, level: ThinkingLevelName) -> None:
        await self._call("set_thinking_level", level=level)

    async def cycle_thinking_level(self) -> str | None:
        data = await self._call("cycle_thinking_level")
        return None if data is None else str(data["level"])

    async def get_available_thinking_levels(self) -> list[str]:
        return cast(list[str], (await self._call("get_available_thinking_levels"))["levels"])

    async def set_steering_mode(self, mode: QueueModeName) -> None:
        await self._call("set_steering_mode", mode=mode)

    async def set_follow_up_mode(self, mode: QueueModeName) -> None:
        await self._call("set_follow_up_mode", mode=mode)

    # ---------------------------------------------------------------- compaction, retry, bash

    async def compact(self, custom_instructions: str | None = None) -> CompactionResultJson:
        return cast(CompactionResultJson, await self._call("compact", customInstructions=custom_instructions))

    async def set_auto_compaction(self, enabled: bool) -> None:
        await self._call("set_auto_compaction", enabled=enabled)

    async def set_auto_retry(self, enabled: bool) -> None:
        await self._call("set_auto_retry", enabled=enabled)

    async def abort_retry(self) -> None:
        await self._call("abort_retry")

    async def bash(self, command: str, *, exclude_from_context: bool | None = None) -> BashResultJson:
        """Run a shell command (its output streams as ``bash_execution_update`` events)."""
        return cast(
            BashResultJson, await self._call("bash", command=command, excludeFromContext=exclude_from_context)
        )

    async def abort_bash(self) -> None:
        await self._call("abort_bash")

    # ---------------------------------------------------------------- session data

    async def get_session_stats(self) -> SessionStatsJson:
        return cast(SessionStatsJson, await self._call("get_session_stats"))

    async def export_html(self, output_path: str | None = None) -> str:
        return str((await self._call("export_html", outputPath=output_path))["path"])

    async def get_fork_messages(self) -> list[ForkMessage]:
        return cast(list[ForkMessage], (await self._call("get_fork_messages"))["messages"])

    async def get_entries(self, since: str | None = None) -> EntriesAnswer:
        return cast(EntriesAnswer, await self._call("get_entries", since=since))

    async def get_tree(self) -> TreeAnswer:
        return cast(TreeAnswer, await self._call("get_tree"))

    async def get_last_assistant_text(self) -> str | None:
        text = (await self._call("get_last_assistant_text")).get("text")
        return None if text is None else str(text)

    async def set_session_name(self, name: str) -> None:
        await self._call("set_session_name", name=name)

    async def get_commands(self) -> list[SlashCommand]:
        return cast(list[SlashCommand], (await self._call("get_commands"))["commands"])

    # ---------------------------------------------------------------- ours (not in Pi 0.85)

    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool | None = None,
        custom_instructions: str | None = None,
        replace_instructions: bool | None = None,
        label: str | None = None,
    ) -> NavigateAnswer:
        """Move the leaf in place, optionally summarizing the branch left behind (our command)."""
        return cast(
            NavigateAnswer,
            await self._call(
                "navigate_tree",
                targetId=target_id,
                summarize=summarize,
                customInstructions=custom_instructions,
                replaceInstructions=replace_instructions,
                label=label,
            ),
        )

    async def set_label(self, entry_id: str, label: str | None) -> None:
        """Label an entry of the tree, ``None`` to remove the label (our command)."""
        await self._call("set_label", entryId=entry_id, label=label)

    # ---------------------------------------------------------------- extension UI

    async def respond_to_ui(self, request_id: str, **answer: Any) -> None:
        """Answer an ``extension_ui_request`` (``value=...``, ``confirmed=...`` or ``cancelled=True``)."""
        await self.write_raw(
            json.dumps({"type": "extension_ui_response", "id": request_id, **answer}, ensure_ascii=False)
        )

    async def write_raw(self, line: str) -> None:
        """Write one line to the agent's stdin as it is (no id; any answer arrives as an event)."""
        process = self._process
        if process is None or process.stdin is None:
            raise RuntimeError("Client not started")
        process.stdin.write(line.encode() + b"\n")
        await process.stdin.drain()


def _disposition(data: Any) -> PromptDisposition | None:
    found = data.get("disposition") if isinstance(data, dict) else None
    return cast(PromptDisposition, found) if found in ("handled", "queued", "started") else None
