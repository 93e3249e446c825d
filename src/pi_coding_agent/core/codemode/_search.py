"""``searchTools()``: tools ranked by BM25 over their names, namespaces and descriptions."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

DEFAULT_LIMIT = 8
_K1 = 1.2
_B = 0.75


@dataclass(frozen=True, slots=True)
class SearchDocument:
    name: str
    text: str


def _terms(text: str) -> list[str]:
    """Lower-case words; names are split at ``_``, ``-``, ``.`` and camelCase humps."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return [word for word in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if word]


def rank(query: str, documents: Sequence[SearchDocument], limit: int = DEFAULT_LIMIT) -> list[str]:
    """Names of the best ``limit`` documents for ``query`` (only documents sharing a term)."""
    wanted = _terms(query)
    if not wanted or not documents:
        return []
    bags = [Counter(_terms(f"{doc.name} {doc.name} {doc.text}")) for doc in documents]
    average = sum(sum(bag.values()) for bag in bags) / len(bags) or 1.0
    frequency = Counter(term for bag in bags for term in set(bag))
    scores: list[tuple[float, int]] = []
    for index, bag in enumerate(bags):
        length = sum(bag.values())
        score = 0.0
        for term in set(wanted):
            count = bag.get(term, 0)
            if not count:
                continue
            idf = math.log(1 + (len(bags) - frequency[term] + 0.5) / (frequency[term] + 0.5))
            score += idf * count * (_K1 + 1) / (count + _K1 * (1 - _B + _B * length / average))
        if score > 0:
            scores.append((score, index))
    scores.sort(key=lambda pair: (-pair[0], pair[1]))
    return [documents[index].name for _, index in scores[:limit]]
