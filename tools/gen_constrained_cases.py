#!/usr/bin/env python3
"""Write the ``payload`` cases for Pi 1.6's ``constrainedSampling`` tool field on the APIs the
Responses case (``openai_responses_constrained_tools``) does not cover, with both Pis' answers.

    .venv/bin/python tools/gen_constrained_cases.py

Each case is that case's transcript (a strict-preferring ``edit`` tool, a ``loose`` one whose
schema cannot be strict, a ``patch`` tool with an OpenAI grammar) sent to another API:
``tests/conformance/cases/payload/constrained_tools_NAME.json`` with Pi 0.85's answer beside it
(0.85 has no such field) and Pi 1.6's in ``tests/conformance/cases/pi-1.6/payload/``, the
reference (docs/pi-1.6/models.md, "Constrained sampling").
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from tests.support.oracle import run_oracle
from tests.support.pi16 import answer_path

PAYLOAD = Path(__file__).resolve().parent.parent / "tests" / "conformance" / "cases" / "payload"
BASE = "openai_responses_constrained_tools"
STRICT = {"compat": {"supportsStrictMode": True}}

TARGETS: dict[str, tuple[str, Any]] = {
    # Chat Completions: strict only with the compat flag (without it 1.6 sends no strict).
    "completions": ("openai-completions", "groq/llama-3.3-70b-versatile"),
    "completions_strict": ("openai-completions", {"ref": "groq/llama-3.3-70b-versatile", **STRICT}),
    # Mistral: strict is opt-in (compat ``supportsStrictMode``), unlike 0.85's always-strict.
    "mistral": ("mistral-conversations", "mistral/mistral-large-latest"),
    "mistral_strict": ("mistral-conversations", {"ref": "mistral/mistral-large-latest", **STRICT}),
    "anthropic": ("anthropic-messages", "anthropic/claude-sonnet-4-5"),
    "bedrock": ("bedrock-converse-stream", "amazon-bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
}


def case(api: str, model: Any) -> dict[str, Any]:
    request: dict[str, Any] = json.loads((PAYLOAD / f"{BASE}.json").read_text(encoding="utf-8"))
    request["api"], request["model"] = api, model
    ref = model if isinstance(model, str) else model["ref"]
    provider, _, model_id = ref.partition("/")
    for message in request["context"]["messages"]:
        if message["role"] == "assistant":
            message.update(api=api, provider=provider, model=model_id)
    return request


def main() -> int:
    for name, (api, model) in TARGETS.items():
        request = case(api, model)
        stem = f"constrained_tools_{name}"
        (PAYLOAD / f"{stem}.json").write_text(json.dumps(request, indent=2) + "\n", encoding="utf-8")
        code, answer = run_oracle("payload", request)
        (PAYLOAD / f"{stem}.out.json").write_text(json.dumps(answer, indent=2) + "\n", encoding="utf-8")
        current_code, current = run_oracle("payload", request, current=True)
        path = answer_path("payload", stem)
        path.write_text(json.dumps(current, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"payload/{stem}: Pi 0.85 exit {code}, Pi 1.6 exit {current_code}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
