#!/usr/bin/env python3
"""Record Pi's payloads for texts that only JavaScript's ``trim`` and Python's ``strip`` see
differently, as ``payload`` conformance cases for the four wire APIs.

    .venv/bin/python tests/reliability/gen_whitespace_cases.py [NAME_FILTER]

Pi drops empty texts and thinking with ``text.trim()``, which removes Unicode spaces and
``U+FEFF`` but keeps the separators ``U+001C..U+001F`` and ``U+0085`` that ``str.strip``
removes. A fuzzed conversation found the difference (a thinking block ``"\\x1f "`` carried
over from another model was kept by Pi and dropped by us); these cases keep each such
character in each place a payload builder trims. Writes
``tests/conformance/cases/payload/whitespace_<api>.json`` and the live oracle's answer.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from gen_responses_google_cases import assistant, thinking
from tests.reliability.gen_pi_fault_cases import MODELS as FAULT_CASE_MODELS
from tests.support.cases import Case, record_all, text, user

MODELS = {
    "anthropic-messages": ("anthropic", "claude-sonnet-4-5"),
    "openai-completions": ("openai", "gpt-4o-mini"),
    "openai-responses": ("openai", "gpt-4.1"),
    "google-generative-ai": ("google", "gemini-2.5-flash"),
}
KEPT_BY_PI = ["\x1c", "\x1d ", "\x1e", "\x1f ", "\x85", " \x85 "]
"""Not whitespace to JavaScript's ``trim``; whitespace to Python's ``strip``."""
DROPPED_BY_PI = ["\ufeff", " \ufeff\u3000", "\u2028"]
"""Whitespace to JavaScript's ``trim``; ``U+FEFF`` is no whitespace to Python's ``strip``."""


def _messages(api: str) -> list[dict[str, Any]]:
    provider, model = MODELS[api]
    odd = KEPT_BY_PI + DROPPED_BY_PI
    messages = [user(value, 1 + n) for n, value in enumerate(odd)]  # string contents
    messages.append(user([text(value) for value in odd] + [text("ok")], 20))
    # The same model's turn: its texts and thinking as they are.
    messages.append(assistant([*map(text, odd), *map(thinking, odd), text("fine")], api, provider, model, 21))
    messages.append(user("next", 22))
    # Another model's thinking: turned into text, or dropped when empty to ``trim``.
    messages.append(assistant([*map(thinking, odd), text("other")], "x-api", "x", "x-model", 23))
    messages.append(user("last", 24))
    return messages


def cases() -> list[Case]:
    found: list[Case] = []
    for api, (provider, model) in MODELS.items():
        request = {
            "api": api,
            "model": FAULT_CASE_MODELS[api] if api == "openai-completions" else f"{provider}/{model}",
            "context": {"systemPrompt": "sys", "messages": _messages(api)},
            "options": {},
        }
        found.append(("payload", f"whitespace_{api.replace('-', '_')}", request))
    return found


if __name__ == "__main__":
    sys.exit(record_all(cases(), sys.argv[1:]))
