#!/usr/bin/env python3
"""Record Pi 1.6's answers to our ``payload`` cases whose request body 1.6 changed and we follow.

    .venv/bin/python tools/gen_pi16_payload_answers.py [NAME_FILTER]

The inputs are the existing cases (ours in ``tests/conformance/cases/payload/NAME.json``, else
the oracle's shared ``cases/payload/NAME.json``; Pi 0.85's answer beside each); Pi 1.6's answer goes to
``tests/conformance/cases/pi-1.6/payload/NAME.out.json`` and is then the reference for the case
(``tests/conformance/test_oracle_cases.py``). ``FOLLOWED`` lists the cases whose every change
in 1.6 we follow (docs/pi-1.6/models.md, "Request bodies"); the cases 1.6 answers differently
for reasons not followed yet stay compared with 0.85. Where 1.6 also changed something we do not follow yet, the parts it changed are left out of
the comparison (``tests/support/pi16.py`` ``PAYLOAD_NOT_FOLLOWED``). ``--survey`` prints, for every case,
whether 1.6 answers it differently from 0.85 (after the conformance normalization), which is
how the list is kept honest.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from tests.support.cases import CASES
from tests.support.oracle import require_oracle_cases, run_oracle
from tests.support.pi085_catalog import pi085_model
from tests.support.pi16 import answer_path

from conformance_cmds.payload import normalize
from gen_midway_cases import record_pi16

FOLLOWED = (
    # What 1.6 changed here and we follow (docs/pi-1.6/models.md, "Request bodies"): another
    # model's thinking dropped on replay; Chat Completions' developer role only for OpenAI, no
    # strict flag unless a model's compat asks, OpenRouter's session header; Responses without
    # the fields Sign in with ChatGPT rejects (the oracle's key is not an ``sk-`` key) and with
    # ``session-id``; Gemini's ``automaticContinuation: false`` and whitespace-only tool results;
    # the 1.6 catalog's models (Cloudflare's ``reasoning_effort``, Mistral Small 4's limit).
    "anthropic_cross_provider_history",
    # Anthropic message threads (a session id with caching on).
    "anthropic_thinking_history",
    # The output limit fitted to the context window with 1.6's estimate of the prompt.
    "anthropic_env_cache_retention_and_clamp",
    "mistral_no_images_model",
    "mistral_text_tools_cache_key",
    # Mistral's reasoning_effort for a model with a level map (0.85: prompt_mode).
    "mistral_magistral_prompt_mode",
    "anthropic_thinking_replay_signatures",
    "cloudflare_workers_ai_account_from_env",
    "cloudflare_workers_ai_without_account_keeps_placeholder",
    "completions_cross_provider_history",
    "completions_groq_catalog_reasoning",
    "completions_multi_turn_tool_images",
    "completions_ollama_local_compat",
    "completions_openrouter_anthropic_cache",
    "completions_raw_stream_tool_choice",
    "completions_vllm_chat_template_budget",
    "completions_zai_and_affinity",
    "google_cross_provider_gemini25",
    "google_cross_provider_gemini3",
    "google_empty_contents",
    "google_gemini25_other_model_signatures",
    "google_gemini3_multi_turn_signatures",
    "google_image_input",
    "google_tool_result_images_gemini3",
    "openai_responses_deferred_tools_search",
    # Codex as 1.6 sends it: the prompt as the leading developer item, max_output_tokens, effort
    # none for thinking off; every tool up front (0.85's deferred loading is gone).
    "codex_deferred_tools_additional",
    "openai_responses_raw_stream",
    "openai_responses_reasoning",
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
    "google_thinking_tools",
    "google_tool_result_images_gemini25",
    "mistral_small4_reasoning_effort",
    "openai_completions_custom",
    "openai_responses_constrained_tools",
    "openai_responses_cross_provider",
    "openai_responses_deferred_tools_additional",
    "openai_responses_explicit_cache_mode",
    "openai_responses_images",
    "openai_responses_images_text_only_model",
    "openai_responses_multi_turn_tools",
    "openai_responses_no_reasoning_defaults",
    "openai_responses_parallel_tool_calls",
    "openai_responses_stream_options",
    "openai_responses_xai_include",
    "vertex_custom_base_url",
    "vertex_key_flash_lite_minimal_budget",
    "vertex_key_gemini3_flash_off",
    "vertex_key_replay_from_bedrock",
    "vertex_key_replay_from_gemini_api",
    "vertex_key_replay_same_model",
    "vertex_key_text_image",
    "vertex_key_thinking_budget_tools",
    "whitespace_anthropic_messages",
    "whitespace_google_generative_ai",
    "whitespace_openai_completions",
    "whitespace_openai_responses",
)
INLINE_MODEL = (
    "azure_cross_provider_replay",
    "codex_base_url_ending_in_codex",
    "codex_cross_provider_replay",
    "codex_deferred_tools_search",
    "codex_images",
    "codex_no_system_prompt_and_minimal_level",
    "codex_same_provider_replay",
    "codex_stream_options",
    "codex_token_without_account_id",
    "completions_deepseek_replay_reasoning_content",
    "mistral_images_and_replay_ids",
    "openai_completions_deepseek_reasoning",
    "openai_responses_copilot_headers",
)
"""Cases whose model 1.6's catalog no longer has (or has under another id): 1.6 is given the case
with Pi 0.85's model written out in full, and that input is kept beside its answer
(``pi-1.6/payload/NAME.json``) for ours to run."""
PAYLOAD = CASES / "payload"


def _input(name: str) -> Path:
    own = PAYLOAD / f"{name}.json"
    return own if own.exists() else require_oracle_cases() / "payload" / f"{name}.json"


def _with_model_inline(request: dict[str, Any]) -> dict[str, Any]:
    spec = request["model"]
    ref, overrides = (
        (spec, {}) if isinstance(spec, str) else (spec["ref"], {k: v for k, v in spec.items() if k != "ref"})
    )
    provider, _, model_id = ref.partition("/")
    model = pi085_model(provider, model_id)
    assert model is not None, f"Pi 0.85 had no model {ref}"
    return {**request, "model": {**model, **overrides}}


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
    for name in INLINE_MODEL:
        if wanted in name:
            request = _with_model_inline(json.loads(_input(name).read_text()))
            answer_path("payload", name).with_suffix("").with_suffix(".json").write_text(
                json.dumps(request, indent=2, ensure_ascii=False) + "\n"
            )
            print(f"payload/{name} (model inline): Pi 1.6 exit {record_pi16('payload', name, request)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
