#!/usr/bin/env python3
"""Write the conformance cases for what Pi 1.6 changed in the Anthropic and Google adapters
(issue 24), with both Pis' answers.

    .venv/bin/python tools/gen_pi16_misc_cases.py [NAME_FILTER]

- Anthropic models whose effort 1.6 manages (``compat.supportsMidConvoEffort``): the top-level
  effort, the per-reply effort markers, thinking turned off (``payload/anthropic_managed_*``),
  and a reply from an allowed fallback model (``parse-stream/anthropic_fallback_response_model``:
  ``model`` stays the requested id, ``responseModel`` names the one that answered).
- Gemini thinking levels taken from the model's level map (``payload/google_levels_*``), and
  Mistral's ``reasoning_effort`` for every model with one (``payload/mistral_effort_*``).
- A session file holding both forms of an Anthropic reply, as our ``SessionManager`` writes it
  (``session-context/anthropic_response_model_split``): both Pis read it alike.

Each input is ``tests/conformance/cases/<subcommand>/NAME.json`` with Pi 0.85's answer beside
it and Pi 1.6's in ``tests/conformance/cases/pi-1.6/<subcommand>/``, which is the reference
(docs/pi-1.6/models.md). The models are written out in full (1.6's definitions, from our
catalog, which is 1.6's) so both Pis are given the same model; 0.85 lacks most of them.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from tests.support.cases import CASES
from tests.support.oracle import run_oracle

from gen_midway_cases import record_pi16

CATALOG = Path(__file__).resolve().parent.parent / "src" / "pi_ai" / "models" / "catalog.json"
T0 = 1760000000000
ZERO_COST = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
USAGE = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15, "cost": ZERO_COST}
READ_TOOL = {
    "name": "read",
    "description": "Read a file.",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
}


def model(ref: str, **compat: Any) -> dict[str, Any]:
    provider, _, model_id = ref.partition("/")
    found = next(m for m in json.loads(CATALOG.read_text())["providers"][provider] if m["id"] == model_id)
    if compat:
        found = {**found, "compat": {**found.get("compat", {}), **compat}}
    return found


def assistant(ref: str, at: int, content: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    provider, _, model_id = ref.partition("/")
    return {
        "role": "assistant",
        "content": content,
        "api": "anthropic-messages",
        "provider": provider,
        "model": model_id,
        "usage": USAGE,
        "stopReason": extra.pop("stopReason", "stop"),
        "timestamp": T0 + at,
        **extra,
    }


def user(text: str, at: int) -> dict[str, Any]:
    return {"role": "user", "content": text, "timestamp": T0 + at}


def managed_history(ref: str) -> dict[str, Any]:
    """Replies at several efforts: this model's own (markers before them), another provider's
    and a level that is not an Anthropic effort (no markers)."""
    return {
        "systemPrompt": "You are a careful helper.",
        "tools": [READ_TOOL],
        "messages": [
            user("Read a.py", 1),
            assistant(
                ref,
                2,
                [
                    {"type": "thinking", "thinking": "Look first.", "thinkingSignature": "c2lnLTE="},
                    {"type": "toolCall", "id": "toolu_1", "name": "read", "arguments": {"path": "a.py"}},
                ],
                providerThinkingLevel="high",
                stopReason="toolUse",
            ),
            {
                "role": "toolResult",
                "toolCallId": "toolu_1",
                "toolName": "read",
                "content": [{"type": "text", "text": "print(1)"}],
                "isError": False,
                "timestamp": T0 + 3,
            },
            assistant(ref, 4, [{"type": "text", "text": "It prints 1."}], providerThinkingLevel="max"),
            user("And b.py?", 5),
            assistant(
                "opencode/" + ref.partition("/")[2],
                6,
                [{"type": "text", "text": "Not there."}],
                providerThinkingLevel="xhigh",
            ),
            user("Try c.py", 7),
            assistant(ref, 8, [{"type": "text", "text": "Empty."}], providerThinkingLevel="minimal"),
            user("Summarize.", 9),
        ],
    }


def payload_cases() -> dict[str, dict[str, Any]]:
    sonnet, haiku, opus = (
        "anthropic/claude-sonnet-5-5",
        "anthropic/claude-haiku-5-5",
        "anthropic/claude-opus-5",
    )
    tiny = {"messages": [user("hi", 1)]}
    cases: dict[str, dict[str, Any]] = {
        # A level asked for: markers carry it, the top-level effort stays "low"; no temperature.
        "anthropic_managed_effort_history": {
            "api": "anthropic-messages",
            "model": model(sonnet),
            "context": managed_history(sonnet),
            "options": {"apiKey": "sk-ant-api-test", "reasoning": "medium", "temperature": 0.3},
        },
        # No level, on a model that cannot turn thinking off (``off: null``): markers at "high".
        "anthropic_managed_effort_default_level": {
            "api": "anthropic-messages",
            "model": model(sonnet),
            "context": managed_history(sonnet),
            "options": {"apiKey": "sk-ant-api-test"},
        },
        # No level, on a model that can: thinking disabled, no markers, no effort.
        "anthropic_managed_effort_thinking_off": {
            "api": "anthropic-messages",
            "model": model(haiku),
            "context": managed_history(haiku),
            "options": {"apiKey": "sk-ant-api-test", "temperature": 0.3},
        },
        # The raw stream: the effort given is the marker's.
        "anthropic_managed_effort_raw_stream": {
            "api": "anthropic-messages",
            "fn": "stream",
            "model": model(opus),
            "context": managed_history(opus),
            "options": {
                "apiKey": "sk-ant-api-test",
                "thinkingEnabled": True,
                "effort": "xhigh",
                "thinkingDisplay": "omitted",
            },
        },
    }
    google = {
        # Gemini 4 takes levels (0.85 gave it a budget); off is its weakest supported level.
        "google_levels_gemini4_medium": ("google/gemini-4-argon", {"reasoning": "medium"}),
        "google_levels_gemini4_off": ("google/gemini-4-argon", {}),
        # 0.85 folded Gemini 3 Pro's medium into HIGH; its map now supports medium.
        "google_levels_gemini3_pro_off": ("google/gemini-3.1-pro-preview", {}),
        "google_levels_gemini3_flash_minimal_unsupported": (
            "google/gemini-3.8-flash",
            {"reasoning": "minimal"},
        ),
        "google_levels_gemma4_medium": ("google/gemma-4-31b-it", {"reasoning": "medium"}),
        "google_levels_vertex_gemini4_off": ("google-vertex/gemini-4-neon", {"apiKey": "vertex-api-key"}),
        "google_levels_vertex_gemini4_low": (
            "google-vertex/gemini-4-neon",
            {"apiKey": "vertex-api-key", "reasoning": "low"},
        ),
    }
    for name, (ref, options) in google.items():
        api = "google-vertex" if ref.startswith("google-vertex/") else "google-generative-ai"
        cases[name] = {
            "api": api,
            "model": model(ref),
            "context": tiny,
            "options": {"apiKey": "gemini-key", **options},
        }
    # Mistral: a reasoning model with a level map takes ``reasoning_effort`` (0.85: three named
    # models; the others ``prompt_mode``), thinking off its map's ``off``; without a map,
    # ``prompt_mode``.
    unmapped = {k: v for k, v in model("mistral/magistral-medium-latest").items() if k != "thinkingLevelMap"}
    mistral = {
        "mistral_effort_thinking_off": (model("mistral/magistral-medium-latest"), {}),
        "mistral_effort_large_medium": (model("mistral/mistral-large-latest"), {"reasoning": "medium"}),
        "mistral_effort_clamped_up": (model("mistral/glm-5-2"), {"reasoning": "xhigh"}),
        "mistral_prompt_mode_without_map": (unmapped, {"reasoning": "low"}),
    }
    for name, (definition, options) in mistral.items():
        cases[name] = {
            "api": "mistral-conversations",
            "model": definition,
            "context": tiny,
            "options": {"apiKey": "mistral-key", **options},
        }
    # The raw stream: a level that is not one of the SDK's is not sent.
    cases["google_levels_raw_stream_lowercase_level"] = {
        "api": "google-generative-ai",
        "fn": "stream",
        "model": model("google/gemini-4-argon"),
        "context": tiny,
        "options": {"apiKey": "gemini-key", "thinking": {"enabled": True, "level": "medium"}},
    }
    return cases


def _sse(events: list[dict[str, Any]]) -> str:
    return "".join(
        f"event: {event['type']}\ndata: {json.dumps(event, separators=(',', ':'))}\n\n" for event in events
    )


def parse_stream_cases() -> dict[str, dict[str, Any]]:
    fallback_cost = {"input": 7, "output": 35, "cacheRead": 0.7, "cacheWrite": 8.75}
    sonnet = model(
        "anthropic/claude-sonnet-5-5",
        allowedFallbackModels=[{"provider": "anthropic", "model": "claude-opus-5", "cost": fallback_cost}],
    )
    events = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_f1",
                "model": "claude-opus-5",
                "usage": {"input_tokens": 1000, "output_tokens": 1},
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "fallback"}},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Answered."}},
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 200}},
        {"type": "message_stop"},
    ]
    return {
        "anthropic_fallback_response_model": {
            "api": "anthropic-messages",
            "model": sonnet,
            "context": {"messages": [user("hi", 1)]},
            "options": {"apiKey": "sk-ant-api-test", "reasoning": "low"},
            "sse": _sse(events),
        }
    }


def session_cases() -> dict[str, dict[str, Any]]:
    """A session file as our ``SessionManager`` writes it: the reply our adapter reads from
    ``anthropic_fallback_response_model`` (``model`` and ``responseModel``), then a reply as
    Pi 0.85 wrote it (the answering model in ``model``)."""
    from conformance import answer
    from pi_ai import AssistantMessage, TextContent, Usage, UserMessage, decode_message
    from pi_coding_agent.core.session import SessionManager

    request = parse_stream_cases()["anthropic_fallback_response_model"]
    reply = decode_message(json.dumps(answer("parse-stream", request)[1]["final"]).encode())
    old = AssistantMessage(
        content=[TextContent(text="from 0.85")],
        api="anthropic-messages",
        provider="anthropic",
        model="claude-sonnet-4-5-20250929",
        usage=Usage(input=10, output=2, total_tokens=12),
        stop_reason="stop",
        timestamp=T0 + 12,
    )
    with tempfile.TemporaryDirectory() as folder:
        manager = SessionManager.create("/srv/project", folder)
        for index, message in enumerate((reply, old)):
            manager.append_message(UserMessage(content=f"question {index}", timestamp=T0 + 10 * index + 1))
            manager.append_message(message)
        path = manager.get_session_file()
        manager.close()
        assert path is not None
        return {"anthropic_response_model_split": {"jsonl": Path(path).read_text(encoding="utf-8")}}


def write(subcommand: str, name: str, request: dict[str, Any]) -> None:
    folder = CASES / subcommand
    (folder / f"{name}.json").write_text(json.dumps(request, indent=2, ensure_ascii=False) + "\n")
    code, answer = run_oracle(subcommand, request)
    (folder / f"{name}.out.json").write_text(json.dumps(answer, indent=2, ensure_ascii=False) + "\n")
    print(f"{subcommand}/{name}: Pi 0.85 exit {code}, Pi 1.6 exit {record_pi16(subcommand, name, request)}")


def main(argv: list[str]) -> int:
    wanted = argv[0] if argv else ""
    for subcommand, cases in (
        ("payload", payload_cases()),
        ("parse-stream", parse_stream_cases()),
        ("session-context", session_cases()),
    ):
        for name, request in cases.items():
            if wanted in name:
                write(subcommand, name, request)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
