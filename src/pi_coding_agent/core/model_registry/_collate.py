"""String ordering and fuzzy matching as Pi's user-facing lists use them.

Pi sorts model ids with JavaScript's ``localeCompare`` (ICU root collation): case is
ignored first (lowercase wins ties), punctuation sorts before digits and digits before
letters, in ICU's own punctuation order. ``collation_key`` reproduces that for the ASCII
characters model ids use; other characters keep their code point order after letters.
"""

from __future__ import annotations

import re

_PUNCTUATION_ORDER = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"
_RANK = {char: index for index, char in enumerate(_PUNCTUATION_ORDER)}
_DIGIT_BASE = 100
_LETTER_BASE = 200
_OTHER_BASE = 1000


def _primary(char: str) -> int:
    if char.isspace():
        return 0
    if char in _RANK:
        return 1 + _RANK[char]
    if "0" <= char <= "9":
        return _DIGIT_BASE + ord(char) - ord("0")
    lower = char.lower()
    if "a" <= lower <= "z":
        return _LETTER_BASE + ord(lower) - ord("a")
    return _OTHER_BASE + ord(lower)


def collation_key(text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Sort key: primary weights (case-blind), then case (lowercase first)."""
    return tuple(_primary(c) for c in text), tuple(0 if c.islower() or not c.isalpha() else 1 for c in text)


def _subsequence(query: str, text: str) -> bool:
    if not query:
        return True
    position = 0
    for char in text:
        if char == query[position]:
            position += 1
            if position == len(query):
                return True
    return False


def fuzzy_matches(query: str, text: str) -> bool:
    """Pi's fuzzy rule: every query character appears in order (case-insensitive).

    A query like ``gpt4o`` that does not match is retried with its letter and digit runs
    swapped (``4ogpt``), as Pi does for model pickers.
    """
    query = query.lower()
    text = text.lower()
    if _subsequence(query, text):
        return True
    letters_digits = re.fullmatch(r"([a-z]+)([0-9]+)", query)
    digits_letters = re.fullmatch(r"([0-9]+)([a-z]+)", query)
    swapped = ""
    if letters_digits:
        swapped = letters_digits.group(2) + letters_digits.group(1)
    elif digits_letters:
        swapped = digits_letters.group(2) + digits_letters.group(1)
    return bool(swapped) and _subsequence(swapped, text)


def fuzzy_filter_all(query: str, text: str) -> bool:
    """All whitespace- or slash-separated tokens of ``query`` fuzzy-match ``text``."""
    tokens = [token for token in re.split(r"[\s/]+", query.strip()) if token]
    return all(fuzzy_matches(token, text) for token in tokens)
