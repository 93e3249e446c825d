"""Streams that never end, from a real HTTP/1.1 server on 127.0.0.1: what only an overall
response deadline (``responseTimeoutMs``) stops, since each keeps the idle timeout happy.

Kinds: ``keepalive`` (SSE comments only, every 50 ms), ``deltas`` (a valid start, then text
deltas every 20 ms for ever), ``trickle`` (a valid answer written one byte a second). The
server notes when the client closes a connection it had not finished answering (``closed``);
requests after the first ``stalls`` get a normal answer (for the retry checks).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Literal

from tests.reliability.wire import Wire

Kind = Literal["keepalive", "deltas", "trickle"]
KINDS: tuple[Kind, ...] = ("keepalive", "deltas", "trickle")
ANSWER = "The stall is over."
HANG_SECONDS = 30.0
"""A bound on bugs, not timing: a stalled stream that is not settled by then never will be."""

_GAP = {"keepalive": 0.05, "deltas": 0.02, "trickle": 1.0}


def _delta_frames(wire: Wire) -> tuple[list[bytes], bytes]:
    """The frames before the first text delta of a valid answer, and a delta to repeat."""
    frames = wire.frames("aaaaabbbbbccccc", 5)
    at = next(index for index, frame in enumerate(frames) if "bbbbb" in frame)
    return [frame.encode() for frame in frames[:at]], frames[at].encode()


def body_pieces(wire: Wire, kind: Kind) -> tuple[list[bytes], bytes | None]:
    """What a stalled reply of ``kind`` writes: pieces once, then one piece for ever (or None)."""
    if kind == "keepalive":
        return [], b": keepalive\n\n"
    if kind == "deltas":
        return _delta_frames(wire)
    raw = wire.body(ANSWER)
    return [raw[index : index + 1] for index in range(len(raw))], None


class StallServer:
    """Answers the first ``stalls`` POSTs with a stalled body of ``kind``, later ones normally."""

    def __init__(self, wire: Wire, kind: Kind, *, stalls: int = 1_000_000) -> None:
        self.wire = wire
        self.kind = kind
        self.stalls = stalls
        self.requests = 0
        self.asked = asyncio.Event()
        """Set when the first request is in."""
        self.closed = asyncio.Event()
        """Set when the client closed a connection before its answer was complete: while a
        stalled body was being written, or before the request was in. (On a loaded machine a
        deadline may pass while the client is still connecting or sending: the client then
        closes a connection the server has not read a request from yet.)"""
        self.handlers: set[asyncio.Task[None]] = set()
        self._writers: list[asyncio.StreamWriter] = []
        self._server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"

    async def __aenter__(self) -> StallServer:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for writer in self._writers:  # (cancelling a handler would make asyncio log its CancelledError)
            writer.transport.abort()
        await asyncio.gather(*self.handlers, return_exceptions=True)
        await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self.handlers.add(task)
        self._writers.append(writer)
        served = False
        try:
            while await self._answer(reader, writer, fresh=not served):
                served = True
        except (ConnectionError, asyncio.IncompleteReadError):
            self.closed.set()  # cut in the middle of a request or of a normal answer
        finally:
            self.handlers.discard(task)
            writer.close()

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, fresh: bool) -> bool:
        """One request answered; False when the connection is done.

        ``fresh``: no request was answered on this connection yet, so its end before a request
        line is a client giving up on its request (an idle kept-alive connection's end is not).
        """
        if not await reader.readline():
            if fresh:
                self.closed.set()
            return False
        length = 0
        while (line := await reader.readline()) not in (b"\r\n", b"\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        await reader.readexactly(length)
        self.requests += 1
        self.asked.set()
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n")
        if self.requests > self.stalls:
            _chunk(writer, self.wire.body(ANSWER))
            writer.write(b"0\r\n\r\n")
            await writer.drain()
            return True
        await self._stall(reader, writer)
        return False

    async def _stall(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        once, repeat = body_pieces(self.wire, self.kind)
        gap = _GAP[self.kind]
        gone = asyncio.ensure_future(reader.read(1))  # the client sends nothing more: b"" is its close
        try:
            pieces = iter(once)
            while True:
                piece = next(pieces, repeat)
                if piece is None:  # the whole trickle sent (after minutes): hold the connection
                    break
                _chunk(writer, piece)
                await writer.drain()
                done, _ = await asyncio.wait({gone}, timeout=gap)
                if done:
                    break
            await gone
            self.closed.set()
        except ConnectionError:
            self.closed.set()
        finally:
            gone.cancel()
            with contextlib.suppress(BaseException):
                await gone


def _chunk(writer: asyncio.StreamWriter, data: bytes) -> None:
    writer.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
