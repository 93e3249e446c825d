"""Fuzzy matching for pickers: the query's characters in order, scored like Pi's ``fuzzyMatch``.

Lower scores are better: consecutive characters and word starts earn points, gaps and
late matches cost some, an exact match wins outright. ``fuzzy_filter`` splits the query
on spaces and slashes; every part must match, the best total comes first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
_BOUNDARY = frozenset(" \t-_./:")
_LETTERS_DIGITS = re.compile(r"^([a-z]+)([0-9]+)$")
_DIGITS_LETTERS = re.compile(r"^([0-9]+)([a-z]+)$")


def _score(query: str, text: str) -> float | None:
    if not query:
        return 0.0
    if len(query) > len(text):
        return None
    position = 0
    score = 0.0
    last = -1
    run = 0
    for index, char in enumerate(text):
        if position == len(query):
            break
        if char != query[position]:
            continue
        if last == index - 1:
            run += 1
            score -= run * 5
        else:
            run = 0
            if last >= 0:
                score += (index - last - 1) * 2
        if index == 0 or text[index - 1] in _BOUNDARY:
            score -= 10
        score += index * 0.1
        last = index
        position += 1
    if position < len(query):
        return None
    return score - 100 if query == text else score


def fuzzy_match(query: str, text: str) -> float | None:
    """The score of ``query`` against ``text`` (lower is better), or ``None`` when it does not match.

    ``gpt4`` also finds ``4gpt`` (letters and digits swapped), at a small cost.
    """
    query, text = query.lower(), text.lower()
    primary = _score(query, text)
    if primary is not None:
        return primary
    swapped = _LETTERS_DIGITS.match(query) or _DIGITS_LETTERS.match(query)
    if swapped is None:
        return None
    alternative = _score(swapped.group(2) + swapped.group(1), text)
    return None if alternative is None else alternative + 5


def fuzzy_filter(items: Sequence[T], query: str, text: Callable[[T], str]) -> list[T]:
    """The items matching every space- or slash-separated part of ``query``, best first."""
    parts = [part for part in re.split(r"[\s/]+", query.strip()) if part]
    if not parts:
        return list(items)
    scored: list[tuple[float, int, T]] = []
    for index, item in enumerate(items):
        haystack = text(item)
        total = 0.0
        for part in parts:
            score = fuzzy_match(part, haystack)
            if score is None:
                break
            total += score
        else:
            scored.append((total, index, item))
    scored.sort(key=lambda entry: (entry[0], entry[1]))
    return [item for _, _, item in scored]
