#!/usr/bin/env python3
"""Record Pi 1.6's answers to the corpus streams served by OpenRouter.

    .venv/bin/python tools/gen_pi16_corpus_answers.py

The corpus (``../shared/corpus/sse``) holds Pi 0.85's answers. For a model served by OpenRouter
Pi 1.6 takes the cost OpenRouter reports as the usage's total (``cost.totalFromProvider``), so
for those streams 1.6's answer is the reference: written to
``tests/conformance/cases/pi-1.6/corpus-sse/NAME.out.json`` (``durationMs`` as 0, as the
conformance tool writes it), read by ``tests/conformance/test_corpus_streams.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.support.corpus import case_names, load_case
from tests.support.oracle import run_oracle
from tests.support.pi16 import PI16_ANSWERS
from tools.gen_midway_cases import _zero_durations

FOLDER = PI16_ANSWERS / "corpus-sse"


def served_by_openrouter(request: dict[str, object]) -> bool:
    model = request.get("model")
    return isinstance(model, dict) and (
        model.get("provider") == "openrouter" or "openrouter.ai" in str(model.get("baseUrl", ""))
    )


def main() -> int:
    FOLDER.mkdir(parents=True, exist_ok=True)
    for name in case_names("sse"):
        request, _ = load_case("sse", name)
        if not served_by_openrouter(request):
            continue
        code, answer = run_oracle("parse-stream", request, current=True)
        (FOLDER / f"{name}.out.json").write_text(
            json.dumps(_zero_durations(answer), indent=2, ensure_ascii=False) + "\n"
        )
        print(f"{name}: Pi 1.6 exit {code}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
