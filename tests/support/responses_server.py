"""Scripted OpenAI Responses servers on 127.0.0.1 (Azure OpenAI and the ChatGPT Codex backend
speak this protocol): ``ResponsesServer`` answers every POST with a Responses SSE stream,
``ResponsesWebSocketServer`` speaks Codex's WebSocket transport.

Turns are chosen from the request: the number of tool outputs (``function_call_output``)
already in its ``input``, so our client and Pi's can share one server. A turn is
``{"text": "..."}`` or ``{"tool_call": {"name", "arguments", "call_id"}}``; ``terminal``
names the last event (``response.completed``, or Codex's ``response.done``). ``failures``
answers the first requests with HTTP errors (``{"status", "body", "headers"}``).

Requests are recorded with the body decoded (zstd when ``content-encoding: zstd``), the query
and the headers (lower-cased).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.support.http_thread import server_thread


def chatgpt_token(account_id: str) -> str:
    """An access token shaped as ChatGPT's: a JWT whose claims name the account (unsigned)."""
    import base64

    def segment(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")

    claims = {"https://api.openai.com/auth": {"chatgpt_account_id": account_id}}
    return f"{segment({'alg': 'none'})}.{segment(claims)}.sig"


def zstd_decompress(data: bytes) -> bytes:
    """A zstd body (Codex's requests) as sent before compression."""
    from pi_ai.api._codex_http import zstd_module

    zstd = zstd_module()
    assert zstd is not None, "no zstd module: install the openai-codex extra"
    return bytes(zstd.decompress(data))


@dataclass
class Seen:
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    raw: bytes
    body: Any


@dataclass
class ResponsesServer:
    turns: list[dict[str, Any]]
    terminal: str = "response.completed"
    failures: list[dict[str, Any]] = field(default_factory=list)
    requests: list[Seen] = field(default_factory=list)
    arrived: threading.Event = field(default_factory=threading.Event)
    """Set when a request has come in."""
    hold_upgrades: bool = False
    """Leave a WebSocket upgrade unanswered (TCP accepted, the handshake never completes) until
    the client gives up and closes the connection; otherwise it is refused with a 404."""
    held: int = 0
    """Upgrades left unanswered so far."""
    released: int = 0
    """Of those, the ones the client closed (a client that gave up without closing leaks)."""

    def __enter__(self) -> ResponsesServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_GET(self) -> None:  # a WebSocket upgrade: this server speaks SSE only
                if server.hold_upgrades:
                    server._hold(self)
                    return
                self.send_response(404)
                self.send_header("content-length", "0")
                self.end_headers()

            def do_POST(self) -> None:
                server._handle(self)

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = server_thread(self._http)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._http.shutdown()
        self._http.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._http.server_address[1]}"

    def _hold(self, handler: BaseHTTPRequestHandler) -> None:
        self.held += 1
        handler.close_connection = True
        handler.connection.settimeout(60)  # a bound on a client that never closes, not a timing
        try:
            closed = handler.rfile.read(1) == b""
        except OSError:
            closed = False
        if closed:
            self.released += 1

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        raw = handler.rfile.read(int(handler.headers.get("content-length", "0")))
        headers = {name.lower(): value for name, value in handler.headers.items()}
        data = raw
        if headers.get("content-encoding") == "zstd":
            data = zstd_decompress(raw)
        parts = urlsplit(handler.path)
        body = json.loads(data)
        self.requests.append(
            Seen(parts.path, {k: v[0] for k, v in parse_qs(parts.query).items()}, headers, raw, body)
        )
        self.arrived.set()
        if self.failures:
            failure = self.failures.pop(0)
            payload = json.dumps(failure.get("body", {"error": {"message": "failed"}})).encode()
            handler.send_response(failure["status"])
            for name, value in {"content-type": "application/json", **failure.get("headers", {})}.items():
                handler.send_header(name, value)
            handler.send_header("content-length", str(len(payload)))
            handler.end_headers()
            handler.wfile.write(payload)
            return
        outputs = sum(1 for item in body.get("input", []) if item.get("type") == "function_call_output")
        turn = self.turns[min(outputs, len(self.turns) - 1)]
        stream = "".join(
            f"data: {json.dumps(event, ensure_ascii=False)}\n\n"
            for event in response_events(turn, self.terminal, len(self.requests))
        ).encode()
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("content-length", str(len(stream)))
        handler.end_headers()
        handler.wfile.write(stream)


def response_events(turn: dict[str, Any], terminal: str, number: int) -> list[dict[str, Any]]:
    """The events of one scripted turn: the text or tool call, then ``terminal``."""
    response = {
        "id": f"resp_{number}",
        "object": "response",
        "status": "in_progress",
        "output": [],
    }
    call = turn.get("tool_call")
    if call is not None:
        item = {
            "id": f"fc_{call['call_id']}",
            "type": "function_call",
            "status": "completed",
            "call_id": call["call_id"],
            "name": call["name"],
            "arguments": json.dumps(call["arguments"]),
        }
        middle = [
            {"type": "response.output_item.added", "output_index": 0, "item": {**item, "arguments": ""}},
            {
                "type": "response.function_call_arguments.delta",
                "output_index": 0,
                "delta": item["arguments"],
            },
            {"type": "response.output_item.done", "output_index": 0, "item": item},
        ]
    else:
        item = {
            "id": "msg_1",
            "type": "message",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": turn["text"], "annotations": []}],
        }
        middle = [
            {"type": "response.output_item.added", "output_index": 0, "item": {**item, "content": []}},
            {"type": "response.output_text.delta", "output_index": 0, "delta": turn["text"]},
            {"type": "response.output_item.done", "output_index": 0, "item": item},
        ]
    usage = {"input_tokens": 120, "output_tokens": 8, "total_tokens": 128}
    done = {**response, "status": "completed", "output": [item], "usage": usage}
    return [
        {"type": "response.created", "response": response},
        *middle,
        {"type": terminal, "response": done},
    ]


@dataclass
class Frame:
    headers: dict[str, str]
    """The handshake's headers (lower-cased)."""
    path: str
    body: Any
    """The ``response.create`` frame, parsed."""


@dataclass
class ResponsesWebSocketServer:
    """Codex's WebSocket transport: each ``response.create`` frame is answered with the turn
    chosen as for ``ResponsesServer`` (one JSON message per event). ``errors`` answers the
    first frames with a Codex ``error`` event instead (``{"code", "message"}``);
    ``close_after`` closes the first connection after that many events of its first answer.
    Response ids count the answers of each connection (``resp_1``, ``resp_2``...)."""

    turns: list[dict[str, Any]]
    terminal: str = "response.completed"
    errors: list[dict[str, Any]] = field(default_factory=list)
    close_after: int | None = None
    frames: list[Frame] = field(default_factory=list)
    connections: int = 0

    def __enter__(self) -> ResponsesWebSocketServer:
        import asyncio

        ready = threading.Event()

        def serve() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            loop.run_until_complete(self._start())
            ready.set()
            loop.run_forever()
            loop.run_until_complete(self._stop())
            loop.close()

        self._thread = threading.Thread(target=serve, daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    async def _start(self) -> None:
        from websockets.asyncio.server import serve

        self._server = await serve(self._connection, "127.0.0.1", 0, max_size=None)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _stop(self) -> None:
        for connection in list(self._server.connections):
            connection.transport.abort()  # no closing handshake with clients that are gone
        self._server.close()
        await self._server.wait_closed()

    def __exit__(self, *exc: object) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _connection(self, socket: Any) -> None:
        from websockets.exceptions import ConnectionClosed

        self.connections += 1
        first_connection = self.connections == 1
        headers = {name.lower(): value for name, value in socket.request.headers.raw_items()}
        answered = 0
        try:
            async for message in socket:
                body = json.loads(message)
                self.frames.append(Frame(headers, socket.request.path, body))
                if self.errors:
                    await socket.send(json.dumps({"type": "error", **self.errors.pop(0)}))
                    continue
                answered += 1
                outputs = sum(1 for item in body.get("input", []) if item.get("type") == "function_call_output")
                if body.get("previous_response_id"):
                    outputs += 1  # a delta request continues after the last answer's tool call
                turn = self.turns[min(outputs, len(self.turns) - 1)]
                for index, event in enumerate(response_events(turn, self.terminal, answered)):
                    if first_connection and self.close_after is not None and index == self.close_after:
                        await socket.close(1011, "server went away")
                        return
                    await socket.send(json.dumps(event, ensure_ascii=False))
        except ConnectionClosed:
            return  # a client that exits without closing
