"""``JSON.parse`` as Node 22 does it, including V8's error messages.

Pi surfaces ``JSON.parse`` errors verbatim (a malformed SSE event ends the stream with
``Unexpected end of JSON input`` or ``Expected ',' or '}' after property value in JSON at
position 66 (line 1 column 67)``), so the message text is part of the observable behaviour.
Parsing itself uses the fast C parsers; only a failure walks the text once more to find the
first error the way V8's parser reports it (positions in UTF-16 code units).
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

__all__ = ["JsonSyntaxError", "js_json_parse", "js_number", "v8_json_error"]


class JsonSyntaxError(ValueError):
    """The text is not JSON; ``str(error)`` is V8's message."""


def js_number(value: Any) -> Any:
    """Integral floats become ints, recursively, as JavaScript numbers print (``1.0`` -> ``1``)."""
    if isinstance(value, float):
        return int(value) if value.is_integer() and abs(value) < 1e21 else value
    if isinstance(value, dict):
        return {key: js_number(item) for key, item in value.items()}
    if isinstance(value, list):
        return [js_number(item) for item in value]
    return value


_decode = msgspec.json.Decoder().decode


def _reject_constant(name: str) -> Any:
    raise ValueError(name)


_STRICT_JSON = json.JSONDecoder(parse_constant=_reject_constant)


def js_json_parse(text: str | bytes) -> Any:
    """Parse like ``JSON.parse`` (values keep Python types; see ``js_number``)."""
    try:
        return _decode(text)
    except msgspec.DecodeError:
        source = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    message = v8_json_error(source)
    if message:
        raise JsonSyntaxError(message)
    # Valid JSON msgspec refuses (a lone surrogate escape, a number beyond float range).
    try:
        return _STRICT_JSON.decode(source)
    except ValueError:
        raise JsonSyntaxError("Unexpected end of JSON input") from None


# --------------------------------------------------------------------------- V8's error text

_MAX_CONTEXT = 10
_MIN_LENGTH_FOR_CONTEXT = 21
_SPECIAL_SOURCES = frozenset({"NaN", "Infinity", "undefined", "[object Object]"})
_HEX = frozenset("0123456789abcdefABCDEF")
_ESCAPES = frozenset('"\\/bfnrtu')


class _Failure(Exception):
    def __init__(self, message: str) -> None:
        self.message = message


def _units(text: str) -> str:
    """The text as UTF-16 code units (characters beyond the BMP become surrogate pairs)."""
    if text.isascii():
        return text
    return "".join(
        chr(0xD800 + ((ord(c) - 0x10000) >> 10)) + chr(0xDC00 + ((ord(c) - 0x10000) & 0x3FF))
        if ord(c) > 0xFFFF
        else c
        for c in text
    )


class _Parser:
    def __init__(self, source: str) -> None:
        self.s = _units(source)
        self.n = len(self.s)
        self.i = 0

    def at_position(self, template: str, position: int, where: str = " in JSON") -> _Failure:
        line = 1
        line_start = 0
        index = 0
        s = self.s
        while index < position:
            char = s[index]
            if char == "\r" and index + 1 < position and s[index + 1] == "\n":
                index += 1
            if char in "\r\n":
                line += 1
                line_start = index + 1
            index += 1
        column = position - line_start + 1
        return _Failure(f"{template}{where} at position {position} (line {line} column {column})")

    @staticmethod
    def _text(units: str) -> str:
        """Code units back to text (surrogate pairs rejoined; a cut pair stays a lone surrogate)."""
        if units.isascii():
            return units
        return units.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")

    def unexpected(self, position: int) -> _Failure:
        if position >= self.n:
            return _Failure("Unexpected end of JSON input")
        s = self.s
        token = s[position]
        if token == '"':
            return self.at_position("Unexpected string", position)
        if token == "-" or token.isdigit():
            return self.at_position("Unexpected number", position)
        if s in _SPECIAL_SOURCES:
            return _Failure(f'"{s}" is not valid JSON')
        if self.n < _MIN_LENGTH_FOR_CONTEXT:
            return _Failure(f"Unexpected token '{token}', \"{self._text(s)}\" is not valid JSON")
        if position < _MAX_CONTEXT:
            context = f'"{self._text(s[: position + _MAX_CONTEXT])}"...'
        elif position >= self.n - _MAX_CONTEXT:
            context = f'..."{self._text(s[position - _MAX_CONTEXT :])}"'
        else:
            context = f'..."{self._text(s[position - _MAX_CONTEXT : position + _MAX_CONTEXT])}"...'
        return _Failure(f"Unexpected token '{token}', {context} is not valid JSON")

    def expect(self, template: str) -> _Failure:
        return self.at_position(template, self.i)

    def skip(self) -> None:
        s = self.s
        while self.i < self.n and s[self.i] in " \t\n\r":
            self.i += 1

    def value(self) -> None:
        self.skip()
        if self.i >= self.n:
            raise _Failure("Unexpected end of JSON input")
        char = self.s[self.i]
        if char == '"':
            self.string()
        elif char == "{":
            self.obj()
        elif char == "[":
            self.arr()
        elif char == "-" or char.isdigit():
            self.number()
        elif char in "tfn":
            self.literal({"t": "true", "f": "false", "n": "null"}[char])
        else:
            raise self.unexpected(self.i)

    def literal(self, word: str) -> None:
        for expected in word:
            if self.i >= self.n:
                raise _Failure("Unexpected end of JSON input")
            if self.s[self.i] != expected:
                raise self.unexpected(self.i)
            self.i += 1

    def number(self) -> None:
        s = self.s
        if s[self.i] == "-":
            self.i += 1
            if self.i >= self.n or not s[self.i].isdigit():
                raise self.expect("No number after minus sign")
        if s[self.i] == "0":
            self.i += 1
            if self.i < self.n and s[self.i].isdigit():
                raise self.unexpected(self.i)
        else:
            while self.i < self.n and s[self.i].isdigit():
                self.i += 1
        if self.i < self.n and s[self.i] == ".":
            self.i += 1
            if self.i >= self.n or not s[self.i].isdigit():
                raise self.expect("Unterminated fractional number")
            while self.i < self.n and s[self.i].isdigit():
                self.i += 1
        if self.i < self.n and s[self.i] in "eE":
            self.i += 1
            if self.i < self.n and s[self.i] in "+-":
                self.i += 1
            if self.i >= self.n or not s[self.i].isdigit():
                raise self.expect("Exponent part is missing a number")
            while self.i < self.n and s[self.i].isdigit():
                self.i += 1

    def string(self) -> None:
        s = self.s
        self.i += 1
        while True:
            if self.i >= self.n:
                raise self.expect("Unterminated string")
            char = s[self.i]
            if char == '"':
                self.i += 1
                return
            if char == "\\":
                self.i += 1
                if self.i >= self.n:
                    raise _Failure("Unexpected end of JSON input")
                escape = s[self.i]
                if escape not in _ESCAPES:
                    raise self.expect("Bad escaped character")
                if escape == "u":
                    for _ in range(4):
                        self.i += 1
                        if self.i >= self.n or s[self.i] not in _HEX:
                            raise self.expect("Bad Unicode escape")
                self.i += 1
                continue
            if ord(char) < 0x20:
                raise self.expect("Bad control character in string literal")
            self.i += 1

    def obj(self) -> None:
        self.i += 1
        self.skip()
        if self.i < self.n and self.s[self.i] == "}":
            self.i += 1
            return
        first = True
        while True:
            self.skip()
            if self.i >= self.n or self.s[self.i] != '"':
                raise self.expect(
                    "Expected property name or '}'" if first else "Expected double-quoted property name"
                )
            self.string()
            self.skip()
            if self.i >= self.n or self.s[self.i] != ":":
                raise self.expect("Expected ':' after property name")
            self.i += 1
            self.value()
            self.skip()
            if self.i < self.n and self.s[self.i] == ",":
                self.i += 1
                first = False
                continue
            if self.i < self.n and self.s[self.i] == "}":
                self.i += 1
                return
            raise self.expect("Expected ',' or '}' after property value")

    def arr(self) -> None:
        self.i += 1
        self.skip()
        if self.i < self.n and self.s[self.i] == "]":
            self.i += 1
            return
        while True:
            self.value()
            self.skip()
            if self.i < self.n and self.s[self.i] == ",":
                self.i += 1
                continue
            if self.i < self.n and self.s[self.i] == "]":
                self.i += 1
                return
            raise self.expect("Expected ',' or ']' after array element")


def v8_json_error(source: str) -> str:
    """The message of the ``SyntaxError`` Node 22's ``JSON.parse(source)`` throws ("" if none)."""
    parser = _Parser(source)
    try:
        parser.value()
        parser.skip()
        if parser.i < parser.n:
            raise parser.at_position("Unexpected non-whitespace character after JSON", parser.i, "")
    except _Failure as failure:
        return failure.message
    except RecursionError:
        return "Maximum call stack size exceeded"
    return ""
