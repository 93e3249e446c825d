"""``--models`` / setting ``enabledModels``: the models a session may cycle through.

Each pattern is a glob (``anthropic/*``, ``*sonnet*``; ``*`` does not cross ``/``, matched
against ``provider/id`` and against the bare id, case-insensitively) or a model pattern as
``--model`` takes it; either may end in ``:<thinking level>``. Only models with
credentials are considered. Patterns that match nothing produce a warning.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pi_ai import THINKING_LEVELS, Model, canonical_reference
from pi_coding_agent.core.model_registry._resolver import find_exact_reference, parse_model_pattern


@dataclass(frozen=True)
class ScopedModel:
    model: Model
    thinking_level: str | None = None


def _glob(pattern: str) -> re.Pattern[str]:
    out = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find("]", index + 1)
            if end < 0:
                out.append(re.escape(char))
            else:
                body = pattern[index + 1 : end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                index = end
        else:
            out.append(re.escape(char))
        index += 1
    return re.compile("".join(out), re.IGNORECASE)


def resolve_model_scope(patterns: Sequence[str], available: Sequence[Model]) -> tuple[list[ScopedModel], list[str]]:
    scoped: list[ScopedModel] = []
    warnings: list[str] = []

    def add(model: Model, level: str | None) -> None:
        if not any(s.model.provider == model.provider and s.model.id == model.id for s in scoped):
            scoped.append(ScopedModel(model, level))

    for pattern in map(canonical_reference, patterns):
        if any(char in pattern for char in "*?["):
            glob, level = pattern, None
            prefix, colon, suffix = pattern.rpartition(":")
            if colon and suffix in THINKING_LEVELS:
                glob, level = prefix, suffix
            exact = find_exact_reference(glob, available)
            if exact is not None:
                add(exact, level)
                continue
            matcher = _glob(glob)
            matches = [
                m for m in available if matcher.fullmatch(f"{m.provider}/{m.id}") or matcher.fullmatch(m.id)
            ]
            if not matches:
                warnings.append(f'No models match pattern "{pattern}"')
            for model in matches:
                add(model, level)
            continue
        found = parse_model_pattern(pattern, available)
        if found.warning:
            warnings.append(found.warning)
        if found.model is None:
            warnings.append(f'No models match pattern "{pattern}"')
            continue
        add(found.model, found.thinking_level)
    return scoped, warnings
