"""Provider stream bodies for the four wire APIs, well-formed and with one field spoiled.

A *base* is a list of event objects that makes a complete, valid response (text, thinking,
tool calls, usage, a stop reason) in one provider's format; ``render`` turns events into the
SSE body that provider sends. ``spoil`` replaces (or removes) one value anywhere inside one
event with a value of another JSON type (``true``, ``null``, ``{}``, ``"x"`` ...): the inputs
behind the malformed-field rules (Pi ignores the event, or ends the stream with a
``TypeError``). Used by the fuzz tests, the live differential check against Pi, and
``tools/gen_stream_quirk_cases.py``.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

MODELS: dict[str, Any] = {
    "anthropic-messages": "anthropic/claude-sonnet-4-5",
    "openai-completions": {"id": "gpt-4o-mini", "provider": "openai", "baseUrl": "https://api.openai.com/v1"},
    "openai-responses": "openai/gpt-4.1-mini",
    "google-generative-ai": "google/gemini-2.5-flash",
}
APIS = tuple(MODELS)

WRONG_TYPES: tuple[Any, ...] = (None, True, False, 0, 7, 2.5, "", "x", [], [None], {}, {"z": 1})
REMOVE = object()
"""Spoil by deleting the key instead of replacing its value."""

_ANTHROPIC: list[dict[str, Any]] = [
    {
        "type": "message_start",
        "message": {
            "id": "msg_1",
            "model": "claude-sonnet-4-5-20250929",
            "usage": {"input_tokens": 12, "output_tokens": 1, "cache_creation": {"ephemeral_1h_input_tokens": 0}},
        },
    },
    {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Let me see."}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "c2ln"}},
    {"type": "content_block_stop", "index": 0},
    {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Reading it."}},
    {"type": "content_block_stop", "index": 1},
    {
        "type": "content_block_start",
        "index": 2,
        "content_block": {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}},
    },
    {"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": '{"path": '}},
    {"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": '"a.py"}'}},
    {"type": "content_block_stop", "index": 2},
    {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use", "stop_details": None},
        "usage": {"output_tokens": 30, "output_tokens_details": {"thinking_tokens": 5}},
    },
    {"type": "message_stop"},
]


def _chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "model": "gpt-4o-mini",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }


_COMPLETIONS: list[dict[str, Any]] = [
    _chunk({"role": "assistant", "content": ""}),
    _chunk({"reasoning_content": "Thinking."}),
    _chunk({"content": "Reading it."}),
    _chunk(
        {"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "read", "arguments": ""}}]}
    ),
    _chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"path": "a.py"}'}}]}),
    _chunk({}, "tool_calls"),
    {
        "id": "chatcmpl-1",
        "choices": [],
        "usage": {
            "prompt_tokens": 12,
            "completion_tokens": 30,
            "prompt_tokens_details": {"cached_tokens": 2},
            "completion_tokens_details": {"reasoning_tokens": 5},
        },
    },
]

_RESPONSES: list[dict[str, Any]] = [
    {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}},
    {"type": "response.output_item.added", "output_index": 0, "item": {"type": "reasoning", "id": "rs_1"}},
    {"type": "response.reasoning_summary_text.delta", "output_index": 0, "delta": "Thinking."},
    {"type": "response.reasoning_summary_part.done", "output_index": 0},
    {
        "type": "response.output_item.done",
        "output_index": 0,
        "item": {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Thinking."}]},
    },
    {"type": "response.output_item.added", "output_index": 1, "item": {"type": "message", "id": "msg_1"}},
    {"type": "response.output_text.delta", "output_index": 1, "delta": "Reading it."},
    {
        "type": "response.output_item.done",
        "output_index": 1,
        "item": {"type": "message", "id": "msg_1", "content": [{"type": "output_text", "text": "Reading it."}]},
    },
    {
        "type": "response.output_item.added",
        "output_index": 2,
        "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "read", "arguments": ""},
    },
    {"type": "response.function_call_arguments.delta", "output_index": 2, "delta": '{"path": '},
    {"type": "response.function_call_arguments.delta", "output_index": 2, "delta": '"a.py"}'},
    {"type": "response.function_call_arguments.done", "output_index": 2, "arguments": '{"path": "a.py"}'},
    {
        "type": "response.output_item.done",
        "output_index": 2,
        "item": {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_1",
            "name": "read",
            "arguments": '{"path": "a.py"}',
        },
    },
    {
        "type": "response.completed",
        "response": {
            "id": "resp_1",
            "status": "completed",
            "output": [],
            "usage": {
                "input_tokens": 12,
                "output_tokens": 30,
                "total_tokens": 42,
                "input_tokens_details": {"cached_tokens": 2},
                "output_tokens_details": {"reasoning_tokens": 5},
            },
        },
    },
]


def _candidate(parts: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "index": 0, **extra}], "responseId": "r1"}


_GOOGLE: list[dict[str, Any]] = [
    _candidate([{"text": "Thinking.", "thought": True}]),
    _candidate([{"text": "Reading it.", "thoughtSignature": "c2ln"}]),
    _candidate([{"functionCall": {"name": "read", "args": {"path": "a.py"}}}]),
    {
        **_candidate([], finishReason="STOP"),
        "usageMetadata": {
            "promptTokenCount": 12,
            "candidatesTokenCount": 25,
            "thoughtsTokenCount": 5,
            "cachedContentTokenCount": 2,
            "totalTokenCount": 42,
        },
    },
]

BASES: dict[str, list[dict[str, Any]]] = {
    "anthropic-messages": _ANTHROPIC,
    "openai-completions": _COMPLETIONS,
    "openai-responses": _RESPONSES,
    "google-generative-ai": _GOOGLE,
}


def base(api: str) -> list[dict[str, Any]]:
    """A fresh copy of the well-formed event list for ``api``."""
    return copy.deepcopy(BASES[api])


def _data(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def render(api: str, events: list[Any]) -> str:
    """The SSE body ``api``'s provider would send for ``events``."""
    if api == "anthropic-messages" or api == "openai-responses":
        parts = []
        for event in events:
            name = event.get("type") if isinstance(event, dict) else None
            parts.append(f"event: {name if isinstance(name, str) else 'message_delta'}\ndata: {_data(event)}\n\n")
        return "".join(parts)
    if api == "openai-completions":
        return "".join(f"data: {_data(event)}\n\n" for event in events) + "data: [DONE]\n\n"
    return "".join(f"data: {_data(event)}\r\n\r\n" for event in events)


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key/index path inside ``value`` (the value itself excluded)."""
    found: list[tuple[Any, ...]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            found.append((*prefix, key))
            found.extend(paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.append((*prefix, index))
            found.extend(paths(item, (*prefix, index)))
    return found


def spoiled(event: Any, path: tuple[Any, ...], replacement: Any) -> Any:
    """A copy of ``event`` with the value at ``path`` replaced (or removed, for ``REMOVE``)."""
    copied = copy.deepcopy(event)
    if not path:
        return copy.deepcopy(replacement)
    target = copied
    for step in path[:-1]:
        target = target[step]
    last = path[-1]
    if replacement is REMOVE:
        del target[last]
    else:
        target[last] = copy.deepcopy(replacement)
    return copied


def random_spoil(api: str, rng: random.Random) -> tuple[list[Any], str]:
    """The base events of ``api`` with one value of one event spoiled, and a description."""
    events = base(api)
    index = rng.randrange(len(events))
    choices = paths(events[index])
    path = rng.choice(choices) if choices and rng.random() > 0.05 else ()
    replacement = REMOVE if path and rng.random() < 0.2 else rng.choice(WRONG_TYPES)
    events[index] = spoiled(events[index], path, replacement)
    shown = "removed" if replacement is REMOVE else _data(replacement)
    return events, f"event {index} {'.'.join(map(str, path)) or '<root>'} = {shown}"


def request(api: str, events: list[Any]) -> dict[str, Any]:
    """A ``parse-stream`` conformance/oracle input for ``events``."""
    return {
        "api": api,
        "model": MODELS[api],
        "context": {"messages": [{"role": "user", "content": "Read a.py", "timestamp": 1760000000000}]},
        "sse": render(api, events),
    }


# --------------------------------------------------------------------------- documented differences

_SCRATCH_FIELDS = frozenset({"index", "partialJson", "partialArgs", "streamIndex", "customInput"})
_DELTA_EVENTS = frozenset({"text_delta", "thinking_delta", "toolcall_delta"})
_BLOCKS = frozenset({"text", "thinking", "toolCall"})
_USAGE_COUNTS = ("input", "output", "cacheRead", "cacheWrite", "reasoning", "totalTokens", "cacheWrite1h")
_TEXT_FIELDS = frozenset(
    {"id", "name", "thoughtSignature", "namespace", "thinkingSignature", "textSignature", "text", "thinking"}
    | {"responseId", "responseModel", "model", "rawStopReason", "errorMessage"}
)
_REQUIRED_TEXT = frozenset({"id", "name", "model", "text", "thinking"})


def comparable(pi_output: Any, our_output: Any) -> Any:
    """Pi's ``parse-stream`` answer with the differences docs/providers/streams.md documents
    applied (``ours`` gives the values our typed fields hold instead), so what remains must
    equal ours:

    - blocks never carry Pi's streaming scratch fields (``index``, ``partialJson``, ...), which
      Pi leaves on a block the stream never closed;
    - a ``*_delta`` event's ``delta`` is the text that was appended (``String(value)``), where
      Pi passes a wrong-typed provider value through (or leaves it out when undefined);
    - tool-call ``arguments`` are an object (``{}`` when the provider's JSON is another value);
    - token counts are whole numbers (a count of another type reads as 0, and Pi's arithmetic
      on it is not compared);
    - text fields hold text: ``String(value)`` of another type, our default for a missing
      required one (a tool call's ``id``, the message's ``model``), absent for a null optional.
    """
    from pi_ai.js_json import js_text

    def fix(pi: Any, ours: Any) -> Any:
        if isinstance(pi, list):
            others = ours if isinstance(ours, list) and len(ours) == len(pi) else [None] * len(pi)
            return [fix(item, other) for item, other in zip(pi, others, strict=True)]
        if not isinstance(pi, dict):
            return pi
        ours = ours if isinstance(ours, dict) else {}
        out = {key: fix(item, ours.get(key)) for key, item in pi.items()}
        kind = out.get("type")
        is_record = kind in _BLOCKS or out.get("role") == "assistant"
        if kind in _BLOCKS:
            for key in _SCRATCH_FIELDS & out.keys():
                del out[key]
        if kind == "toolCall" and not isinstance(out.get("arguments"), dict):
            out["arguments"] = {}
        if kind in _DELTA_EVENTS and not isinstance(out.get("delta"), str):
            out["delta"] = js_text(out["delta"]) if "delta" in out else "undefined"
        if is_record:
            for key in _TEXT_FIELDS:
                if out.get(key) is None and key in _REQUIRED_TEXT and key in ours:
                    out[key] = ours[key]
                elif key in out and out[key] is None:
                    del out[key]
                elif key in out and not isinstance(out[key], str):
                    out[key] = js_text(out[key])
        usage = out.get("usage")
        if isinstance(usage, dict) and any(
            key in usage and (type(usage[key]) is not int and not _whole_float(usage[key])) for key in _USAGE_COUNTS
        ):
            out["usage"] = ours.get("usage")
        return out

    return fix(pi_output, our_output)


def _whole_float(value: Any) -> bool:
    return type(value) is float and value.is_integer()
