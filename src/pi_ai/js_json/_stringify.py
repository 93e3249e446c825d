"""``JSON.stringify`` and ``String(value)`` as JavaScript writes them.

Python and JavaScript agree on the digits of a double (both print the shortest text that
reads back as the same number) but not on the layout: JavaScript writes an integral number
without a fraction (``3``, not ``3.0``), switches to exponent form only below ``1e-6`` or from
``1e21`` on, and spells exponents ``1e+21`` / ``1e-7``. Strings differ only for unpaired
surrogates, which JavaScript escapes (``"\\ud83d"``) where Python's UTF-8 codecs refuse them.

``JsEncoder`` is msgspec's encoder with those differences mended: msgspec writes everything
else byte for byte as ``JSON.stringify`` does (compact separators, non-ASCII kept, the same
escapes), so only the floats it spells differently are rewritten. One more difference is
key order: a JavaScript object lists its array-index keys (``"0"`` .. ``"4294967294"``) first,
in ascending numeric order, then the other keys in insertion order. A dict with such a key is
rare, so it is found while walking the value (``scan_value``; in the text of the objects the
walk cannot see into) and only then written again in JavaScript's order.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import msgspec

__all__ = [
    "JS_WHITESPACE",
    "JsEncoder",
    "Scan",
    "js_field",
    "js_number",
    "js_text",
    "js_trim",
    "scan_value",
    "stringify",
]


def js_number(value: float | bool) -> str:
    """``String(value)`` of a JavaScript number (ECMAScript ``Number::toString``)."""
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)  # exactly, also beyond 2**53 (see JsEncoder)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    mantissa, _, exponent_text = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    all_digits = whole + fraction
    significant = all_digits.lstrip("0")
    # position of the decimal point relative to the first significant digit
    point = len(whole) + (int(exponent_text) if exponent_text else 0) - (len(all_digits) - len(significant))
    digits = significant.rstrip("0") or "0"
    count = len(digits)
    if count <= point <= 21:
        text = digits + "0" * (point - count)
    elif 0 < point <= 21:
        text = digits[:point] + "." + digits[point:]
    elif -6 < point <= 0:
        text = "0." + "0" * (-point) + digits
    else:
        exponent = point - 1
        text = digits[0] + ("." + digits[1:] if count > 1 else "") + ("e+" if exponent >= 0 else "e-")
        text += str(abs(exponent))
    return sign + text


def _json_number(value: float) -> str:
    """A number inside ``JSON.stringify`` output: non-finite numbers are ``null``."""
    text = js_number(value)
    return "null" if text in ("NaN", "Infinity", "-Infinity") else text


# --------------------------------------------------------------------------- the encoder


def _spelled_like_javascript(value: float) -> bool:
    """Whether msgspec writes ``value`` as JavaScript does: it differs for integral doubles
    (``3.0``, ``-0.0``, ``1e16``, ``1e21``), for [1e-6, 1e-5) (``2.5e-6`` where JavaScript writes
    ``0.0000025``) and for non-finite ones (JavaScript's ``null``)."""
    if value.is_integer() or not math.isfinite(value):
        return False
    size = abs(value)
    return not 1e-6 <= size < 1e-5


_UNSET = msgspec.UNSET
_PLAIN = frozenset({str, int, bool, bytes, type(None), type(_UNSET)})
"""Types msgspec writes as ``JSON.stringify`` would (bytes as base64 text, as the AWS SDK sends them)."""
_PLAIN_KEYS: set[str] = set()
"""Object keys seen that are not array indexes: ``issuperset`` checks a dict's keys against
it in one C call. Payload keys come from a small vocabulary (plus tool argument names)."""
_PLAIN_KEYS_LIMIT = 4096


class Scan(NamedTuple):
    """What ``scan_value`` found in a value about to be encoded."""

    mend: bool
    """A float msgspec spells unlike JavaScript, or an object only ``enc_hook`` knows."""
    index_keys: bool
    """A dict key that may be a JavaScript array index (``"0"``..): JavaScript lists those first."""
    flagged: bool
    """A struct whose instance attribute ``flag`` is ``True``."""
    opaque: bool
    """An object the walk cannot see into (one ``enc_hook`` or msgspec itself encodes): its
    text is searched for array-index keys instead."""


def _has_index_key(mapping: Mapping[Any, Any]) -> bool:
    found = False
    for key in mapping:
        if not isinstance(key, str) or (key[:1].isdigit() and _is_index(key)):
            found = True
        elif len(_PLAIN_KEYS) < _PLAIN_KEYS_LIMIT:
            _PLAIN_KEYS.add(key)
    return found


def scan_value(value: Any, flag: str | None = None) -> Scan:
    """Walk ``value`` once (containers and structs, without recursion) for what decides how it
    is encoded: see ``Scan``. The work is per value, not per byte of text, so long strings cost
    nothing here; one walk replaces a walk per question and a regular expression search over
    the encoded text (on a 3.5 MB request body: about 35 ms, ``bench/request_build.py``).
    """
    stack = [value]
    pop = stack.pop
    push = stack.extend
    astuple = msgspec.structs.astuple
    plain = _PLAIN
    plain_keys = _PLAIN_KEYS.issuperset
    mend = index_keys = flagged = opaque = False
    while stack:
        item = pop()
        kind = type(item)
        if kind in plain:
            continue
        if kind is dict:
            if not index_keys and not plain_keys(item):
                index_keys = _has_index_key(item)
            push(item.values())
        elif kind is list or kind is tuple:
            push(item)
        elif isinstance(item, msgspec.Struct):
            if flag is not None and not flagged and getattr(item, flag, False) is True:
                flagged = True
            push(astuple(item))
        elif isinstance(item, float):
            if not mend and not _spelled_like_javascript(item):
                mend = True
        elif isinstance(item, dict):
            if not index_keys:
                index_keys = _has_index_key(item)
            push(item.values())
        elif isinstance(item, list | tuple):
            push(item)
        elif not isinstance(item, str | int):  # str and int subclasses (enums) are safe
            mend = opaque = True
    return Scan(mend, index_keys, flagged, opaque)


_INDEX_KEY = re.compile(rb'[{,]"(?:0|[1-9][0-9]{0,9})":')
"""An object key that may be an array index. A ``"`` inside a string is always escaped, so
this finds keys (and nothing else)."""
_MAX_INDEX = 2**32 - 2


def _is_index(key: str) -> bool:
    return key.isdigit() and (key == "0" or key[0] != "0") and key.isascii() and int(key) <= _MAX_INDEX


def _js_key_order(mapping: Mapping[Any, Any]) -> list[Any]:
    """The keys of ``mapping`` in the order JavaScript lists an object's own properties."""
    keys = list(mapping)
    indexes = [key for key in keys if _is_index(str(key))]
    if not indexes:
        return keys
    indexes.sort(key=lambda key: int(str(key)))
    chosen = set(indexes)
    return indexes + [key for key in keys if key not in chosen]


_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|-?[0-9][0-9.eE+-]*')


def _mend_token(match: re.Match[bytes]) -> bytes:
    token = match.group()
    if token[0] == 0x22 or not (b"." in token or b"e" in token or b"E" in token):
        return token  # a string, or an integer (written exactly, see js_number)
    return _json_number(float(token)).encode()


def mend_numbers(data: bytes) -> bytes:
    """msgspec's JSON text with every float written as ``JSON.stringify`` writes it."""
    return _TOKEN.sub(_mend_token, data)


class JsEncoder:
    """``JSON.stringify`` (compact) for anything msgspec encodes: structs, dicts, lists, ...

    ``enc_hook`` is msgspec's hook for other objects. The output is msgspec's; when the value
    holds a float msgspec spells differently, the number tokens are rewritten (one regular
    expression pass). Text with unpaired surrogates, which msgspec cannot write as UTF-8, goes
    through ``msgspec.to_builtins`` and the pure-Python writer instead.

    Integers are written exactly, also beyond 2**53 where JavaScript would round them: a
    deliberate difference that keeps large ids intact (docs/providers/streams.md).
    """

    __slots__ = ("_enc_hook", "_encode")

    def __init__(self, enc_hook: Callable[[Any], Any] | None = None) -> None:
        self._encode = msgspec.json.Encoder(enc_hook=enc_hook).encode
        self._enc_hook = enc_hook

    def encode(self, value: Any, *, scan: Scan | None = None) -> bytes:
        """The text of ``value``; ``scan`` is ``scan_value(value)`` when the caller has it already."""
        try:
            data = self._encode(value)
        except UnicodeEncodeError:
            plain = msgspec.to_builtins(value, enc_hook=self._enc_hook)
            return _write(plain, 0, 0).encode("utf-8", "surrogatepass")
        if scan is None:
            scan = scan_value(value)
        if scan.index_keys or (scan.opaque and _INDEX_KEY.search(data) is not None):
            return _write(msgspec.to_builtins(value, enc_hook=self._enc_hook), 0, 0).encode()
        return mend_numbers(data) if scan.mend else data


_PLAIN_ENCODER = JsEncoder()


def stringify(value: Any, indent: int = 0) -> str:
    """``JSON.stringify(value, null, indent)`` for JSON-shaped data (dict, list, tuple, str,
    numbers, bools, None). Text with unpaired surrogates keeps them as ``\\udXXX`` escapes."""
    if not indent:
        try:
            return _PLAIN_ENCODER.encode(value).decode()
        except TypeError:  # not JSON-shaped: the writer below names the type
            pass
    return _write(value, indent, 0)


def _write(value: Any, indent: int, depth: int) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, int | float):
        return _json_number(value)
    if isinstance(value, dict):
        if not value:
            return "{}"
        colon = ": " if indent else ":"
        items = [
            f"{_string(str(key))}{colon}{_write(value[key], indent, depth + 1)}"
            for key in _js_key_order(value)
        ]
        return _join("{", items, "}", indent, depth)
    if isinstance(value, list | tuple):
        if not value:
            return "[]"
        return _join("[", [_write(item, indent, depth + 1) for item in value], "]", indent, depth)
    raise TypeError(f"Cannot encode {type(value).__name__} as JSON")


def _join(open_: str, items: list[str], close: str, indent: int, depth: int) -> str:
    if not indent:
        return open_ + ",".join(items) + close
    inner = "\n" + " " * (indent * (depth + 1))
    return open_ + inner + ("," + inner).join(items) + "\n" + " " * (indent * depth) + close


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _string(text: str) -> str:
    encoded = json.dumps(text, ensure_ascii=False)
    if _LONE_SURROGATE.search(encoded) is None:
        return encoded
    # JSON.stringify writes an unpaired surrogate as an escape instead of failing
    return _LONE_SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", encoded)


# --------------------------------------------------------------------------- String(value)


def js_text(value: Any) -> str:
    """``String(value)``: what a template literal or ``+`` makes of a JSON value."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return js_number(value)
    if isinstance(value, list):
        return ",".join("" if item is None else js_text(item) for item in value)
    return "[object Object]"


JS_WHITESPACE = (
    " \t\n\r\x0b\x0c\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
"""What JavaScript's ``String.prototype.trim`` removes (Python's ``str.strip`` removes more)."""


def js_trim(text: str) -> str:
    """``text.trim()``."""
    return text.strip(JS_WHITESPACE)


def js_field(mapping: Mapping[str, Any], key: str) -> str:
    """``String(mapping[key])``, ``"undefined"`` when the key is absent."""
    return js_text(mapping[key]) if key in mapping else "undefined"
