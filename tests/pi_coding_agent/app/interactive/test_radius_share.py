"""``/share`` through Radius: the session JSONL is posted to a stand-in gateway on 127.0.0.1
(``PI_OAUTH_RADIUS_BASE_URL``) with the token as a bearer, Pi's query and content type; the
artifact's URL comes back, and a failed upload says why in Pi's words."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from pi_coding_agent.app.interactive.commands._radius_share import (
    RadiusShareError,
    share_entry,
    upload_artifact,
)
from tests.support.http_thread import server_thread


class _Gateway(BaseHTTPRequestHandler):
    received: ClassVar[list[dict[str, Any]]] = []
    answer: tuple[int, bytes] = (200, b"")

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.received.append({"path": self.path, "headers": dict(self.headers), "body": body})
        status, payload = self.answer
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *_: object) -> None:
        pass


@pytest.fixture
def gateway() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Gateway)
    thread = server_thread(server)
    thread.start()
    _Gateway.received = []
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_upload_posts_the_session_and_returns_the_artifact_url(
    gateway: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_OAUTH_RADIUS_BASE_URL", gateway)
    _Gateway.answer = (
        201,
        json.dumps({"artifact": {"canonical_url": "https://radius.example/a/1"}}).encode(),
    )
    trailing = share_entry("SYSTEM", [{"name": "read", "description": "Read", "parameters": {}}])(
        "e9", "2026-01-01T00:00:00.000Z"
    )
    body = ('{"type":"session"}\n' + json.dumps(trailing[0]) + "\n").encode()
    assert asyncio.run(upload_artifact(body, "tok-123")) == "https://radius.example/a/1"
    [request] = _Gateway.received
    assert request["path"] == "/v1/artifacts?visibility=organization&title=Pi+session"
    assert request["headers"]["Authorization"] == "Bearer tok-123"
    assert request["headers"]["Content-Type"] == "application/x-ndjson"
    assert request["body"] == body
    entry = trailing[0]
    assert (entry["type"], entry["customType"], entry["parentId"], entry["data"]["systemPrompt"]) == (
        "custom",
        "pi.share",
        "e9",
        "SYSTEM",
    )


@pytest.mark.parametrize(
    ("status", "payload", "message"),
    [(403, b'{"error":"organization sharing is disabled"}', "organization sharing is disabled"),
     (500, b"not json", "Internal Server Error"),
     (200, b'{"ok":true}', "OK")],
)  # fmt: skip
def test_a_failed_upload_names_the_reason(gateway: str, status: int, payload: bytes, message: str) -> None:
    _Gateway.answer = (status, payload)
    with pytest.raises(RadiusShareError) as raised:
        asyncio.run(upload_artifact(b"{}\n", "tok", gateway))
    assert str(raised.value) == message


def test_an_unreachable_gateway_is_an_upload_error_in_pis_words() -> None:
    with pytest.raises(RadiusShareError) as raised:
        asyncio.run(upload_artifact(b"{}\n", "tok", "http://127.0.0.1:9"))
    assert str(raised.value) == "fetch failed"  # Node's fetch, whatever the cause
