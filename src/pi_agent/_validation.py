"""Tool-argument validation with Pi's coercion rules and error text.

Models send arguments that are almost right: ``"5"`` for a number, ``null`` for an optional
field, ``"true"`` for a boolean. Pi (pi-ai ``validateToolArguments``) repairs those before it
checks the JSON Schema, and when the check still fails it reports every bad field so the
model can fix its call. This module does the same, in four steps:

1. copy the arguments (the caller's dict is never touched);
2. drop ``null`` values of optional properties whose schema does not accept ``null``;
3. coerce primitives toward the schema (numbers, booleans, strings, null; union members are
   tried unchanged first, then coerced);
4. check the schema; on failure raise ``ToolArgumentsError`` whose text lists each error as
   ``  - <path>: <message>`` with the validator wording Pi uses (TypeBox's English locale),
   followed by the received arguments as pretty JSON.

The checker covers the JSON Schema keywords tool schemas use in practice (types, properties,
required, additionalProperties, patternProperties, propertyNames, items/prefixItems,
contains, length/size/number bounds, pattern, format, enum, const, $ref into the same
document, allOf/anyOf/oneOf/not, if/then/else, boolean schemas). Unknown keywords are
ignored, as JSON Schema prescribes, and so are unknown formats.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any, Protocol

from pi_ai import ARGUMENTS_ERROR_KEY
from pi_ai.js_json import js_number, stringify

MAX_ERRORS = 8
"""TypeBox stops collecting after this many errors."""

_JS_WHITESPACE = " \t\n\r\v\f\u00a0\ufeff\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_RADIX = re.compile(r"0([xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+)")


class ToolArgumentsError(ValueError):
    """Arguments that do not match the tool's schema even after coercion."""

    def __init__(self, message: str, errors: list[str]) -> None:
        super().__init__(message)
        self.errors = errors
        """One ``<path>: <message>`` line per problem."""


class _HasParameters(Protocol):
    @property
    def parameters(self) -> dict[str, Any]: ...


class _HasArguments(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def arguments(self) -> dict[str, Any]: ...


def validate_tool_arguments(tool: _HasParameters, tool_call: _HasArguments) -> dict[str, Any]:
    """The coerced arguments of ``tool_call`` for ``tool``, or ``ToolArgumentsError``."""
    validated: dict[str, Any] = validate_arguments(tool_call.name, tool.parameters, tool_call.arguments)
    return validated


def validate_arguments(tool_name: str, schema: Any, arguments: Any) -> Any:
    """Validate ``arguments`` against ``schema``; the error text names ``tool_name``.

    Checkers are compiled once per schema object and reused, so a schema must not be
    mutated after it was first used (as with Pi, which caches by object identity).
    """
    unreadable = arguments.get(ARGUMENTS_ERROR_KEY) if isinstance(arguments, dict) else None
    if isinstance(unreadable, str) and len(arguments) == 1:  # the stream could not keep them (pi_ai)
        raise ToolArgumentsError(f'Validation failed for tool "{tool_name}": {unreadable}', [unreadable])
    root = _Root.of(schema)
    if root.check(schema, arguments):
        return _clone(arguments)  # coercion never changes valid arguments
    args = _clone(arguments)
    _drop_optional_nulls(root, args, schema)
    args = root.coerce(args, schema)
    if root.check(schema, args):
        return args
    errors: list[tuple[str, str, dict[str, Any]]] = []
    root.errors(schema, args, "", errors)
    lines = [
        f"{_format_path(path, keyword, params)}: {_message(keyword, params)}"
        for keyword, path, params in errors[:MAX_ERRORS]
    ]
    listing = "\n".join(f"  - {line}" for line in lines) or "Unknown validation error"
    message = (
        f'Validation failed for tool "{tool_name}":\n{listing}\n\n'
        f"Received arguments:\n{stringify(arguments, 2)}"
    )
    raise ToolArgumentsError(message, lines)


# --------------------------------------------------------------------------- helpers


def _clone(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _clone(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_clone(item) for item in value]
    return value


def _is_number(value: Any) -> bool:
    kind = type(value)
    return kind is int or (kind is float and math.isfinite(value))


def _is_integer(value: Any) -> bool:
    kind = type(value)
    return kind is int or (kind is float and math.isfinite(value) and value.is_integer())


_TYPE_CHECKS: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "boolean": lambda v: isinstance(v, bool),
    "integer": _is_integer,
    "number": _is_number,
    "null": lambda v: v is None,
    "string": lambda v: isinstance(v, str),
}


def _matches_type(value: Any, name: Any) -> bool:
    check = _TYPE_CHECKS.get(name) if isinstance(name, str) else None
    return True if check is None else check(value)


def _schema_types(schema: dict[str, Any]) -> list[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [item for item in kind if isinstance(item, str)]
    return []


def _js_to_number(text: str) -> float | int | None:
    """``Number(text)`` restricted to finite results; ``None`` where JavaScript gives NaN."""
    stripped = text.strip(_JS_WHITESPACE)
    if stripped == "":
        return 0
    if _DECIMAL.fullmatch(stripped):
        parsed = float(stripped)
    elif _RADIX.fullmatch(stripped):
        parsed = float(int(stripped, 0))
    else:
        return None
    if not math.isfinite(parsed):
        return None
    return int(parsed) if parsed.is_integer() and abs(parsed) <= 2**53 else parsed


def _json_equal(a: Any, b: Any) -> bool:
    """JavaScript equality of JSON values (``1 == 1.0``, but ``true != 1``)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return type(a) is type(b) and bool(a == b)


_regex_cache: dict[str, re.Pattern[str]] = {}


def _regex(pattern: str) -> re.Pattern[str]:
    compiled = _regex_cache.get(pattern)
    if compiled is None:
        compiled = _regex_cache[pattern] = re.compile(pattern)
    return compiled


# --------------------------------------------------------------------------- formats

_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_TIME = re.compile(r"(\d{2}):(\d{2}):(\d{2})(\.\d+)?([zZ]|[+-]\d{2}:\d{2})")
_EMAIL = re.compile(
    r"[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*"
)
_HOSTNAME = re.compile(
    r"(?=.{1,253}$)[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*\.?"
)
_URI = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*:[^\s]*")


def _is_date(text: str) -> bool:
    match = _DATE.fullmatch(text)
    if not match:
        return False
    year, month, day = (int(part) for part in match.groups())
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    return 1 <= month <= 12 and 1 <= day <= days[month - 1]


def _is_time(text: str) -> bool:
    match = _TIME.fullmatch(text)
    if match is None:
        return False
    return int(match.group(1)) <= 23 and int(match.group(2)) <= 59 and int(match.group(3)) <= 60


def _is_date_time(text: str) -> bool:
    date, sep, time = text.partition("T") if "T" in text else text.partition("t")
    return bool(sep) and _is_date(date) and _is_time(time)


def _is_ip(text: str, version: int) -> bool:
    import ipaddress

    try:
        return ipaddress.ip_address(text).version == version
    except ValueError:
        return False


def _is_uuid(text: str) -> bool:
    import uuid

    if len(text) != 36:
        return False
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


def _is_regex(text: str) -> bool:
    try:
        re.compile(text)
    except re.error:
        return False
    return True


_FORMATS: dict[str, Callable[[str], bool]] = {
    "date": _is_date,
    "time": _is_time,
    "date-time": _is_date_time,
    "email": lambda text: bool(_EMAIL.fullmatch(text)),
    "hostname": lambda text: bool(_HOSTNAME.fullmatch(text)),
    "ipv4": lambda text: _is_ip(text, 4),
    "ipv6": lambda text: _is_ip(text, 6),
    "uri": lambda text: bool(_URI.fullmatch(text)),
    "url": lambda text: bool(_URI.fullmatch(text)),
    "uuid": _is_uuid,
    "regex": _is_regex,
}


# --------------------------------------------------------------------------- messages


def _message(keyword: str, params: dict[str, Any]) -> str:
    if keyword == "type":
        kind = params["type"]
        return f"must be {kind}" if isinstance(kind, str) else f"must be either {' or '.join(map(str, kind))}"
    if keyword == "required":
        return f"must have required properties {', '.join(params['requiredProperties'])}"
    if keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        return f"must be {params['comparison']} {js_number(params['limit'])}"
    fixed = {
        "additionalProperties": "must not have additional properties",
        "anyOf": "must match a schema in anyOf",
        "boolean": "schema is false",
        "const": "must be equal to constant",
        "contains": "must contain at least 1 valid item",
        "enum": "must be equal to one of the allowed values",
        "not": "must not be valid",
        "oneOf": "must match exactly one schema in oneOf",
        "uniqueItems": "must not have duplicate items",
    }
    if keyword in fixed:
        return fixed[keyword]
    limit = js_number(params["limit"]) if "limit" in params else ""
    templates = {
        "maxItems": f"must not have more than {limit} items",
        "minItems": f"must not have fewer than {limit} items",
        "maxLength": f"must not have more than {limit} characters",
        "minLength": f"must not have fewer than {limit} characters",
        "maxProperties": f"must not have more than {limit} properties",
        "minProperties": f"must not have fewer than {limit} properties",
    }
    if keyword in templates:
        return templates[keyword]
    if keyword == "format":
        return f'must match format "{params["format"]}"'
    if keyword == "pattern":
        return f'must match pattern "{params["pattern"]}"'
    if keyword == "multipleOf":
        return f"must be multiple of {js_number(params['multipleOf'])}"
    if keyword == "if":
        return f'must match "{params["failingKeyword"]}" schema'
    if keyword == "propertyNames":
        return f"property names {', '.join(params['propertyNames'])} are invalid"
    if keyword == "dependentRequired":
        return (
            f"must have properties {', '.join(params['dependencies'])} "
            f"when property {params['property']} is present"
        )
    return "an unknown validation error occurred"


def _format_path(instance_path: str, keyword: str, params: dict[str, Any]) -> str:
    base = (instance_path[1:] if instance_path.startswith("/") else instance_path).replace("/", ".")
    if keyword == "required" and params.get("requiredProperties"):
        first = params["requiredProperties"][0]
        return f"{base}.{first}" if base else first
    return base or "root"


# --------------------------------------------------------------------------- schema walker


Check = Callable[[Any], bool]


def _always(value: Any) -> bool:
    return True


def _never(value: Any) -> bool:
    return False


def _all_of(checks: list[Check]) -> Check:
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]

    def check(value: Any) -> bool:
        for part in checks:  # noqa: SIM110 - a plain loop is cheaper than all() over a generator
            if not part(value):
                return False
        return True

    return check


def _any_of(checks: list[Check]) -> Check:
    return lambda value: any(check(value) for check in checks)


def _one_of(checks: list[Check]) -> Check:
    return lambda value: sum(1 for check in checks if check(value)) == 1


def _only_for(kind: type, steps: list[Callable[[Any], bool]]) -> Check | None:
    """A checker applying ``steps`` to values of ``kind`` and accepting everything else."""
    if not steps:
        return None

    def check(value: Any) -> bool:
        if not isinstance(value, kind):
            return True
        for step in steps:  # noqa: SIM110 - a plain loop is cheaper than all() over a generator
            if not step(value):
                return False
        return True

    return check


class _Root:
    """Validation against one root schema: resolves each ``$ref`` against it and keeps the
    compiled checkers of its parts."""

    __slots__ = ("_compiled", "_keep", "schema")

    def __init__(self, schema: Any) -> None:
        self.schema = schema
        self._compiled: dict[int, Check] = {}
        self._keep: list[Any] = []

    @classmethod
    def of(cls, schema: Any) -> _Root:
        """The cached root for ``schema`` (tools keep their schema, so this is one per tool)."""
        key = id(schema)
        cached = _roots.get(key)
        if cached is not None and cached.schema is schema:
            return cached
        if len(_roots) >= _MAX_ROOTS:
            _roots.clear()
        root = _roots[key] = cls(schema)
        return root

    def resolve(self, ref: str) -> Any:
        if ref == "#":
            return self.schema
        if not ref.startswith("#/"):
            return False
        target: Any = self.schema
        for raw in ref[2:].split("/"):
            part = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and part in target:
                target = target[part]
            elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
                target = target[int(part)]
            else:
                return False
        return target

    # ---------------------------------------------------------------- check

    def check(self, schema: Any, value: Any) -> bool:
        """Whether ``value`` is valid against ``schema`` (a part of this root's schema)."""
        compiled = self._compiled.get(id(schema))
        if compiled is None:
            compiled = self.compile(schema)
        return compiled(value)

    def compile(self, schema: Any) -> Check:
        """A checker function for ``schema``: validation happens before every tool call, so the
        keyword dispatch is done once per schema instead of once per value."""
        if schema is False:
            checker: Check = _never
        elif not isinstance(schema, dict):
            checker = _always
        else:
            parts = [
                part
                for part in (
                    self._compile_type(schema),
                    self._compile_object(schema),
                    self._compile_array(schema),
                    self._compile_string(schema),
                    self._compile_number(schema),
                    *self._compile_combinators(schema),
                )
                if part is not None
            ]
            checker = _all_of(parts)
        self._compiled[id(schema)] = checker
        self._keep.append(schema)  # ids stay valid while this root lives
        return checker

    @staticmethod
    def _compile_type(schema: dict[str, Any]) -> Check | None:
        if "type" not in schema:
            return None
        kind = schema["type"]
        names = kind if isinstance(kind, list) else [kind]
        checks = [_TYPE_CHECKS.get(name) if isinstance(name, str) else None for name in names]
        if any(check is None for check in checks):
            return None  # an unknown type name accepts anything
        known = [check for check in checks if check is not None]
        if len(known) == 1:
            return known[0]
        return lambda value: any(check(value) for check in known)

    def _compile_object(self, schema: dict[str, Any]) -> Check | None:
        steps: list[Callable[[dict[str, Any]], bool]] = []
        required = schema.get("required")
        if isinstance(required, list) and required:
            steps.append(lambda value: all(key in value for key in required))
        if "additionalProperties" in schema:
            extra = schema["additionalProperties"]
            steps.append(
                lambda value: all(
                    self._is_declared(schema, key) or self.check(extra, item) for key, item in value.items()
                )
            )
        dependent = schema.get("dependentRequired")
        if isinstance(dependent, dict):
            steps.append(
                lambda value: (
                    not value
                    or all(
                        key not in value or all(other in value for other in needed)
                        for key, needed in dependent.items()
                    )
                )
            )
        patterns = schema.get("patternProperties")
        if isinstance(patterns, dict):
            steps.append(
                lambda value: all(
                    not _regex(pattern).search(key) or self.check(sub, item)
                    for pattern, sub in patterns.items()
                    for key, item in value.items()
                )
            )
        properties = schema.get("properties")
        if isinstance(properties, dict) and properties:
            pairs = [(key, self.compile(sub)) for key, sub in properties.items()]

            def check_properties(value: dict[str, Any]) -> bool:
                for key, check in pairs:  # noqa: SIM110 - hot path, see _all_of
                    if key in value and not check(value[key]):
                        return False
                return True

            steps.append(check_properties)
        if "propertyNames" in schema:
            names = schema["propertyNames"]
            steps.append(lambda value: all(self.check(names, key) for key in value))
        if "minProperties" in schema:
            low = schema["minProperties"]
            steps.append(lambda value: len(value) >= low)
        if "maxProperties" in schema:
            high = schema["maxProperties"]
            steps.append(lambda value: len(value) <= high)
        return _only_for(dict, steps)

    def _compile_array(self, schema: dict[str, Any]) -> Check | None:
        steps: list[Callable[[list[Any]], bool]] = []
        if "contains" in schema:
            steps.append(lambda value: self._contains_ok(schema, value))
        prefix = schema.get("prefixItems")
        offset = 0
        if isinstance(prefix, list):
            offset = len(prefix)
            prefix_checks = [self.compile(sub) for sub in prefix]
            steps.append(
                lambda value: all(check(item) for check, item in zip(prefix_checks, value, strict=False))
            )
        items = schema.get("items")
        if isinstance(items, list):
            item_checks = [self.compile(sub) for sub in items]
            steps.append(
                lambda value: all(check(item) for check, item in zip(item_checks, value, strict=False))
            )
        elif items is not None:
            item_check = self.compile(items)
            steps.append(lambda value: all(item_check(item) for item in value[offset:]))
        if "maxItems" in schema:
            high = schema["maxItems"]
            steps.append(lambda value: len(value) <= high)
        if "minItems" in schema:
            low = schema["minItems"]
            steps.append(lambda value: len(value) >= low)
        if schema.get("uniqueItems") is True:
            steps.append(lambda value: not _duplicates(value))
        return _only_for(list, steps)

    @staticmethod
    def _compile_string(schema: dict[str, Any]) -> Check | None:
        steps: list[Callable[[str], bool]] = []
        if "maxLength" in schema:
            high = schema["maxLength"]
            steps.append(lambda value: len(value) <= high)
        if "minLength" in schema:
            low = schema["minLength"]
            steps.append(lambda value: len(value) >= low)
        fmt = schema.get("format")
        if isinstance(fmt, str) and fmt in _FORMATS:
            steps.append(_FORMATS[fmt])
        pattern = schema.get("pattern")
        if isinstance(pattern, str):
            compiled = _regex(pattern)
            steps.append(lambda value: compiled.search(value) is not None)
        return _only_for(str, steps)

    def _compile_number(self, schema: dict[str, Any]) -> Check | None:
        keywords = [keyword for keyword in _NUMBER_KEYWORDS if keyword in schema]
        if not keywords:
            return None

        def check(value: Any) -> bool:
            if not _is_number(value):
                return True
            return all(self._number_ok(keyword, schema, value) for keyword in keywords)

        return check

    def _compile_combinators(self, schema: dict[str, Any]) -> list[Check]:
        parts: list[Check] = []
        ref = schema.get("$ref")
        if isinstance(ref, str):
            parts.append(lambda value: self.check(self.resolve(ref), value))
        if "const" in schema:
            constant = schema["const"]
            parts.append(lambda value: _json_equal(value, constant))
        enum = schema.get("enum")
        if isinstance(enum, list):
            parts.append(lambda value: any(_json_equal(value, option) for option in enum))
        if "if" in schema:
            condition = self.compile(schema["if"])
            then, otherwise = self.compile(schema.get("then", True)), self.compile(schema.get("else", True))
            parts.append(lambda value: then(value) if condition(value) else otherwise(value))
        if "not" in schema:
            negated = self.compile(schema["not"])
            parts.append(lambda value: not negated(value))
        for keyword in ("allOf", "anyOf", "oneOf"):
            subs = schema.get(keyword)
            if not isinstance(subs, list):
                continue
            checks = [self.compile(sub) for sub in subs]
            if keyword == "allOf":
                parts.append(_all_of(checks))
            elif keyword == "anyOf":
                parts.append(_any_of(checks))
            else:
                parts.append(_one_of(checks))
        return parts

    def _is_declared(self, schema: dict[str, Any], key: str) -> bool:
        properties = schema.get("properties")
        if isinstance(properties, dict) and key in properties:
            return True
        patterns = schema.get("patternProperties")
        return isinstance(patterns, dict) and any(_regex(p).search(key) for p in patterns)

    def _contains_ok(self, schema: dict[str, Any], value: list[Any]) -> bool:
        if "contains" not in schema or schema.get("minContains") == 0:
            return True
        count = sum(1 for item in value if self.check(schema["contains"], item))
        if count == 0:
            return False
        return not ("maxContains" in schema and count > schema["maxContains"])

    @staticmethod
    def _number_ok(keyword: str, schema: dict[str, Any], value: float) -> bool:
        limit = schema[keyword]
        if not isinstance(limit, int | float):
            return True
        if keyword == "exclusiveMaximum":
            return value < limit
        if keyword == "exclusiveMinimum":
            return value > limit
        if keyword == "maximum":
            return value <= limit
        if keyword == "minimum":
            return value >= limit
        if _is_integer(value) and limit != 0 and (1 / limit) % 1 == 0:
            return True
        if limit == 0:
            return False
        mod = math.fmod(value, limit)
        return min(abs(mod), abs(mod - limit), abs(mod + limit)) < 1e-10

    # ---------------------------------------------------------------- errors

    def errors(self, schema: Any, value: Any, path: str, out: list[tuple[str, str, dict[str, Any]]]) -> bool:
        """Append ``(keyword, instance path, params)`` for every failure, in TypeBox's order."""
        if schema is False:
            out.append(("boolean", path, {}))
            return False
        if not isinstance(schema, dict):
            return True
        ok = True
        if "type" in schema:
            kind = schema["type"]
            matched = (
                any(_matches_type(value, n) for n in kind)
                if isinstance(kind, list)
                else _matches_type(value, kind)
            )
            if not matched:
                out.append(("type", path, {"type": kind}))
                ok = False
        if isinstance(value, dict):
            ok = self._object_errors(schema, value, path, out) and ok
        elif isinstance(value, list):
            ok = self._array_errors(schema, value, path, out) and ok
        elif isinstance(value, str):
            ok = self._string_errors(schema, value, path, out) and ok
        elif _is_number(value):
            for keyword in _NUMBER_KEYWORDS:
                if keyword in schema and not self._number_ok(keyword, schema, value):
                    if keyword == "multipleOf":
                        out.append(("multipleOf", path, {"multipleOf": schema[keyword]}))
                    else:
                        out.append(
                            (keyword, path, {"comparison": _COMPARISONS[keyword], "limit": schema[keyword]})
                        )
                    ok = False
        return self._combinator_errors(schema, value, path, out) and ok

    def _object_errors(
        self,
        schema: dict[str, Any],
        value: dict[str, Any],
        path: str,
        out: list[tuple[str, str, dict[str, Any]]],
    ) -> bool:
        ok = True
        required = schema.get("required")
        if isinstance(required, list):
            missing = [key for key in required if key not in value]
            if missing:
                out.append(("required", path, {"requiredProperties": missing}))
                ok = False
        if "additionalProperties" in schema:
            extra = schema["additionalProperties"]
            bad = [
                key
                for key, item in value.items()
                if not self._is_declared(schema, key) and not self.check(extra, item)
            ]
            if bad:
                out.append(("additionalProperties", path, {"additionalProperties": bad}))
                ok = False
        dependent = schema.get("dependentRequired")
        if isinstance(dependent, dict) and value:
            for key, needed in dependent.items():
                if key in value:
                    for other in needed:
                        if other not in value:
                            out.append(("dependentRequired", path, {"property": key, "dependencies": needed}))
                            ok = False
        patterns = schema.get("patternProperties")
        if isinstance(patterns, dict):
            for pattern, sub in patterns.items():
                for key, item in value.items():
                    if _regex(pattern).search(key):
                        ok = self.errors(sub, item, f"{path}/{key}", out) and ok
        properties = schema.get("properties")
        if isinstance(properties, dict):
            for key, sub in properties.items():
                if key in value:
                    ok = self.errors(sub, value[key], f"{path}/{key}", out) and ok
        names = schema.get("propertyNames")
        if names is not None:
            bad = [key for key in value if not self.check(names, key)]
            if bad:
                out.append(("propertyNames", path, {"propertyNames": bad}))
                ok = False
        if "minProperties" in schema and len(value) < schema["minProperties"]:
            out.append(("minProperties", path, {"limit": schema["minProperties"]}))
            ok = False
        if "maxProperties" in schema and len(value) > schema["maxProperties"]:
            out.append(("maxProperties", path, {"limit": schema["maxProperties"]}))
            ok = False
        return ok

    def _array_errors(
        self, schema: dict[str, Any], value: list[Any], path: str, out: list[tuple[str, str, dict[str, Any]]]
    ) -> bool:
        ok = True
        if not self._contains_ok(schema, value):
            out.append(("contains", path, {}))
            ok = False
        items = schema.get("items")
        prefix = schema.get("prefixItems")
        offset = len(prefix) if isinstance(prefix, list) else 0
        if isinstance(items, list):
            for index, sub in enumerate(items):
                if index < len(value):
                    ok = self.errors(sub, value[index], f"{path}/{index}", out) and ok
        elif items is not None:
            for index in range(offset, len(value)):
                ok = self.errors(items, value[index], f"{path}/{index}", out) and ok
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            out.append(("maxItems", path, {"limit": schema["maxItems"]}))
            ok = False
        if "minItems" in schema and len(value) < schema["minItems"]:
            out.append(("minItems", path, {"limit": schema["minItems"]}))
            ok = False
        if isinstance(prefix, list):
            for index, sub in enumerate(prefix):
                if index < len(value):
                    ok = self.errors(sub, value[index], f"{path}/{index}", out) and ok
        if schema.get("uniqueItems") is True and _duplicates(value):
            out.append(("uniqueItems", path, {}))
            ok = False
        return ok

    def _string_errors(
        self, schema: dict[str, Any], value: str, path: str, out: list[tuple[str, str, dict[str, Any]]]
    ) -> bool:
        ok = True
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            out.append(("maxLength", path, {"limit": schema["maxLength"]}))
            ok = False
        if "minLength" in schema and len(value) < schema["minLength"]:
            out.append(("minLength", path, {"limit": schema["minLength"]}))
            ok = False
        fmt = schema.get("format")
        if isinstance(fmt, str) and fmt in _FORMATS and not _FORMATS[fmt](value):
            out.append(("format", path, {"format": fmt}))
            ok = False
        pattern = schema.get("pattern")
        if isinstance(pattern, str) and not _regex(pattern).search(value):
            out.append(("pattern", path, {"pattern": pattern}))
            ok = False
        return ok

    def _combinator_errors(
        self, schema: dict[str, Any], value: Any, path: str, out: list[tuple[str, str, dict[str, Any]]]
    ) -> bool:
        ok = True
        ref = schema.get("$ref")
        if isinstance(ref, str):
            ok = self.errors(self.resolve(ref), value, path, out) and ok
        if "const" in schema and not _json_equal(value, schema["const"]):
            out.append(("const", path, {}))
            ok = False
        enum = schema.get("enum")
        if isinstance(enum, list) and not any(_json_equal(value, option) for option in enum):
            out.append(("enum", path, {}))
            ok = False
        if "if" in schema:
            if self.check(schema["if"], value):
                if not self.check(schema.get("then", True), value):
                    out.append(("if", path, {"failingKeyword": "then"}))
                    ok = False
            elif not self.errors(schema.get("else", True), value, path, out):
                out.append(("if", path, {"failingKeyword": "else"}))
                ok = False
        if "not" in schema and self.check(schema["not"], value):
            out.append(("not", path, {}))
            ok = False
        for keyword in ("allOf", "anyOf", "oneOf"):
            subs = schema.get(keyword)
            if not isinstance(subs, list):
                continue
            failed: list[list[tuple[str, str, dict[str, Any]]]] = []
            passed = 0
            for sub in subs:
                found: list[tuple[str, str, dict[str, Any]]] = []
                if self.errors(sub, value, path, found):
                    passed += 1
                else:
                    failed.append(found)
            if keyword == "allOf":
                good = passed == len(subs)
            elif keyword == "anyOf":
                good = passed > 0
            else:
                good = passed == 1
            if not good:
                if keyword != "oneOf" or passed == 0:
                    for found in failed:
                        out.extend(found)
                if keyword != "allOf":
                    out.append((keyword, path, {}))
                ok = False
        return ok

    # ---------------------------------------------------------------- coercion

    def coerce(self, value: Any, schema: Any) -> Any:
        """Pi's JSON-Schema coercion pass; containers are repaired in place."""
        if not isinstance(schema, dict):
            return value
        result = value
        all_of = schema.get("allOf")
        if isinstance(all_of, list):
            for sub in all_of:
                result = self.coerce(result, sub)
        for keyword in ("anyOf", "oneOf"):
            subs = schema.get(keyword)
            if isinstance(subs, list):
                result = self._coerce_union(result, subs)
        types = _schema_types(schema)
        if types and not (len(types) > 1 and any(_matches_type(result, t) for t in types)):
            for kind in types:
                candidate = _coerce_primitive(result, kind)
                if candidate is not _UNCHANGED:
                    result = candidate
                    break
        if "object" in types and isinstance(result, dict):
            self._coerce_object(result, schema)
        if "array" in types and isinstance(result, list):
            items = schema.get("items")
            if isinstance(items, list):
                for index, sub in enumerate(items[: len(result)]):
                    result[index] = self.coerce(result[index], sub)
            elif isinstance(items, dict):
                for index, item in enumerate(result):
                    result[index] = self.coerce(item, items)
        return result

    def _coerce_object(self, value: dict[str, Any], schema: dict[str, Any]) -> None:
        properties = schema.get("properties")
        if isinstance(properties, dict):
            for key, sub in properties.items():
                if key in value:
                    value[key] = self.coerce(value[key], sub)
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            declared = properties if isinstance(properties, dict) else {}
            for key, item in list(value.items()):
                if key not in declared:
                    value[key] = self.coerce(item, extra)

    def _coerce_union(self, value: Any, schemas: list[Any]) -> Any:
        for sub in schemas:
            if self.check(sub, value):
                return value
        for sub in schemas:
            coerced = self.coerce(_clone(value), sub)
            if self.check(sub, coerced):
                return coerced
        return value


_roots: dict[int, _Root] = {}
_MAX_ROOTS = 1024
_NUMBER_KEYWORDS = ("exclusiveMaximum", "exclusiveMinimum", "maximum", "minimum", "multipleOf")
_COMPARISONS = {"exclusiveMaximum": "<", "exclusiveMinimum": ">", "maximum": "<=", "minimum": ">="}
_UNCHANGED: Any = object()


def _coerce_primitive(value: Any, kind: str) -> Any:
    """The coerced value, or ``_UNCHANGED`` when this type offers no coercion."""
    if kind in ("number", "integer"):
        if value is None:
            return 0
        if isinstance(value, bool):
            return 1 if value else 0
        if isinstance(value, str) and value.strip(_JS_WHITESPACE) != "":
            parsed = _js_to_number(value)
            if parsed is not None and (kind == "number" or _is_integer(parsed)):
                return parsed
        return _UNCHANGED
    if kind == "boolean":
        if value is None:
            return False
        if value == "true":
            return True
        if value == "false":
            return False
        if type(value) in (int, float) and value in (0, 1):
            return value == 1
        return _UNCHANGED
    if kind == "string":
        if value is None:
            return ""
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int | float):
            return js_number(value)
        return _UNCHANGED
    if kind == "null":
        if value == "" or (type(value) in (int, float) and value == 0) or value is False:
            return None
        return _UNCHANGED
    return _UNCHANGED


def _drop_optional_nulls(root: _Root, value: Any, schema: Any) -> None:
    if not isinstance(schema, dict):
        return
    if isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, list):
            for item, sub in zip(value, items, strict=False):
                _drop_optional_nulls(root, item, sub)
        elif items is not None:
            for item in value:
                _drop_optional_nulls(root, item, items)
        return
    properties = schema.get("properties")
    if not isinstance(value, dict) or not isinstance(properties, dict):
        return
    required = set(schema.get("required") or [])
    for key, sub in properties.items():
        if key not in value:
            continue
        if (
            value[key] is None
            and key not in required
            and not (isinstance(sub, dict) and isinstance(sub.get("$ref"), str))
            and not root.check(sub, None)
        ):
            del value[key]
        else:
            _drop_optional_nulls(root, value[key], sub)


def _duplicates(items: list[Any]) -> bool:
    return any(_json_equal(items[i], items[j]) for i in range(len(items)) for j in range(i))
