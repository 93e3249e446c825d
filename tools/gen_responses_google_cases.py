#!/usr/bin/env python3
"""Write the openai-responses / google-generative-ai conformance cases and Pi's answers.

    .venv/bin/python tools/gen_responses_google_cases.py [NAME_FILTER]

Inputs are built here; every ``.out.json`` is what the live oracle (the real Pi 0.85)
answered, never edited by hand (recording is ``tests/support/cases.py``). Cases land in
``tests/conformance/cases/{payload,parse-stream}``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.support.cases import BASH, call, record_all, text, user

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg=="
JPEG = "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE="

READ = {
    "name": "read",
    "description": "Read the contents of a file.",
    "parameters": {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Path to the file to read (relative or absolute)"},
            "offset": {"type": "number", "description": "Line number to start reading from (1-indexed)"},
            "limit": {"type": "number", "description": "Maximum number of lines to read"},
        },
        "required": ["path"],
    },
}
SYSTEM = "You are an expert coding assistant. You help users with coding tasks."


def usage(inp: int = 100, out: int = 20) -> dict[str, Any]:
    zero = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
    return {
        "input": inp,
        "output": out,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": inp + out,
        "cost": zero,
    }


def assistant(
    content: list[Any], api: str, provider: str, model: str, ts: int, *args: str, **extra: Any
) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": content,
        "api": api,
        "provider": provider,
        "model": model,
        "usage": usage(),
        "stopReason": args[0] if args else "stop",
        "timestamp": ts,
        **extra,
    }


def result(
    call_id: str, name: str, content: list[Any], ts: int, is_error: bool = False, **extra: Any
) -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": content,
        "isError": is_error,
        "timestamp": ts,
        **extra,
    }


def image(data: str = PNG, mime: str = "image/png") -> dict[str, Any]:
    return {"type": "image", "data": data, "mimeType": mime}


def thinking(value: str, signature: str | None = None, **extra: Any) -> dict[str, Any]:
    block = {"type": "thinking", "thinking": value, **extra}
    if signature is not None:
        block["thinkingSignature"] = signature
    return block


def sse(events: list[dict[str, Any]]) -> str:
    """OpenAI Responses SSE: ``event:`` + ``data:`` per event, sequence numbers added."""
    out = []
    for number, event in enumerate(events):
        body = {**event, "sequence_number": number}
        out.append(
            f"event: {event['type']}\ndata: {json.dumps(body, separators=(',', ':'), ensure_ascii=False)}\n\n"
        )
    return "".join(out)


def gsse(chunks: list[dict[str, Any]]) -> str:
    """Gemini SSE: ``data:`` lines ended by CRLF CRLF, as the API writes them."""
    return "".join(
        f"data: {json.dumps(c, separators=(',', ':'), ensure_ascii=False)}\r\n\r\n" for c in chunks
    )


# --------------------------------------------------------------------------- shared histories

RS_ITEM = {
    "type": "reasoning",
    "id": "rs_68e7b0c2e4f08190a1b2c3d4e5f60718",
    "summary": [{"type": "summary_text", "text": "**Planning**\n\nList the files first."}],
    "encrypted_content": "gAAAAABo57DC3vQx0m9ZzExampleEncryptedReasoning==",
}
RESP_CALL_ID = "call_Xb2mWq9LJ3v1r8TfK0pQz7Ys|fc_68e7c9da1b2c8190b3c4d5e6f7a8b9c0"
ANTHROPIC_HISTORY = [
    user("What is in README.md and the src folder?", 1),
    assistant(
        [
            thinking(
                "The user wants two things; I will read both.", "EqQBCkYIBxgCKkDanthropicSignatureExample=="
            ),
            thinking("[Reasoning redacted]", "redactedPayloadExample", redacted=True),
            text("Let me look."),
            call("toolu_01A09q90qw90lq917835lq9", "read", {"path": "README.md"}),
            call("toolu_01B19q90qw90lq917835lq9", "bash", {"command": "ls src"}),
        ],
        "anthropic-messages",
        "anthropic",
        "claude-sonnet-4-5",
        2,
        "toolUse",
    ),
    result("toolu_01A09q90qw90lq917835lq9", "read", [text("# Demo\nA demo project.")], 3),
    result("toolu_01B19q90qw90lq917835lq9", "bash", [text("main.py\nutil.py")], 4),
    assistant(
        [text("README describes a demo; src has main.py and util.py.")],
        "anthropic-messages",
        "anthropic",
        "claude-sonnet-4-5",
        5,
    ),
]


def responses_cases() -> dict[str, tuple[str, dict[str, Any]]]:
    api, prov, model = "openai-responses", "openai", "gpt-5-mini"
    cases: dict[str, tuple[str, dict[str, Any]]] = {}

    same_model_history = [
        user("List the files, then read README.md.", 1),
        assistant(
            [
                thinking("**Planning**\n\nList the files first.", json.dumps(RS_ITEM, separators=(",", ":"))),
                text(
                    "Listing now.",
                    textSignature='{"v":1,"id":"msg_68e7b0c5f1e881909f8e7d6c5b4a3928","phase":"commentary"}',
                ),
                call(RESP_CALL_ID, "bash", {"command": "ls", "timeout": 10.0}),
            ],
            api,
            prov,
            model,
            2,
            "toolUse",
        ),
        result(RESP_CALL_ID, "bash", [text("README.md\nsrc")], 3),
        assistant(
            [
                text("legacy id text", textSignature="msg_legacy_plain_id_0001"),
                text("Second block without a signature."),
                call("call_2|fc_2", "read", {"path": "README.md"}),
            ],
            api,
            prov,
            model,
            4,
            "toolUse",
        ),
        result("call_2|fc_2", "read", [], 5),
        user([text("Thanks. "), text("Now summarise.")], 6),
    ]
    cases["openai_responses_multi_turn_tools"] = (
        "payload",
        {
            "api": api,
            "model": "openai/gpt-5-mini",
            "context": {"systemPrompt": SYSTEM, "tools": [BASH, READ], "messages": same_model_history},
            "options": {"reasoning": "high", "sessionId": "session-abc"},
        },
    )

    cases["openai_responses_images"] = (
        "payload",
        {
            "api": api,
            "model": "openai/gpt-4.1-mini",
            "context": {
                "systemPrompt": SYSTEM,
                "tools": [READ],
                "messages": [
                    user([text("What is in these pictures?"), image(), image(JPEG, "image/jpeg")], 1),
                    assistant(
                        [call("call_img|fc_img", "read", {"path": "shot.png"})],
                        api,
                        prov,
                        "gpt-4.1-mini",
                        2,
                        "toolUse",
                    ),
                    result("call_img|fc_img", "read", [text("A screenshot:"), image()], 3),
                    assistant(
                        [call("call_img2|fc_img2", "read", {"path": "only.png"})],
                        api,
                        prov,
                        "gpt-4.1-mini",
                        4,
                        "toolUse",
                    ),
                    result("call_img2|fc_img2", "read", [image()], 5),
                    user([], 6),
                    user("Describe them.", 7),
                ],
            },
        },
    )
    cases["openai_responses_images_text_only_model"] = (
        "payload",
        {
            "api": api,
            "model": "openai/gpt-4",
            "context": {
                "messages": [
                    user([text("What is this?"), image(), image()], 1),
                    assistant(
                        [call("call_a|fc_a", "read", {"path": "a.png"})], api, prov, "gpt-4", 2, "toolUse"
                    ),
                    result("call_a|fc_a", "read", [image(), text("caption")], 3),
                ]
            },
        },
    )

    cases["openai_responses_parallel_tool_calls"] = (
        "payload",
        {
            "api": api,
            "model": "openai/gpt-4.1",
            "context": {
                "systemPrompt": SYSTEM,
                "tools": [BASH, READ],
                "messages": [
                    user("Check both files.", 1),
                    assistant(
                        [
                            call("call_p1|fc_p1", "read", {"path": "a.txt"}),
                            call("call_p2|fc_p2", "read", {"path": "b.txt"}),
                            call("call_p3|fc_p3", "bash", {"command": "wc -l a.txt b.txt"}),
                        ],
                        api,
                        prov,
                        "gpt-4.1",
                        2,
                        "toolUse",
                    ),
                    result("call_p2|fc_p2", "read", [text("bee")], 3),
                    result("call_p1|fc_p1", "read", [text("ay")], 4, True),
                    user("The third one was cancelled; continue.", 5),
                    assistant(
                        [text("partial answer")], api, prov, "gpt-4.1", 6, "error", errorMessage="boom"
                    ),
                    assistant(
                        [text("")], api, prov, "gpt-4.1", 7, "aborted", errorMessage="Request was aborted"
                    ),
                    user("Go on.", 8),
                ],
            },
            "options": {"toolChoice": "auto", "temperature": 0.2, "maxTokens": 4},
        },
    )

    cases["openai_responses_cross_provider"] = (
        "payload",
        {
            "api": api,
            "model": "openai/gpt-5-mini",
            "context": {
                "systemPrompt": SYSTEM,
                "tools": [BASH, READ],
                "messages": [
                    *ANTHROPIC_HISTORY,
                    user("And now with Google.", 6),
                    assistant(
                        [
                            thinking("Gemini thoughts", "CiQB0e2Kb3mF9x0Example+Signature=="),
                            text("Calling it.", textSignature="CiQB0e2Kb3mF9x0Example+Signature=="),
                            call(
                                "bash_1760000000000_1",
                                "bash",
                                {"command": "pwd"},
                                thoughtSignature="CiQBsig==",
                            ),
                        ],
                        "google-generative-ai",
                        "google",
                        "gemini-2.5-flash",
                        7,
                        "toolUse",
                    ),
                    result("bash_1760000000000_1", "bash", [text("/home/demo")], 8),
                    assistant(
                        [
                            thinking(
                                "gpt-5 reasoning",
                                json.dumps({**RS_ITEM, "id": "rs_other"}, separators=(",", ":")),
                            ),
                            call("call_g5|fc_g5", "bash", {"command": "whoami"}),
                            call("call_g6|ctc_custom", "bash", {"command": "id"}),
                        ],
                        api,
                        prov,
                        "gpt-5",
                        9,
                        "toolUse",
                    ),
                    result("call_g5|fc_g5", "bash", [text("demo")], 10),
                    result("call_g6|ctc_custom", "bash", [text("uid=1000")], 11),
                    assistant(
                        [
                            call("call_z|" + "x" * 80 + "/+=", "bash", {"command": "date"}),
                        ],
                        "openai-completions",
                        "openai",
                        "gpt-4o",
                        12,
                        "toolUse",
                    ),
                    result("call_z|" + "x" * 80 + "/+=", "bash", [text("today")], 13),
                    user("Summarise everything.", 14),
                ],
            },
            "options": {"reasoning": "minimal"},
        },
    )

    cases["openai_responses_stream_options"] = (
        "payload",
        {
            "api": api,
            "model": "openai/gpt-5",
            "fn": "stream",
            "context": {"systemPrompt": SYSTEM, "tools": [BASH], "messages": [user("hello", 1)]},
            "options": {
                "reasoningEffort": "high",
                "reasoningSummary": "detailed",
                "serviceTier": "flex",
                "cacheRetention": "long",
                "sessionId": "s" * 70,
                "toolChoice": {"type": "function", "name": "bash"},
                "maxTokens": 8,
                "temperature": 1,
                "samplingParams": {"top_p": 0.5, "store": True},
            },
        },
    )
    cases["openai_responses_no_reasoning_defaults"] = (
        "payload",
        {
            "api": api,
            "model": "openai/gpt-5.1",
            "context": {"messages": [user("hi", 1)]},
            "options": {"cacheRetention": "none", "sessionId": "ignored-session"},
        },
    )
    cases["openai_responses_explicit_cache_mode"] = (
        "payload",
        {
            "api": api,
            "model": "openai/gpt-5.6-luna",
            "context": {"messages": [user("hi", 1)]},
            "options": {"cacheRetention": "none", "reasoning": "max"},
        },
    )

    strict_tool = {
        "name": "edit",
        "description": "Edit a file.",
        "parameters": {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "count": {"type": "integer"},
                "mode": {"type": "string", "enum": ["a", "b"]},
                "tags": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"k": {"type": "string"}}},
                },
            },
            "required": ["path"],
        },
        "constrainedSampling": {"type": "json_schema", "strict": "prefer"},
    }
    loose_tool = {
        "name": "loose",
        "description": "Unsupported strict schema falls back.",
        "parameters": {
            "type": "object",
            "properties": {"x": {"oneOf": [{"type": "string"}, {"type": "number"}]}},
        },
        "constrainedSampling": {"type": "json_schema", "strict": "prefer"},
    }
    grammar_tool = {
        "name": "patch",
        "description": "Apply a patch.",
        "parameters": {"type": "object", "properties": {"input": {"type": "string"}}, "required": ["input"]},
        "constrainedSampling": {"type": "grammar", "variants": {"openai_lark": "start: /.+/"}},
    }
    cases["openai_responses_constrained_tools"] = (
        "payload",
        {
            "api": api,
            "model": "openai/gpt-5",
            "context": {
                "tools": [strict_tool, loose_tool, grammar_tool],
                "messages": [
                    user("patch it", 1),
                    assistant(
                        [call("call_c1|ctc_c1", "patch", {"input": "*** Begin Patch\n"}, namespace="ns1")],
                        api,
                        prov,
                        "gpt-5",
                        2,
                        "toolUse",
                    ),
                    result("call_c1|ctc_c1", "patch", [text("ok")], 3),
                ],
            },
        },
    )
    cases["openai_responses_strict_require_fails"] = (
        "payload",
        {
            "api": api,
            "model": "openai/gpt-4.1",
            "context": {
                "tools": [
                    {**loose_tool, "constrainedSampling": {"type": "json_schema", "strict": "require"}}
                ],
                "messages": [user("x", 1)],
            },
        },
    )

    deferred = {
        "name": "lookup",
        "description": "Look something up.",
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
    }
    deferred_history = [
        user("find it", 1),
        assistant([call("call_d1|fc_d1", "bash", {"command": "tools"})], api, prov, "gpt-5.4", 2, "toolUse"),
        result("call_d1|fc_d1", "bash", [text("loaded lookup")], 3, addedToolNames=["lookup", "missing"]),
        assistant([call("call_d2|fc_d2", "bash", {"command": "again"})], api, prov, "gpt-5.4", 4, "toolUse"),
        result("call_d2|fc_d2", "bash", [text("again")], 5, addedToolNames=["lookup"]),
    ]
    cases["openai_responses_deferred_tools_additional"] = (
        "payload",
        {
            "api": api,
            "model": "openai/gpt-5.4",
            "context": {
                "tools": [BASH, deferred, {**BASH, "description": "Duplicate bash wins."}],
                "messages": deferred_history,
            },
        },
    )
    cases["openai_responses_deferred_tools_search"] = (
        "payload",
        {
            "api": api,
            "model": {
                "ref": "openai/gpt-5.4",
                "compat": {"supportsStrictMode": True, "supportsToolSearch": True},
            },
            "context": {"tools": [BASH, deferred], "messages": deferred_history},
        },
    )
    cases["openai_responses_copilot_headers"] = (
        "payload",
        {
            "api": api,
            "model": "github-copilot/gpt-5-mini",
            "context": {
                "messages": [
                    user([text("look"), image()], 1),
                    assistant([text("ok")], api, "github-copilot", "gpt-5-mini", 2),
                ]
            },
            "options": {"sessionId": "copilot-session", "headers": {"X-Custom": "1", "Openai-Intent": None}},
        },
    )
    cases["openai_responses_openrouter_affinity"] = (
        "payload",
        {
            "api": api,
            "model": {
                "id": "openai/gpt-5",
                "provider": "openrouter",
                "baseUrl": "https://openrouter.ai/api/v1",
                "reasoning": True,
                "compat": {"supportsDeveloperRole": False},
            },
            "context": {"systemPrompt": SYSTEM, "messages": [user("hi", 1)]},
            "options": {"sessionId": "or-session", "reasoning": "low", "timeoutMs": 45000},
        },
    )
    cases["openai_responses_xai_include"] = (
        "payload",
        {
            "api": api,
            "model": "xai/grok-4.3",
            "context": {"messages": [user("hi", 1)]},
            "options": {"cacheRetention": "long", "sessionId": "x-session"},
        },
    )

    # ------------------------------------------------------------------ parse-stream
    base_ctx = {"systemPrompt": SYSTEM, "tools": [BASH, READ], "messages": [user("What files are here?", 1)]}
    resp = {
        "id": "resp_1",
        "object": "response",
        "status": "in_progress",
        "model": "gpt-5-mini-2025-08-07",
        "output": [],
        "usage": None,
    }

    def completed(
        output: list[Any], usage_: dict[str, Any], status: str = "completed", **extra: Any
    ) -> dict[str, Any]:
        return {
            "type": f"response.{'completed' if status == 'completed' else 'incomplete'}",
            "response": {**resp, "status": status, "output": output, "usage": usage_, **extra},
        }

    u = {
        "input_tokens": 1250,
        "input_tokens_details": {"cached_tokens": 1024, "cache_write_tokens": 100},
        "output_tokens": 210,
        "output_tokens_details": {"reasoning_tokens": 192},
        "total_tokens": 1460,
    }
    fc1 = {
        "id": "fc_a1",
        "type": "function_call",
        "status": "completed",
        "arguments": '{"path":"a.txt"}',
        "call_id": "call_a1",
        "name": "read",
    }
    fc2 = {
        "id": "fc_b2",
        "type": "function_call",
        "status": "completed",
        "arguments": '{"command":"echo \\"héllo 🌍\\""}',
        "call_id": "call_b2",
        "name": "bash",
    }
    msg = {
        "id": "msg_1",
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "phase": "final_answer",
        "content": [{"type": "output_text", "annotations": [], "text": "Naïve café — 🌍 done."}],
    }
    parallel = [
        {"type": "response.created", "response": resp},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**RS_ITEM, "encrypted_content": None, "summary": []},
        },
        {
            "type": "response.reasoning_summary_text.delta",
            "output_index": 0,
            "item_id": RS_ITEM["id"],
            "summary_index": 0,
            "delta": "**Plan** ü",
        },
        {
            "type": "response.reasoning_summary_part.done",
            "output_index": 0,
            "item_id": RS_ITEM["id"],
            "summary_index": 0,
            "part": {"type": "summary_text", "text": "**Plan** ü"},
        },
        {
            "type": "response.reasoning_summary_text.delta",
            "output_index": 0,
            "item_id": RS_ITEM["id"],
            "summary_index": 1,
            "delta": "second",
        },
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {
                **RS_ITEM,
                "encrypted_content": None,
                "summary": [
                    {"type": "summary_text", "text": "**Plan** ü"},
                    {"type": "summary_text", "text": "second"},
                ],
            },
        },
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": {**fc1, "status": "in_progress", "arguments": ""},
        },
        {
            "type": "response.output_item.added",
            "output_index": 2,
            "item": {**fc2, "status": "in_progress", "arguments": ""},
        },
        {
            "type": "response.function_call_arguments.delta",
            "output_index": 1,
            "item_id": "fc_a1",
            "delta": '{"pa',
        },
        {
            "type": "response.function_call_arguments.delta",
            "output_index": 2,
            "item_id": "fc_b2",
            "delta": '{"command":"echo \\"hé',
        },
        {
            "type": "response.function_call_arguments.delta",
            "output_index": 1,
            "item_id": "fc_a1",
            "delta": 'th":"a.t',
        },
        {
            "type": "response.function_call_arguments.done",
            "output_index": 1,
            "item_id": "fc_a1",
            "arguments": '{"path":"a.txt"}',
        },
        {
            "type": "response.function_call_arguments.delta",
            "output_index": 2,
            "item_id": "fc_b2",
            "delta": 'llo 🌍\\""}',
        },
        {
            "type": "response.function_call_arguments.done",
            "output_index": 2,
            "item_id": "fc_b2",
            "arguments": '{"command":"echo \\"héllo 🌍\\""}',
        },
        {"type": "response.output_item.done", "output_index": 2, "item": fc2},
        {"type": "response.output_item.done", "output_index": 1, "item": fc1},
        completed([{**RS_ITEM, "summary": []}, fc1, fc2], u),
    ]
    cases["openai_responses_parallel_calls_chunked"] = (
        "parse-stream",
        {
            "api": api,
            "model": "openai/gpt-5-mini",
            "context": base_ctx,
            "options": {"reasoning": "low"},
            "sse": sse(parallel),
            "chunkSize": 7,
        },
    )
    text_events = [
        {"type": "response.created", "response": resp},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**msg, "status": "in_progress", "content": []},
        },
        {
            "type": "response.output_text.delta",
            "output_index": 0,
            "item_id": "msg_1",
            "content_index": 0,
            "delta": "Naïve café",
        },
        {
            "type": "response.refusal.delta",
            "output_index": 0,
            "item_id": "msg_1",
            "content_index": 0,
            "delta": " — 🌍",
        },
        {
            "type": "response.output_text.delta",
            "output_index": 0,
            "item_id": "msg_1",
            "content_index": 0,
            "delta": " done.",
        },
        {"type": "response.output_item.done", "output_index": 0, "item": msg},
    ]
    cases["openai_responses_priority_tier_gpt55"] = (
        "parse-stream",
        {
            "api": api,
            "model": "openai/gpt-5.5",
            "context": base_ctx,
            "sse": sse([*text_events, completed([msg], u, service_tier="priority")]),
            "chunkSize": 5,
        },
    )
    cases["openai_responses_flex_tier_requested"] = (
        "parse-stream",
        {
            "api": api,
            "model": "openai/gpt-5",
            "fn": "stream",
            "context": base_ctx,
            "options": {"serviceTier": "flex"},
            "sse": sse([*text_events, completed([msg], u)]),
        },
    )
    cases["openai_responses_incomplete_max_tokens"] = (
        "parse-stream",
        {
            "api": api,
            "model": "openai/gpt-4.1-mini",
            "context": base_ctx,
            "sse": sse(
                [
                    *text_events[:3],
                    completed(
                        [],
                        {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
                        "incomplete",
                        incomplete_details={"reason": "max_output_tokens"},
                    ),
                ]
            ),
        },
    )
    cases["openai_responses_incomplete_content_filter"] = (
        "parse-stream",
        {
            "api": api,
            "model": "openai/gpt-4.1-mini",
            "context": base_ctx,
            "sse": sse(
                [
                    *text_events[:3],
                    completed([], None, "incomplete", incomplete_details={"reason": "content_filter"}),
                ]
            ),
        },
    )
    cases["openai_responses_failed_event"] = (
        "parse-stream",
        {
            "api": api,
            "model": "openai/gpt-4.1-mini",
            "context": base_ctx,
            "sse": sse(
                [
                    *text_events[:3],
                    {
                        "type": "response.failed",
                        "response": {
                            **resp,
                            "status": "failed",
                            "error": {"code": "server_error", "message": "The server had an error"},
                        },
                    },
                ]
            ),
        },
    )
    cases["openai_responses_error_event"] = (
        "parse-stream",
        {
            "api": api,
            "model": "openai/gpt-4.1-mini",
            "context": base_ctx,
            "sse": sse(
                [
                    *text_events[:3],
                    {"type": "error", "code": "rate_limit_exceeded", "message": "Slow down", "param": None},
                ]
            ),
        },
    )
    full = sse([*text_events, completed([msg], u)])
    cut = full[: full.index("response.output_item.done") + 60]
    cases["openai_responses_stream_cut_mid_event"] = (
        "parse-stream",
        {
            "api": api,
            "model": "openai/gpt-4.1-mini",
            "context": base_ctx,
            "sse": cut,
            "chunkSize": 11,
        },
    )
    cases["openai_responses_malformed_event_json"] = (
        "parse-stream",
        {
            "api": api,
            "model": "openai/gpt-4.1-mini",
            "context": base_ctx,
            "sse": sse(text_events[:3])
            + 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","output_index":0,"delta":"x",}\n\n',
        },
    )
    cases["openai_responses_data_error_member"] = (
        "parse-stream",
        {
            "api": api,
            "model": "openai/gpt-4.1-mini",
            "context": base_ctx,
            "sse": sse(text_events[:3])
            + 'data: {"error":{"message":"Internal error in stream","type":"server_error"}}\n\n',
        },
    )
    cases["openai_responses_done_marker_and_backfill"] = (
        "parse-stream",
        {
            "api": api,
            "model": "openai/gpt-5-mini",
            "context": base_ctx,
            "options": {"reasoning": "high"},
            "sse": sse([*parallel[:2], parallel[5], completed([RS_ITEM], u)])
            + "data: [DONE]\n\n"
            + sse([{"type": "error", "code": "x", "message": "ignored after DONE"}]),
        },
    )
    cases["openai_responses_http_429"] = (
        "parse-stream",
        {
            "api": api,
            "model": "openai/gpt-4.1-mini",
            "context": base_ctx,
            "status": 429,
            "contentType": "application/json",
            "responseHeaders": {"retry-after": "1"},
            "sse": json.dumps(
                {
                    "error": {
                        "message": "Rate limit reached for gpt-4.1-mini",
                        "type": "requests",
                        "param": None,
                        "code": "rate_limit_exceeded",
                    }
                }
            ),
        },
    )
    cases["openai_responses_http_502_text"] = (
        "parse-stream",
        {
            "api": api,
            "model": "openai/gpt-4.1-mini",
            "context": base_ctx,
            "status": 502,
            "contentType": "text/html",
            "sse": "<html>Bad gateway</html>",
        },
    )
    cases["openai_responses_http_400_no_error_member"] = (
        "parse-stream",
        {
            "api": api,
            "model": "openai/gpt-4.1-mini",
            "context": base_ctx,
            "status": 400,
            "contentType": "application/json",
            "sse": json.dumps({"detail": "missing"}),
        },
    )
    custom = {
        "id": "ctc_1",
        "type": "custom_tool_call",
        "status": "completed",
        "call_id": "call_c1",
        "name": "patch",
        "input": '*** Begin Patch\n"x"',
    }
    cases["openai_responses_flex_tier_zero_cost_parts"] = (
        "parse-stream",
        {
            "api": api,
            "model": "openai/gpt-5",
            "context": base_ctx,
            "sse": sse(
                [
                    *text_events,
                    completed([msg], {"input_tokens": 10, "output_tokens": 0}, service_tier="flex"),
                ]
            ),
        },
    )
    cases["openai_responses_custom_tool_call"] = (
        "parse-stream",
        {
            "api": api,
            "model": "openai/gpt-5",
            "context": {"tools": [grammar_tool], "messages": [user("patch", 1)]},
            "sse": sse(
                [
                    {"type": "response.created", "response": resp},
                    {
                        "type": "response.output_item.added",
                        "output_index": 0,
                        "item": {**custom, "input": ""},
                    },
                    {
                        "type": "response.custom_tool_call_input.delta",
                        "output_index": 0,
                        "item_id": "ctc_1",
                        "delta": "*** Begin",
                    },
                    {
                        "type": "response.custom_tool_call_input.delta",
                        "output_index": 0,
                        "item_id": "ctc_1",
                        "delta": ' Patch\n"x"',
                    },
                    {
                        "type": "response.custom_tool_call_input.done",
                        "output_index": 0,
                        "item_id": "ctc_1",
                        "input": '*** Begin Patch\n"x"',
                    },
                    {"type": "response.output_item.done", "output_index": 0, "item": custom},
                    completed([custom], {"input_tokens": 50, "output_tokens": 9, "total_tokens": 59}),
                ]
            ),
        },
    )
    return cases


def google_cases() -> dict[str, tuple[str, dict[str, Any]]]:
    api, prov = "google-generative-ai", "google"
    cases: dict[str, tuple[str, dict[str, Any]]] = {}
    sig = "CiQB0e2Kb3mF9x0Example+Signature=="

    def g3_history(model: str) -> list[Any]:
        return [
            user("Read both files.", 1),
            assistant(
                [
                    thinking("**Planning** reading", sig),
                    thinking("", "Cq0CAb/sig=="),
                    thinking("   "),
                    text("", textSignature="CmQBsig+/=="),
                    text("Reading.", textSignature="not base64!"),
                    call("read_1760000000000_1", "read", {"path": "a.txt"}, thoughtSignature="CiQBsig=="),
                    call("call.with:odd/chars", "read", {"path": "b.txt"}, thoughtSignature="bad sig"),
                ],
                api,
                prov,
                model,
                2,
                "toolUse",
            ),
            result("read_1760000000000_1", "read", [text("alpha")], 3),
            result("call.with:odd/chars", "read", [text("denied")], 4, True),
            assistant([text("Both read.", textSignature=sig)], api, prov, model, 5),
            user("Thanks", 6),
        ]

    cases["google_gemini3_multi_turn_signatures"] = (
        "payload",
        {
            "api": api,
            "model": "google/gemini-3-flash-preview",
            "context": {
                "systemPrompt": SYSTEM,
                "tools": [READ],
                "messages": g3_history("gemini-3-flash-preview"),
            },
            "options": {"reasoning": "high"},
        },
    )
    cases["google_gemini25_other_model_signatures"] = (
        "payload",
        {
            "api": api,
            "model": "google/gemini-2.5-pro",
            "context": {
                "systemPrompt": SYSTEM,
                "tools": [READ],
                "messages": g3_history("gemini-3-flash-preview"),
            },
            "options": {"reasoning": "minimal"},
        },
    )
    img_history = [
        user([text("Look:"), image(), image(JPEG, "image/jpeg")], 1),
        assistant(
            [call("c1", "read", {"path": "x.png"}), call("c2", "read", {"path": "y.png"})],
            api,
            prov,
            "gemini-2.5-flash",
            2,
            "toolUse",
        ),
        result("c1", "read", [image()], 3),
        result("c2", "read", [text("caption"), image(JPEG, "image/jpeg")], 4),
        user([], 5),
        user("What do you see?", 6),
    ]
    cases["google_tool_result_images_gemini25"] = (
        "payload",
        {
            "api": api,
            "model": "google/gemini-2.5-flash",
            "context": {"tools": [READ], "messages": img_history},
        },
    )
    cases["google_tool_result_images_gemini3"] = (
        "payload",
        {
            "api": api,
            "model": "google/gemini-3.1-pro-preview",
            "context": {"tools": [READ], "messages": img_history},
            "options": {"reasoning": "medium"},
        },
    )
    cases["google_images_text_only_model"] = (
        "payload",
        {
            "api": api,
            "model": {"id": "gemma-text", "reasoning": False, "input": ["text"]},
            "context": {"messages": img_history},
        },
    )
    cases["google_parallel_calls_orphans"] = (
        "payload",
        {
            "api": api,
            "model": "google/gemini-2.5-flash",
            "context": {
                "tools": [BASH, READ],
                "messages": [
                    user("Do three things.", 1),
                    assistant(
                        [
                            call("a1", "bash", {"command": "ls"}),
                            call("a2", "bash", {"command": "pwd"}),
                            call("a3", "read", {"path": "x"}),
                        ],
                        api,
                        prov,
                        "gemini-2.5-flash",
                        2,
                        "toolUse",
                    ),
                    result("a2", "bash", [text("/root")], 3),
                    result("a1", "bash", [], 4),
                    user("next", 5),
                    assistant(
                        [text("half")],
                        api,
                        prov,
                        "gemini-2.5-flash",
                        6,
                        "aborted",
                        errorMessage="Request was aborted",
                    ),
                    user("again", 7),
                ],
            },
            "options": {"toolChoice": "none", "temperature": 0.3, "maxTokens": 1000},
        },
    )
    cases["google_cross_provider_gemini3"] = (
        "payload",
        {
            "api": api,
            "model": "google/gemini-3.1-pro-preview",
            "context": {
                "systemPrompt": SYSTEM,
                "tools": [BASH, READ],
                "messages": [
                    *ANTHROPIC_HISTORY,
                    user("continue", 6),
                    assistant(
                        [
                            thinking("gpt reasoning summary", json.dumps(RS_ITEM, separators=(",", ":"))),
                            text("Running.", textSignature='{"v":1,"id":"msg_1"}'),
                            call(RESP_CALL_ID, "bash", {"command": "ls"}),
                        ],
                        "openai-responses",
                        "openai",
                        "gpt-5-mini",
                        7,
                        "toolUse",
                    ),
                    result(RESP_CALL_ID, "bash", [text("x")], 8),
                    user("done?", 9),
                ],
            },
        },
    )
    cases["google_cross_provider_gemini25"] = (
        "payload",
        {
            "api": api,
            "model": "google/gemini-2.5-flash-lite",
            "context": {"tools": [BASH, READ], "messages": [*ANTHROPIC_HISTORY, user("more", 6)]},
            "options": {"reasoning": "xhigh", "thinkingBudgets": {"high": 5000}},
        },
    )
    for model_ref, level in [
        ("google/gemini-3.1-pro-preview", "minimal"),
        ("google/gemma-4-31b-it", "medium"),
        ("google/gemini-flash-latest", "low"),
        ("google/deep-research-preview-04-2026", "high"),
    ]:
        name = model_ref.split("/")[1].replace(".", "_").replace("-", "_")
        cases[f"google_thinking_{name}_{level}"] = (
            "payload",
            {
                "api": api,
                "model": model_ref,
                "context": {"messages": [user("hi", 1)]},
                "options": {"reasoning": level},
            },
        )
    for model_ref in [
        "google/gemini-3.1-pro-preview",
        "google/gemma-4-26b-a4b-it",
        "google/gemini-3.5-flash",
    ]:
        name = model_ref.split("/")[1].replace(".", "_").replace("-", "_")
        cases[f"google_thinking_off_{name}"] = (
            "payload",
            {
                "api": api,
                "model": model_ref,
                "context": {"messages": [user("hi", 1)]},
            },
        )
    strict = {
        "name": "edit",
        "description": "Edit.",
        "parameters": {
            "type": "object",
            "properties": {"p": {"type": "string"}, "n": {"type": "integer"}},
            "required": ["p"],
            "$schema": "x",
        },
        "constrainedSampling": {"type": "json_schema", "strict": "require"},
    }
    cases["google_stream_strict_tools_gemini3"] = (
        "payload",
        {
            "api": api,
            "model": "google/gemini-3-flash-preview",
            "fn": "stream",
            "context": {"tools": [strict, BASH], "messages": [user("edit", 1)]},
            "options": {
                "thinking": {"enabled": True, "level": "LOW"},
                "headers": {"X-Extra": "1", "User-Agent": None},
            },
        },
    )
    cases["google_stream_strict_require_unsupported"] = (
        "payload",
        {
            "api": api,
            "model": "google/gemini-2.5-flash",
            "fn": "stream",
            "context": {"tools": [strict], "messages": [user("edit", 1)]},
        },
    )
    cases["google_stream_plain_no_config"] = (
        "payload",
        {
            "api": api,
            "model": "google/gemini-2.5-flash",
            "fn": "stream",
            "context": {"messages": [user("hi", 1)]},
            "options": {"toolChoice": "any", "thinking": {"enabled": True, "budgetTokens": -1}},
        },
    )
    cases["google_empty_contents"] = (
        "payload",
        {
            "api": api,
            "model": "google/gemini-2.5-flash",
            "context": {"messages": [user([], 1)]},
        },
    )

    # ------------------------------------------------------------------ parse-stream
    ctx = {"systemPrompt": SYSTEM, "tools": [BASH, READ], "messages": [user("What files are here?", 1)]}
    um = {
        "promptTokenCount": 410,
        "candidatesTokenCount": 12,
        "totalTokenCount": 542,
        "cachedContentTokenCount": 256,
        "thoughtsTokenCount": 120,
    }

    def chunk(
        parts: list[Any],
        finish: str | None = None,
        usage_: dict[str, Any] | None = None,
        rid: str | None = "resp-g-1",
    ) -> dict[str, Any]:
        cand: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
        if finish:
            cand["finishReason"] = finish
        out: dict[str, Any] = {"candidates": [cand], "modelVersion": "gemini-3-flash-preview"}
        if usage_:
            out["usageMetadata"] = usage_
        if rid:
            out["responseId"] = rid
        return out

    calls = gsse(
        [
            chunk([{"text": "Thinking about ü", "thought": True, "thoughtSignature": "c2lnMQ=="}], rid=None),
            chunk(
                [{"text": " more", "thought": True}], usage_={"promptTokenCount": 400, "totalTokenCount": 400}
            ),
            chunk(
                [
                    {"text": "I'll run 🌍 tools."},
                    {
                        "functionCall": {"name": "bash", "args": {"command": "ls -la"}},
                        "thoughtSignature": "c2lnMg==",
                    },
                    {"functionCall": {"name": "read", "args": {"path": "é.txt"}, "id": "fixed-id"}},
                    {"functionCall": {"name": "read", "id": "fixed-id"}},
                    {"text": "after"},
                ]
            ),
            chunk([], finish="STOP", usage_=um),
        ]
    )
    cases["google_parallel_calls_clock_ids_chunked"] = (
        "parse-stream",
        {
            "api": api,
            "model": "google/gemini-3-flash-preview",
            "context": ctx,
            "options": {"reasoning": "low"},
            "sse": calls,
            "chunkSize": 6,
        },
    )
    cases["google_safety_stop"] = (
        "parse-stream",
        {
            "api": api,
            "model": "google/gemini-2.5-flash",
            "context": ctx,
            "sse": gsse([chunk([{"text": "I cannot"}]), chunk([], finish="SAFETY", usage_=um)]),
        },
    )
    cases["google_max_tokens"] = (
        "parse-stream",
        {
            "api": api,
            "model": "google/gemini-2.5-flash",
            "context": ctx,
            "sse": gsse(
                [
                    chunk(
                        [{"text": "long answer"}],
                        finish="MAX_TOKENS",
                        usage_={"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
                    )
                ]
            ),
        },
    )
    cases["google_unknown_finish_reason"] = (
        "parse-stream",
        {
            "api": api,
            "model": "google/gemini-2.5-flash",
            "context": ctx,
            "sse": gsse([chunk([{"text": "x"}], finish="SOMETHING_NEW")]),
        },
    )
    cases["google_no_finish_reason"] = (
        "parse-stream",
        {
            "api": api,
            "model": "google/gemini-2.5-flash",
            "context": ctx,
            "sse": gsse([chunk([{"text": "x"}], usage_={"promptTokenCount": 3, "totalTokenCount": 3})]),
        },
    )
    full = gsse([chunk([{"text": "Hello wörld"}]), chunk([{"text": " again"}], finish="STOP", usage_=um)])
    cases["google_stream_cut_mid_event"] = (
        "parse-stream",
        {
            "api": api,
            "model": "google/gemini-2.5-flash",
            "context": ctx,
            "sse": full[: len(full) - 40],
            "chunkSize": 9,
        },
    )
    cases["google_malformed_chunk_json"] = (
        "parse-stream",
        {
            "api": api,
            "model": "google/gemini-2.5-flash",
            "context": ctx,
            "sse": gsse([chunk([{"text": "ok"}])])
            + 'data: {"candidates":[{"content":{"parts":[{"text":"x"}]}}],}\r\n\r\n',
        },
    )
    cases["google_error_in_200_body"] = (
        "parse-stream",
        {
            "api": api,
            "model": "google/gemini-2.5-flash",
            "context": ctx,
            "sse": json.dumps(
                {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}
            ),
        },
    )
    cases["google_http_429_json"] = (
        "parse-stream",
        {
            "api": api,
            "model": "google/gemini-2.5-flash",
            "context": ctx,
            "status": 429,
            "contentType": "application/json; charset=UTF-8",
            "sse": json.dumps(
                {
                    "error": {
                        "code": 429,
                        "message": "Resource has been exhausted (e.g. check quota).",
                        "status": "RESOURCE_EXHAUSTED",
                    }
                }
            ),
        },
    )
    cases["google_http_500_text"] = (
        "parse-stream",
        {
            "api": api,
            "model": "google/gemini-2.5-flash",
            "context": ctx,
            "status": 500,
            "contentType": "text/plain",
            "sse": "upstream exploded",
        },
    )
    cases["google_lf_delimiters_and_comments"] = (
        "parse-stream",
        {
            "api": api,
            "model": "google/gemini-2.5-flash",
            "context": ctx,
            "sse": ": keepalive\n\n"
            + "event: ignored\ndata: {}\n\n"
            + "\n\n".join(
                f"data: {json.dumps(c)}"
                for c in [
                    chunk([{"text": "a", "thoughtSignature": "c2ln"}]),
                    chunk([{"text": "", "thoughtSignature": "c2lnMg=="}]),
                    chunk([{"text": "b"}], finish="STOP", usage_=um),
                ]
            )
            + "\n\n",
        },
    )
    cases["google_empty_response_id_then_none"] = (
        "parse-stream",
        {
            "api": api,
            "model": "google/gemini-2.5-flash",
            "context": ctx,
            "sse": gsse([chunk([], rid=""), chunk([{"text": "a"}], finish="STOP", rid=None)]),
        },
    )
    cases["google_empty_response_id_then_real"] = (
        "parse-stream",
        {
            "api": api,
            "model": "google/gemini-2.5-flash",
            "context": ctx,
            "sse": gsse(
                [
                    chunk([{"text": "a"}], rid=""),
                    chunk([{"text": "b"}], rid="r-2"),
                    chunk([], finish="STOP", rid="r-3"),
                ]
            ),
        },
    )
    return cases


def main(argv: list[str]) -> int:
    cases = {**responses_cases(), **google_cases()}
    return record_all([(sub, name, request) for name, (sub, request) in cases.items()], argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
