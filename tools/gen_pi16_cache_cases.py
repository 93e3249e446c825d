#!/usr/bin/env python3
"""Write the conformance cases for the Responses prompt-cache fields (issue 24), with both Pis' answers.

    .venv/bin/python tools/gen_pi16_cache_cases.py [NAME_FILTER]

Pi 1.6 sends ``prompt_cache_options: {ttl: "30m"}`` instead of ``prompt_cache_retention: "24h"``
for long retention on models that accept ``prompt_cache_options`` (``compat.
supportsExplicitPromptCacheMode``); other models keep ``24h``, and no caching asks those models for
explicit mode as 0.85 did. The key is an ``sk-`` key: with the oracle's default key 1.6 takes the
request for Sign in with ChatGPT and leaves every cache field out. Inputs go to
``tests/conformance/cases/payload/NAME.json`` with Pi 0.85's answer beside them and Pi 1.6's (the
reference) in ``tests/conformance/cases/pi-1.6/payload/``. Models are written out in full from our
catalog (1.6's), so both Pis are given the same model.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_pi16_misc_cases import model, user, write

KEY = "sk-pi-oracle-cache"


def _case(ref: str, options: dict[str, Any], **compat: Any) -> dict[str, Any]:
    return {
        "api": "openai-responses",
        "model": model(ref, **compat),
        "context": {"systemPrompt": "Be brief.", "messages": [user("hi", 1760000000000)]},
        "options": {"apiKey": KEY, "sessionId": "cache-session", **options},
    }


def payload_cases() -> dict[str, dict[str, Any]]:
    """One request per branch of 1.6's choice of cache fields."""
    explicit = "openai/gpt-5.6-luna"
    older = "openai/gpt-5.1"
    return {
        "responses_cache_long_explicit_mode_ttl": _case(explicit, {"cacheRetention": "long"}),
        "responses_cache_long_env_explicit_mode_ttl": _case(
            explicit, {"env": {"PI_CACHE_RETENTION": "long"}}
        ),
        "responses_cache_long_explicit_mode_no_long_support": _case(
            explicit, {"cacheRetention": "long"}, supportsLongCacheRetention=False
        ),
        "responses_cache_none_explicit_mode": _case(explicit, {"cacheRetention": "none"}),
        "responses_cache_short_explicit_mode": _case(explicit, {}),
        "responses_cache_long_older_model_24h": _case(older, {"cacheRetention": "long"}),
        "responses_cache_none_older_model": _case(older, {"cacheRetention": "none"}),
    }


def main(argv: list[str]) -> int:
    wanted = argv[0] if argv else ""
    for name, request in payload_cases().items():
        if wanted in name:
            write("payload", name, request)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
