"""A small HTTP proxy on 127.0.0.1 for proxy tests: CONNECT tunnels and plain forwarding.

    async with HttpProxy() as proxy:             # proxy.url == "http://127.0.0.1:<port>"
        ...                                      # point HTTP_PROXY / HTTPS_PROXY at it
    proxy.requests[0].line                       # "CONNECT 127.0.0.1:8080 HTTP/1.1"

Every request the proxy receives is recorded (request line and lower-cased headers). A
``CONNECT`` is answered ``200 Connection established`` and then bytes are relayed both ways
(so TLS to the server passes through untouched); an absolute-URL request (``GET http://...``)
is forwarded to its server as is. ``refuse`` answers every request with that status instead.
The proxy only ever connects to 127.0.0.1.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass
class ProxiedRequest:
    line: str
    headers: dict[str, str]


class HttpProxy:
    def __init__(self, *, refuse: int | None = None) -> None:
        self.refuse = refuse
        self.requests: list[ProxiedRequest] = []
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._writers: list[asyncio.StreamWriter] = []

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"

    async def __aenter__(self) -> HttpProxy:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for writer in self._writers:
            writer.close()  # ends the relays
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self._writers.append(writer)
        try:
            line = (await reader.readline()).decode("latin-1").rstrip("\r\n")
            head: list[bytes] = []
            headers: dict[str, str] = {}
            while (raw := await reader.readline()) not in (b"\r\n", b"\n", b""):
                head.append(raw)
                name, _, value = raw.decode("latin-1").partition(":")
                headers[name.strip().lower()] = value.strip()
            self.requests.append(ProxiedRequest(line, headers))
            if self.refuse is not None:
                writer.write(f"HTTP/1.1 {self.refuse} Refused\r\ncontent-length: 0\r\n\r\n".encode())
                await writer.drain()
                return
            method, target, version = line.split(" ", 2)
            if method == "CONNECT":
                port = int(target.rsplit(":", 1)[1])
                up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port)
                self._writers.append(up_writer)
                writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
                await writer.drain()
            else:
                parts = urlsplit(target)
                up_reader, up_writer = await asyncio.open_connection("127.0.0.1", parts.port or 80)
                self._writers.append(up_writer)
                path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
                up_writer.write(f"{method} {path} {version}\r\n".encode() + b"".join(head) + b"\r\n")
            await asyncio.gather(_relay(reader, up_writer), _relay(up_reader, writer))
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()
            self._tasks.discard(task)


async def _relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65_536):
            writer.write(data)
            await writer.drain()
    except ConnectionError:
        pass
    finally:
        writer.close()
