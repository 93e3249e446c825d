#!/usr/bin/env python3
"""Write the anthropic-messages and openai-completions conformance cases and record Pi's
answers with the live oracle.

    .venv/bin/python tools/gen_adapter_cases.py [NAME_FILTER]

Inputs go to ``tests/conformance/cases/{payload,parse-stream}/NAME.json``; the oracle's answer
to ``NAME.out.json`` (never edited by hand; recording is ``tests/support/cases.py``). Cases are
built here from small helpers so the SSE bodies read like what the providers send.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.support.cases import BASH, call, record_all, text, user

SYSTEM = "You are an expert coding assistant. You help users with coding tasks by reading files, executing commands and writing code."
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

READ = {
    "name": "read",
    "description": "Read the contents of a file.",
    "parameters": {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Path to the file to read (relative or absolute)"},
            "offset": {"type": "number", "description": "Line number to start reading from (1-indexed)"},
        },
        "required": ["path"],
    },
}
STRICT_EDIT = {
    "name": "edit",
    "description": "Replace text in a file.",
    "parameters": {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "old": {"type": "string"},
            "new": {"type": "string"},
            "all": {"type": "boolean"},
        },
        "required": ["path", "old", "new"],
    },
    "constrainedSampling": {"type": "json_schema", "strict": "prefer"},
}

PATCH_GRAMMAR = {
    "name": "apply_patch",
    "description": "Apply a patch.",
    "parameters": {"type": "object", "properties": {"patch": {"type": "string"}}, "required": ["patch"]},
    "constrainedSampling": {"type": "grammar", "variants": {"openai_lark": "start: /.+/"}},
}

ZERO_USAGE = {
    "input": 0,
    "output": 0,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 0,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
}


def assistant(
    content: list[Any],
    api: str,
    provider: str,
    model: str,
    stop: str = "stop",
    *,
    ts: int = 1760000001000,
    **extra: Any,
) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": content,
        "api": api,
        "provider": provider,
        "model": model,
        "usage": {**ZERO_USAGE, "input": 100, "output": 20, "totalTokens": 120},
        "stopReason": stop,
        "timestamp": ts,
        **extra,
    }


def tool_result(
    call_id: str, name: str, content: list[Any], is_error: bool = False, ts: int = 1760000002000
) -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": content,
        "isError": is_error,
        "timestamp": ts,
    }


def image() -> dict[str, Any]:
    return {"type": "image", "data": PNG, "mimeType": "image/png"}


def thinking(value: str, signature: str | None = None, **extra: Any) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "thinking", "thinking": value}
    if signature is not None:
        block["thinkingSignature"] = signature
    return {**block, **extra}


# --------------------------------------------------------------------------- SSE bodies


def sse(*events: tuple[str | None, Any], trailer: str = "\n") -> str:
    out = []
    for name, data in events:
        line = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"), ensure_ascii=False)
        out.append((f"event: {name}\n" if name else "") + f"data: {line}\n")
    return "\n".join(out) + trailer


def a_start(
    usage: dict[str, Any] | None = None, model: str = "claude-sonnet-4-5-20250929", **message: Any
) -> tuple[str, Any]:
    return (
        "message_start",
        {
            "type": "message_start",
            "message": {
                "model": model,
                "id": "msg_01AbCdEfGhIjKlMnOpQrStUv",
                "type": "message",
                "role": "assistant",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": usage
                or {
                    "input_tokens": 420,
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": 0,
                    "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
                    "output_tokens": 1,
                },
                **message,
            },
        },
    )


def a_block(index: int, block: dict[str, Any]) -> tuple[str, Any]:
    return ("content_block_start", {"type": "content_block_start", "index": index, "content_block": block})


def a_delta(index: int, delta: dict[str, Any]) -> tuple[str, Any]:
    return ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})


def a_stop(index: int) -> tuple[str, Any]:
    return ("content_block_stop", {"type": "content_block_stop", "index": index})


def a_end(
    stop_reason: str = "end_turn", usage: dict[str, Any] | None = None, **delta: Any
) -> list[tuple[str, Any]]:
    return [
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None, **delta},
                "usage": usage or {"output_tokens": 64},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]


def a_text(index: int, *pieces: str) -> list[tuple[str, Any]]:
    return [
        a_block(index, {"type": "text", "text": ""}),
        *[a_delta(index, {"type": "text_delta", "text": piece}) for piece in pieces],
        a_stop(index),
    ]


def a_tool(index: int, call_id: str, name: str, *fragments: str) -> list[tuple[str, Any]]:
    return [
        a_block(index, {"type": "tool_use", "id": call_id, "name": name, "input": {}}),
        *[a_delta(index, {"type": "input_json_delta", "partial_json": fragment}) for fragment in fragments],
        a_stop(index),
    ]


CHATCMPL = "chatcmpl-CaSeS0000000000000000000001"


def c_chunk(
    delta: dict[str, Any] | None = None,
    finish: str | None = None,
    usage: Any = None,
    model: str = "gpt-4o-mini-2024-07-18",
    **extra: Any,
) -> tuple[None, Any]:
    chunk: dict[str, Any] = {
        "id": CHATCMPL,
        "object": "chat.completion.chunk",
        "created": 1760000000,
        "model": model,
        "choices": [{"index": 0, "delta": delta or {}, "logprobs": None, "finish_reason": finish}],
        "usage": usage,
        **extra,
    }
    return (None, chunk)


def c_usage(
    prompt: int, completion: int, cached: int = 0, reasoning: int = 0, model: str = "gpt-4o-mini-2024-07-18"
) -> tuple[None, Any]:
    return (
        None,
        {
            "id": CHATCMPL,
            "object": "chat.completion.chunk",
            "created": 1760000000,
            "model": model,
            "choices": [],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
                "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
                "completion_tokens_details": {"reasoning_tokens": reasoning, "audio_tokens": 0},
            },
        },
    )


DONE = (None, "[DONE]")

GPT = {
    "id": "gpt-4o-mini",
    "provider": "openai",
    "baseUrl": "https://api.openai.com/v1",
    "reasoning": False,
    "contextWindow": 128000,
    "maxTokens": 16384,
}
SONNET = "anthropic/claude-sonnet-4-5"
AM = "anthropic-messages"
OC = "openai-completions"


# --------------------------------------------------------------------------- cases

RESPONSES_HISTORY = [
    user("Find the TODOs in src."),
    assistant(
        [
            thinking(
                "Search with grep.",
                json.dumps(
                    {
                        "type": "reasoning",
                        "id": "rs_0a1b2c",
                        "summary": [{"type": "summary_text", "text": "Search with grep."}],
                        "encrypted_content": "gAAAAB-enc",
                    }
                ),
            ),
            text("Searching.", textSignature=json.dumps({"v": 1, "id": "msg_0a1b2c"})),
            call(
                "call_8Qf3kVt2|fc_68d2a1b0c3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4",
                "bash",
                {"command": "grep -rn TODO src"},
            ),
        ],
        "openai-responses",
        "openai",
        "gpt-5-mini",
        "toolUse",
    ),
    tool_result(
        "call_8Qf3kVt2|fc_68d2a1b0c3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4",
        "bash",
        [text("src/a.py:3: # TODO: handle errors")],
    ),
    assistant(
        [
            thinking("Gemini thought", "R2VtaW5pU2lnbmF0dXJl"),
            text("One TODO found."),
            call("read_1760000000_1", "read", {"path": "src/a.py"}, thoughtSignature="c2ln"),
        ],
        "google-generative-ai",
        "google",
        "gemini-2.5-flash",
        "toolUse",
        ts=1760000003000,
    ),
    assistant(
        [text("partial answer that failed")],
        AM,
        "anthropic",
        "claude-sonnet-4-5",
        "error",
        ts=1760000004000,
        errorMessage="Overloaded",
    ),
    user("Now fix it.", ts=1760000005000),
]

PAYLOAD: dict[str, dict[str, Any]] = {
    "anthropic_multi_turn_parallel_tools": {
        "api": AM,
        "model": SONNET,
        "context": {
            "systemPrompt": SYSTEM,
            "tools": [BASH, READ],
            "messages": [
                user("Show me README.md and the file list."),
                assistant(
                    [
                        text("Reading both."),
                        call("toolu_01A", "read", {"path": "README.md"}),
                        call("toolu_01B", "bash", {"command": "ls -la"}),
                    ],
                    AM,
                    "anthropic",
                    "claude-sonnet-4-5",
                    "toolUse",
                ),
                tool_result("toolu_01A", "read", [text("# Demo\nA demo project.")]),
                tool_result("toolu_01B", "bash", [text("ls: permission denied")], True),
                assistant(
                    [text("   "), text("The README describes a demo; listing failed.")],
                    AM,
                    "anthropic",
                    "claude-sonnet-4-5",
                ),
                user("Try again with sudo? No, just explain.", ts=1760000005000),
            ],
        },
        "options": {"maxTokens": 4096, "temperature": 0.3},
    },
    "anthropic_images_user_and_tool": {
        "api": AM,
        "model": SONNET,
        "context": {
            "systemPrompt": SYSTEM,
            "tools": [READ],
            "messages": [
                user([text("What is in this screenshot?"), image(), text("  ")]),
                assistant(
                    [call("toolu_img", "read", {"path": "shot.png"})],
                    AM,
                    "anthropic",
                    "claude-sonnet-4-5",
                    "toolUse",
                ),
                tool_result("toolu_img", "read", [image()]),
            ],
        },
    },
    "anthropic_thinking_replay_signatures": {
        "api": AM,
        "model": SONNET,
        "context": {
            "systemPrompt": SYSTEM,
            "tools": [BASH],
            "messages": [
                user("Count the lines in main.py."),
                assistant(
                    [
                        thinking("I should run wc.", "EqQBCgIYAhIMsignatureA=="),
                        thinking("[Reasoning redacted]", "RedactedPayloadBase64==", redacted=True),
                        text("Counting."),
                        thinking("unsigned afterthought", ""),
                        thinking("   ", ""),
                        call("toolu_wc", "bash", {"command": "wc -l main.py"}),
                    ],
                    AM,
                    "anthropic",
                    "claude-sonnet-4-5",
                    "toolUse",
                ),
                tool_result("toolu_wc", "bash", [text("42 main.py")]),
                assistant(
                    [thinking("Done.", "EqQBCgIYAhIMsignatureB=="), text("42 lines.")],
                    AM,
                    "anthropic",
                    "claude-sonnet-4-5",
                ),
                user("And tests.py?", ts=1760000005000),
            ],
        },
        "options": {"reasoning": "high", "sessionId": "sess-thinking"},
    },
    "anthropic_cross_provider_history": {
        "api": AM,
        "model": SONNET,
        "context": {"systemPrompt": SYSTEM, "tools": [BASH, READ], "messages": RESPONSES_HISTORY},
        "options": {"reasoning": "low"},
    },
    "anthropic_raw_stream_options": {
        "api": AM,
        "fn": "stream",
        "model": SONNET,
        "context": {"systemPrompt": SYSTEM, "tools": [BASH], "messages": [user("Run the tests.")]},
        "options": {
            "thinkingEnabled": True,
            "thinkingBudgetTokens": 3000,
            "interleavedThinking": False,
            "thinkingDisplay": "omitted",
            "toolChoice": {"type": "tool", "name": "bash"},
            "temperature": 0.5,
            "metadata": {"user_id": "user-42", "other": 1},
            "headers": {"x-custom": "yes", "anthropic-dangerous-direct-browser-access": None},
            "cacheRetention": "none",
        },
    },
    "anthropic_adaptive_strict_tools": {
        "api": AM,
        "model": "anthropic/claude-opus-4-7",
        "context": {
            "systemPrompt": SYSTEM,
            "tools": [BASH, STRICT_EDIT],
            "messages": [user("Fix the typo in a.py.")],
        },
        "options": {"reasoning": "xhigh", "temperature": 0.2},
    },
    "anthropic_cache_long_affinity_proxy": {
        "api": AM,
        "model": {
            "ref": SONNET,
            "baseUrl": "https://proxy.example.com/anthropic/",
            "headers": {"x-proxy-key": "pk-1"},
            "compat": {
                "sendSessionAffinityHeaders": True,
                "supportsEagerToolInputStreaming": False,
                "supportsCacheControlOnTools": False,
            },
        },
        "context": {"systemPrompt": SYSTEM, "tools": [BASH, READ], "messages": [user("hello")]},
        "options": {"cacheRetention": "long", "sessionId": "sess-affinity-1", "toolChoice": "auto"},
    },
    "anthropic_env_cache_retention_and_clamp": {
        "api": AM,
        "model": {"ref": SONNET, "contextWindow": 12000},
        "context": {"systemPrompt": SYSTEM + " " * 2000, "messages": [user("x" * 8000)]},
        "options": {"reasoning": "medium", "env": {"PI_CACHE_RETENTION": "long"}},
    },
    "anthropic_oauth_claude_code": {
        "api": AM,
        "model": SONNET,
        "context": {
            "systemPrompt": SYSTEM,
            "tools": [BASH, READ, {**READ, "name": "todowrite", "description": "Write todos."}],
            "messages": [
                user("List files"),
                assistant(
                    [call("toolu_o1", "bash", {"command": "ls"})],
                    AM,
                    "anthropic",
                    "claude-sonnet-4-5",
                    "toolUse",
                ),
                tool_result("toolu_o1", "bash", [text("a.py")]),
            ],
        },
        "options": {"apiKey": "sk-ant-oat01-oauth-token"},
    },
    "anthropic_orphan_tool_call_and_empty_turns": {
        "api": AM,
        "model": SONNET,
        "context": {
            "tools": [BASH],
            "messages": [
                user("   "),
                user([]),
                assistant(
                    [call("toolu_orphan", "bash", {"command": "sleep 100"})],
                    AM,
                    "anthropic",
                    "claude-sonnet-4-5",
                    "toolUse",
                ),
                assistant(
                    [], AM, "anthropic", "claude-sonnet-4-5", "aborted", errorMessage="Request was aborted"
                ),
                user("Never mind.", ts=1760000005000),
                tool_result("toolu_late", "bash", [], False),
            ],
        },
        "options": {"cacheRetention": "short"},
    },
    "completions_multi_turn_tool_images": {
        "api": OC,
        "model": GPT,
        "context": {
            "systemPrompt": SYSTEM,
            "tools": [BASH, READ],
            "messages": [
                user([text("Compare these screenshots."), image()]),
                assistant(
                    [
                        text("Opening both."),
                        call("call_a1", "read", {"path": "a.png"}),
                        call("call_b2", "read", {"path": "b.png"}),
                    ],
                    OC,
                    "openai",
                    "gpt-4o-mini",
                    "toolUse",
                ),
                tool_result("call_a1", "read", [image()]),
                tool_result("call_b2", "read", [text("b.png:"), image()]),
                tool_result("call_x3", "read", []),
                user("Which one is newer?", ts=1760000005000),
            ],
        },
        "options": {"maxTokens": 2048},
    },
    "completions_cross_provider_history": {
        "api": OC,
        "model": GPT,
        "context": {"systemPrompt": SYSTEM, "tools": [BASH, READ], "messages": RESPONSES_HISTORY},
        "options": {"sessionId": "sess-cross-provider", "cacheRetention": "long"},
    },
    "completions_deepseek_replay_reasoning_content": {
        "api": OC,
        "model": "deepseek/deepseek-v4-flash",
        "context": {
            "systemPrompt": SYSTEM,
            "tools": [BASH],
            "messages": [
                user("How many files?"),
                assistant(
                    [
                        thinking("Use ls.", "reasoning_content"),
                        thinking("Then wc.", "reasoning_content"),
                        call("call_ds1", "bash", {"command": "ls | wc -l"}),
                    ],
                    OC,
                    "deepseek",
                    "deepseek-v4-flash",
                    "toolUse",
                ),
                tool_result("call_ds1", "bash", [text("7")]),
                assistant([text("7 files.")], OC, "deepseek", "deepseek-v4-flash"),
                user("Thanks", ts=1760000005000),
            ],
        },
        "options": {"maxTokens": 3000},
    },
    "completions_openrouter_anthropic_cache": {
        "api": OC,
        "model": "openrouter/anthropic/claude-haiku-4.5:batch",
        "context": {
            "systemPrompt": SYSTEM,
            "tools": [BASH, READ],
            "messages": [
                user("hi"),
                assistant(
                    [text("Hello! How can I help?")], OC, "openrouter", "anthropic/claude-haiku-4.5:batch"
                ),
                user("List files", ts=1760000005000),
            ],
        },
        "options": {"reasoning": "medium", "cacheRetention": "long", "sessionId": "sess-openrouter"},
    },
    "completions_ollama_local_compat": {
        "api": OC,
        "model": {
            "id": "qwen3:8b",
            "provider": "ollama",
            "baseUrl": "http://localhost:11434/v1",
            "reasoning": True,
            "input": ["text"],
            "contextWindow": 32768,
            "maxTokens": 8192,
            "compat": {
                "supportsDeveloperRole": False,
                "supportsReasoningEffort": False,
                "maxTokensField": "max_tokens",
                "supportsStore": False,
                "thinkingFormat": "qwen-chat-template",
                "requiresToolResultName": True,
                "requiresAssistantAfterToolResult": True,
            },
        },
        "context": {
            "systemPrompt": SYSTEM,
            "tools": [BASH],
            "messages": [
                user([text("What is this?"), image()]),
                assistant(
                    [thinking("Look at it.", "reasoning"), call("call_o1", "bash", {"command": "file x"})],
                    OC,
                    "ollama",
                    "qwen3:8b",
                    "toolUse",
                ),
                tool_result("call_o1", "bash", [text("x: PNG image")]),
                user("ok", ts=1760000005000),
            ],
        },
        "options": {"reasoning": "high"},
    },
    "completions_vllm_chat_template_budget": {
        "api": OC,
        "model": {
            "id": "deepseek-ai/DeepSeek-V3.2",
            "provider": "vllm",
            "baseUrl": "http://gpu-box:8000/v1",
            "reasoning": True,
            "thinkingLevelMap": {"minimal": None, "xhigh": "max-think"},
            "samplingParams": {"top_k": 20, "temperature": 0.6},
            "compat": {
                "thinkingFormat": "chat-template",
                "chatTemplateKwargs": {
                    "thinking": {"$var": "thinking.enabled"},
                    "effort": {"$var": "thinking.effort", "omitWhenOff": True},
                    "budget": {"$var": "thinking.budget"},
                    "fixed": "yes",
                },
                "thinkingTokenBudgetField": "thinking_token_budget",
                "vllmPriority": 5,
                "requiresThinkingAsText": True,
            },
        },
        "context": {
            "systemPrompt": SYSTEM,
            "messages": [
                user("hi"),
                assistant(
                    [thinking("greet back", "reasoning_content"), text("Hello.")],
                    OC,
                    "vllm",
                    "deepseek-ai/DeepSeek-V3.2",
                ),
                user("Summarize.", ts=1760000005000),
            ],
        },
        "options": {
            "reasoning": "xhigh",
            "maxTokens": 12000,
            "samplingParams": {"top_p": 0.9},
            "thinkingBudgets": {"high": 9000},
        },
    },
    "completions_raw_stream_tool_choice": {
        "api": OC,
        "fn": "stream",
        "model": {**GPT, "id": "o4-mini", "reasoning": True},
        "context": {"systemPrompt": SYSTEM, "tools": [BASH, STRICT_EDIT], "messages": [user("Fix it")]},
        "options": {
            "toolChoice": {"type": "function", "function": {"name": "edit"}},
            "reasoningEffort": "xhigh",
            "maxTokens": 500,
            "headers": {"X-Trace": "t1"},
        },
    },
    "completions_zai_and_affinity": {
        "api": OC,
        "model": {
            "ref": "zai/glm-4.7",
            "compat": {
                "sendSessionAffinityHeaders": True,
                "sessionAffinityFormat": "openai-nosession",
                "zaiToolStream": True,
            },
        },
        "context": {"systemPrompt": SYSTEM, "tools": [BASH], "messages": [user("hi")]},
        "options": {"reasoning": "low", "sessionId": "sess-zai"},
    },
    "completions_groq_catalog_reasoning": {
        "api": OC,
        "model": "groq/openai/gpt-oss-120b",
        "context": {"systemPrompt": SYSTEM, "tools": [BASH], "messages": [user("hi")]},
        "options": {"reasoning": "minimal", "toolChoice": "none"},
    },
}


def c(
    delta: dict[str, Any] | None = None, finish: str | None = None, usage: Any = None, **extra: Any
) -> tuple[None, Any]:
    return c_chunk(delta, finish, usage, **extra)


ANTHROPIC_PARALLEL = sse(
    a_start(),
    *a_text(0, "Let me look — ", "résumé 😀 ", "files."),
    *a_tool(1, "toolu_01Par", "read", "", '{"path": "READ', 'ME.md", "offset": 1', ".5e1}"),
    *a_tool(2, "toolu_02Par", "bash", '{"command":', ' "ls -la \\"src\\"\\n"', "}"),
    *a_end("tool_use", {"output_tokens": 97}),
)

PARSE: dict[str, dict[str, Any]] = {
    "anthropic_parallel_tools_split_chunks": {
        "api": AM,
        "model": SONNET,
        "context": {"systemPrompt": SYSTEM, "tools": [BASH, READ], "messages": [user("Look around.")]},
        "sse": ANTHROPIC_PARALLEL,
        "chunkSize": 7,
    },
    "anthropic_redacted_thinking_cache_usage": {
        "api": AM,
        "model": SONNET,
        "context": {"systemPrompt": SYSTEM, "messages": [user("Think hard.")]},
        "options": {"reasoning": "high"},
        "sse": sse(
            a_start(
                {
                    "input_tokens": 12,
                    "cache_creation_input_tokens": 2048,
                    "cache_read_input_tokens": 4096,
                    "cache_creation": {"ephemeral_5m_input_tokens": 1024, "ephemeral_1h_input_tokens": 1024},
                    "output_tokens": 2,
                }
            ),
            a_block(0, {"type": "thinking", "thinking": "", "signature": ""}),
            a_delta(0, {"type": "thinking_delta", "thinking": "Step one."}),
            a_delta(0, {"type": "signature_delta", "signature": "EqQBsig"}),
            a_delta(0, {"type": "signature_delta", "signature": "part2=="}),
            a_stop(0),
            a_block(1, {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT"}),
            a_stop(1),
            ("ping", {"type": "ping"}),
            *a_text(2, "Answer."),
            *a_end(
                "end_turn",
                {
                    "input_tokens": None,
                    "output_tokens": 310,
                    "cache_read_input_tokens": 4096,
                    "output_tokens_details": {"thinking_tokens": 250},
                },
            ),
        ),
    },
    "anthropic_http_429_rate_limited": {
        "api": AM,
        "model": SONNET,
        "context": {"messages": [user("hi")]},
        "status": 429,
        "contentType": "application/json",
        "responseHeaders": {"retry-after": "30", "request-id": "req_123"},
        "sse": json.dumps(
            {
                "type": "error",
                "error": {
                    "type": "rate_limit_error",
                    "message": "Number of request tokens has exceeded your per-minute rate limit",
                },
            }
        ),
    },
    "anthropic_http_500_plain_text": {
        "api": AM,
        "model": SONNET,
        "context": {"messages": [user("hi")]},
        "status": 502,
        "contentType": "text/html",
        "sse": "<html><body>upstream connect error or disconnect/reset before headers</body></html>",
    },
    "anthropic_cut_mid_event": {
        "api": AM,
        "model": SONNET,
        "context": {"messages": [user("hi")]},
        "sse": sse(a_start(), *a_text(0, "Partial answ"))[:-1]
        + 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_de',
    },
    "anthropic_malformed_json_event": {
        "api": AM,
        "model": SONNET,
        "context": {"messages": [user("hi")]},
        "sse": sse(
            a_start(),
            a_block(0, {"type": "text", "text": ""}),
            (
                "content_block_delta",
                '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}}',
            ),
            a_stop(0),
            *a_end(),
        ),
    },
    "anthropic_repaired_control_characters": {
        "api": AM,
        "model": SONNET,
        "context": {"tools": [BASH], "messages": [user("hi")]},
        "sse": sse(
            a_start(),
            a_block(0, {"type": "text", "text": ""}),
            (
                "content_block_delta",
                '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"tab\there \\q"}}',
            ),
            a_stop(0),
            *a_end(),
        ),
    },
    "anthropic_error_event_mid_stream": {
        "api": AM,
        "model": SONNET,
        "context": {"messages": [user("hi")]},
        "sse": sse(
            a_start(),
            *a_text(0, "Working"),
            ("error", {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        ),
    },
    "anthropic_refusal_stop_details": {
        "api": AM,
        "model": SONNET,
        "context": {"messages": [user("hi")]},
        "sse": sse(
            a_start(),
            *a_text(0, "I can't"),
            *a_end(
                "refusal", None, stop_details={"type": "refusal", "explanation": "Policy violation: example"}
            ),
        ),
    },
    "anthropic_max_tokens_length": {
        "api": AM,
        "model": SONNET,
        "context": {"messages": [user("hi")]},
        "sse": sse(a_start(), *a_text(0, "A very long"), *a_end("max_tokens", {"output_tokens": 8192})),
    },
    "anthropic_unknown_stop_reason": {
        "api": AM,
        "model": SONNET,
        "context": {"messages": [user("hi")]},
        "sse": sse(a_start(), *a_text(0, "x"), *a_end("model_context_window_exceeded")),
    },
    "anthropic_input_transformations_diagnostic": {
        "api": AM,
        "model": SONNET,
        "context": {"messages": [user("hi")]},
        "sse": sse(
            a_start(
                input_transformations=[
                    {"type": "drop_block", "path": "messages.1.content.0", "reason": "prefix mismatch"},
                    {"type": "other"},
                ]
            ),
            *a_text(0, "ok"),
            *a_end(),
        ),
    },
    "anthropic_tool_input_in_start_block": {
        "api": AM,
        "model": SONNET,
        "context": {"tools": [BASH], "messages": [user("hi")]},
        "sse": sse(
            a_start(),
            a_block(0, {"type": "tool_use", "id": "toolu_pre", "name": "bash", "input": {"command": "pwd"}}),
            a_stop(0),
            *a_end("tool_use"),
        ),
    },
    "completions_parallel_tools_usage_split_chunks": {
        "api": OC,
        "model": GPT,
        "context": {"systemPrompt": SYSTEM, "tools": [BASH, READ], "messages": [user("Look around.")]},
        "chunkSize": 5,
        "sse": sse(
            c({"role": "assistant", "content": ""}),
            c({"content": "Checking — ünïcode 😀 "}),
            c(
                {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "call_P1",
                            "type": "function",
                            "function": {"name": "read", "arguments": ""},
                        }
                    ]
                }
            ),
            c({"tool_calls": [{"index": 0, "function": {"arguments": '{"path": "a'}}]}),
            c(
                {
                    "tool_calls": [
                        {
                            "index": 1,
                            "id": "call_P2",
                            "type": "function",
                            "function": {"name": "bash", "arguments": '{"command"'},
                        }
                    ]
                }
            ),
            c({"tool_calls": [{"index": 0, "function": {"arguments": '.py"}'}}]}),
            c({"tool_calls": [{"index": 1, "function": {"arguments": ': "ls"}'}}]}),
            c({}, "tool_calls"),
            c_usage(1200, 80, cached=1024, reasoning=16),
            DONE,
        ),
    },
    "completions_reasoning_interleaved_llamacpp": {
        "api": OC,
        "model": {
            "id": "gpt-oss-20b",
            "provider": "llamacpp",
            "baseUrl": "http://127.0.0.1:8080/v1",
            "reasoning": True,
        },
        "context": {"messages": [user("hi")]},
        "options": {"reasoning": "medium"},
        "sse": sse(
            c({"reasoning_content": "Think "}, model="gpt-oss-20b"),
            c({"reasoning_content": "more.", "content": "An"}, model="gpt-oss-20b"),
            c({"content": "swer", "reasoning": "ignored duplicate"}, model="gpt-oss-20b"),
            c({"reasoning": "late thought"}, model="gpt-oss-20b"),
            c(
                {},
                "stop",
                {"prompt_tokens": 50, "completion_tokens": 30, "prompt_cache_hit_tokens": 10},
                model="gpt-oss-20b",
            ),
            DONE,
        ),
    },
    "completions_http_429_error_body": {
        "api": OC,
        "model": GPT,
        "context": {"messages": [user("hi")]},
        "status": 429,
        "contentType": "application/json",
        "responseHeaders": {"retry-after": "20"},
        "sse": json.dumps(
            {
                "error": {
                    "message": "Rate limit reached for gpt-4o-mini",
                    "type": "requests",
                    "param": None,
                    "code": "rate_limit_exceeded",
                }
            }
        ),
    },
    "completions_http_400_openrouter_metadata": {
        "api": OC,
        "model": "openrouter/openai/gpt-4o-mini",
        "context": {"messages": [user("hi")]},
        "status": 400,
        "contentType": "application/json",
        "sse": json.dumps(
            {
                "error": {
                    "message": "Provider returned error",
                    "code": 400,
                    "metadata": {"raw": '{"error":"context too long"}', "provider_name": "OpenAI"},
                }
            }
        ),
    },
    "completions_http_413_no_body": {
        "api": OC,
        "model": GPT,
        "context": {"messages": [user("hi")]},
        "status": 413,
        "contentType": "text/plain",
        "sse": "",
    },
    "completions_cut_mid_event": {
        "api": OC,
        "model": GPT,
        "context": {"messages": [user("hi")]},
        "sse": sse(c({"content": "Partial"}), c({"content": " text"}))[:-1]
        + 'data: {"id":"chatcmpl-x","choices":[{"index":0,"delta":{"content":"cut',
    },
    "completions_malformed_json_chunk": {
        "api": OC,
        "model": GPT,
        "context": {"messages": [user("hi")]},
        "sse": sse(
            c({"content": "Start"}),
            (None, '{"id":"chatcmpl-x","choices":[{"index":0,"delta":{"content":"bad"}}]'),
            c({}, "stop"),
        ),
    },
    "completions_error_chunk_mid_stream": {
        "api": OC,
        "model": "openrouter/openai/gpt-4o-mini",
        "context": {"messages": [user("hi")]},
        "sse": sse(
            c({"content": "Working"}),
            (
                None,
                {
                    "error": {
                        "message": "Upstream overloaded",
                        "code": 502,
                        "metadata": {"raw": "overloaded_error"},
                    }
                },
            ),
        ),
    },
    "completions_content_filter": {
        "api": OC,
        "model": GPT,
        "context": {"messages": [user("hi")]},
        "sse": sse(c({"content": "I"}), c({}, "content_filter"), DONE),
    },
    "completions_openrouter_reasoning_details": {
        "api": OC,
        "model": "openrouter/openai/gpt-5-mini",
        "context": {"messages": [user("hi")]},
        "options": {"reasoning": "low"},
        "sse": sse(
            c(
                {
                    "reasoning": "Plan ",
                    "reasoning_details": [
                        {
                            "type": "reasoning.text",
                            "text": "Plan ",
                            "format": "openai-responses-v1",
                            "index": 0,
                        }
                    ],
                },
                model="openai/gpt-5-mini-2025",
            ),
            c(
                {
                    "reasoning": "it.",
                    "reasoning_details": [
                        {"type": "reasoning.text", "text": "it.", "signature": None, "index": 0}
                    ],
                },
                model="openai/gpt-5-mini-2025",
            ),
            c(
                {
                    "reasoning_details": [
                        {
                            "type": "reasoning.encrypted",
                            "data": "gAAAAenc",
                            "id": "rs_1",
                            "format": "openai-responses-v1",
                            "index": 1,
                        },
                        {"type": "bogus"},
                    ]
                },
                model="openai/gpt-5-mini-2025",
            ),
            c({"content": "Hi!"}, model="openai/gpt-5-mini-2025"),
            c(
                {},
                "stop",
                {
                    "prompt_tokens": 20,
                    "completion_tokens": 40,
                    "completion_tokens_details": {"reasoning_tokens": 30},
                    "prompt_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 5},
                },
                model="openai/gpt-5-mini-2025",
            ),
            DONE,
        ),
    },
    "completions_no_finish_reason_compat": {
        "api": OC,
        "model": {
            **GPT,
            "provider": "custom-llm",
            "baseUrl": "http://localhost:9000/v1",
            "compat": {"supportsFinishReason": False, "supportsUsageInStreaming": False},
        },
        "context": {"tools": [BASH], "messages": [user("hi")]},
        "sse": sse(
            c(
                {
                    "tool_calls": [
                        {"id": "call_nf", "function": {"name": "bash", "arguments": '{"command":"ls"}'}}
                    ]
                }
            ),
            DONE,
        ),
    },
    "completions_done_then_ignored_and_choice_usage": {
        "api": OC,
        "model": "moonshotai/kimi-k2-0905-preview",
        "context": {"messages": [user("hi")]},
        "sse": sse(
            c({"content": "Hello"}, model="kimi-k2-0905-preview-2025"),
            (
                None,
                {
                    "id": CHATCMPL,
                    "choices": [
                        {
                            "index": 0,
                            "delta": {},
                            "finish_reason": "stop",
                            "usage": {"prompt_tokens": 9, "completion_tokens": 3, "cached_tokens": 4},
                        }
                    ],
                },
            ),
            DONE,
            c({"content": "after done"}),
        ),
    },
    "completions_missing_finish_reason": {
        "api": OC,
        "model": GPT,
        "context": {"messages": [user("hi")]},
        "sse": sse(c({"content": "Hello"}), DONE),
    },
    "completions_custom_tool_streaming": {
        "api": OC,
        "model": {**GPT, "compat": {"supportsOpenAIGrammarTools": True}},
        "context": {"tools": [BASH, PATCH_GRAMMAR], "messages": [user("patch it")]},
        "sse": sse(
            c({"tool_calls": [{"index": 0, "id": "call_p1", "type": "custom", "custom": {"name": "apply_patch"}}]}),
            c({"tool_calls": [{"index": 0, "type": "custom", "custom": {"input": "*** Begin Patch\n"}}]}),
            c({"tool_calls": [{"index": 0, "custom": {"input": 'say "hi" \\ tab\t \u2028 é 😀 \x01'}}]}),
            c({"tool_calls": [{"index": 1, "id": "call_p2", "custom": {"name": "not_a_grammar_tool", "input": "x"}}]}),
            c({}, finish="tool_calls"),
            DONE,
        ),
    },
}


def main(argv: list[str]) -> int:
    cases = [("payload", name, request) for name, request in PAYLOAD.items()]
    cases += [("parse-stream", name, request) for name, request in PARSE.items()]
    return record_all(cases, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
