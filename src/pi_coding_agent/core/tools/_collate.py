"""A sort key approximating ICU's root collation, which ``ls`` uses through ``localeCompare``.

Pi sorts directory entries with JavaScript's ``localeCompare`` on lower-cased names. That
is not code-point order: white space and punctuation come before digits, digits before
letters, accents only matter when the base letters are equal (``e`` < ``é`` < ``f``), and
the whole string is compared letter by letter before any accent is looked at. This key
implements those three levels for Latin text and ASCII punctuation, in ICU's order;
other characters sort after the Latin letters by code point.
"""

from __future__ import annotations

import functools
import unicodedata

# ICU root order of the printable ASCII characters after lower-casing (measured with Node).
_ASCII_ORDER = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz"
_PRIMARY = {char: index + 1 for index, char in enumerate(_ASCII_ORDER)}
_OTHER_BASE = 1000
# Letters that expand to two base letters with a tertiary difference.
_EXPANSIONS = {"ß": "ss", "æ": "ae", "œ": "oe", "ĳ": "ij"}

CollationKey = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]


@functools.lru_cache(maxsize=4096)
def collation_key(text: str) -> CollationKey:
    primary: list[int] = []
    secondary: list[int] = []
    tertiary: list[int] = []
    for char in text:
        expansion = _EXPANSIONS.get(char)
        if expansion is not None:
            for base in expansion:
                primary.append(_PRIMARY[base])
                secondary.append(0)
                tertiary.append(1)
            continue
        decomposed = unicodedata.normalize("NFKD", char)
        compat = 1 if decomposed != unicodedata.normalize("NFD", char) else 0
        for part in decomposed:
            if unicodedata.combining(part):
                if secondary:
                    secondary.append(ord(part))
                continue
            category = unicodedata.category(part)
            if category in ("Cc", "Cf") and part not in "\t\n\r":
                continue
            weight = _PRIMARY.get(part)
            primary.append(weight if weight is not None else _OTHER_BASE + ord(part))
            secondary.append(0)
            tertiary.append(compat)
    return tuple(primary), tuple(secondary), tuple(tertiary)


def locale_sort_key(name: str) -> CollationKey:
    """Key for sorting names the way Pi's ``ls`` does (case-insensitive, ICU-like)."""
    return collation_key(name.lower())
