"""Serving a ``wire_shapes.Shape``'s body on 127.0.0.1: over HTTP by ``LoopbackServer``, over a
WebSocket (Codex's transport) by ``MessagesWebSocket``, which answers the first frame it gets
with the given messages, then either closes or (``stall``) waits for the client to leave."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.support.loopback import LoopbackServer, Reply, split
from tests.support.wire_shapes import Shape


class MessagesWebSocket:
    def __init__(self) -> None:
        self.messages: list[str] = []
        self.stall = False
        self.opened = 0
        self.closed_by_client = asyncio.Event()
        self._server: Any = None

    @property
    def url(self) -> str:
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def __aenter__(self) -> MessagesWebSocket:
        from websockets.asyncio.server import serve

        self._server = await serve(self._connection, "127.0.0.1", 0, max_size=None)
        return self

    async def __aexit__(self, *exc: object) -> None:
        for connection in list(self._server.connections):
            connection.transport.abort()
        self._server.close()
        await self._server.wait_closed()

    async def _connection(self, socket: Any) -> None:
        from websockets.exceptions import ConnectionClosed

        self.opened += 1
        try:
            await socket.recv()
            for message in self.messages:
                await socket.send(message)
            if self.stall:
                await socket.wait_closed()
                self.closed_by_client.set()
                return
            await socket.close(1000, "done")
        except ConnectionClosed:
            self.closed_by_client.set()


def http_reply(shape: Shape, body: bytes, chunk: int | None = None, stall_after: int | None = None) -> Reply:
    chunks = split(body, chunk) if chunk else [body]
    return Reply(200, {"content-type": shape.content_type}, chunks=chunks, stall_after=stall_after)


def websocket_messages(body: bytes) -> list[str]:
    return body.decode("utf-8", "replace").split("\n")


__all__ = ["LoopbackServer", "MessagesWebSocket", "http_reply", "websocket_messages"]
