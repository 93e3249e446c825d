"""Well-formed answers of the wire APIs added with issue 14, as lists of events, and how each is
put on the wire, for the abort and fuzz tests (``test_new_streams_abort.py``,
``test_new_streams_fuzz.py``): Bedrock's binary event stream, Vertex's and Mistral's SSE,
Codex's SSE and WebSocket events, ``pi-messages``.

Each ``Shape`` names the model and options the library is given (keys that need no signing:
a Bedrock API key, a Vertex express-mode key, a ChatGPT-shaped token), a well-formed answer
with a text in several deltas and a tool call (``events``), and ``render`` to write a list of
events (well-formed or not) as the body. ``transport`` is ``http`` (a loopback HTTP server
answers with the body) or ``websocket`` (each event one text message).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from msgspec.structs import replace

from pi_ai import Model, StreamOptions
from pi_ai.models import get_model
from tests.support import aws_eventstream as es
from tests.support.responses_server import chatgpt_token

TEXT = ["Hel", "lo ", "wörld ", "😀."]
"""The answer's text deltas; an abort comes after the first."""


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# --------------------------------------------------------------------------- Bedrock


def _bedrock_events() -> list[Any]:
    tool = {"contentBlockIndex": 1, "start": {"toolUse": {"toolUseId": "tu_1", "name": "bash"}}}
    return [
        ["messageStart", {"role": "assistant"}],
        *[["contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": piece}}] for piece in TEXT],
        ["contentBlockStop", {"contentBlockIndex": 0}],
        ["contentBlockStart", tool],
        ["contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolUse": {"input": '{"command":'}}}],
        ["contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolUse": {"input": '"ls"}'}}}],
        ["contentBlockStop", {"contentBlockIndex": 1}],
        ["messageStop", {"stopReason": "tool_use"}],
        ["metadata", {"usage": {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15}}],
    ]


def _bedrock_render(events: list[Any]) -> bytes:
    """``[type, payload]`` pairs as framed events (valid checksums); anything else is framed
    as an event of type ``messageStart`` carrying it as its JSON payload."""
    out = []
    for event in events:
        if isinstance(event, list) and len(event) == 2 and isinstance(event[0], str):
            name, payload = event
        else:
            name, payload = "messageStart", event
        out.append(es.event(name, payload))
    return b"".join(out)


# --------------------------------------------------------------------------- Vertex


def _vertex_events() -> list[Any]:
    def chunk(parts: list[Any], finish: str | None = None) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
        body: dict[str, Any] = {"candidates": [candidate], "responseId": "r-1"}
        if finish:
            candidate["finishReason"] = finish
            body["usageMetadata"] = {"promptTokenCount": 3, "candidatesTokenCount": 4, "totalTokenCount": 7}
        return body

    return [
        *[chunk([{"text": piece}]) for piece in TEXT],
        chunk([{"functionCall": {"name": "bash", "args": {"command": "ls"}, "id": "fc-1"}}], "STOP"),
    ]


def _sse_data(events: list[Any], end: str = "\n\n", done: bool = False) -> bytes:
    lines = [f"data: {_json(event)}{end}" for event in events]
    return ("".join(lines) + ("data: [DONE]\n\n" if done else "")).encode()


# --------------------------------------------------------------------------- Mistral


def _mistral_events() -> list[Any]:
    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
        return {
            "id": "cmpl-1",
            "object": "chat.completion.chunk",
            "model": "x",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            **extra,
        }

    call = {"id": "AbC123xyz", "index": 0, "function": {"name": "bash", "arguments": '{"command": "ls"}'}}
    usage = {"prompt_tokens": 30, "completion_tokens": 8, "total_tokens": 38}
    return [
        *[chunk({"content": piece}) for piece in TEXT],
        chunk({"tool_calls": [call]}, "tool_calls", usage=usage),
    ]


# --------------------------------------------------------------------------- Codex (Responses)


def _codex_events() -> list[Any]:
    response = {"id": "resp_1", "object": "response", "status": "in_progress", "model": "gpt-5.4", "output": []}
    message = {"id": "msg_1", "type": "message", "status": "in_progress", "role": "assistant", "content": []}
    text = "".join(TEXT)
    done_message = {
        **message,
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    call = {
        "id": "fc_1",
        "type": "function_call",
        "status": "completed",
        "call_id": "call_1",
        "name": "bash",
        "arguments": '{"command":"ls"}',
    }
    part = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
    usage = {"input_tokens": 12, "output_tokens": 6, "total_tokens": 18, "input_tokens_details": {"cached_tokens": 0}}
    return [
        {"type": "response.created", "response": response},
        {"type": "response.output_item.added", "output_index": 0, "item": message},
        {"type": "response.content_part.added", **part, "part": {"type": "output_text", "text": "", "annotations": []}},
        *[{"type": "response.output_text.delta", **part, "delta": piece} for piece in TEXT],
        {"type": "response.output_text.done", **part, "text": text},
        {"type": "response.output_item.done", "output_index": 0, "item": done_message},
        {"type": "response.output_item.added", "output_index": 1, "item": {**call, "arguments": ""}},
        {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 1, "delta": '{"command":'},
        {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 1, "delta": '"ls"}'},
        {"type": "response.output_item.done", "output_index": 1, "item": call},
        {
            "type": "response.completed",
            "response": {**response, "status": "completed", "output": [done_message, call], "usage": usage},
        },
    ]


# --------------------------------------------------------------------------- pi-messages


def _pi_messages_events() -> list[Any]:
    return [
        {"type": "start"},
        {"type": "text_start", "contentIndex": 0},
        *[{"type": "text_delta", "contentIndex": 0, "delta": piece} for piece in TEXT],
        {"type": "text_end", "contentIndex": 0, "content": "".join(TEXT)},
        {"type": "toolcall_start", "contentIndex": 1, "id": "call_1", "toolName": "bash"},
        {"type": "toolcall_delta", "contentIndex": 1, "delta": '{"command":"ls"}'},
        {
            "type": "toolcall_end",
            "contentIndex": 1,
            "toolCall": {"type": "toolCall", "id": "call_1", "name": "bash", "arguments": {"command": "ls"}},
        },
        {
            "type": "done",
            "reason": "toolUse",
            "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15},
        },
    ]


def _pi_messages_render(events: list[Any]) -> bytes:
    out = []
    for event in events:
        name = event.get("type") if isinstance(event, dict) and isinstance(event.get("type"), str) else "message"
        out.append(f"event: {name}\ndata: {_json(event)}\n\n")
    return "".join(out).encode()


# --------------------------------------------------------------------------- the shapes


@dataclass(frozen=True)
class Shape:
    name: str
    model: Callable[[str], Model]
    """The model, given the server's URL."""
    options: Callable[[], StreamOptions]
    events: Callable[[], list[Any]]
    render: Callable[[list[Any]], bytes]
    content_type: str = "text/event-stream"
    transport: Literal["http", "websocket"] = "http"
    raw_prefix: bytes = b""
    """What a body of raw bytes starts with to reach the event parser (an SSE field name)."""
    keeps_partial: bool = True
    """A failure (an abort too) keeps what was received; pi-messages, as Pi, reports every
    failure on a fresh, empty message."""
    own_stop_reason: bool = True
    """The reader decides the stop reason; pi-messages, as Pi, passes the backend's through
    (a ``done`` event's ``reason``, whatever it is)."""


def _builtin(provider: str, model_id: str, suffix: str = "") -> Callable[[str], Model]:
    def make(url: str) -> Model:
        found = get_model(provider, model_id)
        assert found is not None, (provider, model_id)
        return replace(found, base_url=url + suffix)

    return make


def _mistral_model(url: str) -> Model:
    return Model(id="devstral-2512", name="Devstral", api="mistral-conversations", provider="mistral", base_url=url)


def _pi_messages_model(url: str) -> Model:
    return Model(id="radius-coder", name="Radius Coder", api="pi-messages", provider="radius", base_url=url + "/api/")


def _bedrock_options() -> StreamOptions:
    from pi_ai.api.bedrock_converse_stream import BedrockOptions

    return BedrockOptions(bearer_token="bedrock-key", region="us-east-1")


def _vertex_options() -> StreamOptions:
    from pi_ai.api.google_vertex import VertexOptions

    return VertexOptions(api_key="vertex-key")


def _codex_options(transport: str) -> Callable[[], StreamOptions]:
    def make() -> StreamOptions:
        from pi_ai.api.openai_codex_responses import OpenAICodexResponsesOptions

        return OpenAICodexResponsesOptions(api_key=chatgpt_token("acct-shape"), transport=transport)

    return make


SHAPES: list[Shape] = [
    Shape(
        "bedrock-converse-stream",
        _builtin("amazon-bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
        _bedrock_options,
        _bedrock_events,
        _bedrock_render,
        content_type="application/vnd.amazon.eventstream",
    ),
    Shape(
        "google-vertex",
        _builtin("google-vertex", "gemini-2.5-flash", "/v1"),
        _vertex_options,
        _vertex_events,
        lambda events: _sse_data(events, "\r\n\r\n"),
        raw_prefix=b"data: ",
    ),
    Shape(
        "mistral-conversations",
        _mistral_model,
        lambda: StreamOptions(api_key="mistral-key"),
        _mistral_events,
        lambda events: _sse_data(events, done=True),
        raw_prefix=b"data: ",
    ),
    Shape(
        "openai-codex-responses (sse)",
        _builtin("openai-codex", "gpt-5.6-sol"),
        _codex_options("sse"),
        _codex_events,
        _sse_data,
        raw_prefix=b"data: ",
    ),
    Shape(
        "openai-codex-responses (websocket)",
        _builtin("openai-codex", "gpt-5.6-sol"),
        _codex_options("websocket"),
        _codex_events,
        lambda events: "\n".join(_json(event) for event in events).encode(),
        transport="websocket",
    ),
    Shape(
        "pi-messages",
        _pi_messages_model,
        lambda: StreamOptions(api_key="radius-key"),
        _pi_messages_events,
        _pi_messages_render,
        raw_prefix=b"event: text_delta\ndata: ",
        keeps_partial=False,
        own_stop_reason=False,
    ),
]
