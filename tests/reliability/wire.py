"""Each wire API the fault matrix covers: a valid streamed answer, a provider-shaped error body,
the model the library is given and the ``models.json`` provider the CLI is given.

A new API on main gets one ``Wire`` here and the whole matrix (library and CLI) covers it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pi_ai import Model


def _data(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _pieces(text: str, size: int = 5) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def anthropic_frames(text: str, size: int = 5) -> list[str]:
    events: list[tuple[str, dict[str, Any]]] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {"id": "msg_1", "model": "m", "usage": {"input_tokens": 3, "output_tokens": 1}},
            },
        ),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        ),
        *[
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}},
            )
            for p in _pieces(text, size)
        ],
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 4}},
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return [f"event: {name}\ndata: {_data(data)}\n\n" for name, data in events]


def completions_frames(text: str, size: int = 5) -> list[str]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        return _data(
            {"id": "c1", "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        )

    items = [chunk({"role": "assistant", "content": ""})]
    items += [chunk({"content": p}) for p in _pieces(text, size)]
    items.append(chunk({}, "stop"))
    items.append(
        _data(
            {"id": "c1", "model": "m", "choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4}}
        )
    )
    items.append("[DONE]")
    return [f"data: {item}\n\n" for item in items]


def responses_frames(text: str, size: int = 5) -> list[str]:
    item = {"id": "msg_1", "type": "message", "status": "in_progress", "content": [], "role": "assistant"}
    done_item = {
        **item,
        "status": "completed",
        "content": [{"type": "output_text", "annotations": [], "text": text}],
    }
    part = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
    response = {"id": "resp_1", "object": "response", "status": "in_progress", "model": "m", "output": []}
    usage = {
        "input_tokens": 3,
        "output_tokens": 4,
        "total_tokens": 7,
        "input_tokens_details": {"cached_tokens": 0},
    }
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": response},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {
            "type": "response.content_part.added",
            **part,
            "part": {"type": "output_text", "annotations": [], "text": ""},
        },
        *[{"type": "response.output_text.delta", **part, "delta": p} for p in _pieces(text, size)],
        {"type": "response.output_text.done", **part, "text": text},
        {"type": "response.output_item.done", "output_index": 0, "item": done_item},
        {
            "type": "response.completed",
            "response": {**response, "status": "completed", "output": [done_item], "usage": usage},
        },
    ]
    return [f"event: {event['type']}\ndata: {_data(event)}\n\n" for event in events]


def google_frames(text: str, size: int = 5) -> list[str]:
    def chunk(part_text: str, finish: str | None = None) -> str:
        candidate: dict[str, Any] = {"content": {"parts": [{"text": part_text}], "role": "model"}, "index": 0}
        body: dict[str, Any] = {"candidates": [candidate], "responseId": "r-1"}
        if finish:
            candidate["finishReason"] = finish
            body["usageMetadata"] = {"promptTokenCount": 3, "candidatesTokenCount": 4, "totalTokenCount": 7}
        return f"data: {_data(body)}\r\n\r\n"

    pieces = _pieces(text, size)
    return [chunk(p) for p in pieces[:-1]] + [chunk(pieces[-1], "STOP")]


@dataclass(frozen=True)
class Wire:
    api: str
    provider: str
    """The provider the library model names (decides Pi's per-provider behaviour)."""
    base_path: str
    """Appended to the server's URL to make the ``baseUrl``."""
    frames: Callable[[str, int], list[str]]
    """The frames of a valid answer with this text, in deltas of ``size`` characters."""
    error_body: dict[str, Any]
    """What the provider answers a bad request with (status 400)."""
    rate_limited_body: dict[str, Any]
    """What it answers with status 429."""

    def body(self, text: str, size: int = 5) -> bytes:
        return "".join(self.frames(text, size)).encode()

    def model(self, server_url: str) -> Model:
        return Model(
            id="fault-model",
            name="fault model",
            api=self.api,
            provider=self.provider,
            base_url=server_url + self.base_path,
            reasoning=False,
            context_window=200_000,
            max_tokens=4096,
        )

    def models_json(self, server_url: str) -> dict[str, Any]:
        """A ``models.json`` with one provider ``faulty`` speaking this API."""
        return {
            "providers": {
                "faulty": {
                    "baseUrl": server_url + self.base_path,
                    "api": self.api,
                    "apiKey": "fault-key",
                    "models": [{"id": "fault-model", "contextWindow": 64000, "maxTokens": 4096}],
                }
            }
        }


WIRES = [
    Wire(
        "anthropic-messages",
        "anthropic",
        "",
        anthropic_frames,
        {"type": "error", "error": {"type": "invalid_request_error", "message": "bad request"}},
        {"type": "error", "error": {"type": "rate_limit_error", "message": "rate limited"}},
    ),
    Wire(
        "openai-completions",
        "openai",
        "/v1",
        completions_frames,
        {"error": {"message": "bad request", "type": "invalid_request_error"}},
        {"error": {"message": "Rate limit reached", "type": "rate_limit_exceeded"}},
    ),
    Wire(
        "openai-responses",
        "openai",
        "/v1",
        responses_frames,
        {"error": {"message": "bad request", "type": "invalid_request_error", "code": None}},
        {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}},
    ),
    Wire(
        "google-generative-ai",
        "google",
        "/v1beta",
        google_frames,
        {"error": {"code": 400, "message": "bad request", "status": "INVALID_ARGUMENT"}},
        {"error": {"code": 429, "message": "Resource exhausted", "status": "RESOURCE_EXHAUSTED"}},
    ),
]
