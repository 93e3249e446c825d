"""A minimal HTTP/1.1 server on 127.0.0.1 for the conformance adapters, answering like the
oracle's loopback server: the whole body at once, or the given chunks as separate writes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    chunks: list[bytes] | None = None


@dataclass
class Record:
    method: str
    path: str
    headers: dict[str, str]
    """Lower-cased names; repeated headers joined with ", " (as Node reports them)."""
    body: bytes


class Loopback:
    def __init__(self, respond: Callable[[Record], Reply]) -> None:
        self._respond = respond
        self.requests: list[Record] = []
        self._server: asyncio.Server | None = None
        self._connections: list[tuple[asyncio.Task[None], asyncio.StreamWriter]] = []

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"

    async def __aenter__(self) -> Loopback:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for _, writer in self._connections:
            writer.close()
        await asyncio.gather(*(task for task, _ in self._connections), return_exceptions=True)
        await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.append((task, writer))
        try:
            while True:
                line = await reader.readline()
                if not line:
                    break
                method, path, _ = line.decode("latin-1").split(" ", 2)
                headers: dict[str, str] = {}
                while True:
                    header = (await reader.readline()).decode("latin-1")
                    if header in ("\r\n", "\n", ""):
                        break
                    name, _, value = header.partition(":")
                    key = name.strip().lower()
                    headers[key] = f"{headers[key]}, {value.strip()}" if key in headers else value.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                record = Record(method, path, headers, body)
                self.requests.append(record)
                reply = self._respond(record)
                head = [f"HTTP/1.1 {reply.status} {_reason(reply.status)}"]
                head += [f"{name}: {value}" for name, value in reply.headers.items()]
                if reply.chunks is not None:
                    head.append("transfer-encoding: chunked")
                    writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
                    for chunk in reply.chunks:
                        writer.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                        await writer.drain()
                    writer.write(b"0\r\n\r\n")
                else:
                    head.append(f"content-length: {len(reply.body)}")
                    writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + reply.body)
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()


def _reason(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "unknown"  # what Node writes for a code it has no name for
