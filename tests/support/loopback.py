"""A real HTTP/1.1 server on 127.0.0.1 that records each request and answers with a scripted
reply, for the adapter tests and the ``payload``/``parse-stream`` conformance commands.

A reply is written in exactly the chunks given (so SSE can be split inside UTF-8 characters
or JSON), optionally pausing, stalling forever or resetting the connection; or, with ``body``,
whole with a ``content-length``. The status line carries the standard reason phrase, and
repeated request headers are joined with ", ", both as Node's server (the oracle's) does.

    async with LoopbackServer([Reply(chunks=split(body, 7))]) as server:
        model = replace(model, base_url=server.url)
        ...
        server.requests[0].json()

Replies are used in order; a callable reply is called with the request. Once the list is
used up, ``respond`` (if given) answers every further request, else a 500 ``no reply``.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any


def split(data: bytes | str, size: int) -> list[bytes]:
    """``data`` in pieces of ``size`` bytes (UTF-8 characters may be cut in two)."""
    raw = data.encode() if isinstance(data, str) else data
    return [raw[i : i + size] for i in range(0, len(raw), size)]


@dataclass
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=lambda: {"content-type": "text/event-stream"})
    chunks: Sequence[bytes] = ()
    """The body, each piece a separate write (``transfer-encoding: chunked``)."""
    body: bytes | None = None
    """When set, the whole body in one write with a ``content-length`` (``chunks`` is ignored):
    its length, or the one ``headers`` give; with ``connection: close`` the server then closes
    the connection, so a larger ``content-length`` is a connection dropped mid-body."""
    delay: float = 0.0
    """Seconds to wait before each chunk."""
    stall_after: int | None = None
    """After this many chunks, send nothing more (the connection stays open)."""
    reset_after: int | None = None
    """After this many chunks, reset the connection (the chunked body never completes)."""
    head_delay: float = 0.0
    """Seconds to wait before the status line (a server slow to answer)."""
    head_byte_delay: float = 0.0
    """When set, the status line and headers are written one byte at a time, this many seconds
    apart (a trickling server)."""

    @classmethod
    def json(cls, status: int, body: Any, headers: dict[str, str] | None = None) -> Reply:
        return cls(
            status=status,
            headers={"content-type": "application/json", **(headers or {})},
            chunks=[json.dumps(body).encode()],
        )


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    """Lower-cased names; a repeated header's values joined with ", "."""
    header_names: list[str]
    """Names as sent, in order."""
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


ReplySource = Reply | Callable[[Recorded], Reply]


class LoopbackServer:
    def __init__(
        self,
        replies: Sequence[ReplySource] = (),
        *,
        respond: Callable[[Recorded], Reply] | None = None,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self._replies = list(replies)
        self._respond = respond
        self._tls = tls
        """A server-side TLS context: the server speaks https."""
        self.requests: list[Recorded] = []
        self._server: asyncio.Server | None = None
        self._connections: list[tuple[asyncio.Task[None], asyncio.StreamWriter]] = []
        self.disconnected = asyncio.Event()
        """Set when a client closed its connection while a reply was still being written."""
        self.received = asyncio.Event()
        """Set once a whole request was read (and recorded in ``requests``)."""

    @property
    def url(self) -> str:
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        return f"{'https' if self._tls else 'http'}://127.0.0.1:{port}"

    async def __aenter__(self) -> LoopbackServer:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0, ssl=self._tls)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for _, writer in self._connections:
            writer.close()
        await asyncio.gather(*(task for task, _ in self._connections), return_exceptions=True)
        await self._server.wait_closed()

    def _reply_to(self, recorded: Recorded) -> Reply:
        if self._replies:
            source = self._replies.pop(0)
            return source(recorded) if callable(source) else source
        if self._respond is not None:
            return self._respond(recorded)
        return Reply(status=500, chunks=[b"no reply"])

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.append((task, writer))
        try:
            while True:
                request_line = await reader.readline()
                if not request_line:
                    return
                method, path, _ = request_line.decode("latin-1").split(" ", 2)
                headers: dict[str, str] = {}
                names: list[str] = []
                while True:
                    line = (await reader.readline()).decode("latin-1")
                    if line in ("\r\n", "\n", ""):
                        break
                    name, _, value = line.partition(":")
                    names.append(name)
                    key = name.strip().lower()
                    headers[key] = f"{headers[key]}, {value.strip()}" if key in headers else value.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                recorded = Recorded(method, path, headers, names, body)
                self.requests.append(recorded)
                self.received.set()
                if not await self._write(reader, writer, self._reply_to(recorded)):
                    return
        except (ConnectionError, asyncio.IncompleteReadError):
            return

    async def _write(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, reply: Reply) -> bool:
        head = [f"HTTP/1.1 {reply.status} {_reason(reply.status)}"]
        head += [f"{name}: {value}" for name, value in reply.headers.items()]
        if reply.body is not None:
            names = {name.lower(): value for name, value in reply.headers.items()}
            if "content-length" not in names:
                head.append(f"content-length: {len(reply.body)}")
            writer.write("\r\n".join([*head, "", ""]).encode("latin-1") + reply.body)
            try:
                await writer.drain()
            except ConnectionError:
                self.disconnected.set()
                return False
            if names.get("connection", "").lower() == "close":
                writer.close()  # as Node's server does: with a longer content-length, a cut body
                return False
            return True
        head += ["transfer-encoding: chunked", "", ""]
        try:
            if not await self._write_head(reader, writer, "\r\n".join(head).encode("latin-1"), reply):
                return False
            for index, chunk in enumerate(reply.chunks):
                if reply.stall_after is not None and index >= reply.stall_after:
                    await writer.drain()
                    await self._wait_for_close(reader)
                    return False
                if reply.reset_after is not None and index >= reply.reset_after:
                    await writer.drain()
                    transport = writer.transport
                    transport.abort()
                    return False
                if reply.delay:
                    await writer.drain()
                    await asyncio.sleep(reply.delay)
                writer.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                await writer.drain()
            if reply.stall_after is not None:
                await self._wait_for_close(reader)
                return False
            writer.write(b"0\r\n\r\n")
            await writer.drain()
        except ConnectionError:
            self.disconnected.set()
            return False
        return True

    async def _write_head(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, head: bytes, reply: Reply
    ) -> bool:
        """Write the status line and headers as ``reply`` says; False if the client left first."""
        if reply.head_delay:
            try:
                await asyncio.wait_for(self._wait_for_close(reader), reply.head_delay)
                return False
            except TimeoutError:
                pass
        if not reply.head_byte_delay:
            writer.write(head)
            return True
        for index in range(len(head)):
            writer.write(head[index : index + 1])
            await writer.drain()
            await asyncio.sleep(reply.head_byte_delay)
        return True

    async def _wait_for_close(self, reader: asyncio.StreamReader) -> None:
        """Hold the connection open until the client goes away."""
        try:
            while await reader.read(1024):
                pass
        except ConnectionError:
            pass
        self.disconnected.set()


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "unknown"  # what Node writes for a code it has no name for


@contextmanager
def served_from_a_thread(server: LoopbackServer) -> Iterator[LoopbackServer]:
    """``server`` listening on an event loop of its own thread, for a test whose thread is busy
    with something else meanwhile (our command line run in-process, which runs its own loop)."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="loopback-server", daemon=True)
    thread.start()
    try:
        asyncio.run_coroutine_threadsafe(server.__aenter__(), loop).result(30)
        try:
            yield server
        finally:
            asyncio.run_coroutine_threadsafe(server.__aexit__(None, None, None), loop).result(30)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()
