"""V8's ``JSON.parse`` error messages (Node 22): a validating scanner that fails where, and
how, V8's ``JsonParser`` fails, and the message for the place it fails at."""

from __future__ import annotations

__all__ = ["v8_json_parse_error"]

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
