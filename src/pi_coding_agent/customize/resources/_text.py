"""JavaScript's notion of whitespace and string length, where Pi's behaviour depends on it.

Pi trims text with ``String.prototype.trim`` and splits arguments on ``/\\s/``; both use
ECMAScript's whitespace set, which is not Python's ``str.isspace`` (Python counts the
ASCII separators U+001C..U+001F, JavaScript counts U+FEFF). Lengths in Pi's validation
messages are UTF-16 code units (``pi_ai.js_json.utf16_len``).
"""

from __future__ import annotations

from pi_ai.js_json import JS_WHITESPACE, js_trim

__all__ = ["JS_WHITESPACE_SET", "js_trim", "read_text"]

JS_WHITESPACE_SET = frozenset(JS_WHITESPACE)


def read_text(path: str) -> str:
    """A file's text as Node's ``readFileSync(path, "utf-8")`` gives it (invalid bytes replaced)."""
    with open(path, "rb") as handle:
        return handle.read().decode("utf-8", errors="replace")
