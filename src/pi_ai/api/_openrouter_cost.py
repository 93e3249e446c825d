"""OpenRouter's billed cost in place of the catalog's price, as Pi 1.6 takes it.

OpenRouter adds what it charged to a response's usage (``cost``, ``is_byok`` and, for a
bring-your-own-key request, ``cost_details`` with the upstream provider's share). When that
accounting is complete and valid, Pi 1.6 makes it the usage's ``cost.total`` and marks it
``totalFromProvider: true``; the per-kind costs stay the catalog's. Anything incomplete
(no ``is_byok``, a negative or missing amount) leaves the catalog's total.
"""

from __future__ import annotations

import math
from typing import Any

from pi_ai._messages import Usage
from pi_ai._model import Model, whole_as_int
from pi_ai.api._js import get, opt


def is_openrouter_model(model: Model) -> bool:
    """A model served by OpenRouter: its provider id, or a base URL on openrouter.ai."""
    return model.provider == "openrouter" or "openrouter.ai" in model.base_url


def _valid(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value) and value >= 0


def apply_openrouter_cost(usage: Usage, reported: Any) -> None:
    """Replace ``usage.cost.total`` with what OpenRouter ``reported`` it billed, when complete."""
    billed = get(reported, "cost")
    if not _valid(billed):
        return
    byok = get(reported, "is_byok")
    if byok is False:
        total = billed
    elif byok is True:
        details = get(reported, "cost_details")
        if not isinstance(details, dict):
            return
        upstream = details.get("upstream_inference_cost")
        if upstream is None and "upstream_inference_cost" in details:
            prompt, completion = (
                opt(details, "upstream_inference_prompt_cost"),
                opt(details, "upstream_inference_completions_cost"),
            )
            if not (_valid(prompt) and _valid(completion)):
                return
            upstream = prompt + completion
        if not _valid(upstream):
            return
        total = billed + upstream
    else:
        return
    usage.cost.total = whole_as_int(total)
    usage.cost.total_from_provider = True
