"""A stand-in Hugging Face hub on 127.0.0.1 for the weights tests: the file API ``huggingface_hub``
calls (``HEAD`` and ``GET`` on ``/<repo>/resolve/<revision>/<file>``, with the commit, etag, linked
sha256 and size headers of an LFS file, and ``Range`` requests answered with 206), a log of the
requests, and a way to stall a download part-way."""

from __future__ import annotations

import re
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.http_thread import server_thread

_RANGE = re.compile(r"bytes=(\d+)-$")


@dataclass
class HubEntry:
    revision: str
    served: bytes
    """The bytes a GET returns (a test makes them differ from what ``sha256`` announces)."""
    sha256: str
    """What the HEAD announces as the file's sha256 (``X-Linked-Etag``)."""


@dataclass
class Request:
    method: str
    path: str
    range: str | None


@dataclass
class StandInHub:
    entries: dict[str, HubEntry] = field(default_factory=dict)
    """By ``<repo>/<file>``."""
    requests: list[Request] = field(default_factory=list)
    stall_after: int | None = None
    """Send this many bytes of the next GET's body, then hold the connection until ``release``
    (the GETs after it are served whole)."""
    stalled: threading.Event = field(default_factory=threading.Event)
    body_bytes: int = 0
    """Body bytes sent by all GETs."""

    def __post_init__(self) -> None:
        self._release = threading.Event()
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_args: Any) -> None:
                pass

            def do_HEAD(self) -> None:
                hub._serve(self, body=False)

            def do_GET(self) -> None:
                hub._serve(self, body=True)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        server_thread(self._server).start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def add(self, repo: str, file: str, entry: HubEntry) -> None:
        self.entries[f"{repo}/{file}"] = entry

    def release(self) -> None:
        self._release.set()

    def close(self) -> None:
        self._release.set()
        self._server.shutdown()
        self._server.server_close()

    def _find(self, path: str) -> tuple[HubEntry | None, str]:
        match = re.fullmatch(r"/([^/]+/[^/]+)/resolve/([^/]+)/(.+)", path.split("?", 1)[0])
        if match is None:
            return None, ""
        repo, revision, file = match.groups()
        entry = self.entries.get(f"{repo}/{file}")
        return (entry, revision) if entry is not None and revision == entry.revision else (None, revision)

    def _serve(self, handler: BaseHTTPRequestHandler, *, body: bool) -> None:
        wanted = handler.headers.get("Range")
        self.requests.append(Request(handler.command, handler.path, wanted))
        entry, _ = self._find(handler.path)
        if entry is None:
            handler.send_response(404)
            handler.send_header("X-Error-Code", "EntryNotFound")
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        start = int(match.group(1)) if wanted and (match := _RANGE.fullmatch(wanted)) else 0
        data = entry.served[start:]
        handler.send_response(206 if start else 200)
        for name, value in {
            "X-Repo-Commit": entry.revision,
            "ETag": f'"{entry.sha256}"',
            "X-Linked-Etag": f'"{entry.sha256}"',
            "X-Linked-Size": str(len(entry.served)),
            "Accept-Ranges": "bytes",
            "Content-Length": str(len(data)),
            "Content-Type": "application/octet-stream",
        }.items():
            handler.send_header(name, value)
        if start:
            handler.send_header("Content-Range", f"bytes {start}-{len(entry.served) - 1}/{len(entry.served)}")
        handler.end_headers()
        if body:
            self._send(handler, data)

    def _send(self, handler: BaseHTTPRequestHandler, data: bytes) -> None:
        limit, self.stall_after = self.stall_after, None  # once
        if limit is not None:
            handler.wfile.write(data[:limit])
            handler.wfile.flush()
            self.body_bytes += min(limit, len(data))
            self.stalled.set()
            self._release.wait(120)
            handler.close_connection = True
            return  # the client was killed meanwhile: its body stays short
        handler.wfile.write(data)
        self.body_bytes += len(data)


def refused_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (connections to it are refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
