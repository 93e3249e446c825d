#!/usr/bin/env python3
"""Record conformance cases for the reasoning effort sent mid-conversation (Pi 1.6's
``configuration_update`` items, models whose compat has ``supportsMidConvoEffort``).

    .venv/bin/python tools/gen_mid_convo_effort_cases.py [NAME_FILTER]

Each ``payload`` case replays a conversation whose answers recorded the effort they were made
with (``providerThinkingLevel``): two by the target model, one by another model of the same
provider, to the Responses, Codex and Azure APIs. Each ``parse-stream`` case streams one answer
and shows the effort recorded on it. Inputs go to ``tests/conformance/cases/<subcommand>/NAME.json``
with Pi 0.85's answer beside them (0.85 knows no such items) and Pi 1.6's to
``tests/conformance/cases/pi-1.6/<subcommand>/NAME.out.json``, the reference
(``tests/conformance/test_oracle_cases.py``; docs/pi-1.6/models.md).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from tests.support.cases import BASH, call, record, text, user

from gen_midway_cases import record_pi16

_T0 = 1760000000000
_USAGE = {
    "input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
}  # fmt: skip
_CODEX_TOKEN = (  # a ChatGPT token's shape: only its account id is read
    "eyJhbGciOiAiUlMyNTYiLCAidHlwIjogIkpXVCJ9.eyJodHRwczovL2FwaS5vcGVuYWkuY29tL2F1dGgiOiB7ImNoYXRncHRfYWNjb3VudF9p"
    "ZCI6ICJhY2N0LTRmMmEifSwgImV4cCI6IDE3NjAwMDM2MDB9.c2lnbmF0dXJl"
)
_LEVELS = {
    "off": "none",
    "minimal": "low",
    "low": "low",
    "medium": "medium",
    "high": "high",
    "xhigh": "xhigh",
}
_EFFORT = {"supportsMidConvoEffort": True}


def _model(
    api: str, provider: str, compat: dict[str, Any], levels: dict[str, Any] | None = None
) -> dict[str, Any]:
    base = "https://chatgpt.com/backend-api" if "codex" in api else "http://127.0.0.1:9/v1"
    if provider == "openai":
        base = "https://api.openai.com/v1"
    return {
        "id": "effort-model", "name": "Effort", "api": api, "provider": provider, "baseUrl": base,
        "reasoning": True, "thinkingLevelMap": _LEVELS if levels is None else levels, "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 200000, "maxTokens": 32000, "compat": compat,
    }  # fmt: skip


def _answer(
    model: dict[str, Any], content: list[Any], at: int, level: str | None, model_id: str = ""
) -> dict[str, Any]:
    message = {
        "role": "assistant", "content": content, "api": model["api"], "provider": model["provider"],
        "model": model_id or model["id"], "usage": _USAGE, "stopReason": "toolUse" if content[-1]["type"] == "toolCall" else "stop",
        "timestamp": _T0 + at,
    }  # fmt: skip
    if level is not None:
        message["providerThinkingLevel"] = level
    return message


def conversation(model: dict[str, Any]) -> list[dict[str, Any]]:
    """Answers made at ``low`` and ``high`` by the model, one at ``high`` by another model of the
    provider, one without a recorded effort; then the next question."""
    return [
        user("Look around.", _T0),
        _answer(model, [text("Looking.")], 1, "low"),
        user("List the files.", _T0 + 2),
        _answer(model, [call("call_e1|fc_e1", "bash", {"command": "ls"})], 3, "high"),
        {
            "role": "toolResult",
            "toolCallId": "call_e1|fc_e1",
            "toolName": "bash",
            "content": [text("a.txt")],
            "isError": False,
            "timestamp": _T0 + 4,
        },
        _answer(model, [text("One file.")], 5, "high", model_id="other-model"),
        user("And now?", _T0 + 6),
        _answer(model, [text("Nothing else.")], 7, None),
        user("Summarise.", _T0 + 8),
    ]


def _payload(api: str, provider: str, reasoning: str, levels: dict[str, Any] | None = None) -> dict[str, Any]:
    model = _model(api, provider, _EFFORT, levels)
    options: dict[str, Any] = {"apiKey": "k", "reasoning": reasoning, "sessionId": "effort-session"}
    if "codex" in api:
        options = {**options, "apiKey": _CODEX_TOKEN, "transport": "sse"}
    if reasoning == "off":
        del options["reasoning"]
    context = {"systemPrompt": "Be brief.", "messages": conversation(model), "tools": [BASH]}
    return {"api": api, "model": model, "context": context, "options": options}


_SSE = "".join(
    f"data: {json.dumps(event, separators=(',', ':'))}\n\n"
    for event in [
        {"type": "response.created", "response": {"id": "resp_e", "status": "in_progress", "output": []}},
        {"type": "response.output_item.added", "output_index": 0,
         "item": {"id": "msg_e", "type": "message", "status": "in_progress", "role": "assistant", "content": []}},
        {"type": "response.output_text.delta", "output_index": 0, "item_id": "msg_e", "content_index": 0, "delta": "Done."},
        {"type": "response.output_item.done", "output_index": 0,
         "item": {"id": "msg_e", "type": "message", "status": "completed", "role": "assistant",
                  "content": [{"type": "output_text", "text": "Done.", "annotations": []}]}},
        {"type": "response.completed", "response": {"id": "resp_e", "status": "completed",
         "usage": {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}}},
    ]
)  # fmt: skip


def _stream(api: str) -> dict[str, Any]:
    request = _payload(api, "effort-provider", "high")
    request["context"] = {"messages": [user("Go.", _T0)]}
    return {**request, "sse": _SSE}


def cases() -> list[tuple[str, str, dict[str, Any]]]:
    return [
        ("payload", "responses_mid_convo_effort", _payload("openai-responses", "effort-provider", "xhigh")),
        # A Sign in with ChatGPT token sent to OpenAI: 1.6 sends the effort as reasoning.effort.
        (
            "payload",
            "responses_mid_convo_effort_chatgpt_sign_in",
            _payload("openai-responses", "openai", "high"),
        ),
        ("payload", "codex_mid_convo_effort", _payload("openai-codex-responses", "openai-codex", "minimal")),
        # Thinking off is effort none, sent in the items as well.
        ("payload", "codex_mid_convo_effort_off", _payload("openai-codex-responses", "openai-codex", "off")),
        # A model without an off effort: neither items nor reasoning.
        (
            "payload",
            "codex_mid_convo_effort_off_unsupported",
            _payload("openai-codex-responses", "openai-codex", "off", {**_LEVELS, "off": None}),
        ),
        # Azure's adapter in 1.6 does not send the items: the effort is reasoning.effort.
        ("payload", "azure_mid_convo_effort", _payload("azure-openai-responses", "azure", "high")),
        ("parse-stream", "responses_effort_recorded_on_answer", _stream("openai-responses")),
        ("parse-stream", "codex_effort_recorded_on_answer", _stream("openai-codex-responses")),
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
