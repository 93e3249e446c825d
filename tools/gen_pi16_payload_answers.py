#!/usr/bin/env python3
"""Record Pi 1.6's answers to our ``payload`` cases whose request body 1.6 changed and we follow.

    .venv/bin/python tools/gen_pi16_payload_answers.py [NAME_FILTER]

The inputs are the existing cases (ours in ``tests/conformance/cases/payload/NAME.json``, else
the oracle's shared ``cases/payload/NAME.json``; Pi 0.85's answer beside each); Pi 1.6's answer goes to
``tests/conformance/cases/pi-1.6/payload/NAME.out.json`` and is then the reference for the case
(``tests/conformance/test_oracle_cases.py``). ``FOLLOWED`` lists the cases whose every change
in 1.6 we follow (docs/pi-1.6/models.md, "Request bodies"); the cases 1.6 answers differently
for reasons not followed yet stay compared with 0.85. ``--survey`` prints, for every case,
whether 1.6 answers it differently from 0.85 (after the conformance normalization), which is
how the list is kept honest.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
sys.path.insert(0, str(TOOLS.parent))
sys.path.insert(0, str(TOOLS))
from conformance_cmds.payload import normalize
from gen_midway_cases import record_pi16

from tests.support.cases import CASES
from tests.support.oracle import require_oracle_cases, run_oracle

FOLLOWED = (
    # Another model's thinking is dropped on replay (every API).
    "anthropic_cross_provider_history",
    "completions_cross_provider_history",
    "whitespace_anthropic_messages",
    "whitespace_openai_completions",
    "google_cross_provider_gemini25",
    "google_cross_provider_gemini3",
    "google_gemini25_other_model_signatures",
    # Chat Completions: developer only for OpenAI, no strict flag by default, OpenRouter's session header.
    "completions_groq_catalog_reasoning",
    "completions_multi_turn_tool_images",
    "completions_ollama_local_compat",
    "completions_openrouter_anthropic_cache",
    "completions_raw_stream_tool_choice",
    "completions_vllm_chat_template_budget",
    "completions_zai_and_affinity",
    # Gemini and Vertex: automaticContinuation false in the SDK parameters.
    "google_empty_contents",
    "google_gemini3_multi_turn_signatures",
    "google_images_text_only_model",
    "google_parallel_calls_orphans",
    "google_stream_plain_no_config",
    "google_stream_strict_tools_gemini3",
    "google_thinking_deep_research_preview_04_2026_high",
    "google_thinking_gemini_3_1_pro_preview_minimal",
    "google_thinking_gemini_flash_latest_low",
    "google_thinking_gemma_4_31b_it_medium",
    "google_thinking_off_gemini_3_1_pro_preview",
    "google_thinking_off_gemini_3_5_flash",
    "google_thinking_off_gemma_4_26b_a4b_it",
    "google_tool_result_images_gemini25",
    "vertex_custom_base_url",
    "vertex_key_flash_lite_minimal_budget",
    "vertex_key_gemini3_flash_off",
    "vertex_key_text_image",
    "vertex_key_thinking_budget_tools",
    "whitespace_google_generative_ai",
    # The shared oracle cases (strict flag; automaticContinuation).
    "google_image_input",
    "google_thinking_tools",
    "openai_completions_custom",
    # The 1.6 catalog's model: Cloudflare Workers AI sends reasoning_effort "none" for thinking
    # off; Mistral Small 4's output limit.
    "mistral_small4_reasoning_effort",
    "cloudflare_workers_ai_account_from_env",
    "cloudflare_workers_ai_without_account_keeps_placeholder",
)
PAYLOAD = CASES / "payload"


def _input(name: str) -> Path:
    own = PAYLOAD / f"{name}.json"
    return own if own.exists() else require_oracle_cases() / "payload" / f"{name}.json"


def survey() -> None:
    inputs = [*PAYLOAD.glob("*.json"), *(require_oracle_cases() / "payload").glob("*.json")]
    for path in sorted(inputs, key=lambda path: path.name):
        if path.name.endswith(".out.json"):
            continue
        old = json.loads(path.with_name(f"{path.stem}.out.json").read_text())
        code, new = run_oracle("payload", json.loads(path.read_text()), current=True)
        verdict = "same" if normalize(new) == normalize(old) else f"differs (exit {code})"
        print(f"{path.stem}: {verdict}{' (followed)' if path.stem in FOLLOWED else ''}")


def main(argv: list[str]) -> int:
    if argv[:1] == ["--survey"]:
        survey()
        return 0
    wanted = argv[0] if argv else ""
    for name in FOLLOWED:
        if wanted in name:
            request = json.loads(_input(name).read_text())
            print(f"payload/{name}: Pi 1.6 exit {record_pi16('payload', name, request)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
