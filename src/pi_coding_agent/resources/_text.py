"""JavaScript's notion of whitespace and string length, where Pi's behaviour depends on it.

Pi trims text with ``String.prototype.trim`` and splits arguments on ``/\\s/``; both use
ECMAScript's whitespace set, which is not Python's ``str.isspace`` (Python counts the
ASCII separators U+001C..U+001F, JavaScript counts U+FEFF). Lengths in Pi's validation
messages are UTF-16 code units.
"""

from __future__ import annotations

JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
JS_WHITESPACE_SET = frozenset(JS_WHITESPACE)


def js_trim(text: str) -> str:
    """``text.trim()`` as JavaScript does it."""
    return text.strip(JS_WHITESPACE)


def js_length(text: str) -> int:
    """``text.length`` in JavaScript: UTF-16 code units."""
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def read_text(path: str) -> str:
    """A file's text as Node's ``readFileSync(path, "utf-8")`` gives it (invalid bytes replaced)."""
    with open(path, "rb") as handle:
        return handle.read().decode("utf-8", errors="replace")
