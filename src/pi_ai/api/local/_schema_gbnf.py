"""JSON schema to GBNF: the rules that hold a tool call's arguments to the tool's schema.

Ours, so the grammar does not depend on which llama.cpp runtime is installed (the prebuilt one
has no Python converter). It covers what tool schemas use: objects (required properties first,
in their declared order, then the optional ones, each at most once and in order), arrays (with
``minItems``/``maxItems``), strings (``minLength``/``maxLength``), numbers, integers, booleans,
null, ``const``, ``enum``, ``anyOf``/``oneOf``, a list of types, local ``$ref``s, and ``{}``
(any JSON value), and lower bounds of numbers (``minimum``/``exclusiveMinimum``: exact for
integers at or above 0 and for numbers bounded at 0, rounded inward to a whole bound for other
numbers; negative bounds are not enforced), and, for a number with such a lower bound, its
``maximum`` as a count of digits (100000 allows up to 99999; a maximum with no more digits than
the lower bound allows every number of the bound's length). Keywords
it does not know (``pattern``, ``format``...) are not enforced; the tool still validates its arguments. An object without ``additionalProperties``
gets no other keys (stricter than JSON Schema: a small model only needs the declared ones).

A schema ``{RULE_KEY: name}`` stands for a rule written elsewhere (``_copy``): its name is used.
Whitespace between tokens is what llama.cpp's own converter allows (``space``), which the copy
rules rely on.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

SPACE_RULE = r'space ::= | " " | "\n"{1,2} [ \t]{0,20}'
_PRIMITIVES = {
    "boolean": '("true" | "false") space',
    "null": '"null" space',
    "integer": '("-"? ("0" | [1-9] [0-9]{0,15})) space',
    "number": '("-"? ("0" | [1-9] [0-9]{0,15})) ("." [0-9]{1,16})? ([eE] [-+]? [0-9]{1,4})? space',
    "string": '"\\"" json-char* "\\"" space',
}
_JSON_CHAR = r'json-char ::= [^"\\\x7F\x00-\x1F] | [\\] (["\\bfnrt] | "u" [0-9a-fA-F]{4})'
_ANY_RULES = {
    "json-value": "json-object | json-array | string | number | boolean | null",
    "json-object": '"{" space (string ":" space json-value ("," space string ":" space json-value)*)? "}" space',
    "json-array": '"[" space (json-value ("," space json-value)*)? "]" space',
}


def literal(text: str) -> str:
    """``text`` as a GBNF string literal."""
    escaped = []
    for char in text:
        if char in '"\\':
            escaped.append("\\" + char)
        elif char == "\n":
            escaped.append("\\n")
        elif char == "\r":
            escaped.append("\\r")
        elif char == "\t":
            escaped.append("\\t")
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            escaped.append(f"\\x{ord(char):02X}")
        else:
            escaped.append(char)
    return '"' + "".join(escaped) + '"'


def _lower_bound(schema: dict[str, Any]) -> tuple[float, bool] | None:
    """``(bound, exclusive)`` from ``minimum`` / ``exclusiveMinimum`` (the stricter one), when at or
    above 0; None otherwise."""
    bounds: list[tuple[float, bool]] = []
    for key, strict in (("minimum", False), ("exclusiveMinimum", True)):
        value = schema.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0:
            bounds.append((float(value), strict))
    return max(bounds) if bounds else None


def at_least(low: int, max_digits: int = 16) -> str:
    """GBNF for the whole numbers (decimal, no sign, no leading zero, at most ``max_digits`` digits)
    >= ``low`` >= 0; ``max_digits`` is at least the digits of ``low``."""
    digits = str(low)
    longer = f"[1-9] [0-9]{{{len(digits)},{max_digits - 1}}}" if len(digits) < max_digits else ""
    same = _same_length_at_least(digits)
    return f"({same} | {longer})" if longer else f"({same})"


def _same_length_at_least(digits: str) -> str:
    """Numbers with as many digits as ``digits`` that are >= it."""
    head, rest = int(digits[0]), digits[1:]
    if not rest:
        return f"[{head}-9]"
    options = [f'"{head}" ({_same_length_at_least(rest)})']
    if head < 9:
        options.append(f"[{head + 1}-9] [0-9]{{{len(rest)}}}")
    return " | ".join(options)


def _max_digits(schema: dict[str, Any], low: int) -> int:
    """The most digits a whole part may have under ``schema``'s ``maximum``: one fewer than the
    maximum's own (every such number is below it), never fewer than ``low``'s; 16 without one."""
    high = schema.get("maximum")
    if not isinstance(high, (int, float)) or isinstance(high, bool) or not math.isfinite(high) or high > 1e16:
        return 16
    return max(len(str(low)), len(str(math.floor(high))) - 1)


class SchemaGrammar:
    """Collects the rules of one grammar; ``visit`` returns the name of a schema's rule."""

    def __init__(self, root: dict[str, Any], *, rule_key: str) -> None:
        self.root = root
        self.rule_key = rule_key
        self.rules: dict[str, str] = {}
        self._refs: dict[str, str] = {}

    def _add(self, name: str, body: str) -> str:
        name = re.sub(r"[^A-Za-z0-9-]+", "-", name).strip("-") or "rule"
        if self.rules.get(name, body) == body:
            self.rules[name] = body
            return name
        index = 1
        while self.rules.get(f"{name}{index}", body) != body:
            index += 1
        self.rules[f"{name}{index}"] = body
        return f"{name}{index}"

    def _primitive(self, kind: str) -> str:
        if kind == "string":
            self.rules["json-char"] = _JSON_CHAR.split(" ::= ", 1)[1]
        if kind == "any":
            for name in ("string", "number", "boolean", "null"):
                self._primitive(name)
            self.rules.update(_ANY_RULES)
            return "json-value"
        self.rules[kind] = _PRIMITIVES[kind]
        return kind

    def visit(self, schema: Any, name: str) -> str:
        if not isinstance(schema, dict):
            return self._primitive("any") if schema is not False else self._add(name, '"\\u0000"')
        if self.rule_key in schema:
            return str(schema[self.rule_key])
        if "$ref" in schema:
            return self._ref(str(schema["$ref"]))
        if "const" in schema:
            return self._add(name, f"{literal(json.dumps(schema['const'], ensure_ascii=False))} space")
        if isinstance(schema.get("enum"), list):
            options = " | ".join(literal(json.dumps(value, ensure_ascii=False)) for value in schema["enum"])
            return self._add(name, f"({options or chr(34) * 2}) space")
        for key in ("anyOf", "oneOf"):
            if isinstance(schema.get(key), list):
                names = [self.visit(option, f"{name}-{index}") for index, option in enumerate(schema[key])]
                return self._add(name, " | ".join(names)) if names else self._primitive("any")
        kind = schema.get("type")
        if isinstance(kind, list):
            names = [self.visit({**schema, "type": option}, f"{name}-{option}") for option in kind]
            return self._add(name, " | ".join(names))
        if kind == "object" or (kind is None and "properties" in schema):
            return self._object(schema, name)
        if kind == "array":
            return self._array(schema, name)
        if kind == "string":
            return self._string(schema, name)
        if kind in ("integer", "number") and _lower_bound(schema) is not None:
            return self._bounded(schema, str(kind), name)
        if kind in _PRIMITIVES:
            return self._primitive(str(kind))
        return self._primitive("any")

    def _ref(self, ref: str) -> str:
        if ref in self._refs:
            return self._refs[ref]
        target: Any = self.root
        for part in ref.removeprefix("#").strip("/").split("/"):
            target = target.get(part) if isinstance(target, dict) and part else target
        name = self._add("ref-" + ref.rsplit("/", 1)[-1], "space")  # reserved; rewritten below
        self._refs[ref] = name
        self.rules[name] = self.visit(target, f"{name}-body")
        return name

    def _string(self, schema: dict[str, Any], name: str) -> str:
        low, high = schema.get("minLength"), schema.get("maxLength")
        if not isinstance(low, int) and not isinstance(high, int):
            return self._primitive("string")
        self._primitive("string")
        bounds = f"{low if isinstance(low, int) else 0},{high if isinstance(high, int) else ''}"
        return self._add(name, f'"\\"" json-char{{{bounds}}} "\\"" space')

    def _bounded(self, schema: dict[str, Any], kind: str, name: str) -> str:
        """A number held to its lower bound: what a tool refuses (bash ``timeout: 0``) cannot be written."""
        bound = _lower_bound(schema)
        assert bound is not None
        low, strict = bound
        fraction = '("." [0-9]{1,16})?' if kind == "number" else ""
        exponent = '([eE] [-+]? [0-9]{1,4})?' if kind == "number" else ""
        if kind == "number" and low == 0:
            positive = f'([1-9] [0-9]{{0,15}} {fraction} | "0." "0"{{0,15}} [1-9] [0-9]{{0,14}}) {exponent}'
            body = positive if strict else f'({positive} | "0" ("." "0"{{1,16}})?)'
            return self._add(name, f"{body} space")
        # A bound that is not whole is rounded inward (1.5 -> 2: 1.75 is refused though valid).
        whole = math.floor(low) + 1 if strict and low == math.floor(low) else math.ceil(low)
        return self._add(name, f"{at_least(whole, _max_digits(schema, whole))} {fraction} space".replace("  ", " "))

    def _array(self, schema: dict[str, Any], name: str) -> str:
        item = self.visit(schema.get("items", {}), f"{name}-item")
        low: int = schema["minItems"] if isinstance(schema.get("minItems"), int) else 0
        high: int | None = schema["maxItems"] if isinstance(schema.get("maxItems"), int) else None
        if high == 0:
            return self._add(name, '"[" space "]" space')
        more = f'("," space {item}){{{max(0, low - 1)},{"" if high is None else high - 1}}}'
        items = f"{item} {more}"
        return self._add(name, f'"[" space {items if low > 0 else f"({items})?"} "]" space')

    def _object(self, schema: dict[str, Any], name: str) -> str:
        properties: dict[str, Any] = schema["properties"] if isinstance(schema.get("properties"), dict) else {}
        required = [key for key in properties if key in set(schema.get("required") or [])]
        optional = [key for key in properties if key not in required]
        pairs = {
            key: self._add(f"{name}-{key}-kv", f"{literal(json.dumps(key, ensure_ascii=False))} space \":\" space "
                           f"{self.visit(value, f'{name}-{key}')}")
            for key, value in properties.items()
        }
        extra = schema.get("additionalProperties")
        extra_pair = None
        if extra is True or isinstance(extra, dict):
            value = self.visit(extra if isinstance(extra, dict) else {}, f"{name}-additional")
            extra_pair = self._add(f"{name}-additional-kv", f'string ":" space {value}')
            self._primitive("string")
        body = self._members([pairs[key] for key in required], [pairs[key] for key in optional], extra_pair, name)
        return self._add(name, f'"{{" space {body} "}}" space'.replace("  ", " "))

    def _members(self, required: list[str], optional: list[str], extra: str | None, name: str) -> str:
        """The members between the braces: required ones in order, then any of the optional ones
        in order, then (when allowed) any number of other keys."""
        tail = f'("," space {extra})*' if extra else ""
        if required:
            parts = [" \",\" space ".join(required), *(f'("," space {pair})?' for pair in optional), tail]
            return " ".join(part for part in parts if part)
        firsts = [*optional, *([extra] if extra else [])]
        if not firsts:
            return ""
        # after-i: what may follow the i-th optional member when it is the first one written.
        options = []
        for index, pair in enumerate(optional):
            rest = " ".join([*(f'("," space {later})?' for later in optional[index + 1 :]), tail]).strip()
            options.append(f"{pair} {self._add(f'{name}-after-{index}', rest)}" if rest else pair)
        if extra:
            options.append(f"{extra} {tail}")
        return f"({' | '.join(options)})?"

    def format(self) -> list[str]:
        return [SPACE_RULE, *(f"{name} ::= {body}" for name, body in self.rules.items())]


def schema_rules(schema: dict[str, Any], name: str, *, rule_key: str) -> list[str]:
    """GBNF rules for ``schema``, the top one named ``name`` (plus ``space`` and helpers)."""
    grammar = SchemaGrammar(schema, rule_key=rule_key)
    top = grammar.visit(schema, name)
    if top != name:
        grammar.rules[name] = top
    return grammar.format()
