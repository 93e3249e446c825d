"""A loopback proxy that lets Pi 0.85 talk to llama-cpp-python's OpenAI server.

It rewrites two things in each chat request and nothing else: a user message whose content is a
list of text parts becomes one string (the server's Qwen chat template fails on lists), and an
assistant message's ``content: null`` becomes ``""`` (the server answers 500 to null). Responses
are relayed unchanged, as they arrive; ``streamed_chunks`` counts the SSE data lines relayed.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def fix_request(body: dict[str, Any]) -> dict[str, Any]:
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, list) and all(part.get("type") == "text" for part in content):
            message["content"] = "".join(part.get("text", "") for part in content)
        elif content is None and message.get("role") == "assistant":
            message["content"] = ""
    return body


class FixupProxy:
    def __init__(self, upstream_port: int) -> None:
        proxy = self
        self.streamed_chunks = 0

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, *_args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._relay(None)

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with contextlib.suppress(ValueError):
                    raw = json.dumps(fix_request(json.loads(raw))).encode()
                self._relay(raw)

            def _relay(self, body: bytes | None) -> None:
                upstream = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=3600)
                headers = {"Content-Type": "application/json"} if body is not None else {}
                upstream.request(self.command, self.path, body=body, headers=headers)
                response = upstream.getresponse()
                self.send_response(response.status)
                for name, value in response.getheaders():
                    if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                        self.send_header(name, value)
                self.send_header("Connection", "close")
                self.end_headers()
                while line := response.readline():
                    if line.startswith(b"data: {"):
                        proxy.streamed_chunks += 1
                    self.wfile.write(line)
                    self.wfile.flush()
                upstream.close()

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = int(self._server.server_address[1])
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
