#!/usr/bin/env python3
"""Write the ``parse-stream`` cases of a stream that fails midway, for every API the oracle can
run, and record the answers of both Pis (0.85 and 1.6) with the live oracle.

    .venv/bin/python tools/gen_midway_cases.py [NAME_FILTER]

For each API a complete, well-formed response (text, thinking where the API has it, tool
calls) goes wrong after about half of its events, three ways:

- ``midway_<api>_error_event``: the provider's own error event (or error chunk) arrives;
- ``midway_<api>_connection_drop``: the body stops inside an event and the server closes the
  connection (a ``content-length`` longer than what was sent, then ``connection: close``: what
  undici and httpx both read as a body cut by the network);
- ``midway_<api>_malformed_chunk``: one event's data is not JSON.

Pi keeps what was streamed before the failure in the final error message (text, thinking, the
tool call as far as its arguments got, usage). Inputs go to
``tests/conformance/cases/parse-stream/NAME.json`` with Pi 0.85's answer in ``NAME.out.json``
and Pi 1.6's in ``tests/conformance/cases/pi-1.6/parse-stream/NAME.out.json`` (never edited by
hand; ``tests/conformance/test_pi16_answers.py`` compares ours with 1.6's). Bedrock's AWS SDK
cannot be redirected by the oracle: its midway cases are wire cases (``tools/gen_wire_cases.py``).

Also records ``agent-events/coerced_numbers_from_strings`` (tool arguments the schema coerces
from strings) the same way.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.support.cases import CASES, Case, record, user
from tests.support.oracle import run_oracle
from tests.support.pi16 import answer_path
from tests.support.stream_shapes import base
from tests.support.stream_shapes import request as shaped_request

_SEPARATOR = re.compile(r"(\r?\n\r?\n)")


def _from_case(name: str, **overrides: Any) -> dict[str, Any]:
    """The input of a recorded well-formed case, with fields replaced."""
    recorded = json.loads((CASES / "parse-stream" / f"{name}.json").read_text())
    recorded.pop("chunkSize", None)
    return {**recorded, **overrides}


CODEX_MODEL = {
    "api": "openai-codex-responses",
    "provider": "openai-codex",
    "id": "gpt-5.4",
    "baseUrl": "https://chatgpt.com/backend-api",
    "reasoning": True,
}
AZURE_MODEL = {
    "api": "azure-openai-responses",
    "provider": "azure-openai-responses",
    "id": "gpt-5.4",
    "baseUrl": "https://pi-test-resource.openai.azure.com/openai/v1",
    "reasoning": True,
}
RESPONSES_ERROR = 'event: error\ndata: {"type":"error","code":"server_error","message":"The server had an error while processing your request","param":null,"sequence_number":99}'
GOOGLE_ERROR = 'data: {"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}'


def _well_formed() -> dict[str, tuple[dict[str, Any], str]]:
    """API short name -> (a well-formed parse-stream input, that provider's error event)."""
    return {
        "anthropic": (
            shaped_request("anthropic-messages", base("anthropic-messages")),
            'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
        ),
        "completions": (
            shaped_request("openai-completions", base("openai-completions")),
            'data: {"error":{"message":"The server had an error","type":"server_error","param":null,"code":null}}',
        ),
        "responses": (shaped_request("openai-responses", base("openai-responses")), RESPONSES_ERROR),
        "google": (shaped_request("google-generative-ai", base("google-generative-ai")), GOOGLE_ERROR),
        "azure": (_from_case("azure_stream_thinking_text_tool_call", model=AZURE_MODEL), RESPONSES_ERROR),
        "codex": (_from_case("codex_stream_completed_with_event_names", model=CODEX_MODEL), RESPONSES_ERROR),
        "vertex": (_from_case("vertex_key_thinking_tool_calls"), GOOGLE_ERROR),
        "mistral": (
            _from_case("mistral_tool_calls"),
            'data: {"object":"error","message":"Service unavailable","type":"service_unavailable","code":"3505"}',
        ),
    }


def _events(sse: str) -> tuple[list[str], str]:
    """The body's events (without separators) and the separator it uses."""
    parts = _SEPARATOR.split(sse)
    separator = parts[1] if len(parts) > 1 else "\n\n"
    return [part for part in parts[::2] if part.strip()], separator


def _join(events: list[str], separator: str) -> str:
    return "".join(event + separator for event in events)


def _faults(short: str, well_formed: dict[str, Any], error_event: str) -> list[Case]:
    events, separator = _events(well_formed["sse"])
    middle = min(len(events) - 1, len(events) // 2 + 1)  # past the first content, before the stop
    with_error = [
        *events[:middle],
        error_event.replace("\n", separator[: len(separator) // 2]),
        *events[middle:],
    ]
    cut_body = _join(events[:middle], separator) + events[middle][: len(events[middle]) // 2]
    malformed = events[middle].replace("{", "{oops", 1) if "{" in events[middle] else events[middle] + "{"
    return [
        ("parse-stream", f"midway_{short}_error_event", {**well_formed, "sse": _join(with_error, separator)}),
        (
            "parse-stream",
            f"midway_{short}_connection_drop",
            {
                **well_formed,
                "sse": cut_body,
                "responseHeaders": {
                    "content-length": str(len(cut_body.encode()) + 4096),
                    "connection": "close",
                },
            },
        ),
        (
            "parse-stream",
            f"midway_{short}_malformed_chunk",
            {**well_formed, "sse": _join([*events[:middle], malformed, *events[middle + 1 :]], separator)},
        ),
    ]


NUMBER_TEXTS = [
    "3",
    "3.0",
    " 7 ",
    "1e3",
    "-0",
    "0x10",
    "2.5",
    "1.0e-7",
    "-12.50",
    "9007199254740993",
    "123456789012345678901",
    "1e21",
]
INTEGER_TEXTS = ["3", "3.0", " 7 ", "1e3", "-0", "0x10", "-4.000", "9007199254740993"]


def _coerced_numbers() -> dict[str, Any]:
    """A tool call whose number and integer arguments arrive as strings; the tool receives the
    coerced values (``toolCalls[].params``), which must read as JavaScript writes them."""
    properties = {f"n{i}": {"type": "number"} for i in range(len(NUMBER_TEXTS))}
    properties |= {f"i{i}": {"type": "integer"} for i in range(len(INTEGER_TEXTS))}
    arguments = {f"n{i}": text for i, text in enumerate(NUMBER_TEXTS)}
    arguments |= {f"i{i}": text for i, text in enumerate(INTEGER_TEXTS)}
    return {
        "prompt": user("Measure it."),
        "tools": [
            {
                "name": "measure",
                "description": "Takes numbers.",
                "parameters": {"type": "object", "properties": properties},
                "results": [{"content": [{"type": "text", "text": "measured"}]}],
            }
        ],
        "responses": [
            {
                "content": [{"type": "toolCall", "name": "measure", "arguments": arguments}],
                "stopReason": "toolUse",
            },
            "Done.",
        ],
    }


SUPERSEDED = (
    "completions_cut_mid_event",
    "completions_malformed_json_chunk",
    "openai_responses_error_event",
    "openai_responses_malformed_event_json",
    "openai_responses_stream_cut_mid_event",
)
"""Older own cases whose answer changed in Pi 1.6 (the OpenAI SDK under it reads events
differently): only Pi 1.6's answer is recorded for them."""


def cases() -> list[Case]:
    found: list[Case] = []
    for short, (well_formed, error_event) in _well_formed().items():
        found += _faults(short, well_formed, error_event)
    found.append(("agent-events", "coerced_numbers_from_strings", _coerced_numbers()))
    return found


def _zero_durations(value: Any) -> Any:
    """Pi 1.6's ``durationMs`` (wall-clock time of the request) as 0, as the oracle does for
    timestamps, so a re-recorded answer only changes when Pi's does."""
    if isinstance(value, list):
        return [_zero_durations(item) for item in value]
    if isinstance(value, dict):
        return {key: 0 if key == "durationMs" else _zero_durations(item) for key, item in value.items()}
    return value


def record_pi16(subcommand: str, name: str, request: dict[str, Any]) -> int:
    """Write Pi 1.6's answer to ``request``; the oracle's exit code."""
    code, answer = run_oracle(subcommand, request, current=True)
    answer = _zero_durations(answer)
    path = answer_path(subcommand, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(answer, indent=2, ensure_ascii=False) + "\n")
    return code


def main(argv: list[str]) -> int:
    wanted = argv[0] if argv else ""
    for subcommand, name, request in cases():
        if wanted in name:
            code = record(subcommand, name, request)
            print(
                f"{subcommand}/{name}: Pi 0.85 exit {code}, Pi 1.6 exit {record_pi16(subcommand, name, request)}"
            )
    for name in SUPERSEDED:
        if wanted in name:
            request = json.loads((CASES / "parse-stream" / f"{name}.json").read_text())
            print(f"parse-stream/{name}: Pi 1.6 exit {record_pi16('parse-stream', name, request)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
