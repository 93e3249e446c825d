"""JavaScript's reading of parsed JSON, for the stream parsers that follow Pi's code.

Pi reads provider events with plain property access: ``event.delta.text`` is ``undefined``
when ``delta`` is ``true`` (the event is then ignored), a ``TypeError`` when ``delta`` is
``null`` (the stream ends with V8's message), and ``{}`` counts as present where Python's
``if value:`` says absent. The helpers here give the adapters those rules, so a malformed
field has the effect it has in Pi: it spoils that one event, or the whole message with Pi's
words, never a Python exception.

Values are what ``pi_ai.js_json.parse`` returns (dict, list, str, int, float, bool, None) plus
``UNDEFINED`` for a property that is not there.
"""

from __future__ import annotations

from typing import Any, Final

from pi_ai.js_json import js_text, utf16_len


class _Undefined:
    __slots__ = ()

    def __repr__(self) -> str:
        return "undefined"

    def __bool__(self) -> bool:
        return False


UNDEFINED: Final[Any] = _Undefined()
"""JavaScript's ``undefined``: what reading a missing property gives."""


class JsTypeError(Exception):
    """The ``TypeError`` V8 throws where Pi's code reads through ``null`` or ``undefined``, or
    iterates or calls something that is not iterable or callable. ``str()`` is V8's message."""


def get(value: Any, key: str) -> Any:
    """``value[key]`` for a JSON value (``UNDEFINED`` when absent); a ``JsTypeError`` on
    ``null`` and ``undefined``, as in JavaScript."""
    if type(value) is dict:
        return value.get(key, UNDEFINED)
    if value is None or value is UNDEFINED:
        raise JsTypeError(
            f"Cannot read properties of {'null' if value is None else 'undefined'} (reading '{key}')"
        )
    if isinstance(value, str):
        return utf16_len(value) if key == "length" else UNDEFINED
    if isinstance(value, list):
        return len(value) if key == "length" else UNDEFINED
    return UNDEFINED


def opt(value: Any, key: str) -> Any:
    """``value?.[key]``: ``UNDEFINED`` when ``value`` is null or undefined."""
    if type(value) is dict:
        return value.get(key, UNDEFINED)
    if value is None or value is UNDEFINED:
        return UNDEFINED
    return get(value, key)


def item(value: Any, index: int) -> Any:
    """``value[index]`` for an array index (also on objects with numeric keys and strings)."""
    if type(value) is list:
        return value[index] if 0 <= index < len(value) else UNDEFINED
    if type(value) is dict:
        return value.get(str(index), UNDEFINED)
    if value is None or value is UNDEFINED:
        raise JsTypeError(
            f"Cannot read properties of {'null' if value is None else 'undefined'} (reading '{index}')"
        )
    if isinstance(value, str):
        units = value.encode("utf-16-le", "surrogatepass")
        if 0 <= index < len(units) // 2:
            return units[index * 2 : index * 2 + 2].decode("utf-16-le", "surrogatepass")
    return UNDEFINED


def truthy(value: Any) -> bool:
    """JavaScript truthiness: objects and arrays are true even when empty."""
    kind = type(value)
    if kind is dict or kind is list:
        return True
    return value is not UNDEFINED and bool(value)


def nullish(value: Any) -> bool:
    """``value == null``: ``null`` or ``undefined``."""
    return value is None or value is UNDEFINED


def text(value: Any) -> str:
    """``String(value)`` (``"undefined"`` for a missing value): what ``str += value`` appends."""
    if type(value) is str:
        return value
    return "undefined" if value is UNDEFINED else js_text(value)


def as_text(value: Any, default: Any = "") -> Any:
    """A provider value for one of our text fields: text as is, ``default`` for null or a
    missing value, ``String(value)`` for another type (where Pi keeps the raw value)."""
    if type(value) is str:
        return value
    return default if value is None or value is UNDEFINED else js_text(value)


def strict_equal(left: Any, right: Any) -> bool:
    """``left === right`` between JSON values (objects and arrays compare by identity)."""
    if left is right:
        return True
    left_bool, right_bool = type(left) is bool, type(right) is bool
    if left_bool or right_bool:
        return False  # a boolean equals only itself (True is 1 in Python)
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, str) and isinstance(right, str):
        return left == right
    return False


def iterate(value: Any, expression: str) -> list[Any]:
    """The items ``for (const x of value)`` visits: an array's items, a string's characters;
    ``JsTypeError`` "<expression> is not iterable" for anything else."""
    if type(value) is list:
        return value
    if isinstance(value, str):
        return list(value)  # by code point, as for...of walks a string
    raise JsTypeError(f"{expression} is not iterable")


def map_key(value: Any) -> tuple[Any, Any]:
    """``value`` as a JavaScript ``Map`` key: numbers (1 and 1.0 alike), strings and booleans by
    value, objects and arrays by identity."""
    kind = type(value)
    if kind is int or kind is float:
        return (int, value)
    if kind is dict or kind is list:
        return (dict, _Identity(value))
    return (kind, value)


class _Identity:
    """Hashes and compares by identity, and keeps the object alive (so its id is not reused)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __hash__(self) -> int:
        return id(self.value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Identity) and other.value is self.value


def is_object(value: Any) -> bool:
    """``typeof value === "object" && value !== null`` (arrays included)."""
    return type(value) is dict or type(value) is list
