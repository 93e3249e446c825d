"""BM25 over tool metadata with three fields, ranked by the rules Pi 1.6's tool discovery uses:

- coverage first: a tool matching more distinct query terms (in any field) ranks above one
  matching fewer, whatever the scores;
- a query term in the tool's name weighs ``NAME_WEIGHT`` times its IDF (more than any number of
  mentions in the description); in the namespace (server name, description, instructions)
  ``NAMESPACE_WEIGHT`` times;
- only the description is length-normalized;
- a tool whose last name segment (after ``__``) is made only of query terms gets one more IDF of
  every query term;
- a query that is the tool's name (or its tail after a ``__``) ranks that tool before all others.

Ties keep the documents' order.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

K1 = 1.2
B = 0.75
NAME_WEIGHT = 3.0
NAMESPACE_WEIGHT = 0.5
_STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "in",
        "is",
        "it",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "with",
    ]
)
_PLURAL_ES = re.compile(r"(ches|shes|sses|xes|zes)$")
_ASCII_WORD = re.compile(r"^[a-z0-9]+$")


@dataclass(frozen=True, slots=True)
class SearchDocument:
    name: str
    text: str
    """The description with the parameters' names and descriptions."""
    namespace: str = ""
    """The namespace's name, description and instructions (shared by a server's tools)."""


def _singular(word: str) -> str:
    """A rough singular, so ``issues`` finds ``issue``."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and _PLURAL_ES.search(word):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def tokenize(text: str) -> list[str]:
    """Words of ``text``: identifiers split at ``_``, ``-`` and camelCase humps, lower-cased,
    English stop words dropped and plain ASCII words made singular."""
    text = unicodedata.normalize("NFC", text)
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", text).lower()
    words = re.sub(r"[\W_]+", " ", text).split()
    return [_singular(w) if _ASCII_WORD.match(w) else w for w in words if w not in _STOP_WORDS]


def _normalized_name(name: str) -> str:
    return re.sub(r"[^a-z0-9_$]", "_", name.strip().lower())


@dataclass(slots=True)
class _Indexed:
    name: str
    name_terms: set[str]
    local_terms: set[str]
    counts: Counter[str]
    length: int
    namespace_terms: set[str] = field(default_factory=set)


def _index(document: SearchDocument) -> _Indexed:
    counts = Counter(tokenize(document.text))
    return _Indexed(
        name=document.name,
        name_terms=set(tokenize(document.name)),
        local_terms=set(tokenize(document.name.split("__")[-1])),
        counts=counts,
        length=sum(counts.values()),
        namespace_terms=set(tokenize(document.namespace)),
    )


def rank(query: str, documents: Sequence[SearchDocument], limit: int) -> list[str]:
    """The names of at most ``limit`` documents matching ``query``, best first."""
    terms = list(dict.fromkeys(tokenize(query)))
    if not terms or not documents or limit <= 0:
        return []
    indexed = [_index(document) for document in documents]
    average = sum(doc.length for doc in indexed) / len(indexed) or 1.0

    def idf(term: str) -> float:
        found = sum(
            1 for d in indexed if term in d.name_terms or term in d.counts or term in d.namespace_terms
        )
        return math.log(1 + (len(indexed) - found + 0.5) / (found + 0.5))

    idfs = {term: idf(term) for term in terms}
    bonus = sum(idfs.values())
    exact = _normalized_name(query)
    scored: list[tuple[bool, int, float, int, str]] = []
    for position, doc in enumerate(indexed):
        norm = K1 * (1 - B + B * doc.length / average)
        score, covered = 0.0, 0
        for term in terms:
            count = doc.counts.get(term, 0)
            weight = (
                (NAME_WEIGHT if term in doc.name_terms else 0.0)
                + (NAMESPACE_WEIGHT if term in doc.namespace_terms else 0.0)
                + count * (K1 + 1) / (count + norm)
            )
            covered += weight > 0
            score += idfs[term] * weight
        if score == 0:
            continue
        if doc.local_terms and doc.local_terms <= set(terms):
            score += bonus
        name = _normalized_name(doc.name)
        scored.append((name == exact or name.endswith(f"__{exact}"), covered, score, position, doc.name))
    scored.sort(key=lambda item: (not item[0], -item[1], -item[2], item[3]))
    return [item[4] for item in scored[:limit]]
