"""Tool-call arguments while their JSON text is still streaming.

Pi re-parses the whole argument text at every delta (``parseStreamingJson``: ``JSON.parse``
with a string repair, then the npm ``partial-json`` parser, then ``{}``), which costs time
quadratic in the argument length. ``PartialJson`` gives the same value at every delta for
ordinary JSON text but does constant work per character: a resumable tokenizer keeps the
containers it built and only extends the innermost open value.

What Pi shows for a prefix of valid JSON (and so what ``PartialJson.value`` holds):

- complete members, plus the member being written when its value has started: a string
  shows its decoded prefix (an unfinished escape is left out), ``t``/``f``/``n`` prefixes
  read as ``true``/``false``/``null``, a number shows its value once it is valid JSON (an
  unfinished exponent ``1e``/``1e-`` shows the mantissa; ``-`` or ``1.`` are left out), and
  a nested object or array shows what it holds so far;
- a key whose value has not started yet is left out.

Input outside that subset (raw control characters in strings, invalid escapes, a top level
that is not an object, anything malformed, and the ``[ ]`` spelling that trips
``partial-json``) switches the parser to an exact port of Pi's algorithm for the rest of
that text, so results stay equal to Pi's, just no longer incremental.

Values follow JavaScript number semantics: a JSON number without fraction or exponent is an
``int``; any other number that is integral becomes an ``int`` too (``1.0`` -> ``1``) so it is
written back as JavaScript would. Pi's result is a fresh object per delta; here the same
``dict`` is updated in place (copy it to keep a snapshot). A non-object result (which Pi
would pass through) is reported as ``{}`` since tool arguments are an object.
"""

from __future__ import annotations

import re
from typing import Any

from pi_ai.js_json import JS_WHITESPACE, js_text, js_trim
from pi_ai.js_json import parse as _json_parse

__all__ = [
    "ARGUMENTS_ERROR_KEY",
    "MAX_ARGUMENT_DEPTH",
    "PartialJson",
    "finished_arguments",
    "parse_json_with_repair",
    "parse_streaming_json",
    "repair_json",
]

MAX_ARGUMENT_DEPTH = 256
"""Tool arguments nested deeper than this are not kept (Pi keeps any depth): Python's
serializers and the schema check recurse once or twice a level, and 5,000 levels failed the
whole answer with a recursion error. Such arguments read as ``too_deep_arguments()``, which
the agent answers with an error result (docs/security.md)."""
ARGUMENTS_ERROR_KEY = "piArgumentsError"


def too_deep_arguments() -> dict[str, Any]:
    """What arguments nested deeper than ``MAX_ARGUMENT_DEPTH`` read as."""
    return {ARGUMENTS_ERROR_KEY: f"arguments nested deeper than {MAX_ARGUMENT_DEPTH} levels"}


def _too_deep(value: Any) -> bool:
    """Whether ``value`` nests containers deeper than ``MAX_ARGUMENT_DEPTH`` (no recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        for child in children:
            if isinstance(child, dict | list):
                if depth >= MAX_ARGUMENT_DEPTH:
                    return True
                stack.append((child, depth + 1))
    return False

# --------------------------------------------------------------------------- repair (Pi's repairJson)

_VALID_ESCAPES = frozenset('"\\/bfnrtu')
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")
_CONTROL_ESCAPES = {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def repair_json(text: str) -> str:
    """Escape raw control characters inside strings; double a backslash before an invalid escape."""
    out: list[str] = []
    in_string = False
    index = 0
    length = len(text)
    while index < length:
        char = text[index]
        if not in_string:
            out.append(char)
            if char == '"':
                in_string = True
            index += 1
            continue
        if char == '"':
            out.append(char)
            in_string = False
            index += 1
            continue
        if char == "\\":
            if index + 1 >= length:
                out.append("\\\\")
                index += 1
                continue
            following = text[index + 1]
            if following == "u" and _HEX4.fullmatch(text, index + 2, index + 6):
                out.append(text[index : index + 6])
                index += 6
                continue
            if following in _VALID_ESCAPES:
                out.append("\\" + following)
                index += 2
                continue
            out.append("\\\\")
            index += 1
            continue
        if ord(char) <= 0x1F:
            out.append(_CONTROL_ESCAPES.get(char, f"\\u{ord(char):04x}"))
        else:
            out.append(char)
        index += 1
    return "".join(out)


def parse_json_with_repair(text: str) -> Any:
    """``JSON.parse``; if that fails and the repaired text differs, parse the repaired text."""
    try:
        return _json_parse(text)
    except ValueError:
        repaired = repair_json(text)
        if repaired == text:
            raise
        return _json_parse(repaired)


def finished_arguments(text: str) -> tuple[dict[str, Any], str | None]:
    """The arguments of a finished tool call from its whole JSON text, as Pi 1.6 reads them
    (pi-ai's ``parseToolCallArguments``): no partial prefix is kept once the call is complete.
    Text that is not a JSON object (after the string repair) gives ``{}`` and the reason, which
    names the text received: the tool call's ``argumentsError``."""
    if not text or not js_trim(text):
        return {}, None
    try:
        parsed = parse_json_with_repair(text)
        if not isinstance(parsed, dict):
            raise ValueError("Tool arguments must be a JSON object")
    except RecursionError:
        return too_deep_arguments(), None
    except ValueError as error:
        return {}, f"{error}\n\nReceived arguments:\n{text}"
    return (too_deep_arguments() if _too_deep(parsed) else parsed), None


# --------------------------------------------------------------------------- port of npm partial-json


class _PartialError(Exception):
    pass


def _js_substring(text: str, start: int, end: int) -> str:
    """JavaScript ``String.prototype.substring`` (negative -> 0, swapped bounds)."""
    length = len(text)
    start = min(max(start, 0), length)
    end = min(max(end, 0), length)
    if start > end:
        start, end = end, start
    return text[start:end]


def _partial_parse(source: str) -> Any:
    """``partial-json``'s ``parse(text, Allow.ALL)``, including its quirks."""
    if not js_trim(source):
        raise _PartialError("empty")
    text = js_trim(source)
    length = len(text)
    index = 0

    def at(i: int) -> str:
        return text[i] if 0 <= i < length else ""

    def skip_blank() -> None:
        nonlocal index
        while index < length and text[index] in " \n\r\t":
            index += 1

    def parse_any() -> Any:
        nonlocal index
        skip_blank()
        if index >= length:
            raise _PartialError("Unexpected end of input")
        char = text[index]
        if char == '"':
            return parse_str()
        if char == "{":
            return parse_obj()
        if char == "[":
            return parse_arr()
        rest = text[index:]
        for literal, value in (
            ("null", None),
            ("true", True),
            ("false", False),
            ("Infinity", float("inf")),
        ):
            if text.startswith(literal, index) or (
                length - index < len(literal) and literal.startswith(rest)
            ):
                index += len(literal)
                return value
        if text.startswith("-Infinity", index) or (1 < length - index < 9 and "-Infinity".startswith(rest)):
            index += 9
            return float("-inf")
        if text.startswith("NaN", index) or (length - index < 3 and "NaN".startswith(rest)):
            index += 3
            return float("nan")
        return parse_num()

    def parse_str() -> Any:
        nonlocal index
        start = index
        escape = False
        index += 1
        while index < length and (text[index] != '"' or (escape and text[index - 1] == "\\")):
            escape = (not escape) if text[index] == "\\" else False
            index += 1
        if at(index) == '"':
            index += 1
            try:
                return _json_parse(_js_substring(text, start, index - int(escape)))
            except ValueError as error:
                raise _PartialError(str(error)) from None
        try:
            return _json_parse(_js_substring(text, start, index - int(escape)) + '"')
        except ValueError:
            try:
                return _json_parse(_js_substring(text, start, text.rfind("\\")) + '"')
            except ValueError as error:
                raise _PartialError(str(error)) from None

    def parse_obj() -> dict[str, Any]:
        nonlocal index
        index += 1
        skip_blank()
        obj: dict[str, Any] = {}
        try:
            while at(index) != "}":
                skip_blank()
                if index >= length:
                    return obj
                key = parse_str()
                skip_blank()
                index += 1
                try:
                    obj[key if isinstance(key, str) else js_text(key)] = parse_any()
                except _PartialError:
                    return obj
                skip_blank()
                if at(index) == ",":
                    index += 1
        except _PartialError:
            return obj
        index += 1
        return obj

    def parse_arr() -> list[Any]:
        nonlocal index
        index += 1
        arr: list[Any] = []
        try:
            while at(index) != "]":
                arr.append(parse_any())
                skip_blank()
                if at(index) == ",":
                    index += 1
        except _PartialError:
            return arr
        index += 1
        return arr

    def parse_num() -> Any:
        nonlocal index
        if index == 0:
            if text == "-":
                raise _PartialError("Not sure what '-' is")
            try:
                return _json_parse(text)
            except ValueError as error:
                try:
                    return _json_parse(_js_substring(text, 0, text.rfind("e")))
                except ValueError:
                    pass
                raise _PartialError(str(error)) from None
        start = index
        if at(index) == "-":
            index += 1
        while index < length and text[index] not in ",]}":
            index += 1
        try:
            return _json_parse(_js_substring(text, start, index))
        except ValueError:
            if _js_substring(text, start, index) == "-":
                raise _PartialError("Not sure what '-' is") from None
            try:
                return _json_parse(_js_substring(text, start, text.rfind("e")))
            except ValueError as error:
                raise _PartialError(str(error)) from None

    return parse_any()


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _split_astral(match: re.Match[str]) -> str:
    offset = ord(match.group()) - 0x10000
    return chr(0xD800 + (offset >> 10)) + chr(0xDC00 + (offset & 0x3FF))


def _to_code_units(text: str) -> str:
    """Spell characters outside the BMP as two surrogates, as JavaScript strings index them."""
    return _ASTRAL.sub(_split_astral, text)


def _from_code_units(value: Any) -> Any:
    """Re-join surrogate pairs in every string of a parsed value."""
    if isinstance(value, str):
        return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    if isinstance(value, list):
        return [_from_code_units(item) for item in value]
    if isinstance(value, dict):
        return {_from_code_units(key): _from_code_units(item) for key, item in value.items()}
    return value


def parse_streaming_json(text: str) -> dict[str, Any]:
    """Pi's ``parseStreamingJson``, non-incremental: the value shown for this argument text."""
    if not text or not js_trim(text):
        return {}
    result: Any
    try:
        result = parse_json_with_repair(text)
    except (ValueError, RecursionError):
        # partial-json walks UTF-16 code units; so must we when it meets odd input.
        astral = _ASTRAL.search(text) is not None
        units = _to_code_units(text) if astral else text
        try:
            result = _partial_parse(units)
        except (_PartialError, ValueError, RecursionError):
            try:
                result = _partial_parse(repair_json(units))
            except (_PartialError, ValueError, RecursionError):
                return {}
        if astral:
            result = _from_code_units(result)
    if not isinstance(result, dict):
        return {}
    return too_deep_arguments() if _too_deep(result) else result


# --------------------------------------------------------------------------- incremental parser

_WS_RUN = re.compile(r"[ \t\n\r]*")
_STRING_RUN = re.compile(r'[^"\\\x00-\x1f]*')
_NUMBER_RUN = re.compile(r"[0-9eE+\-.]*")
_VALID_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}

# Tokenizer states.
_VALUE = 0  # a value must start here
_FIRST_KEY = 1  # after "{": a key or "}"
_KEY = 2  # after "," in an object: a key
_KEY_STRING = 3  # inside a key
_COLON = 4  # after a key
_AFTER = 5  # after a value inside a container: "," or the closing bracket
_STRING = 6  # inside a string value
_NUMBER = 7  # inside a number
_LITERAL = 8  # inside true / false / null
_END = 9  # the top-level object is complete
_FIRST_ITEM = 10  # after "[": a value or "]"
_FIRST_ITEM_SPACE = 11  # after "[" and whitespace: a value ("]" here trips partial-json)

_MISSING: Any = object()
_OMIT: Any = object()


class _Fallback(Exception):
    """Input outside the incremental subset: use the exact port from here on."""


def _number_value(text: str) -> Any:
    """What ``partial-json`` shows for a number token at the end of the text (or ``_OMIT``)."""
    if _VALID_NUMBER.fullmatch(text):
        return _json_parse(text)
    cut = text.rfind("e")
    if cut > 0 and _VALID_NUMBER.fullmatch(text, 0, cut):
        return _json_parse(text[:cut])
    return _OMIT


class _TooDeep(Exception):
    """The arguments nest deeper than ``MAX_ARGUMENT_DEPTH``."""


class PartialJson:
    """Streaming arguments of one tool call: ``feed(delta)`` returns the value Pi would show."""

    __slots__ = (
        "_chunks",
        "_containers",
        "_deep",
        "_escape",
        "_key",
        "_key_parts",
        "_literal",
        "_number",
        "_pending_space",
        "_placed",
        "_previous",
        "_slow",
        "_state",
        "value",
    )

    def __init__(self) -> None:
        self._chunks: list[str] = []
        self.value: dict[str, Any] = {}
        """The current arguments (the same object across deltas while the text stays ordinary)."""
        self._containers: list[dict[str, Any] | list[Any]] = []
        self._state = _VALUE
        self._key: str | None = None
        self._key_parts: list[str] = []
        self._pending_space = ""
        """Raw whitespace at the end of the open string: partial-json trims it until more follows."""
        self._placed = False
        self._escape = ""
        self._number = ""
        self._literal = ""
        self._previous: Any = _MISSING
        self._slow = False
        self._deep = False

    @property
    def text(self) -> str:
        """Everything fed so far."""
        if len(self._chunks) > 1:
            self._chunks[:] = ["".join(self._chunks)]
        return self._chunks[0] if self._chunks else ""

    def feed(self, delta: str) -> dict[str, Any]:
        """Append ``delta`` and return the arguments as Pi shows them now (once they nest
        deeper than ``MAX_ARGUMENT_DEPTH``: ``too_deep_arguments()``, whatever follows)."""
        self._chunks.append(delta)
        if self._deep:
            return self.value
        if not self._slow:
            try:
                self._consume(delta)
                self._show_open_value()
                return self.value
            except _Fallback:
                self._slow = True
            except _TooDeep:
                self._deep = True
                self.value = too_deep_arguments()
                return self.value
        self.value = parse_streaming_json(self.text)
        return self.value

    # -- tokenizer

    def _consume(self, text: str) -> None:
        index = 0
        length = len(text)
        while index < length:
            state = self._state
            if state == _STRING:
                index = self._string_chars(text, index)
                continue
            if state == _KEY_STRING:
                index = self._key_chars(text, index)
                continue
            char = text[index]
            if char in " \t\n\r":
                if state == _NUMBER:
                    self._end_number()
                elif state == _LITERAL:
                    self._end_literal()
                elif state == _FIRST_ITEM:
                    self._state = _FIRST_ITEM_SPACE
                index = _WS_RUN.match(text, index).end()  # type: ignore[union-attr]
                continue
            if state == _NUMBER:
                end = _NUMBER_RUN.match(text, index).end()  # type: ignore[union-attr]
                if end > index:
                    self._number += text[index:end]
                    index = end
                    continue
                self._end_number()
                continue
            if state == _LITERAL:
                if char.isalpha():
                    self._literal += char
                    if len(self._literal) > 5:
                        raise _Fallback
                    index += 1
                    continue
                self._end_literal()
                continue
            if state in (_VALUE, _FIRST_ITEM, _FIRST_ITEM_SPACE):
                if char == "]" and state != _VALUE:
                    if state == _FIRST_ITEM_SPACE:
                        raise _Fallback  # partial-json misreads "[ ]" until the text is complete
                    self._close()
                    index += 1
                    continue
                self._start_value(char)
                index += 1
                continue
            if state in (_FIRST_KEY, _KEY):
                if char == '"':
                    self._state = _KEY_STRING
                    self._key_parts = []
                    self._escape = ""
                elif char == "}" and state == _FIRST_KEY:
                    self._close()
                else:
                    raise _Fallback
                index += 1
                continue
            if state == _COLON:
                if char != ":":
                    raise _Fallback
                self._state = _VALUE
                index += 1
                continue
            if state == _AFTER:
                container = self._containers[-1]
                if char == ",":
                    self._state = _KEY if isinstance(container, dict) else _VALUE
                elif (char == "}" and isinstance(container, dict)) or (
                    char == "]" and isinstance(container, list)
                ):
                    self._close()
                else:
                    raise _Fallback
                index += 1
                continue
            raise _Fallback  # _END followed by more than whitespace

    def _start_value(self, char: str) -> None:
        if not self._containers:
            if char != "{":
                raise _Fallback
            self.value = {}
            self._containers.append(self.value)
            self._state = _FIRST_KEY
            return
        parent = self._containers[-1]
        if char == "{" or char == "[":
            if len(self._containers) >= MAX_ARGUMENT_DEPTH:
                raise _TooDeep
            child: dict[str, Any] | list[Any] = {} if char == "{" else []
            if isinstance(parent, dict):
                assert self._key is not None
                parent[self._key] = child
            else:
                parent.append(child)
            self._containers.append(child)
            self._key = None
            self._state = _FIRST_KEY if char == "{" else _FIRST_ITEM
            return
        self._previous = parent.get(self._key or "", _MISSING) if isinstance(parent, dict) else _MISSING
        if char == '"':
            self._state = _STRING
            self._pending_space = ""
            self._escape = ""
            self._show("")
        elif char == "-" or "0" <= char <= "9":
            self._state = _NUMBER
            self._number = char
        elif char in "tfn":
            self._state = _LITERAL
            self._literal = char
        else:
            raise _Fallback

    def _close(self) -> None:
        self._containers.pop()
        self._key = None
        self._state = _AFTER if self._containers else _END

    def _string_chars(self, text: str, index: int) -> int:
        """Consume string content; returns the new index (after the closing quote if any).

        The open string lives in its container and grows in place; raw trailing whitespace is
        held back (``_pending_space``) because Pi's parser trims it while the text ends there.
        """
        if self._escape:
            index = self._escape_chars(text, index)
            if self._escape:
                return index
        end = _STRING_RUN.match(text, index).end()  # type: ignore[union-attr]
        if end > index:
            run = text[index:end]
            kept = run.rstrip(JS_WHITESPACE)
            if kept:
                self._grow(self._pending_space + kept)
                self._pending_space = run[len(kept) :]
            else:
                self._pending_space += run
            index = end
        if index >= len(text):
            return index
        char = text[index]
        if char == '"':
            if self._pending_space:
                self._grow(self._pending_space)
                self._pending_space = ""
            self._state = _AFTER
            self._placed = False
            self._previous = _MISSING
            return index + 1
        if char == "\\":
            if self._pending_space:  # text ending in an escape is not trimmed
                self._grow(self._pending_space)
                self._pending_space = ""
            self._escape = "\\"
            return self._escape_chars(text, index + 1)
        raise _Fallback  # a raw control character: Pi repairs or drops it

    def _escape_chars(self, text: str, index: int) -> int:
        """Continue an escape sequence; decode it once complete."""
        escape = self._escape
        length = len(text)
        while index < length:
            escape += text[index]
            index += 1
            if len(escape) == 2:
                if escape[1] in _SIMPLE_ESCAPES:
                    self._grow(_SIMPLE_ESCAPES[escape[1]])
                    self._escape = ""
                    return index
                if escape[1] != "u":
                    raise _Fallback
            elif len(escape) == 6:
                if not _HEX4.fullmatch(escape, 2):
                    raise _Fallback
                self._add_code_unit(int(escape[2:], 16))
                self._escape = ""
                return index
        self._escape = escape
        return index

    def _add_code_unit(self, unit: int) -> None:
        current = self._open_string()
        if 0xDC00 <= unit <= 0xDFFF and current and 0xD800 <= ord(current[-1]) <= 0xDBFF:
            pair = (current[-1] + chr(unit)).encode("utf-16-le", "surrogatepass").decode("utf-16-le")
            self._show(current[:-1] + pair)
        else:
            self._grow(chr(unit))

    def _open_string(self) -> str:
        parent = self._containers[-1]
        value = parent[self._key] if isinstance(parent, dict) else parent[-1]  # type: ignore[index]
        return value if isinstance(value, str) else ""

    def _grow(self, extra: str) -> None:
        """Append to the open string without copying it: take it out of its container so this
        is the only reference (CPython then resizes it in place) and put it back."""
        parent = self._containers[-1]
        if isinstance(parent, dict):
            key = self._key
            assert key is not None
            if next(reversed(parent)) == key:  # re-inserting the last key keeps the order
                value = parent.pop(key)
                value += extra
                parent[key] = value
            else:
                parent[key] = parent[key] + extra
        else:
            value = parent.pop()
            value += extra
            parent.append(value)

    def _key_chars(self, text: str, index: int) -> int:
        end = _STRING_RUN.match(text, index).end()  # type: ignore[union-attr]
        if self._escape or (end < len(text) and text[end] == "\\"):
            raise _Fallback  # escaped keys are rare; the exact path handles them
        if end > index:
            self._key_parts.append(text[index:end])
        if end >= len(text):
            return end
        if text[end] != '"':
            raise _Fallback
        self._key = "".join(self._key_parts)
        self._state = _COLON
        return end + 1

    def _end_number(self) -> None:
        value = _number_value(self._number)
        if value is _OMIT:
            raise _Fallback  # not a valid number once terminated
        self._assign(value)
        self._state = _AFTER

    def _end_literal(self) -> None:
        literal = self._literal
        if literal == "true":
            self._assign(True)
        elif literal == "false":
            self._assign(False)
        elif literal == "null":
            self._assign(None)
        else:
            raise _Fallback
        self._state = _AFTER

    # -- what the open value shows

    def _assign(self, value: Any) -> None:
        """Store the completed scalar in its container."""
        parent = self._containers[-1]
        if isinstance(parent, dict):
            assert self._key is not None
            parent[self._key] = value
        elif self._placed:
            parent[-1] = value
        else:
            parent.append(value)
        self._placed = False
        self._previous = _MISSING

    def _show_open_value(self) -> None:
        state = self._state
        if state == _NUMBER:
            self._show(_number_value(self._number))
        elif state == _LITERAL:
            literal = self._literal
            for word, value in (("true", True), ("false", False), ("null", None)):
                if word.startswith(literal):
                    self._show(value)
                    return
            raise _Fallback

    def _show(self, value: Any) -> None:
        """Put the open scalar in its container (``_OMIT`` takes it out again)."""
        parent = self._containers[-1]
        if isinstance(parent, dict):
            key = self._key
            assert key is not None
            if value is not _OMIT:
                parent[key] = value
            elif self._previous is _MISSING:
                parent.pop(key, None)
            else:
                parent[key] = self._previous
        elif value is _OMIT:
            if self._placed:
                parent.pop()
        elif self._placed:
            parent[-1] = value
        else:
            parent.append(value)
        self._placed = value is not _OMIT
