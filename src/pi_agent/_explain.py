"""Why tool arguments fail their schema, in Pi 1.6's words (its ``pi-schema`` explainer).

A walk over the schema that reports each failing keyword at the value it failed on, as
``(JSON Pointer, message)``: ``expected number, got string``, ``missing``, ``unknown field``,
``expected >= 1``, ``expected one of ["a","b"]``. It runs only for values that failed the
check, and skips every part of the schema the value passes. A type mismatch is the only error
of its node. A failing union blames the branch its tag selects (a ``const`` property that
tells the branches apart), else the branch declaring most of the object's properties, else
the one whose first error is deepest.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable
from typing import Any, Protocol, TypeGuard

from pi_agent._coercion import is_finite_number, is_schema, matches_type, same_value
from pi_ai.js_json import js_number, stringify

_BOUNDS = (
    ("minimum", ">=", operator.ge),
    ("maximum", "<=", operator.le),
    ("exclusiveMinimum", ">", operator.gt),
    ("exclusiveMaximum", "<", operator.lt),
)

_LISTED_VALUES = 20
"""Enum errors list at most this many allowed values."""

Error = tuple[str, str]
"""``(JSON Pointer of the value, message)``."""


class ExplainedSchema(Protocol):
    def check(self, schema: Any, value: Any) -> bool: ...
    def resolve(self, ref: str) -> Any: ...
    def resolves(self, ref: str) -> bool: ...
    def format_ok(self, name: str, text: str) -> bool | None: ...


def explain(root: ExplainedSchema, schema: Any, value: Any) -> list[Error]:
    """The errors of ``value``, at least one (it failed the check)."""
    out: list[Error] = []
    _Explainer(root).walk(schema, value, "", out)
    return out or [("", "invalid")]


def _pointer(path: str, key: str) -> str:
    return f"{path}/{key.replace('~', '~0').replace('/', '~1')}"


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, str):
        return "string"
    if type(value) in (int, float):
        if not math.isfinite(value):
            return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
        return "integer" if float(value).is_integer() else "number"
    return type(value).__name__


def _list_values(values: list[Any]) -> str:
    if len(values) <= _LISTED_VALUES:
        return stringify(values)
    listed = stringify(values[:_LISTED_VALUES])
    return f"{listed[:-1]}, ... and {len(values) - _LISTED_VALUES} more]"


def _dict_at(node: dict[str, Any], key: str) -> dict[str, Any]:
    found = node.get(key)
    return found if is_schema(found) else {}


def _list_at(node: dict[str, Any], key: str) -> list[Any]:
    found = node.get(key)
    return found if isinstance(found, list) else []


def _bound(value: Any) -> TypeGuard[int | float]:
    return is_finite_number(value)


class _Explainer:
    def __init__(self, root: ExplainedSchema) -> None:
        self._root = root

    def ok(self, schema: Any, value: Any) -> bool:
        return self._root.check(schema, value)

    def walk(self, node: Any, value: Any, path: str, out: list[Error]) -> None:
        if node is True:
            return
        if node is False:
            out.append((path, "no value is allowed here"))
            return
        if not is_schema(node) or self.ok(node, value):
            return

        def push(message: str, at: str = path) -> None:
            out.append((at, message))

        if "type" in node:
            kinds = node["type"] if isinstance(node["type"], list) else [node["type"]]
            if not any(isinstance(kind, str) and matches_type(value, kind) for kind in kinds):
                push(f"expected {' or '.join(map(str, kinds))}, got {_type_name(value)}")
                return
        if isinstance(node.get("enum"), list) and not any(json_equal(value, m) for m in node["enum"]):
            push(f"expected one of {_list_values(node['enum'])}")
        if "const" in node and not json_equal(value, node["const"]):
            push(f"expected {stringify(node['const'])}")
        if isinstance(value, str):
            self._walk_string(node, value, push)
        if is_finite_number(value):
            self._walk_number(node, value, push)
        if isinstance(value, dict):
            self._walk_object(node, value, path, out, push)
        if isinstance(value, list):
            self._walk_array(node, value, path, out, push)
        for member in _list_at(node, "allOf"):
            self.walk(member, value, path, out)
        if isinstance(node.get("anyOf"), list):
            self._walk_union(node["anyOf"], value, path, out, exactly_one=False)
        if isinstance(node.get("oneOf"), list):
            self._walk_union(node["oneOf"], value, path, out, exactly_one=True)
        if "not" in node and self.ok(node["not"], value):
            push("must not match the schema in not")
        if "if" in node:
            branch = node.get("then") if self.ok(node["if"], value) else node.get("else")
            if branch is not None:
                self.walk(branch, value, path, out)
        if isinstance(node.get("$ref"), str):
            self._walk_ref(node["$ref"], value, path, out)

    def _walk_ref(self, ref: str, value: Any, path: str, out: list[Error]) -> None:
        if not self._root.resolves(ref):
            out.append((path, f"unresolved reference {ref}"))
            return
        self.walk(self._root.resolve(ref), value, path, out)

    def _walk_string(self, node: dict[str, Any], value: str, push: Callable[[str], None]) -> None:
        low, high = node.get("minLength"), node.get("maxLength")
        if _bound(low) and len(value) < low:
            push(f"expected at least {js_number(low)} characters")
        if _bound(high) and len(value) > high:
            push(f"expected at most {js_number(high)} characters")
        pattern = node.get("pattern")
        if isinstance(pattern, str) and re.search(pattern, value) is None:
            push(f"expected to match {pattern}")
        fmt = node.get("format")
        if isinstance(fmt, str) and self._root.format_ok(fmt, value) is False:
            push(f"expected format {fmt}")

    @staticmethod
    def _walk_number(node: dict[str, Any], value: float, push: Callable[[str], None]) -> None:
        for keyword, sign, holds in _BOUNDS:
            limit = node.get(keyword)
            if _bound(limit) and not holds(value, limit):
                push(f"expected {sign} {js_number(limit)}")
        divisor = node.get("multipleOf")
        if _bound(divisor) and not is_multiple(value, divisor):
            push(f"expected a multiple of {js_number(divisor)}")

    def _walk_object(
        self,
        node: dict[str, Any],
        value: dict[str, Any],
        path: str,
        out: list[Error],
        push: Callable[..., None],
    ) -> None:
        properties = _dict_at(node, "properties")
        for key in _list_at(node, "required"):
            if isinstance(key, str) and key not in value:
                push("missing", _pointer(path, key))
        for key, sub in properties.items():
            if key in value:
                self.walk(sub, value[key], _pointer(path, key), out)
        patterns = node.get("patternProperties")
        patterns = list(patterns.items()) if is_schema(patterns) else []
        additional = node.get("additionalProperties")
        names = node.get("propertyNames")
        for key, item in value.items():
            matched = key in properties
            for pattern, sub in patterns:
                if re.search(pattern, key):
                    matched = True
                    self.walk(sub, item, _pointer(path, key), out)
            if not matched and "additionalProperties" in node:
                if additional is False:
                    push("unknown field", _pointer(path, key))
                else:
                    self.walk(additional, item, _pointer(path, key), out)
            if names is not None and not self.ok(names, key):
                push("invalid property name", _pointer(path, key))
        low, high = node.get("minProperties"), node.get("maxProperties")
        if _bound(low) and len(value) < low:
            push(f"expected at least {js_number(low)} properties")
        if _bound(high) and len(value) > high:
            push(f"expected at most {js_number(high)} properties")
        dependent = node.get("dependentRequired")
        for key, needed in dependent.items() if is_schema(dependent) else []:
            if key in value and isinstance(needed, list):
                for other in needed:
                    if other not in value:
                        push(f"required when {key} is present", _pointer(path, other))
        dependent_schemas = node.get("dependentSchemas")
        for key, sub in dependent_schemas.items() if is_schema(dependent_schemas) else []:
            if key in value:
                self.walk(sub, value, path, out)

    def _walk_array(
        self, node: dict[str, Any], value: list[Any], path: str, out: list[Error], push: Callable[[str], None]
    ) -> None:
        items = node.get("items")
        prefix: list[Any] = (
            items
            if isinstance(items, list)
            else (node["prefixItems"] if isinstance(node.get("prefixItems"), list) else [])
        )
        rest = node.get("additionalItems") if isinstance(items, list) else items
        for index, item in enumerate(value):
            sub = prefix[index] if index < len(prefix) else rest
            if sub is not None:
                self.walk(sub, item, f"{path}/{index}", out)
        low, high = node.get("minItems"), node.get("maxItems")
        if _bound(low) and len(value) < low:
            push(f"expected at least {js_number(low)} items")
        if _bound(high) and len(value) > high:
            push(f"expected at most {js_number(high)} items")
        if node.get("uniqueItems") is True and has_duplicates(value):
            push("expected unique items")
        if "contains" in node:
            self._walk_contains(node, value, push)

    def _walk_contains(self, node: dict[str, Any], value: list[Any], push: Callable[[str], None]) -> None:
        low = node["minContains"] if _bound(node.get("minContains")) else 1
        high = node["maxContains"] if _bound(node.get("maxContains")) else math.inf
        count = sum(1 for item in value if self.ok(node["contains"], item))
        if low <= count <= high:
            return
        if high == math.inf:
            push(f"expected at least {js_number(low)} matching {'item' if low == 1 else 'items'}")
        elif low == 0:
            push(f"expected at most {js_number(high)} matching {'item' if high == 1 else 'items'}")
        else:
            push(f"expected between {js_number(low)} and {js_number(high)} matching items")

    def _walk_union(
        self, branches: list[Any], value: Any, path: str, out: list[Error], *, exactly_one: bool
    ) -> None:
        matches = sum(1 for branch in branches if self.ok(branch, value))
        if matches == 1 or (not exactly_one and matches > 0):
            return
        if matches > 1:
            out.append((path, "matches more than one alternative"))
            return
        tag = self._tag_of(branches)
        if tag is not None and isinstance(value, dict):
            key, values = tag
            chosen = next(
                (i for i, tagged in enumerate(values) if key in value and same_value(value[key], tagged)),
                None,
            )
            if chosen is None:
                out.append((_pointer(path, key), f"expected one of {_list_values(values)}"))
            else:
                self.walk(branches[chosen], value, path, out)
            return
        best: tuple[list[Error], int] | None = None
        for branch in branches:
            errors: list[Error] = []
            self.walk(branch, value, path, errors)
            if not errors:
                continue
            declared = self._declared_keys(branch, value) if isinstance(value, dict) else 0
            if (
                best is None
                or declared > best[1]
                or (declared == best[1] and len(errors[0][0]) > len(best[0][0][0]))
            ):
                best = (errors, declared)
        out.extend(best[0] if best is not None else [(path, "matches no alternative")])

    def _resolved(self, branch: Any) -> Any:
        if is_schema(branch) and isinstance(branch.get("$ref"), str):
            return self._root.resolve(branch["$ref"])
        return branch

    def _declared_keys(self, branch: Any, value: dict[str, Any]) -> int:
        node = self._resolved(branch)
        properties = _dict_at(node, "properties") if is_schema(node) else {}
        return sum(1 for key in value if key in properties)

    def _tag_of(self, branches: list[Any]) -> tuple[str, list[Any]] | None:
        """The property whose ``const`` tells every branch apart, with those constants."""
        resolved = [self._resolved(branch) for branch in branches]
        first = resolved[0] if resolved else None
        if not is_schema(first) or not is_schema(first.get("properties")):
            return None
        for key in first["properties"]:
            values = [_const_of(branch, key) for branch in resolved]
            if all(tagged is not _NO_TAG for tagged in values) and _distinct(values):
                return key, values
        return None


_NO_TAG: Any = object()


def _const_of(branch: Any, key: str) -> Any:
    properties = branch.get("properties") if is_schema(branch) else None
    tag = properties.get(key) if is_schema(properties) else None
    if not is_schema(tag) or "const" not in tag or isinstance(tag["const"], dict | list):
        return _NO_TAG
    return tag["const"]


def _distinct(values: list[Any]) -> bool:
    return all(not same_value(values[i], values[j]) for i in range(len(values)) for j in range(i))


def json_equal(a: Any, b: Any) -> bool:
    """JavaScript deep equality of JSON values (``1 == 1.0``, but ``true != 1``)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict | list) or isinstance(b, dict | list):
        return False
    return same_value(a, b)


def has_duplicates(items: list[Any]) -> bool:
    return any(json_equal(items[i], items[j]) for i in range(len(items)) for j in range(i))


def _decimal(number: float) -> tuple[int, int]:
    """``number`` as ``digits * 10**exponent``, from its shortest (JavaScript) spelling."""
    mantissa, _, exponent = js_number(abs(number)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    return int(whole + fraction), int(exponent or "0") - len(fraction)


def is_multiple(value: float, divisor: float) -> bool:
    """``multipleOf`` exactly on the decimal spellings (``0.3`` is a multiple of ``0.1``)."""
    if divisor == 0:
        return False
    quotient = value / divisor
    if math.isfinite(quotient) and float(quotient).is_integer():
        return True
    if not math.isfinite(quotient):
        return math.fmod(value, divisor) == 0
    digits, exponent = _decimal(value)
    divisor_digits, divisor_exponent = _decimal(divisor)
    if exponent >= divisor_exponent:
        return bool((digits * 10 ** (exponent - divisor_exponent)) % divisor_digits == 0)
    return bool(digits % (divisor_digits * 10 ** (divisor_exponent - exponent)) == 0)
