#!/usr/bin/env python3
"""Record Pi's answers to the body faults of the matrix as ``parse-stream`` conformance cases.

    .venv/bin/python tests/reliability/gen_pi_fault_cases.py [NAME_FILTER]

Writes ``tests/conformance/cases/parse-stream/fault_<api>_<fault>.json`` and the live oracle's
answer ``.out.json`` beside it (``tests/support/cases.py``), so the conformance test compares
our adapters with Pi on each of them in every run. Faults of the connection (refused, reset,
stall, abort, retry) cannot be written as a recorded body; the library and CLI matrices cover
them (and ``PI_RELIABILITY_FULL=1`` compares the CLI with Pi's on them).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.reliability.wire import WIRES, Wire
from tests.support.cases import Case, record_all, user

MODELS: dict[str, Any] = {
    "anthropic-messages": "anthropic/claude-sonnet-4-5",
    "openai-completions": {
        "id": "gpt-4o-mini",
        "provider": "openai",
        "baseUrl": "https://api.openai.com/v1",
        "reasoning": False,
        "contextWindow": 128000,
        "maxTokens": 16384,
    },
    "openai-responses": "openai/gpt-4.1-mini",
    "google-generative-ai": "google/gemini-2.5-flash",
}

BODIES: dict[str, dict[str, Any]] = {
    "empty_body_200": {"sse": ""},
    "html_200": {"contentType": "text/html", "sse": "<html><body>captive portal</body></html>"},
    "http_503_no_body": {"status": 503, "contentType": "text/plain", "sse": ""},
}


def _short(api: str) -> str:
    return api.split("-generative-ai", maxsplit=1)[0].replace("-", "_")


def cases() -> list[Case]:
    found: list[Case] = []
    for wire in WIRES:
        base = {"api": wire.api, "model": MODELS[wire.api], "context": {"messages": [user("hi")]}}
        for name, body in BODIES.items():
            found.append(("parse-stream", f"fault_{_short(wire.api)}_{name}", {**base, **body}))
        found.append(("parse-stream", f"fault_{_short(wire.api)}_http_400_json", _http_400(base, wire)))
    return found


def _http_400(base: dict[str, Any], wire: Wire) -> dict[str, Any]:
    import json

    return {**base, "status": 400, "contentType": "application/json", "sse": json.dumps(wire.error_body)}


if __name__ == "__main__":
    sys.exit(record_all(cases(), sys.argv[1:]))
