"""``JSON.parse``: the value JavaScript reads from JSON text, or V8's (Node 22) error message.

Pi surfaces ``JSON.parse`` errors verbatim (a malformed SSE event ends the stream with
``Unexpected end of JSON input`` or ``Expected ',' or '}' after property value in JSON at
position 66 (line 1 column 67)``), so the message text is part of the observable behaviour.
Parsing itself uses msgspec's C parser; only a failure walks the text once more to find the
first error the way V8's parser reports it (positions in UTF-16 code units).
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from pi_ai.js_json._large import large_text_error
from pi_ai.js_json._v8 import v8_json_parse_error

__all__ = ["JsonParseError", "decoder", "js_number_value", "parse", "v8_json_parse_error"]

MAX_EXACT_INTEGER = 2**53
"""Up to this size an integral double and the ``int`` of the same value print the same digits
(beyond it JavaScript prints the shortest digits that identify the double, padded with zeros)."""


class JsonParseError(ValueError):
    """Text ``JSON.parse`` refuses; ``str(error)`` is V8's message for it."""


def js_number_value(text: str) -> int | float:
    """A JSON number literal as JavaScript holds it, in Python's types: an integral value is an
    ``int`` (``1.0`` and ``1e2`` are ``1`` and ``100``, as JavaScript prints them), any other a
    ``float`` (``1e400`` is infinity, as in JavaScript)."""
    value = float(text)
    if value.is_integer() and -MAX_EXACT_INTEGER <= value <= MAX_EXACT_INTEGER:
        return int(value)
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(name)


def _integer(text: str) -> int | float:
    # Python refuses to convert integers of more than 4300 digits; JavaScript reads any
    # integer as a double (Infinity once it overflows).
    try:
        return int(text)
    except ValueError:
        return float(text)


_fast_decode = msgspec.json.Decoder(float_hook=js_number_value).decode


def decoder() -> Any:
    """A bare ``decode(text)`` for hot loops: ``parse`` without its error handling (it raises
    msgspec's errors: call ``parse`` on failure for V8's message and the slow paths)."""
    return msgspec.json.Decoder(float_hook=js_number_value).decode


_SLOW_DECODER = json.JSONDecoder(parse_constant=_no_constant, parse_int=_integer, parse_float=js_number_value)

TOO_DEEP = "JSON nested too deeply to read"
"""Our message for text nested deeper than Python's recursion limit allows (V8 reads it):
a documented difference (docs/providers/streams.md)."""

EXACT_LIMIT = 1 << 16
"""Refused text up to this many characters is walked by the V8 scanner in full (about a
microsecond a character); longer text has its error found around where msgspec stopped
(``_large``), so a 24 MB malformed RPC line is answered in a fraction of a second."""


def parse(text: str | bytes) -> Any:
    """``JSON.parse(text)``: the value, or ``JsonParseError`` with V8's message.

    msgspec parses the common case; text it refuses is checked against V8's grammar, which
    also accepts what msgspec does not (lone surrogate escapes, numbers that overflow to
    Infinity) before the standard library decodes it. Numbers follow ``js_number_value``.
    """
    failure = ""
    try:
        return _fast_decode(text)
    except msgspec.DecodeError as error:
        failure = str(error)
    except UnicodeEncodeError:  # (a str with lone surrogates)
        pass
    except RecursionError:
        raise JsonParseError(TOO_DEEP) from None
    source = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    try:
        message = _error_message(text, source, failure)
        if message:
            raise JsonParseError(message) from None
        return _SLOW_DECODER.decode(source)
    except RecursionError:
        raise JsonParseError(TOO_DEEP) from None


def _error_message(text: str | bytes, source: str, failure: str) -> str:
    """V8's message for text msgspec refused with ``failure``; ``""`` when V8 reads it."""
    if len(source) <= EXACT_LIMIT or not failure:
        return v8_json_parse_error(source)
    return large_text_error(
        source, text if isinstance(text, bytes) else source.encode(), failure, _fast_decode
    )
