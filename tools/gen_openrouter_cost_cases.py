#!/usr/bin/env python3
"""Write the ``parse-stream`` cases of OpenRouter's billed cost and record both Pis' answers.

    .venv/bin/python tools/gen_openrouter_cost_cases.py [NAME_FILTER]

OpenRouter adds what it charged to a response's usage (``cost``, ``is_byok``, and for a
bring-your-own-key request ``cost_details`` with the upstream provider's share). Pi 1.6 makes a
complete, valid report the usage's ``cost.total`` with ``cost.totalFromProvider: true`` (Chat
Completions: the usage chunk; Anthropic Messages: ``message_delta``'s usage); Pi 0.85 kept the
catalog's price. Each case is a short answer from a model priced in the case (so the two totals
differ), served as OpenRouter (``provider: "openrouter"``) or through a base URL on openrouter.ai.
Inputs go to ``tests/conformance/cases/parse-stream/NAME.json`` with Pi 0.85's answer beside
them and Pi 1.6's in ``tests/conformance/cases/pi-1.6/parse-stream/NAME.out.json`` (the
reference, ``tests/support/pi16.py``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.support.cases import Case, record, user
from tools.gen_midway_cases import record_pi16

PRICES = {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}


def _model(api: str, **fields: Any) -> dict[str, Any]:
    return {"api": api, "id": "anthropic/claude-sonnet-4.5", "cost": PRICES, **fields}


def _sse(events: list[dict[str, Any]], *, named: bool = False) -> str:
    lines = []
    for event in events:
        head = f"event: {event['type']}\n" if named else ""
        lines.append(f"{head}data: {json.dumps(event, separators=(',', ':'))}\n\n")
    return "".join(lines) + ("" if named else "data: [DONE]\n\n")


def _completions(usage_extra: dict[str, Any]) -> str:
    chunk = {"id": "gen-1", "object": "chat.completion.chunk", "model": "anthropic/claude-sonnet-4.5"}
    return _sse(
        [
            {
                **chunk,
                "choices": [
                    {"index": 0, "delta": {"role": "assistant", "content": "Hello."}, "finish_reason": None}
                ],
            },
            {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
            {
                **chunk,
                "choices": [],
                "usage": {
                    "prompt_tokens": 1200,
                    "completion_tokens": 40,
                    "total_tokens": 1240,
                    "prompt_tokens_details": {"cached_tokens": 200},
                    **usage_extra,
                },
            },
        ]
    )


def _anthropic(usage_extra: dict[str, Any]) -> str:
    return _sse(
        [
            {
                "type": "message_start",
                "message": {
                    "id": "gen-2",
                    "type": "message",
                    "role": "assistant",
                    "content": [],
                    "model": "anthropic/claude-sonnet-4.5",
                    "stop_reason": None,
                    "usage": {"input_tokens": 1000, "output_tokens": 1},
                },
            },
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hello."}},
            {"type": "content_block_stop", "index": 0},
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn"},
                "usage": {"input_tokens": 1000, "output_tokens": 40, **usage_extra},
            },
            {"type": "message_stop"},
        ],
        named=True,
    )


BILLED = {"cost": 0.0042, "is_byok": False}
BYOK = {"cost": 0.0002, "is_byok": True, "cost_details": {"upstream_inference_cost": 0.004}}
BYOK_SPLIT = {
    "cost": 0.0002,
    "is_byok": True,
    "cost_details": {
        "upstream_inference_cost": None,
        "upstream_inference_prompt_cost": 0.003,
        "upstream_inference_completions_cost": 0.0006,
    },
}
INCOMPLETE = {"cost": 0.0042}
NEGATIVE = {"cost": -1, "is_byok": False}


def _request(api: str, model: dict[str, Any], sse: str) -> dict[str, Any]:
    return {"api": api, "model": model, "context": {"messages": [user("Say hello.")]}, "sse": sse}


def cases() -> list[Case]:
    completions, anthropic = "openai-completions", "anthropic-messages"
    router = _model(completions, provider="openrouter", baseUrl="https://openrouter.ai/api/v1")
    by_url = _model(completions, provider="my-router", baseUrl="https://openrouter.ai/api/v1")
    elsewhere = _model(completions, provider="my-proxy", baseUrl="https://proxy.example.com/v1")
    claude = _model(anthropic, provider="openrouter", baseUrl="https://openrouter.ai/api")
    return [
        ("parse-stream", "openrouter_cost_billed", _request(completions, router, _completions(BILLED))),
        ("parse-stream", "openrouter_cost_byok", _request(completions, router, _completions(BYOK))),
        (
            "parse-stream",
            "openrouter_cost_byok_split",
            _request(completions, by_url, _completions(BYOK_SPLIT)),
        ),
        (
            "parse-stream",
            "openrouter_cost_incomplete",
            _request(completions, router, _completions(INCOMPLETE)),
        ),
        ("parse-stream", "openrouter_cost_negative", _request(completions, router, _completions(NEGATIVE))),
        (
            "parse-stream",
            "openrouter_cost_not_openrouter",
            _request(completions, elsewhere, _completions(BILLED)),
        ),
        ("parse-stream", "openrouter_cost_anthropic_billed", _request(anthropic, claude, _anthropic(BILLED))),
    ]


def main(argv: list[str]) -> int:
    wanted = argv[0] if argv else ""
    for subcommand, name, request in cases():
        if wanted in name:
            code = record(subcommand, name, request)
            print(
                f"{subcommand}/{name}: Pi 0.85 exit {code}, Pi 1.6 exit {record_pi16(subcommand, name, request)}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
