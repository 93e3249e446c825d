"""Scripted non-chat model services on 127.0.0.1: a System One classifier endpoint
(``POST .../systemone``, as TypeSafe and OpenRouter serve it) and OpenRouter's image generation
(``POST .../chat/completions`` without streaming).

Answers are made from the request, so any client gets the same ones:

* classifier: each question of the request answered in its wire type (``choice``: the first
  label, ``score``: the middle of the scale, ``noul``: 0.25), with ``usage``; a request whose
  ``state`` has a ``"fail"`` key gets HTTP 400 with an OpenAI-style error body, one with a
  ``"garble"`` key answers of the wrong type (with usage);
* OpenAI Decisions (``.../decisions``): each question of the list answered by ``name``
  (``choice``: the first value, ``score``: the middle level, ``predicate``: 0.25), with
  ``usage``; an ``input`` that mentions ``"fail"`` gets HTTP 400, ``"slow"`` HTTP 504 (the
  gateway's time limit), ``"refuse"`` a ``refusal`` answer;
* Cloudflare Workers AI (``.../run``): System One answers in Cloudflare's envelope, the
  output itself for ``@cf/`` models and a completed run record for the others; a state with a
  ``"fail"`` key gets ``success: false`` with an error;
* images: one PNG (and the prompt echoed as text when ``modalities`` has ``"text"``), with usage;
  a prompt containing ``"fail"`` gets HTTP 400.

Every request is recorded (``requests``: path, headers with lower-case names, parsed body).
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.http_thread import server_thread

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
"""A 1x1 PNG, base64."""


def _answer(question: dict[str, Any]) -> dict[str, Any]:
    kind = question.get("type")
    criteria = question.get("criteria")
    if kind == "choice" and isinstance(criteria, dict):
        labels = list(criteria)
        share = round(1 / len(labels), 4)
        return {
            "type": "choice",
            "choice": labels[0],
            "probabilities": dict.fromkeys(labels, share),
            "confidence": 0.75,
        }
    if kind == "score" and isinstance(criteria, list):
        return {"type": "score", "score": (len(criteria) - 1) / 2, "confidence": 0.5}
    return {"type": "noul", "noul": 0.25}


def _error(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error"}}


def _classify(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    state = body.get("state")
    states = state if isinstance(state, list) else [state]
    if any(isinstance(item, dict) and "fail" in item for item in states):
        return 400, _error("the state was refused")
    questions = body.get("questions") or {}
    garbled = any(isinstance(item, dict) and "garble" in item for item in states)
    answers = {
        qid: {"type": "other"} if garbled else _answer(question) for qid, question in questions.items()
    }
    return 200, {"answers": answers, "usage": {"input_tokens": 120, "output_tokens": len(answers)}}


def _decision(question: dict[str, Any]) -> dict[str, Any]:
    name, kind = question.get("name"), question.get("type")
    if kind == "choice":
        values = [choice["value"] for choice in question.get("choices", [])]
        share = round(1 / len(values), 4)
        probabilities = [{"value": value, "probability": share} for value in values]
        return {
            "name": name,
            "type": "choice",
            "choice": values[0],
            "probabilities": probabilities,
            "confidence": 0.75,
        }
    if kind == "score":
        return {
            "name": name,
            "type": "score",
            "score": (len(question.get("levels", [])) - 1) / 2,
            "confidence": 0.5,
        }
    return {"name": name, "type": "predicate", "probability": 0.25}


def _decide(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    text = json.dumps(body.get("input"))
    if "fail" in text:
        return 400, _error("the input was refused")
    if "slow" in text:
        return 504, _error("gateway timeout")
    questions = body.get("questions") or []
    if "refuse" in text:
        answers = [{"name": question.get("name"), "type": "refusal"} for question in questions]
    else:
        answers = [_decision(question) for question in questions]
    return 200, {"answers": answers, "usage": {"input_tokens": 200, "output_tokens": len(answers)}}


def _run(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    status, output = _classify(body.get("input") or {})
    if status != 200:
        return 200, {
            "success": False,
            "errors": [{"code": 5006, "message": "the input was refused"}],
            "result": None,
        }
    if str(body.get("model", "")).startswith("@cf/"):
        return 200, {"success": True, "result": {"model": body["model"], **output}}
    return 200, {"success": True, "result": {"state": "Completed", "result": output}}


def _generate(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    parts = body["messages"][0]["content"]
    prompt = " ".join(part["text"] for part in parts if part.get("type") == "text")
    if "fail" in prompt:
        return 400, _error("the prompt was refused")
    message: dict[str, Any] = {
        "role": "assistant",
        "content": f"drawn: {prompt}" if "text" in body.get("modalities", []) else None,
        "images": [{"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}}],
    }
    return 200, {
        "id": "gen-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model"),
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 1290, "total_tokens": 1302},
    }


class ModelServices:
    """The services on one port; ``base_url`` is ``http://127.0.0.1:<port>``."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        services = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                services._handle(self)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = server_thread(self._server)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> ModelServices:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("content-length") or 0)
        body = json.loads(handler.rfile.read(length) or b"{}")
        with self._lock:
            self.requests.append(
                {
                    "path": handler.path,
                    "headers": {name.lower(): value for name, value in handler.headers.items()},
                    "body": body,
                }
            )
        if handler.path.endswith("/systemone"):
            status, answer = _classify(body)
        elif handler.path.endswith("/decisions"):
            status, answer = _decide(body)
        elif handler.path.endswith("/run"):
            status, answer = _run(body)
        elif handler.path.endswith("/chat/completions"):
            status, answer = _generate(body)
        else:
            status, answer = 404, _error(f"no service at {handler.path}")
        data = json.dumps(answer).encode()
        handler.send_response(status)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)
