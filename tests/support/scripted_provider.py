"""A scripted LLM provider on 127.0.0.1 speaking OpenAI Chat Completions and Anthropic Messages SSE.

The script is a list of assistant turns. Which turn answers a request is decided from the
request itself (the number of assistant messages already in it), so the same script
drives any client the same way, whatever it retries or however many processes use it;
that is what lets one server drive our CLI and Pi's side by side.

A turn is a dict:

* ``{"text": "..."}`` - a text answer;
* ``{"tool_calls": [{"id": "call_1", "name": "read", "arguments": {...}}, ...]}`` - tool calls
  (``text`` may be given too and comes first; ``"arguments_json": "..."`` instead of
  ``arguments`` streams that text as is, for arguments ``json.dumps`` cannot write);
* optional ``"thinking": "..."`` - reasoning streamed before the text (OpenAI: the
  ``reasoning_content`` delta field; Anthropic: a signed ``thinking`` block);
* optional ``"fail": [{"status": 503, "body": {...}}, ...]`` - the first requests for this turn
  get these HTTP errors, one per request, before the turn is served normally; a failure
  ``{"cut_after": n}`` instead starts the normal stream and drops the connection after
  ``n`` events (a connection lost mid-answer);
* optional ``"chunk_delay": seconds`` - pause between SSE events (a slow provider);
* optional ``"usage": {"input": n, "output": m}`` (Anthropic also ``"cache_read": n``, the
  prompt tokens read from the cache).

With ``sequential=True`` turns are served in request order instead (for runs whose
context shrinks, by compaction, so the assistant count goes down); a request answered
with a scripted failure does not advance.

A request whose first user message starts with ``<conversation>`` (or Pi 1.6's ``# Conversation``)
is a compaction summary request (Pi's and ours both start so); it is answered with the ``summary`` text given to
the provider instead of a turn of the script (after the HTTP errors in ``summary_failures``,
one per summary request, if any).

With ``route``, each request picks its own script: ``route(body)`` returns ``(key, turns)``
(many independent conversations on one server, such as the tasks of a batch); scripted
failures are then counted per key. ``route`` runs on the request's own thread before
anything is sent, so it may also wait (a slow provider, or one held until a test is ready).

Every request is recorded (``requests``: method, path, headers, parsed JSON body) and
``first_request_at`` holds the monotonic time the first one arrived.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.http_thread import server_thread

Turn = dict[str, Any]

SUMMARY_PROMPT_STARTS = ("<conversation>", "# Conversation\n")
"""How a summary request's prompt starts: Pi's (and our) compaction and branch summaries, and
Pi 1.6's turn-prefix summary of a split turn."""


def _arguments(call: dict[str, Any]) -> str:
    raw = call.get("arguments_json")
    return raw if isinstance(raw, str) else json.dumps(call.get("arguments", {}))


def _chunks(text: str, size: int = 4) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _openai_events(turn: Turn, model: str) -> Iterator[dict[str, Any] | str]:
    base = {"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 0, "model": model}

    def chunk(delta: dict[str, Any], finish: str | None = None, usage: dict[str, Any] | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        if usage is not None:
            data["usage"] = usage
        return data

    yield chunk({"role": "assistant", "content": ""})
    for piece in _chunks(turn["thinking"]) if turn.get("thinking") else []:
        yield chunk({"reasoning_content": piece})
    if turn.get("text"):
        for piece in _chunks(turn["text"]):
            yield chunk({"content": piece})
    calls = turn.get("tool_calls") or []
    for index, call in enumerate(calls):
        arguments = _arguments(call)
        yield chunk(
            {
                "tool_calls": [
                    {
                        "index": index,
                        "id": call["id"],
                        "type": "function",
                        "function": {"name": call["name"], "arguments": ""},
                    }
                ]
            }
        )
        for piece in _chunks(arguments, 12):
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    usage = turn.get("usage") or {}
    prompt_tokens = usage.get("input", 10)
    completion_tokens = usage.get("output", 5)
    yield chunk(
        {},
        "tool_calls" if calls else "stop",
        {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    )
    yield "[DONE]"


def _anthropic_thinking(thinking: str, index: int) -> Iterator[tuple[str, dict[str, Any]]]:
    start = {"type": "content_block_start", "index": index, "content_block": {"type": "thinking", "thinking": ""}}
    yield "content_block_start", start
    for piece in _chunks(thinking):
        delta = {"type": "thinking_delta", "thinking": piece}
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
    signature = {"type": "signature_delta", "signature": "c2lnbmVk"}
    yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": signature}
    yield "content_block_stop", {"type": "content_block_stop", "index": index}


def _anthropic_events(turn: Turn, model: str) -> Iterator[tuple[str, dict[str, Any]]]:
    usage = turn.get("usage") or {}
    yield (
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": "msg_scripted",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {
                    "input_tokens": usage.get("input", 10),
                    "output_tokens": 1,
                    **({"cache_read_input_tokens": usage["cache_read"]} if "cache_read" in usage else {}),
                },
            },
        },
    )
    index = 0
    if turn.get("thinking"):
        yield from _anthropic_thinking(turn["thinking"], index)
        index += 1
    if turn.get("text"):
        yield (
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
        )
        for piece in _chunks(turn["text"]):
            yield (
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": piece}},
            )
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
        index += 1
    calls = turn.get("tool_calls") or []
    for call in calls:
        yield (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "tool_use", "id": call["id"], "name": call["name"], "input": {}},
            },
        )
        for piece in _chunks(_arguments(call), 12):
            yield (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "input_json_delta", "partial_json": piece},
                },
            )
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
        index += 1
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use" if calls else "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": usage.get("output", 5)},
        },
    )
    yield "message_stop", {"type": "message_stop"}


class ScriptedProvider:
    """Serve ``turns`` on ``http://127.0.0.1:<port>`` (``/v1/chat/completions``, ``/v1/messages``)."""

    def __init__(
        self,
        turns: list[Turn],
        summary: str | None = None,
        *,
        sequential: bool = False,
        summary_failures: list[dict[str, Any]] | None = None,
        route: Callable[[dict[str, Any]], tuple[str, list[Turn]]] | None = None,
    ) -> None:
        self.turns = turns
        self.route = route
        self.summary = summary
        self.summary_failures = summary_failures or []
        self.sequential = sequential
        self._served = 0
        self.requests: list[dict[str, Any]] = []
        self.first_request_at: float | None = None
        self.last_response_done: float | None = None
        """Monotonic time the last streamed response was completely sent."""
        self._failures_served: dict[tuple[str, int], int] = {}
        self._lock = threading.Lock()
        provider = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                provider._handle(self)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = server_thread(self._server)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> ScriptedProvider:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _turn_for(self, body: dict[str, Any]) -> int:
        messages = body.get("messages") or []
        return sum(1 for message in messages if isinstance(message, dict) and message.get("role") == "assistant")

    @staticmethod
    def _is_summary_request(body: dict[str, Any]) -> bool:
        for message in body.get("messages") or []:
            if isinstance(message, dict) and message.get("role") == "user":
                content = message.get("content")
                if isinstance(content, list):
                    content = next((part.get("text") for part in content if isinstance(part, dict)), "")
                return isinstance(content, str) and content.startswith(SUMMARY_PROMPT_STARTS)
        return False

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("content-length") or 0)
        raw = handler.rfile.read(length)
        body = json.loads(raw or b"{}")
        key, turns = self.route(body) if self.route is not None else ("", self.turns)
        with self._lock:
            if self.first_request_at is None:
                self.first_request_at = time.monotonic()
            self.requests.append(
                {"path": handler.path, "headers": {k.lower(): v for k, v in handler.headers.items()}, "body": body}
            )
            index = self._served if self.sequential else self._turn_for(body)
            turn = turns[index] if index < len(turns) else {"text": "(script exhausted)"}
            if self.summary is not None and self._is_summary_request(body):
                index, turn = -1, {"text": self.summary, "fail": self.summary_failures}
            failures = turn.get("fail") or []
            served = self._failures_served.get((key, index), 0)
            failure = failures[served] if served < len(failures) else None
            if failure is not None:
                self._failures_served[key, index] = served + 1
            elif index >= 0:
                self._served += 1
        if failure is not None and "cut_after" not in failure:
            payload = json.dumps(failure.get("body") or {"error": {"message": "scripted failure"}}).encode()
            handler.send_response(int(failure.get("status", 500)))
            handler.send_header("content-type", "application/json")
            handler.send_header("content-length", str(len(payload)))
            handler.end_headers()
            handler.wfile.write(payload)
            return
        model = str(body.get("model", "scripted"))
        delay = float(turn.get("chunk_delay", 0))
        limit = int(failure["cut_after"]) if failure is not None else None
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("cache-control", "no-cache")
        handler.send_header("connection", "close")
        handler.end_headers()
        try:
            if handler.path.split("?", 1)[0].endswith("/messages"):
                frames = [f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in _anthropic_events(turn, model)]
            else:
                frames = [
                    f"data: {event if isinstance(event, str) else json.dumps(event)}\n\n"
                    for event in _openai_events(turn, model)
                ]
            for frame in frames[:limit]:
                handler.wfile.write(frame.encode())
                handler.wfile.flush()
                if delay:
                    time.sleep(delay)
        except (BrokenPipeError, ConnectionResetError):
            return
        self.last_response_done = time.monotonic()
        handler.close_connection = True


def models_json(base_url: str) -> dict[str, Any]:
    """A ``models.json`` with an OpenAI-compatible and an Anthropic-style provider on ``base_url``."""
    return {
        "providers": {
            "scripted-openai": {
                "baseUrl": f"{base_url}/v1",
                "api": "openai-completions",
                "apiKey": "scripted-key",
                "compat": {"supportsDeveloperRole": False, "supportsUsageInStreaming": True},
                "models": [{"id": "scripted-model", "name": "Scripted Model", "contextWindow": 64000, "maxTokens": 4096}],
            },
            "scripted-anthropic": {
                "baseUrl": base_url,
                "api": "anthropic-messages",
                "apiKey": "scripted-key",
                "models": [{"id": "scripted-claude", "name": "Scripted Claude", "contextWindow": 64000, "maxTokens": 4096}],
            },
        }
    }
