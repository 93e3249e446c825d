"""A stand-in ``llama-server`` in router mode on 127.0.0.1, with a stand-in Hugging Face API on
the same port, for ``/llama`` and ``/login llama.cpp`` (ours and Pi's).

It speaks the router endpoints Pi's llama.cpp extension uses: ``GET /models`` (``?reload=1``),
``POST /models/load``, ``POST /models/unload``, ``POST /models`` (download a Hugging Face
``owner/repo[:quant]``), ``GET /models/sse`` (``model_status`` and ``download_*`` events) and
``GET /props`` (a model's ``chat_template`` with ``?model=``); the ones classifying uses
(``POST /tokenize``, ``/apply-template``, ``/completion``, see ``LlamaRouter.classify_reply``);
and the Hugging Face ones: ``GET /api/models?search=`` and
``GET /api/models/<owner>/<repo>?blobs=true`` (point ``HF_ENDPOINT`` at ``base_url``).

A load or a download stops half way (a ``loading`` model at 25 %, a ``downloading`` one at
1.5 of 3 MiB) until ``release()``, so a test sees its progress on screen; ``requests`` records
``(method, path, JSON body)`` and ``authorization`` the last ``Authorization`` header.
"""

from __future__ import annotations

import json
import queue
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.support.http_thread import server_thread

MIB = 1 << 20
WORDS = {"Yes": 100_001, "No": 100_002}
"""The fake tokenizer's words of one token; any other character is a token of its own (its code)."""
LOAD_STAGES = ["tensors", "warmup"]


class LlamaRouter:
    def __init__(self, models: list[dict[str, Any]], hub: dict[str, dict[str, Any]] | None = None) -> None:
        self.models = [dict(model) for model in models]
        self.hub = hub or {}
        """Hugging Face repositories by id: ``{"downloads": n, "gated": ..., "files": {name: size}}``."""
        self.requests: list[tuple[str, str, Any]] = []
        self.authorization: str | None = None
        self.api_key: str | None = None
        """When set, router requests without ``Bearer <api_key>`` get HTTP 401."""
        self._gate = threading.Event()
        self._lock = threading.Lock()
        self._listeners: list[queue.Queue[dict[str, Any] | None]] = []
        self.ongoing: dict[str, dict[str, Any]] = {}
        """The progress event of each load or download under way, sent again every tick (as a
        router reports progress over time), so a client that subscribes late still gets it."""
        self.base_url = ""
        self.logprobs: dict[str, float] = {}
        """``/completion``'s next-token log-probability of each answer label (absent: not ranked)."""
        self.ranks: dict[str, int] = {}
        """A label's rank among the next tokens (default 0): listed only when ``n_probs`` exceeds it."""

    def tokenize(self, content: str) -> list[int]:
        return [WORDS.get(piece, ord(piece[0])) for piece in re.findall(r"Yes|No|.", content, re.DOTALL)]

    def classify_reply(self, path: str, body: dict[str, Any]) -> dict[str, Any] | None:
        """The answer to a classifying request: ``/tokenize`` by ``tokenize``, ``/apply-template``
        as ``<system>…<user>…<assistant><think>``, ``/completion`` with ``logprobs`` (a label
        whose rank is below ``n_probs``); ``None``: not such a request."""
        if path == "/tokenize":
            return {"tokens": self.tokenize(body["content"])}
        if path == "/apply-template":
            turns = "".join(f"<{m['role']}>{m['content']}" for m in body["messages"])
            return {"prompt": f"{turns}<assistant><think>"}
        if path != "/completion":
            return None
        top = [
            {"id": self.tokenize(label)[0], "token": label, "logprob": logprob, "bytes": list(label.encode())}
            for label, logprob in self.logprobs.items()
            if self.ranks.get(label, 0) < body["n_probs"]
        ]
        return {"content": "", "completion_probabilities": [{"id": 0, "token": "", "logprob": 0, "top_logprobs": top}]}

    def release(self) -> None:
        """Let the held load or download finish."""
        self._gate.set()

    def props(self, model_id: str | None) -> dict[str, Any]:
        """``GET /props``: the router's own, or a model's (its ``chat_template``, when the test gave one)."""
        if model_id is None:
            return {"models_autoload": False}
        model = self.entry(model_id) or {}
        return {
            "chat_template": model.get("chat_template", "{{ messages }}"),
            "model_path": f"/models/{model_id}.gguf",
        }

    def entry(self, model_id: str) -> dict[str, Any] | None:
        return next((model for model in self.models if model["id"] == model_id), None)

    def _progress(self, event: dict[str, Any]) -> None:
        self.ongoing[event["model"]] = event
        self._emit(event)

    def _emit(self, event: dict[str, Any]) -> None:
        for listener in list(self._listeners):
            listener.put(event)

    def _set_status(self, model_id: str, status: dict[str, Any]) -> None:
        with self._lock:
            entry = self.entry(model_id)
            if entry is None:
                entry = {"id": model_id}
                self.models.append(entry)
            entry["status"] = status

    def _finish_load(self, model_id: str) -> None:
        self._gate.wait(30)
        self._gate.clear()
        self.ongoing.pop(model_id, None)
        entry = self.entry(model_id)
        if entry is None or entry["status"]["value"] != "loading":  # unloaded meanwhile
            return
        self._set_status(model_id, {"value": "loaded"})
        entry.setdefault("meta", {"n_ctx": 8192})
        self._emit({"model": model_id, "event": "model_status", "data": {"status": "loaded"}})

    def load(self, model_id: str) -> None:
        progress = {"stages": LOAD_STAGES, "current": "tensors", "value": 0.5}
        self._set_status(model_id, {"value": "loading"})
        self._progress(
            {"model": model_id, "event": "model_status", "data": {"status": "loading", "progress": progress}}
        )
        threading.Thread(target=self._finish_load, args=(model_id,), daemon=True).start()

    def unload(self, model_id: str) -> None:
        self.ongoing.pop(model_id, None)
        self._set_status(model_id, {"value": "unloaded"})
        self._emit({"model": model_id, "event": "model_status", "data": {"status": "unloaded"}})

    def _finish_download(self, model_id: str) -> None:
        self._gate.wait(30)
        self._gate.clear()
        self.ongoing.pop(model_id, None)
        self._set_status(model_id, {"value": "unloaded"})
        self._emit({"model": model_id, "event": "download_finished", "data": {}})

    def download(self, model_id: str) -> None:
        progress = {"model.gguf": {"done": 3 * MIB // 2, "total": 3 * MIB}}
        self._set_status(model_id, {"value": "downloading", "progress": progress})
        self._progress({"model": model_id, "event": "download_progress", "data": progress})
        threading.Thread(target=self._finish_download, args=(model_id,), daemon=True).start()

    def hub_search(self, query: str) -> list[dict[str, Any]]:
        found = [(repo, info) for repo, info in self.hub.items() if query.lower() in repo.lower()]
        found.sort(key=lambda item: -int(item[1].get("downloads", 0)))
        return [{"id": repo, "downloads": info.get("downloads", 0)} for repo, info in found]

    def hub_details(self, repo: str) -> dict[str, Any] | None:
        info = self.hub.get(repo)
        if info is None:
            return None
        siblings = [{"rfilename": name, "size": size} for name, size in info.get("files", {}).items()]
        return {"id": repo, "gated": info.get("gated", False), "siblings": siblings}


def _handler(router: LlamaRouter) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _reply(self, status: int, payload: Any) -> None:
            body = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _authorized(self) -> bool:
            router.authorization = self.headers.get("Authorization")
            if router.api_key is None or router.authorization == f"Bearer {router.api_key}":
                return True
            self._reply(401, {"error": {"message": "Invalid API Key", "code": 401}})
            return False

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            router.requests.append(("GET", self.path, None))
            if parts.path == "/api/models":
                self._reply(200, router.hub_search(parse_qs(parts.query).get("search", [""])[0]))
                return
            if parts.path.startswith("/api/models/"):
                details = router.hub_details(parts.path.removeprefix("/api/models/"))
                self._reply(200 if details else 404, details or {"error": "Repository not found"})
                return
            if not self._authorized():
                return
            if parts.path == "/models":
                with router._lock:
                    self._reply(200, {"object": "list", "data": router.models})
            elif parts.path == "/props":
                self._reply(200, router.props(parse_qs(parts.query).get("model", [None])[0]))
            elif parts.path == "/models/sse":
                self._stream_events()
            else:
                self._reply(404, {"error": {"message": "File Not Found", "code": 404}})

        def _stream_events(self) -> None:
            listener: queue.Queue[dict[str, Any] | None] = queue.Queue()
            router._listeners.append(listener)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            try:
                while True:
                    try:
                        event = listener.get(timeout=0.2)
                    except queue.Empty:
                        ticks = [f"data: {json.dumps(e)}\n\n" for e in list(router.ongoing.values())]
                        self.wfile.write("".join(ticks).encode() or b": keep-alive\n\n")
                        self.wfile.flush()
                        continue
                    if event is None:
                        return
                    self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                    self.wfile.flush()
            except OSError:
                return
            finally:
                router._listeners.remove(listener)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"null")
            router.requests.append(("POST", self.path, body))
            if not self._authorized():
                return
            model = body.get("model") if isinstance(body, dict) else None
            if not isinstance(model, str):
                self._reply(400, {"error": {"message": "model is required", "code": 400}})
                return
            if self.path in ("/tokenize", "/apply-template", "/completion") and router.entry(model) is None:
                self._reply(400, {"error": {"message": f"model '{model}' not found", "code": 400}})
                return
            reply = router.classify_reply(self.path, body)
            if reply is not None:
                self._reply(200, reply)
                return
            if self.path == "/models/load":
                router.load(model)
            elif self.path == "/models/unload":
                router.unload(model)
            elif self.path == "/models":
                router.download(model)
            else:
                self._reply(404, {"error": {"message": "File Not Found", "code": 404}})
                return
            self._reply(200, {"success": True})

        def log_message(self, *_: object) -> None:
            return

    return Handler


@contextmanager
def llama_router(
    models: list[dict[str, Any]], hub: dict[str, dict[str, Any]] | None = None
) -> Iterator[LlamaRouter]:
    router = LlamaRouter(models, hub)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(router))
    server.daemon_threads = True
    router.base_url = f"http://127.0.0.1:{server.server_port}"
    thread = server_thread(server)
    thread.start()
    try:
        yield router
    finally:
        router.release()
        for listener in list(router._listeners):
            listener.put(None)
        server.shutdown()
        server.server_close()
