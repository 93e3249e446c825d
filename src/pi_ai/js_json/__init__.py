"""JavaScript's view of JSON and strings, for everything that must match Pi byte for byte.

Pi is JavaScript: what it writes to the wire, to its event streams and to session files is
``JSON.stringify`` text, the errors it reports for bad JSON are V8's ``JSON.parse`` messages,
and its string lengths and cuts count UTF-16 code units. This package is the one place that
knows those rules; the adapters, the agent, the tools and the session writer all use it.

- ``parse(text)``: ``JSON.parse``; integral numbers come back as ``int`` (``1.0`` -> ``1``) so
  they are written back as JavaScript writes them; ``JsonParseError`` carries V8's message.
  ``decoder()`` is its bare fast path for hot loops.
- ``stringify(value, indent)`` / ``JsEncoder``: ``JSON.stringify`` text (``3`` not ``3.0``,
  ``0.000015``, ``1e+21``, escaped unpaired surrogates); ``scan_value`` is the walk that
  tells whether msgspec's text needs mending.
- ``js_number(n)`` / ``js_text(value)`` / ``js_field(mapping, key)``: ``String(...)``;
  ``js_trim(text)``: ``text.trim()``.
- ``utf16_len`` / ``utf16_prefix`` / ``utf16_sort_key`` / ``well_formed``: ``length``,
  ``slice(0, n)``, ``sort()``, ``toWellFormed()``.
"""

from __future__ import annotations

from pi_ai.js_json._parse import JsonParseError, decoder, js_number_value, parse, v8_json_parse_error
from pi_ai.js_json._stringify import (
    JS_WHITESPACE,
    JsEncoder,
    Scan,
    js_field,
    js_number,
    js_text,
    js_trim,
    mend_numbers,
    scan_value,
    stringify,
)
from pi_ai.js_json._utf16 import utf16_len, utf16_prefix, utf16_sort_key, well_formed

__all__ = [
    "JS_WHITESPACE",
    "JsEncoder",
    "JsonParseError",
    "Scan",
    "decoder",
    "js_field",
    "js_number",
    "js_number_value",
    "js_text",
    "js_trim",
    "mend_numbers",
    "parse",
    "scan_value",
    "stringify",
    "utf16_len",
    "utf16_prefix",
    "utf16_sort_key",
    "v8_json_parse_error",
    "well_formed",
]
