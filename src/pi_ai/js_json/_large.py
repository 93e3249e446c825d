"""V8's ``JSON.parse`` message for long text, without walking the whole text in Python.

The V8 scanner in ``_parse`` costs about a microsecond a character: 20 s for a 24 MB
malformed RPC line, with nothing else served meanwhile. For long text the place comes from
msgspec's C parser instead (its error names the byte where it stopped and, for a structural
error, what it expected; for text that ends early, one more msgspec run with ``]`` appended
tells an open array from an open object), and only the token there is scanned the V8 way, in
a window of a few characters. Line and column counts and the quoted snippet are C-speed
string operations, so the answer is linear in the text's size with a small constant.

msgspec refuses unpaired surrogate escapes (``"\\ud800"``), which V8 reads: they are
rewritten to ``\\u00..`` (same length, same validity for V8) before msgspec is asked.
A place msgspec's error does not pin down (a token longer than ``_MAX_TOKEN`` characters)
is reported as an unexpected token where msgspec stopped: V8's wording and shape, perhaps
another place (docs/rpc.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import msgspec

from pi_ai.js_json._utf16 import utf16_len
from pi_ai.js_json._v8 import (
    _CONTEXT,
    _JSON_WHITESPACE,
    _as_code_units,
    _join,
    _V8Error,
    _V8Parser,
)

__all__ = ["large_text_error"]

_MSGSPEC_ERROR = re.compile(r"JSON is malformed: (?P<what>.*) \(byte (?P<byte>\d+)\)$")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_MAX_TOKEN = 4096
_ARRAY_SEPARATOR = "Expected ',' or ']' after array element in JSON"
_OBJECT_SEPARATOR = "Expected ',' or '}' after property value in JSON"
_COLON = "Expected ':' after property name in JSON"
_KEY = "Expected double-quoted property name in JSON"
_FIRST_KEY = "Expected property name or '}' in JSON"
_TEMPLATES = {
    "expected ',' or ']'": _ARRAY_SEPARATOR,
    "expected ',' or '}'": _OBJECT_SEPARATOR,
    "expected ':'": _COLON,
    "trailing comma in object": _KEY,
    "object keys must be strings": _KEY,
}
_ESCAPE_ERRORS = (
    "invalid escape character in string",
    "invalid character in unicode escape",
    "invalid escaped character",
    "unexpected end of hex escape",
)
_END_OF_INPUT = "Unexpected end of JSON input"


Decode = Callable[[bytes], Any]


def large_text_error(source: str, data: bytes, failure: str, decode: Decode) -> str:
    """V8's message for ``source`` (``data``: the bytes msgspec's ``decode`` refused with
    ``failure``), or ``""`` when V8 reads the text after all (the caller decodes it then)."""
    if _SURROGATE_ESCAPE.search(source) or "\ufffd" in source:
        data = _SURROGATE_ESCAPE.sub(r"\\u00", source).encode()
        try:
            decode(data)
        except msgspec.DecodeError as error:
            failure = str(error)
        else:
            return ""
    found = _MSGSPEC_ERROR.match(failure)
    if found is None:  # "Input data was truncated": a valid beginning that ends early
        return _at_end(source, data, decode)
    what = found["what"]
    byte = int(found["byte"]) - (what == "trailing characters")  # it names the byte after that one
    index = len(data[:byte].decode("utf-8", "ignore"))  # (it may name a character's second byte)
    if what == "object keys must be strings" and source[:index].rstrip(_JSON_WHITESPACE).endswith("{"):
        return message_at(source, index, _FIRST_KEY)
    if what in _TEMPLATES:
        return message_at(source, index, _TEMPLATES[what])
    if what == "trailing characters":
        return message_at(source, index, "Unexpected non-whitespace character after JSON")
    if what == "trailing comma in array":
        return message_at(source, index, None)
    if what in _ESCAPE_ERRORS:  # msgspec names the byte after the escape's bad character
        backslash = source.rfind("\\u", max(0, index - 6), index) if "unicode" in what else index - 2
        return _scan(source, backslash, _V8Parser._string, index + 2) or message_at(source, index, None)
    return _in_value(source, index)


def _in_value(source: str, index: int) -> str:
    """The error in the number or literal where msgspec stopped, or at the character there
    (a control character in a string, or one that starts no value)."""
    if index < len(source) and ord(source[index]) < 0x20 and _in_string(source, index):
        return message_at(source, index, "Bad control character in string literal in JSON")
    literal = _literal_error(source, index, index + 2)
    if literal:
        return literal
    start = max(source.rfind(mark, 0, index) for mark in "[{,:") + 1
    start = len(source) - len(source[start:].lstrip(_JSON_WHITESPACE)) if start < index else index
    return _scan(source, start, _V8Parser._value, index + 2) or message_at(source, index, None)


def _literal_error(source: str, index: int, end: int) -> str:
    """The error in a ``true``, ``false`` or ``null`` msgspec stopped in: it names the byte
    a whole literal's length after the literal's first letter (or, at the end of the text,
    none)."""
    for start, letters in (
        (index - 4, "tn"),
        (index - 5, "f"),
        *((at, "tfn") for at in range(index - 4, index)),
    ):
        if (
            start >= 0
            and source[start : start + 1] in tuple(letters)
            and _value_expected(source, start)
            and not _in_string(source, start)
        ):
            found = _scan(source, start, _V8Parser._value, end)
            if found:
                return found
    return ""


def _value_expected(source: str, index: int) -> bool:
    return source[:index].rstrip(_JSON_WHITESPACE)[-1:] in ("", "[", "{", ",", ":")


def _in_string(source: str, index: int) -> bool:
    """Whether ``source[index]`` is inside a string (the text before it being valid JSON's
    beginning, a backslash is always part of an escape)."""
    plain = source[:index].replace("\\\\", "__").replace('\\"', "__")
    return plain.count('"') % 2 == 1


def _scan(source: str, start: int, step: Callable[[_V8Parser], None], end: int) -> str:
    """Run one V8 scanner step over ``source[start:end]``: its message, or ``""`` when the
    step succeeds there or fails only for want of the text beyond ``end``."""
    end = min(len(source), end)
    if start < 0 or end - start > _MAX_TOKEN:
        return ""
    parser = _V8Parser(_as_code_units(source[start:end]))
    try:
        step(parser)
    except _V8Error as error:
        if error.position >= parser.end and end < len(source):
            return ""
        if error.token == "eos" and error.template is None:
            return _END_OF_INPUT
        return message_at(source, start + len(_join(parser.chars[: error.position])), error.template)
    return ""


def _at_end(source: str, data: bytes, decode: Decode) -> str:
    """V8's message for text that is a valid beginning of JSON but ends early."""
    literal = _literal_error(source, len(source), len(source))
    if literal:  # (checked first: a literal cut short may be followed by a quote)
        return literal
    if _in_string(source, len(source)):
        escape = _last_escape(source)
        found = _scan(source, escape, _V8Parser._string, len(source)) if escape >= 0 else ""
        return found or message_at(source, len(source), "Unterminated string in JSON")
    last = source.rstrip(_JSON_WHITESPACE)[-1:]
    if last in ("", "[", ":"):
        return _END_OF_INPUT
    if last == "{":
        return message_at(source, len(source), _FIRST_KEY)
    expected = _open_object_expects(data, decode)
    if expected is None and last == ",":  # in an array, a value is missing
        return _END_OF_INPUT
    return message_at(source, len(source), expected or _ARRAY_SEPARATOR)


def _last_escape(source: str) -> int:
    """Where the escape the text ends in (``\\`` or ``\\u`` and up to four characters)
    begins, or -1."""
    for at in range(len(source) - 1, max(len(source) - 7, -1), -1):
        before = source[: at + 1]
        if source[at] == "\\" and (len(before) - len(before.rstrip("\\"))) % 2:
            return at
    return -1


def _open_object_expects(data: bytes, decode: Decode) -> str | None:
    """What the innermost open object expects at the end of ``data``, or ``None`` when the
    innermost open container is an array: ``]`` appended closes an array and is refused,
    right there, by an object."""
    try:
        decode(data + b"]")
    except msgspec.DecodeError as error:
        found = _MSGSPEC_ERROR.match(str(error))
        if found and int(found["byte"]) == len(data) and found["what"] != "trailing comma in array":
            return _TEMPLATES.get(found["what"], _OBJECT_SEPARATOR)
    return None


def message_at(source: str, index: int, template: str | None) -> str:
    """V8's message for an error at ``source[index]`` (a code point index; ``template``:
    V8's text for what it expected there, ``None`` for an unexpected token), computed from
    the few characters around it."""
    position = utf16_len(source[:index])
    line_start = max(source.rfind("\n", 0, index), source.rfind("\r", 0, index)) + 1
    line = 1 + source.count("\n", 0, index) + source.count("\r", 0, index) - source.count("\r\n", 0, index)
    where = f"at position {position} (line {line} column {1 + utf16_len(source[line_start:index])})"
    if template is not None:
        return f"{template} {where}"
    if index >= len(source):
        return _END_OF_INPUT
    if source[index] in "-0123456789":
        return f"Unexpected number in JSON {where}"
    if source[index] == '"':
        return f"Unexpected string in JSON {where}"
    before = _as_code_units(source[max(0, index - _CONTEXT) : index])[-_CONTEXT:]
    after = _as_code_units(source[index : index + _CONTEXT + 1])
    token = after[0]
    if position < _CONTEXT:
        return f"Unexpected token '{token}', \"{_join(before + after[:_CONTEXT])}\"... is not valid JSON"
    if len(after) > _CONTEXT:
        return f"Unexpected token '{token}', ...\"{_join(before + after[:_CONTEXT])}\"... is not valid JSON"
    return f"Unexpected token '{token}', ...\"{_join(before + after)}\" is not valid JSON"
