#!/usr/bin/env python3
"""Write the ``azure-openai-responses`` / ``openai-codex-responses`` conformance cases and Pi's answers.

    .venv/bin/python tools/gen_codex_azure_cases.py [NAME_FILTER]

Inputs are built here; every ``.out.json`` is what the live Pi 0.85 answered, never edited by
hand: the shared oracle for Azure and for Codex streams, ``tools/pi_codex_oracle.mjs`` (the
oracle's own code, reporting the JSON Pi zstd-compressed) for Codex request bodies. Cases land
in ``tests/conformance/cases/{payload,parse-stream}``. Codex cases ask for ``transport: "sse"``:
the oracle refuses every connection off 127.0.0.1, so Pi's WebSocket attempt to chatgpt.com
would fail and leave a fallback diagnostic in the message.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from tests.support import deep_json
from tests.support.cases import BASH, CASES, call, record, text, user
from tests.support.oracle import oracle_home, require_live_oracle

from gen_responses_google_cases import (
    ANTHROPIC_HISTORY,
    JPEG,
    READ,
    RS_ITEM,
    SYSTEM,
    assistant,
    image,
    result,
    sse,
    thinking,
)

DRIVER = Path(__file__).resolve().parent / "pi_codex_oracle.mjs"


def _b64(value: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


CODEX_TOKEN = (
    _b64({"alg": "RS256", "typ": "JWT"})
    + "."
    + _b64({"https://api.openai.com/auth": {"chatgpt_account_id": "acct-4f2a"}, "exp": 1760003600})
    + ".c2lnbmF0dXJl"
)
"""A ChatGPT access token's shape: the account id is read from its claims."""


def _node() -> str:
    arch = "arm64" if os.uname().machine in ("aarch64", "arm64") else "x64"
    return str(oracle_home() / "node_modules" / f"node-linux-{arch}" / "bin" / "node")


def record_with_driver(subcommand: str, name: str, request: dict[str, Any]) -> int:
    folder = require_live_oracle()
    done = subprocess.run(
        [_node(), "--no-warnings", str(DRIVER), subcommand],
        input=json.dumps(request).encode(),
        capture_output=True,
        timeout=120,
        check=False,
        env={**os.environ, "PI_ORACLE_HOME": str(oracle_home()), "PI_ORACLE_DIR": str(folder), "TZ": "UTC"},
    )
    if done.returncode > 1:
        raise RuntimeError(f"{DRIVER.name} {subcommand} failed: {done.stderr.decode()[:2000]}")
    out = CASES / subcommand
    (out / f"{name}.json").write_text(json.dumps(request, indent=2, ensure_ascii=False) + "\n")
    answer = deep_json.loads(done.stdout)
    (out / f"{name}.out.json").write_text(json.dumps(answer, indent=2, ensure_ascii=False) + "\n")
    return done.returncode


# --------------------------------------------------------------------------- histories


def same_provider_history(api: str, provider: str, model: str) -> list[dict[str, Any]]:
    call_id = "call_Xb2mWq9LJ3v1r8TfK0pQz7Ys|fc_68e7c9da1b2c8190b3c4d5e6f7a8b9c0"
    return [
        user("List the files, then read README.md.", 1),
        assistant(
            [
                thinking("**Planning**\n\nList the files first.", json.dumps(RS_ITEM, separators=(",", ":"))),
                text(
                    "Listing now.",
                    textSignature='{"v":1,"id":"msg_68e7b0c5f1e881909f8e7d6c5b4a3928","phase":"commentary"}',
                ),
                call(call_id, "bash", {"command": "ls", "timeout": 10.0}),
            ],
            api,
            provider,
            model,
            2,
            "toolUse",
        ),
        result(call_id, "bash", [text("README.md\nsrc")], 3),
        assistant([call("call_2|fc_2", "read", {"path": "README.md"})], api, provider, model, 4, "toolUse"),
        result("call_2|fc_2", "read", [text("# Demo")], 5, True),
        user([text("Thanks. "), text("Now summarise.")], 6),
    ]


def image_history(api: str, provider: str, model: str) -> list[dict[str, Any]]:
    return [
        user([text("What is in these pictures?"), image(), image(JPEG, "image/jpeg")], 1),
        assistant(
            [call("call_img|fc_img", "read", {"path": "shot.png"})], api, provider, model, 2, "toolUse"
        ),
        result("call_img|fc_img", "read", [text("A screenshot:"), image()], 3),
        user("Describe them.", 4),
    ]


def cross_provider_history() -> list[dict[str, Any]]:
    return [
        *ANTHROPIC_HISTORY,
        user("And now with Google.", 6),
        assistant(
            [
                thinking("Gemini thoughts", "CiQB0e2Kb3mF9x0Example+Signature=="),
                text("Calling it.", textSignature="CiQB0e2Kb3mF9x0Example+Signature=="),
                call("bash_1760000000000_1", "bash", {"command": "pwd"}, thoughtSignature="CiQBsig=="),
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
                thinking("gpt-5 reasoning", json.dumps({**RS_ITEM, "id": "rs_other"}, separators=(",", ":"))),
                call("call_g5|fc_g5", "bash", {"command": "whoami"}),
            ],
            "openai-responses",
            "openai",
            "gpt-5",
            9,
            "toolUse",
        ),
        result("call_g5|fc_g5", "bash", [text("demo")], 10),
        assistant([text("partial")], "openai-responses", "openai", "gpt-5", 11, "error", errorMessage="boom"),
        user("Finish up.", 12),
    ]


# --------------------------------------------------------------------------- streams

RESPONSE = {"id": "resp_1", "object": "response", "status": "in_progress", "model": "gpt-5.4", "output": []}
USAGE = {
    "input_tokens": 1250,
    "input_tokens_details": {"cached_tokens": 1024},
    "output_tokens": 210,
    "output_tokens_details": {"reasoning_tokens": 192},
    "total_tokens": 1460,
}
REASONING = {**RS_ITEM, "encrypted_content": "gAAAAABencrypted==", "summary": []}
MESSAGE = {
    "id": "msg_1",
    "type": "message",
    "status": "completed",
    "role": "assistant",
    "phase": "final_answer",
    "content": [{"type": "output_text", "annotations": [], "text": "Naïve café 🌍"}],
}
FUNCTION_CALL = {
    "id": "fc_a1",
    "type": "function_call",
    "status": "completed",
    "arguments": '{"path":"a.txt"}',
    "call_id": "call_a1",
    "name": "read",
}


def full_turn(terminal: str = "response.completed", **response: Any) -> list[dict[str, Any]]:
    """Reasoning, text and a tool call, then the terminal event."""
    summary = {"type": "summary_text", "text": "**Plan** ü"}
    return [
        {"type": "response.created", "response": RESPONSE},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**REASONING, "encrypted_content": None},
        },
        {
            "type": "response.reasoning_summary_text.delta",
            "output_index": 0,
            "item_id": RS_ITEM["id"],
            "summary_index": 0,
            "delta": "**Plan** ü",
        },
        {"type": "response.reasoning_summary_part.done", "output_index": 0, "part": summary},
        {"type": "response.output_item.done", "output_index": 0, "item": {**REASONING, "summary": [summary]}},
        {"type": "response.output_item.added", "output_index": 1, "item": {**MESSAGE, "content": []}},
        {
            "type": "response.content_part.added",
            "output_index": 1,
            "part": {"type": "output_text", "text": ""},
        },
        {"type": "response.output_text.delta", "output_index": 1, "item_id": "msg_1", "delta": "Naïve "},
        {"type": "response.output_text.delta", "output_index": 1, "item_id": "msg_1", "delta": "café 🌍"},
        {"type": "response.output_item.done", "output_index": 1, "item": MESSAGE},
        {"type": "response.output_item.added", "output_index": 2, "item": {**FUNCTION_CALL, "arguments": ""}},
        {"type": "response.function_call_arguments.delta", "output_index": 2, "delta": '{"path":'},
        {"type": "response.function_call_arguments.delta", "output_index": 2, "delta": '"a.txt"}'},
        {"type": "response.function_call_arguments.done", "output_index": 2, "arguments": '{"path":"a.txt"}'},
        {"type": "response.output_item.done", "output_index": 2, "item": FUNCTION_CALL},
        {
            "type": terminal,
            "response": {
                **RESPONSE,
                "status": "completed",
                "output": [REASONING, MESSAGE, FUNCTION_CALL],
                "usage": USAGE,
                **response,
            },
        },
    ]


def text_turn(terminal: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"type": "response.created", "response": RESPONSE},
        {"type": "response.output_item.added", "output_index": 0, "item": {**MESSAGE, "content": []}},
        {"type": "response.output_text.delta", "output_index": 0, "item_id": "msg_1", "delta": "Hello"},
        terminal,
    ]


def plain_sse(events: list[dict[str, Any]]) -> str:
    """Codex writes ``data:`` lines only (no ``event:``)."""
    return "".join(f"data: {json.dumps(e, separators=(',', ':'), ensure_ascii=False)}\n\n" for e in events)


# --------------------------------------------------------------------------- Azure


def azure_cases() -> dict[str, tuple[str, dict[str, Any]]]:
    api, provider = "azure-openai-responses", "azure-openai-responses"
    ref = f"{provider}/gpt-5.4"
    env = {"AZURE_OPENAI_RESOURCE_NAME": "pi-test-resource"}
    cases: dict[str, tuple[str, dict[str, Any]]] = {}

    def payload(name: str, context: dict[str, Any], options: dict[str, Any], **extra: Any) -> None:
        cases[name] = (
            "payload",
            {"api": api, "model": extra.pop("model", ref), "context": context, "options": options, **extra},
        )

    tools_ctx = {"systemPrompt": SYSTEM, "tools": [BASH, READ]}
    payload(
        "azure_resource_same_provider_replay",
        {**tools_ctx, "messages": same_provider_history(api, provider, "gpt-5.4")},
        {"env": env, "reasoning": "high", "sessionId": "session-abc"},
    )
    payload(
        "azure_deployment_map_version_and_base_url",
        {**tools_ctx, "messages": [user("hi", 1)]},
        {
            "env": {
                "AZURE_OPENAI_BASE_URL": "https://Pi-Test.cognitiveservices.azure.com/",
                "AZURE_OPENAI_API_VERSION": "2025-04-01-preview",
                "AZURE_OPENAI_DEPLOYMENT_NAME_MAP": " gpt-4o = prod-4o , gpt-5.4=prod-54=x, bad",
            },
            "maxTokens": 4,
            "temperature": 0.3,
            "headers": {"X-Team": "pi"},
            "toolChoice": "auto",
        },
    )
    payload(
        "azure_images",
        {"systemPrompt": SYSTEM, "tools": [READ], "messages": image_history(api, provider, "gpt-5.4")},
        {"env": env},
    )
    payload(
        "azure_cross_provider_replay",
        {**tools_ctx, "messages": cross_provider_history()},
        {"env": env, "reasoning": "minimal"},
    )
    payload(
        "azure_reasoning_off_and_text_only_model",
        {"messages": [user([text("What is this?"), image()], 1)]},
        {"env": {"AZURE_OPENAI_BASE_URL": "https://proxy.example.com/azure/v1/"}},
        model=f"{provider}/gpt-4.1",
    )
    payload(
        "azure_reasoning_model_without_level",
        {"messages": [user("hi", 1)]},
        {"env": env},
    )
    payload(
        "azure_off_level_null_sends_no_reasoning",
        {"messages": [user("hi", 1)]},
        {"env": env},
        model={"ref": ref, "thinkingLevelMap": {"off": None}},
    )
    payload(
        "azure_stream_options",
        {**tools_ctx, "messages": [user("hi", 1)]},
        {
            "azureBaseUrl": "https://pi-test.openai.azure.com/openai",
            "azureDeploymentName": "my-deployment",
            "azureApiVersion": "preview",
            "reasoningSummary": "detailed",
            "toolChoice": {"type": "function", "name": "read"},
            "samplingParams": {"top_p": 0.5, "store": True},
        },
        fn="stream",
    )
    payload("azure_no_base_url", {"messages": [user("hi", 1)]}, {})
    payload(
        "azure_invalid_base_url",
        {"messages": [user("hi", 1)]},
        {"env": {"AZURE_OPENAI_BASE_URL": "not a url"}},
    )

    def stream(name: str, body: str, **extra: Any) -> None:
        options = extra.pop("options", {})
        cases[name] = (
            "parse-stream",
            {
                "api": api,
                "model": ref,
                "context": {**tools_ctx, "messages": [user("What files are here?", 1)]},
                "options": {"env": env, "reasoning": "high", **options},
                "sse": body,
                **extra,
            },
        )

    stream("azure_stream_thinking_text_tool_call", sse(full_turn()))
    backfilled = full_turn()
    backfilled[4] = {**backfilled[4], "item": {**REASONING, "encrypted_content": None, "summary": []}}
    stream("azure_stream_encrypted_reasoning_only_at_the_end", sse(backfilled), chunkSize=11)
    stream(
        "azure_stream_incomplete_max_tokens",
        sse(
            text_turn(
                {
                    "type": "response.incomplete",
                    "response": {
                        **RESPONSE,
                        "status": "incomplete",
                        "incomplete_details": {"reason": "max_output_tokens"},
                        "usage": USAGE,
                    },
                }
            )
        ),
    )
    stream(
        "azure_stream_failed_event",
        sse(
            text_turn(
                {
                    "type": "response.failed",
                    "response": {
                        **RESPONSE,
                        "status": "failed",
                        "error": {"code": "server_error", "message": "The deployment is overloaded"},
                    },
                }
            )
        ),
    )
    stream(
        "azure_http_401",
        json.dumps({"error": {"code": "401", "message": "Access denied due to invalid subscription key."}}),
        status=401,
        contentType="application/json",
    )
    stream("azure_http_404_deployment", "Resource not found", status=404, contentType="text/plain")
    return cases


# --------------------------------------------------------------------------- Codex


def codex_cases() -> dict[str, tuple[str, dict[str, Any]]]:
    api, provider = "openai-codex-responses", "openai-codex"
    ref = f"{provider}/gpt-5.4"
    base = {"apiKey": CODEX_TOKEN, "transport": "sse"}
    cases: dict[str, tuple[str, dict[str, Any]]] = {}

    def payload(name: str, context: dict[str, Any], options: dict[str, Any], **extra: Any) -> None:
        cases[name] = (
            "payload",
            {
                "api": api,
                "model": extra.pop("model", ref),
                "context": context,
                "options": {**base, **options},
                **extra,
            },
        )

    tools_ctx = {"systemPrompt": SYSTEM, "tools": [BASH, READ]}
    payload(
        "codex_same_provider_replay",
        {**tools_ctx, "messages": same_provider_history(api, provider, "gpt-5.4")},
        {"reasoning": "high", "sessionId": "session-abc"},
    )
    payload(
        "codex_images",
        {"systemPrompt": SYSTEM, "tools": [READ], "messages": image_history(api, provider, "gpt-5.4")},
        {"sessionId": "s-img"},
    )
    payload(
        "codex_cross_provider_replay",
        {**tools_ctx, "messages": cross_provider_history()},
        {"reasoning": "xhigh"},
    )
    payload(
        "codex_no_system_prompt_and_minimal_level",
        {"messages": [user("hi", 1)]},
        {"reasoning": "minimal", "sessionId": "x" * 80},
        model=f"{provider}/gpt-5.3-codex-spark",
    )
    payload(
        "codex_stream_options",
        {**tools_ctx, "messages": [user("hi", 1)]},
        {
            "reasoningEffort": "none",
            "reasoningSummary": "concise",
            "textVerbosity": "high",
            "serviceTier": "priority",
            "toolChoice": "required",
            "temperature": 0.5,
            "headers": {"X-Trace": "t-1", "originator": "someone-else"},
            "sessionId": "session-opts",
            "cacheRetention": "none",
        },
        fn="stream",
    )
    payload(
        "codex_base_url_ending_in_codex",
        {"messages": [user("hi", 1)]},
        {},
        model={
            "ref": ref,
            "baseUrl": "https://proxy.example.com/backend-api/codex/",
            "headers": {"X-Model": "m"},
        },
    )
    payload("codex_token_without_account_id", {"messages": [user("hi", 1)]}, {"apiKey": "not-a-jwt"})
    loaded = [
        user("Find the docs.", 1),
        assistant(
            [call("call_t|fc_t", "bash", {"command": "ls docs"})], api, provider, "gpt-5.4", 2, "toolUse"
        ),
        {**result("call_t|fc_t", "bash", [text("a.md")], 3), "addedToolNames": ["read"]},
        user("Read a.md.", 4),
    ]
    for name, model_id in (
        ("codex_deferred_tools_search", "gpt-5.4"),
        ("codex_deferred_tools_additional", "gpt-5.6-sol"),
    ):
        payload(
            name,
            {"systemPrompt": SYSTEM, "tools": [BASH, READ], "messages": loaded},
            {},
            model=f"{provider}/{model_id}",
        )

    def stream(name: str, body: str, **extra: Any) -> None:
        options = extra.pop("options", {})
        cases[name] = (
            "parse-stream",
            {
                "api": api,
                "model": extra.pop("model", ref),
                "context": {**tools_ctx, "messages": [user("What files are here?", 1)]},
                "options": {**base, "reasoning": "high", **options},
                "sse": body,
                **extra,
            },
        )

    stream("codex_stream_response_done", plain_sse(full_turn("response.done", end_turn=True)))
    stream("codex_stream_completed_with_event_names", sse(full_turn(end_turn=False)), chunkSize=7)
    stream(
        "codex_stream_incomplete",
        plain_sse(
            text_turn(
                {
                    "type": "response.incomplete",
                    "response": {
                        **RESPONSE,
                        "status": "incomplete",
                        "incomplete_details": {"reason": "max_output_tokens"},
                        "usage": USAGE,
                    },
                }
            )
        ),
    )
    stream(
        "codex_stream_unknown_status_is_none",
        plain_sse(
            text_turn(
                {"type": "response.completed", "response": {**RESPONSE, "status": "weird", "usage": USAGE}}
            )
        ),
    )
    stream(
        "codex_stream_error_event",
        plain_sse(text_turn({"type": "error", "code": "context_length_exceeded", "message": "Too long"})),
    )
    stream("codex_stream_error_event_without_text", plain_sse(text_turn({"type": "error", "param": None})))
    stream(
        "codex_stream_failed_event",
        plain_sse(
            text_turn(
                {
                    "type": "response.failed",
                    "response": {
                        **RESPONSE,
                        "status": "failed",
                        "error": {"code": "server_error", "message": "Oops"},
                    },
                }
            )
        ),
    )
    stream(
        "codex_stream_failed_without_message",
        plain_sse(text_turn({"type": "response.failed", "response": {}})),
    )
    stream("codex_stream_invalid_json", 'data: {"type":"response.created",\n\n')
    stream("codex_stream_ends_without_terminal", plain_sse(text_turn({"type": "response.in_progress"})))
    stream(
        "codex_stream_priority_tier_default_response",
        plain_sse(full_turn("response.completed", service_tier="default")),
        options={"serviceTier": "priority"},
        fn="stream",
    )
    stream(
        "codex_stream_flex_tier",
        plain_sse(full_turn("response.completed", service_tier="flex")),
    )
    limit = {"error": {"type": "usage_limit_reached", "plan_type": "PLUS", "resets_at": 1000}}
    stream("codex_http_429_usage_limit", json.dumps(limit), status=429, contentType="application/json")
    stream(
        "codex_http_400_message",
        json.dumps({"error": {"message": "Unsupported parameter: temperature", "code": "bad"}}),
        status=400,
        contentType="application/json",
    )
    stream("codex_http_500_text", "upstream exploded", status=500, contentType="text/plain")
    stream("codex_http_403_empty_body", "", status=403, contentType="text/plain")
    return cases


def main(argv: list[str]) -> int:
    wanted = argv[0] if argv else ""
    for name, (sub, request) in {**azure_cases(), **codex_cases()}.items():
        if wanted not in name:
            continue
        if request["api"] == "openai-codex-responses" and sub == "payload":
            code = record_with_driver(sub, name, request)
        else:
            code = record(sub, name, request)
        print(f"{sub}/{name}: exit {code}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
