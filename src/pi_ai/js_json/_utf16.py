"""Strings measured and cut the way JavaScript does: in UTF-16 code units.

A character outside the Basic Multilingual Plane (most emoji) is one Python character but
two JavaScript ones (a surrogate pair), so ``text.length``, ``slice`` and the default
``sort`` order differ from Python's for such text.
"""

from __future__ import annotations

__all__ = ["utf16_len", "utf16_prefix", "utf16_sort_key", "well_formed"]


def utf16_len(text: str) -> int:
    """``text.length``."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def utf16_prefix(text: str, units: int) -> str:
    """``text.slice(0, units)``; a surrogate pair cut in half keeps its first half, as in
    JavaScript (an unpaired surrogate)."""
    if text.isascii() or units <= 0:
        return text[: max(units, 0)]
    data = text.encode("utf-16-le", "surrogatepass")[: units * 2]
    return data.decode("utf-16-le", "surrogatepass")


def utf16_sort_key(text: str) -> bytes:
    """A key that sorts strings as JavaScript's default ``Array.prototype.sort`` does (by
    UTF-16 code units, where Python compares code points)."""
    return text.encode("utf-16-be", "surrogatepass")


def well_formed(text: str) -> str:
    """``text.toWellFormed()``: each unpaired surrogate replaced by U+FFFD, which is what Node
    writes for it as UTF-8 and what a browser shows for it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text
