"""Tool-argument validation with Pi 1.6's coercion rules and error text.

Models send arguments that are almost right: ``"5"`` for a number, ``null`` for an optional
field, ``"true"`` for a boolean, one value where a list is expected. Pi 1.6 (pi-ai
``validateToolArguments`` over its ``pi-schema`` package) repairs those before it checks the
JSON Schema (``_coercion``), and when the check still fails it reports every bad field so the
model can fix its call (``_explain``): one ``  - <dotted path>: <message>`` line per error
(``n: expected number, got string``, ``path: missing``, ``extra: unknown field``), then the
received arguments as pretty JSON. Pi 0.85 used TypeBox's wording (``must be number``), capped
the list at 8 and coerced less (``""``, ``"0b101"``, ``"12n"`` and single values for arrays
were refused); docs/pi-1.6/tools-and-compaction.md.

The checker covers the JSON Schema keywords tool schemas use in practice (types, properties,
required, additionalProperties, patternProperties, propertyNames, items/prefixItems,
contains, length/size/number bounds, pattern, format, enum, const, $ref into the same
document, allOf/anyOf/oneOf/not, if/then/else, dependentRequired/dependentSchemas, boolean
schemas). Unknown keywords are ignored, as JSON Schema prescribes, and so are unknown formats.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any, Protocol

from pi_agent._coercion import Coercer
from pi_agent._explain import explain, has_duplicates, is_multiple, json_equal
from pi_ai import ARGUMENTS_ERROR_KEY
from pi_ai.js_json import stringify


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


def refuse_unreadable(tool_call: _HasArguments) -> None:
    """``ToolArgumentsError`` when the call's argument text was no JSON object (its
    ``argumentsError``): Pi 1.6 answers it before any schema check."""
    unreadable = getattr(tool_call, "arguments_error", None)
    if isinstance(unreadable, str) and unreadable:
        raise ToolArgumentsError(f'Invalid arguments for tool "{tool_call.name}": {unreadable}', [unreadable])


def validate_tool_arguments(tool: _HasParameters, tool_call: _HasArguments) -> dict[str, Any]:
    """The coerced arguments of ``tool_call`` for ``tool``, or ``ToolArgumentsError`` (also for
    a call whose argument text was no JSON object: its ``argumentsError``, as Pi 1.6 words it)."""
    refuse_unreadable(tool_call)
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
    args = _clone(Coercer(root, schema).coerce(arguments))
    if root.check(schema, args):
        return args
    lines = [f"{_dotted(path)}: {message}" for path, message in explain(root, schema, args)]
    listing = "\n".join(f"  - {line}" for line in lines)
    message = (f'Validation failed for tool "{tool_name}":\n{listing}\n\n'
               f"Received arguments:\n{stringify(arguments, 2)}")
    raise ToolArgumentsError(message, lines)


def _dotted(pointer: str) -> str:
    """A JSON Pointer as the dotted path the model sees: ``/edits/0/oldText`` -> ``edits.0.oldText``."""
    if pointer == "":
        return "root"
    return ".".join(part.replace("~1", "/").replace("~0", "~") for part in pointer[1:].split("/"))


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


_regex_cache: dict[str, re.Pattern[str]] = {}


def _regex(pattern: str) -> re.Pattern[str]:
    compiled = _regex_cache.get(pattern)
    if compiled is None:
        compiled = _regex_cache[pattern] = re.compile(pattern)
    return compiled


# --------------------------------------------------------------------------- formats

_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_TIME = re.compile(r"(\d{2}):(\d{2}):(\d{2})(\.\d+)?([zZ]|[+-]\d{2}:\d{2})")
_EMAIL = re.compile(r"[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*")
_HOSTNAME = re.compile(r"(?=.{1,253}$)[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*\.?")
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
        """The part of the schema ``ref`` names; ``False`` (rejects every value) when it names
        nothing, as Pi 1.6 compiles a dangling reference of an MCP server's schema."""
        target = self._lookup(ref)
        return False if target is _UNRESOLVED else target

    def resolves(self, ref: str) -> bool:
        return self._lookup(ref) is not _UNRESOLVED

    def _lookup(self, ref: str) -> Any:
        if ref == "#":
            return self.schema
        if not ref.startswith("#/"):
            return _UNRESOLVED
        target: Any = self.schema
        for raw in ref[2:].split("/"):
            part = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and part in target:
                target = target[part]
            elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
                target = target[int(part)]
            else:
                return _UNRESOLVED
        return target

    @staticmethod
    def format_ok(name: str, text: str) -> bool | None:
        """Whether ``text`` has the format ``name``; ``None`` for a format we do not check."""
        check = _FORMATS.get(name)
        return None if check is None else check(text)

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
            parts = [part for part in (
                self._compile_type(schema),
                self._compile_object(schema),
                self._compile_array(schema),
                self._compile_string(schema),
                self._compile_number(schema),
                *self._compile_combinators(schema),
            ) if part is not None]
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
            steps.append(lambda value: all(
                self._is_declared(schema, key) or self.check(extra, item) for key, item in value.items()))
        dependent = schema.get("dependentRequired")
        if isinstance(dependent, dict):
            steps.append(lambda value: not value or all(
                key not in value or all(other in value for other in needed) for key, needed in dependent.items()))
        patterns = schema.get("patternProperties")
        if isinstance(patterns, dict):
            steps.append(lambda value: all(
                not _regex(pattern).search(key) or self.check(sub, item)
                for pattern, sub in patterns.items() for key, item in value.items()))
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
            steps.append(lambda value: all(check(item) for check, item in zip(prefix_checks, value, strict=False)))
        items = schema.get("items")
        if isinstance(items, list):
            item_checks = [self.compile(sub) for sub in items]
            steps.append(lambda value: all(check(item) for check, item in zip(item_checks, value, strict=False)))
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
            steps.append(lambda value: not has_duplicates(value))
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
            parts.append(lambda value: json_equal(value, constant))
        enum = schema.get("enum")
        if isinstance(enum, list):
            parts.append(lambda value: any(json_equal(value, option) for option in enum))
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
        return is_multiple(value, limit)


_roots: dict[int, _Root] = {}
_MAX_ROOTS = 1024
_UNRESOLVED: Any = object()
_NUMBER_KEYWORDS = ("exclusiveMaximum", "exclusiveMinimum", "maximum", "minimum", "multipleOf")
