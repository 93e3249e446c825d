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
    from pi_ai.js_json._large import large_text_error  # (it imports this module)

    return large_text_error(source, text if isinstance(text, bytes) else source.encode(), failure)


# --------------------------------------------------------------------------- V8 JSON.parse errors

_JSON_WHITESPACE = " \t\n\r"
_SPECIAL_SOURCES = frozenset({"[object Object]", "undefined", "Infinity", "NaN"})
_ESCAPES = frozenset('"\\/bfnrtu')
_HEX = frozenset("0123456789abcdefABCDEF")
_CONTEXT = 10
_SHORT_SOURCE = 20


class _V8Error(Exception):
    def __init__(self, position: int, template: str | None, token: str) -> None:
        super().__init__(template)
        self.position = position
        self.template = template
        self.token = token
        """``eos``, ``number``, ``string`` or ``char``: the token V8 found where it failed."""


def v8_json_parse_error(text: str) -> str:
    """The message of the ``SyntaxError`` V8's ``JSON.parse(text)`` throws (Node 22).

    Pi reports these verbatim when an event's data is not JSON. Valid JSON gets an empty string.
    """
    parser = _V8Parser(_as_code_units(text))
    try:
        parser.parse()
    except _V8Error as error:
        return _v8_message(parser.chars, error)
    return ""


def _as_code_units(text: str) -> list[str]:
    """The text as UTF-16 code units (one list item each), as V8 indexes it."""
    if all(ord(char) < 0x10000 for char in text):
        return list(text)
    data = text.encode("utf-16-le", "surrogatepass")
    return [data[i : i + 2].decode("utf-16-le", "surrogatepass") for i in range(0, len(data), 2)]


def _v8_message(chars: list[str], error: _V8Error) -> str:
    position = error.position
    line = 1
    line_start = 0
    index = 0
    while index < position:
        char = chars[index]
        if char == "\r" and index < position - 1 and chars[index + 1] == "\n":
            index += 1
            char = "\n"
        if char in "\r\n":
            line += 1
            line_start = index + 1
        index += 1
    where = f"at position {position} (line {line} column {1 + index - line_start})"
    if error.template is not None:
        return f"{error.template} {where}"
    if error.token == "eos":
        return "Unexpected end of JSON input"
    if error.token == "number":
        return f"Unexpected number in JSON {where}"
    if error.token == "string":
        return f"Unexpected string in JSON {where}"
    whole = _join(chars)
    if whole in _SPECIAL_SOURCES:
        return f'"{whole}" is not valid JSON'
    token = chars[position] if position < len(chars) else ""
    if len(chars) <= _SHORT_SOURCE:
        return f"Unexpected token '{token}', \"{whole}\" is not valid JSON"
    if position < _CONTEXT:
        return f"Unexpected token '{token}', \"{_join(chars[: position + _CONTEXT])}\"... is not valid JSON"
    if position < len(chars) - _CONTEXT:
        snippet = _join(chars[position - _CONTEXT : position + _CONTEXT])
        return f"Unexpected token '{token}', ...\"{snippet}\"... is not valid JSON"
    return f"Unexpected token '{token}', ...\"{_join(chars[position - _CONTEXT :])}\" is not valid JSON"


def _join(units: list[str]) -> str:
    """Code units back to text, re-pairing surrogates that belong together."""
    text = "".join(units)
    if not any("\ud800" <= unit <= "\udfff" for unit in units):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


class _V8Parser:
    """A validating JSON scanner that fails where, and how, V8's ``JsonParser`` fails."""

    __slots__ = ("chars", "end", "pos")

    def __init__(self, chars: list[str]) -> None:
        self.chars = chars
        self.end = len(chars)
        self.pos = 0

    def _peek_char(self) -> str:
        return self.chars[self.pos] if self.pos < self.end else ""

    def _skip_ws(self) -> str:
        while self.pos < self.end and self.chars[self.pos] in _JSON_WHITESPACE:
            self.pos += 1
        return self._peek_char()

    def _unexpected(self, template: str | None = None) -> _V8Error:
        """An error at the cursor, classified by the JSON token the character there starts."""
        char = self._peek_char()
        if char == "":
            token = "eos"
        elif char in "-0123456789":
            token = "number"
        elif char == '"':
            token = "string"
        else:
            token = "char"
        return _V8Error(self.pos, template, token)

    def _expect(self, char: str, template: str) -> None:
        if self._skip_ws() != char:
            raise self._unexpected(template)
        self.pos += 1

    def parse(self) -> None:
        self._value()
        if self._skip_ws() != "":
            raise self._unexpected("Unexpected non-whitespace character after JSON")

    def _value(self) -> None:
        char = self._skip_ws()
        if char == '"':
            self.pos += 1
            self._string()
        elif char != "" and char in "-0123456789":
            self._number()
        elif char == "{":
            self.pos += 1
            if self._skip_ws() == "}":
                self.pos += 1
                return
            self._expect('"', "Expected property name or '}' in JSON")
            self._string()
            self._expect(":", "Expected ':' after property name in JSON")
            while True:
                self._value()
                if self._skip_ws() == ",":
                    self.pos += 1
                    self._expect('"', "Expected double-quoted property name in JSON")
                    self._string()
                    self._expect(":", "Expected ':' after property name in JSON")
                    continue
                self._expect("}", "Expected ',' or '}' after property value in JSON")
                return
        elif char == "[":
            self.pos += 1
            if self._skip_ws() == "]":
                self.pos += 1
                return
            while True:
                self._value()
                if self._skip_ws() == ",":
                    self.pos += 1
                    continue
                self._expect("]", "Expected ',' or ']' after array element in JSON")
                return
        elif char in ("t", "f", "n"):
            self._literal({"t": "true", "f": "false", "n": "null"}[char])
        else:
            raise self._unexpected()

    def _literal(self, word: str) -> None:
        self.pos += 1
        for expected in word[1:]:
            if self.pos >= self.end:
                raise _V8Error(self.pos, None, "eos")
            if self.chars[self.pos] != expected:
                raise self._unexpected()
            self.pos += 1

    def _string(self) -> None:
        chars = self.chars
        while True:
            if self.pos >= self.end:
                raise _V8Error(self.pos, "Unterminated string in JSON", "char")
            char = chars[self.pos]
            if char == '"':
                self.pos += 1
                return
            if char == "\\":
                self.pos += 1
                if self.pos >= self.end:
                    raise _V8Error(self.pos, None, "eos")
                escape = chars[self.pos]
                if ord(escape) > 0xFF:
                    raise self._unexpected()
                if escape not in _ESCAPES:
                    raise _V8Error(self.pos, "Bad escaped character in JSON", "char")
                if escape == "u":
                    for _ in range(4):
                        self.pos += 1
                        if self.pos >= self.end or chars[self.pos] not in _HEX:
                            raise _V8Error(self.pos, "Bad Unicode escape in JSON", "char")
                self.pos += 1
                continue
            if ord(char) < 0x20:
                raise _V8Error(self.pos, "Bad control character in string literal in JSON", "char")
            self.pos += 1

    def _digits(self) -> None:
        while self.pos < self.end and self.chars[self.pos] in "0123456789":
            self.pos += 1

    def _number(self) -> None:
        chars = self.chars
        if chars[self.pos] == "-":
            self.pos += 1
        char = self._peek_char()
        if char == "0":
            self.pos += 1
            if self._peek_char() in tuple("0123456789"):
                raise self._unexpected()
        else:
            start = self.pos
            self._digits()
            if self.pos == start:
                raise _V8Error(self.pos, "No number after minus sign in JSON", "char")
        if self._peek_char() == ".":
            self.pos += 1
            if self._peek_char() not in tuple("0123456789"):
                raise _V8Error(self.pos, "Unterminated fractional number in JSON", "char")
            self._digits()
        if self._peek_char() in ("e", "E"):
            self.pos += 1
            if self._peek_char() in ("-", "+"):
                self.pos += 1
            if self._peek_char() not in tuple("0123456789"):
                raise _V8Error(self.pos, "Exponent part is missing a number in JSON", "char")
            self._digits()
