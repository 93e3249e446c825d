"""Coercion of a model's tool arguments toward the tool's schema, by Pi 1.6's rules.

Pi 1.6 (pi-ai ``validateToolArguments`` through its ``pi-schema`` package) repairs arguments in
three passes before it checks them, and so do we:

1. **Optional nulls**: a ``null`` in an optional property whose schema rejects ``null`` is
   dropped, as if omitted (also inside array items and pattern/additional properties).
2. **Conversions keyed on the schema** (TypeBox's ``Value.Convert`` rules): ``$ref`` is followed;
   ``const`` and ``enum`` take the member the value converts to; ``anyOf``/``oneOf`` keep a value
   one branch accepts, else the first branch's conversion the whole node accepts; ``allOf``
   converts with each member; then by a single ``type``: numeric strings (``""`` is 0, ``"0b101"``,
   ``"12n"``), ``"true"``/``"false"`` and booleans become numbers (truncated for ``integer``),
   numbers/booleans/``null`` become strings (``null`` is ``"null"``), a single value becomes a
   one-item array, and object members convert by their property schemas.
3. **Primitive coercion by type** (Ajv's ``coerceTypes``) for what pass 2 left, e.g. type arrays
   such as ``["integer", "null"]``.

Every pass returns new containers only where something changed and never modifies its input.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any, Protocol, TypeGuard

from pi_ai.js_json import JS_WHITESPACE, js_number

_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_RADIX = re.compile(r"0([xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+)")
_BIGINT_SUFFIXED = re.compile(r"-?(?:0|[1-9]\d*)n")
_BIGINT_DECIMAL = re.compile(r"-?(?:0|[1-9]\d*)\.\d+")
_BIGINT_PLAIN = re.compile(r"-?(?:0|[1-9]\d*)")
_MAX_SAFE = 2**53 - 1


class SchemaChecker(Protocol):
    """What coercion needs from the compiled schema: checks and ``$ref`` resolution."""

    def check(self, schema: Any, value: Any) -> bool: ...
    def resolve(self, ref: str) -> Any: ...


def _held_number(value: float) -> int | float:
    """A JavaScript number as we hold it: ``int`` when integral and exact, else ``float``."""
    return int(value) if value.is_integer() and abs(value) <= 2**53 else value


def js_to_number(text: str) -> int | float | None:
    """``Number(text)`` restricted to finite results; ``None`` where JavaScript gives NaN or an
    infinity (``"1e400"``)."""
    stripped = text.strip(JS_WHITESPACE)
    if stripped == "":
        return 0
    if _DECIMAL.fullmatch(stripped):
        parsed = float(stripped)
    elif _RADIX.fullmatch(stripped):
        parsed = float(int(stripped, 0))
    else:
        return None
    return _held_number(parsed) if math.isfinite(parsed) else None


def is_schema(value: Any) -> TypeGuard[dict[str, Any]]:
    return isinstance(value, dict)


def is_finite_number(value: Any) -> TypeGuard[int | float]:
    return type(value) in (int, float) and math.isfinite(value)


def matches_type(value: Any, kind: str) -> bool:
    """Whether ``value`` has the JSON Schema type ``kind`` (unknown names: no)."""
    if kind == "number":
        return is_finite_number(value)
    if kind == "integer":
        return is_finite_number(value) and float(value).is_integer()
    check = _SIMPLE_TYPES.get(kind)
    return check is not None and check(value)


_SIMPLE_TYPES: dict[str, Callable[[Any], bool]] = {
    "boolean": lambda v: isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "null": lambda v: v is None,
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def same_value(a: Any, b: Any) -> bool:
    """JavaScript's ``Object.is`` for JSON values: containers by identity, primitives by value."""
    if a is b:
        return True
    if isinstance(a, dict | list) or isinstance(b, dict | list):
        return False
    if isinstance(a, bool) or isinstance(b, bool):
        return False
    if is_finite_number(a) and is_finite_number(b):
        return bool(a == b)
    return type(a) is type(b) and bool(a == b)


# --------------------------------------------------------------------------- conversions


def _try_string(value: Any) -> tuple[Any] | None:
    if isinstance(value, bool):
        return ("true" if value else "false",)
    if is_finite_number(value):
        return (js_number(value),)
    if value is None:
        return ("null",)
    if isinstance(value, str):
        return (value,)
    return None


def _try_number(value: Any) -> tuple[Any] | None:
    if isinstance(value, bool):
        return (1 if value else 0,)
    if is_finite_number(value):
        return (value,)
    if value is None:
        return (0,)
    if not isinstance(value, str):
        return None
    number = js_to_number(value)
    if number is not None:
        return (number,)
    lowered = value.lower()
    if lowered in ("false", "true"):
        return (1 if lowered == "true" else 0,)
    big = _bigint_of_string(value)
    return (big,) if big is not None and abs(big) <= _MAX_SAFE else None


def _bigint_of_string(value: str) -> int | None:
    """TypeBox's BigInt reading of a string: ``12n``, ``12.5`` (truncated) or ``12``."""
    if _BIGINT_SUFFIXED.fullmatch(value):
        return int(value[:-1])
    if _BIGINT_DECIMAL.fullmatch(value):
        return int(value.split(".", maxsplit=1)[0])
    if _BIGINT_PLAIN.fullmatch(value):
        return int(value)
    return None


def _try_boolean(value: Any) -> tuple[Any] | None:
    if isinstance(value, bool):
        return (value,)
    if is_finite_number(value):
        return (value == 1,) if value in (0, 1) else None
    if value is None:
        return (False,)
    if not isinstance(value, str):
        return None
    lowered = value.lower()
    if lowered == "false" or value == "0":
        return (False,)
    if lowered == "true" or value == "1":
        return (True,)
    return None


def _try_null(value: Any) -> tuple[Any] | None:
    if isinstance(value, bool):
        return (None,) if value is False else None
    if is_finite_number(value):
        return (None,) if value == 0 else None
    if value is None:
        return (None,)
    if isinstance(value, str) and (value.lower() in ("undefined", "null") or value in ("", "0")):
        return (None,)
    return None


def _or_value(result: tuple[Any] | None, value: Any) -> Any:
    return value if result is None else result[0]


def _convert_literal(literal: Any, value: Any) -> Any:
    """A ``const`` / ``enum`` member taken from a value of another type that converts to exactly it."""
    if same_value(literal, value):
        return value
    if isinstance(literal, bool):
        result = _try_boolean(value)
    elif isinstance(literal, str):
        result = _try_string(value)
    elif is_finite_number(literal):
        result = _try_number(value)
    else:
        return value
    return result[0] if result is not None and same_value(result[0], literal) else value


# --------------------------------------------------------------------------- helpers


def _item_schema_at(schema: dict[str, Any], index: int) -> Any:
    items = schema.get("items")
    if isinstance(items, list):
        return items[index] if index < len(items) else None
    prefix = schema.get("prefixItems")
    if isinstance(prefix, list) and index < len(prefix):
        return prefix[index]
    return items


def _map_items(items: list[Any], change: Callable[[Any, int], Any]) -> list[Any]:
    out: list[Any] | None = None
    for index, item in enumerate(items):
        new = change(item, index)
        if new is item:
            continue
        if out is None:
            out = list(items)
        out[index] = new
    return items if out is None else out


def _patterns(schema: dict[str, Any]) -> list[tuple[re.Pattern[str], Any]]:
    patterns = schema.get("patternProperties")
    return [(re.compile(p), sub) for p, sub in patterns.items()] if is_schema(patterns) else []


def _types_of(schema: dict[str, Any]) -> list[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    return [item for item in kind if isinstance(item, str)] if isinstance(kind, list) else []


class _Members:
    """A copy-on-write view of an object being coerced."""

    def __init__(self, value: dict[str, Any]) -> None:
        self.original = value
        self.out: dict[str, Any] | None = None

    @property
    def current(self) -> dict[str, Any]:
        return self.original if self.out is None else self.out

    def set(self, key: str, new: Any) -> None:
        if new is self.current.get(key, _MISSING):
            return
        if self.out is None:
            self.out = dict(self.original)
        self.out[key] = new

    def delete(self, key: str) -> None:
        if self.out is None:
            self.out = dict(self.original)
        del self.out[key]


_MISSING: Any = object()


class Coercer:
    """The three passes for one root schema."""

    def __init__(self, checker: SchemaChecker, schema: Any) -> None:
        self._checker = checker
        self._schema = schema
        self._entered: list[tuple[Any, Any]] = []

    def coerce(self, value: Any) -> Any:
        without_nulls = self._drop_optional_nulls(value, self._schema)
        return self._coerce_types(self._convert(self._schema, without_nulls), self._schema)

    def _passes(self, schema: Any, value: Any) -> bool:
        return self._checker.check(schema, value)

    # ------------------------------------------------------------ pass 1

    def _drop_optional_nulls(self, value: Any, schema: Any) -> Any:
        if not is_schema(schema):
            return value
        if isinstance(value, list):

            def item(entry: Any, index: int) -> Any:
                sub = _item_schema_at(schema, index)
                return entry if sub is None else self._drop_optional_nulls(entry, sub)

            return _map_items(value, item)
        if not isinstance(value, dict):
            return value
        properties = schema.get("properties")
        declared = properties if is_schema(properties) else {}
        patterns = _patterns(schema)
        additional = schema.get("additionalProperties")
        additional = additional if is_schema(additional) else None
        if not patterns and additional is None and not is_schema(properties):
            return value
        required = set(schema.get("required") or []) if isinstance(schema.get("required"), list) else set()
        members = _Members(value)
        for key, sub in declared.items():
            if key not in value:
                continue
            is_ref = is_schema(sub) and isinstance(sub.get("$ref"), str)
            if value[key] is None and key not in required and not is_ref and not self._passes(sub, None):
                members.delete(key)
                continue
            members.set(key, self._drop_optional_nulls(value[key], sub))
        if patterns or additional is not None:
            for key in list(value):
                matched = key in declared
                for pattern, sub in patterns:
                    if pattern.search(key) and key in members.current:
                        matched = True
                        members.set(key, self._drop_optional_nulls(members.current[key], sub))
                if not matched and additional is not None:
                    members.set(key, self._drop_optional_nulls(value[key], additional))
        return members.current

    # ------------------------------------------------------------ pass 2

    def _convert(self, node: Any, value: Any) -> Any:
        if not is_schema(node):
            return value
        ref = node.get("$ref")
        if isinstance(ref, str):
            target = self._checker.resolve(ref)
            return self._reenter(target, value) if is_schema(target) else value
        return self._convert_node(node, value)

    def _reenter(self, node: Any, value: Any) -> Any:
        """``node`` converted for ``value`` unless that pair is already being converted (a
        recursive schema meeting a value it cannot convert)."""
        if any(seen is node and same_value(held, value) for seen, held in self._entered):
            return value
        self._entered.append((node, value))
        try:
            return self._convert(node, value)
        finally:
            self._entered.pop()

    def _convert_node(self, node: dict[str, Any], value: Any) -> Any:
        if "const" in node:
            return _convert_literal(node["const"], value)
        if isinstance(node.get("enum"), list):
            return self._convert_enum(node, node["enum"], value)
        for keyword in ("anyOf", "oneOf"):
            if isinstance(node.get(keyword), list):
                return self._convert_union(node, node[keyword], value)
        if isinstance(node.get("allOf"), list):
            for member in node["allOf"]:
                value = self._convert(member, value)
            return self._convert_members(node, value)
        kind = node.get("type")
        converter = _PRIMITIVE_CONVERSIONS.get(kind) if isinstance(kind, str) else None
        if converter is not None:
            return converter(value)
        if kind == "object" or (kind is None and ("properties" in node or "patternProperties" in node)):
            return self._convert_object(node, value)
        if kind == "array" or (kind is None and ("items" in node or "prefixItems" in node)):
            return self._convert_array(node, value)
        return value

    def _convert_enum(self, node: dict[str, Any], members: list[Any], value: Any) -> Any:
        if any(same_value(member, value) for member in members):
            return value
        for member in members:
            candidate = _convert_literal(member, value)
            if candidate is not value and self._passes(node, candidate):
                return candidate
        return value

    def _convert_union(self, node: dict[str, Any], branches: list[Any], value: Any) -> Any:
        if any(self._passes(branch, value) for branch in branches):
            return self._convert_members(node, value)
        for branch in branches:
            candidate = self._convert_members(node, self._convert(branch, value))
            if self._passes(node, candidate):
                return candidate
        return self._convert_members(node, value)

    def _convert_members(self, node: dict[str, Any], value: Any) -> Any:
        declares = any(key in node for key in ("properties", "patternProperties", "additionalProperties"))
        return self._convert_object(node, value) if declares else value

    def _convert_array(self, node: dict[str, Any], value: Any) -> Any:
        items = node.get("items")
        prefix = items if isinstance(items, list) else node.get("prefixItems")
        if isinstance(prefix, list):
            if not isinstance(value, list):
                return value  # a tuple never wraps a single value
            rest = None if isinstance(items, list) else items

            def item(entry: Any, index: int) -> Any:
                sub = prefix[index] if index < len(prefix) else rest
                return entry if sub is None else self._convert(sub, entry)

            return _map_items(value, item)
        if isinstance(value, list):
            return value if items is None else _map_items(value, lambda entry, _: self._convert(items, entry))
        return [self._reenter(items, value) if is_schema(items) else value]

    def _convert_object(self, node: dict[str, Any], value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        properties = node.get("properties")
        declared = properties if is_schema(properties) else {}
        patterns = _patterns(node)
        additional = node.get("additionalProperties")
        members = _Members(value)
        for key, item in value.items():
            new = item
            matched = key in declared
            if matched:
                new = self._convert(declared[key], new)
            for pattern, sub in patterns:
                if pattern.search(key):
                    matched = True
                    new = self._convert(sub, new)
            if not matched and is_schema(additional):
                new = self._convert(additional, new)
            members.set(key, new)
        return members.current

    # ------------------------------------------------------------ pass 3

    def _coerce_types(self, value: Any, schema: Any) -> Any:
        if not is_schema(schema):
            return value
        result = value
        if isinstance(schema.get("allOf"), list):
            for member in schema["allOf"]:
                result = self._coerce_types(result, member)
        for keyword in ("anyOf", "oneOf"):
            if isinstance(schema.get(keyword), list):
                result = self._coerce_union(result, schema[keyword])
        types = _types_of(schema)
        already = len(types) > 1 and any(matches_type(result, kind) for kind in types)
        if types and not already:
            for kind in types:
                candidate = _coerce_primitive(result, kind)
                if candidate is not result:
                    result = candidate
                    break
        if "object" in types and isinstance(result, dict):
            result = self._coerce_properties(result, schema)
        if "array" in types and isinstance(result, list):
            result = _map_items(result, lambda item, index: self._coerce_item(item, schema, index))
        return result

    def _coerce_item(self, item: Any, schema: dict[str, Any], index: int) -> Any:
        sub = _item_schema_at(schema, index)
        return self._coerce_types(item, sub) if is_schema(sub) else item

    def _coerce_union(self, value: Any, branches: list[Any]) -> Any:
        if any(self._passes(branch, value) for branch in branches):
            return value
        for branch in branches:
            coerced = self._coerce_types(value, branch)
            if self._passes(branch, coerced):
                return coerced
        return value

    def _coerce_properties(self, value: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
        properties = schema.get("properties")
        declared = properties if is_schema(properties) else {}
        patterns = _patterns(schema)
        additional = schema.get("additionalProperties")
        members = _Members(value)
        for key, sub in declared.items():
            if key in value:
                members.set(key, self._coerce_types(value[key], sub))
        for key in list(value):
            matched = key in declared
            for pattern, sub in patterns:
                if pattern.search(key):
                    matched = True
                    members.set(key, self._coerce_types(members.current[key], sub))
            if not matched and is_schema(additional):
                members.set(key, self._coerce_types(value[key], additional))
        return members.current


def _convert_integer(value: Any) -> Any:
    result = _try_number(value)
    return value if result is None else _held_number(float(math.trunc(result[0])))


_PRIMITIVE_CONVERSIONS: dict[str, Callable[[Any], Any]] = {
    "string": lambda value: _or_value(_try_string(value), value),
    "number": lambda value: _or_value(_try_number(value), value),
    "integer": _convert_integer,
    "boolean": lambda value: _or_value(_try_boolean(value), value),
    "null": lambda value: _or_value(_try_null(value), value),
}


def _coerce_primitive(value: Any, kind: str) -> Any:
    """Ajv's ``coerceTypes`` step for one type: the coerced value, or ``value`` itself."""
    if kind in ("number", "integer"):
        if value is None:
            return 0
        if isinstance(value, bool):
            return 1 if value else 0
        if isinstance(value, str) and value.strip(JS_WHITESPACE) != "":
            parsed = js_to_number(value)
            if parsed is not None and (kind == "number" or float(parsed).is_integer()):
                return parsed
        return value
    if kind == "boolean":
        if value is None:
            return False
        if value == "true" or (is_finite_number(value) and value == 1):
            return True
        if value == "false" or (is_finite_number(value) and value == 0):
            return False
        return value
    if kind == "string":
        if value is None:
            return ""
        if isinstance(value, bool):
            return "true" if value else "false"
        return js_number(value) if type(value) in (int, float) else value
    if kind == "null":
        zero = is_finite_number(value) and value == 0
        return None if value == "" or zero or value is False else value
    return value
