"""Constrained sampling of tool calls: strict JSON-schema tools and grammar tools.

A tool asks for it through ``Tool.constrained_sampling``: ``{"type": "json_schema", "strict":
"prefer" | "require"}`` or ``{"type": "grammar", "variants": {"openai_lark": ..., "openai_regex":
...}}``. Adapters call ``resolve_strict`` with whether their target accepts strict tools;
``tool_parameters`` then gives the schema to send. Grammar tools (OpenAI's ``custom`` tools, on
Chat Completions and Responses) carry free-form text in one string argument: ``resolve_grammar``
picks the grammar, ``grammar_input_properties`` names that argument per tool, and
``GrammarInput`` streams the text as JSON argument deltas. Pi's rules and error texts.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pi_ai._context import Tool
from pi_ai.api._js import JsTypeError, nullish
from pi_ai.js_json import stringify

__all__ = [
    "GrammarInput",
    "GrammarTool",
    "UnsupportedStrictSchema",
    "grammar_input_properties",
    "grammar_tool_input",
    "make_strict_json_schema",
    "resolve_grammar",
    "resolve_strict",
    "tool_parameters",
]

_UNSUPPORTED_KEYS = (
    "$ref",
    "$defs",
    "definitions",
    "allOf",
    "oneOf",
    "patternProperties",
    "dependentSchemas",
    "dependencies",
    "unevaluatedProperties",
    "propertyNames",
    "contains",
    "prefixItems",
    "not",
    "if",
    "then",
    "else",
)


class UnsupportedStrictSchema(Exception):
    """The schema uses something strict mode cannot express."""


def _types(schema: dict[str, Any]) -> list[Any]:
    kind = schema.get("type")
    return [kind] if isinstance(kind, str) else list(kind) if isinstance(kind, list) else []


def _is_structured(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    kinds = _types(schema)
    return "object" in kinds or "array" in kinds or "properties" in schema or "items" in schema


def _allows_null(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    if schema.get("type") == "null" or (isinstance(schema.get("type"), list) and "null" in schema["type"]):
        return True
    if ("const" in schema and schema["const"] is None) or (
        isinstance(schema.get("enum"), list) and None in schema["enum"]
    ):
        return True
    return isinstance(schema.get("anyOf"), list) and any(_allows_null(variant) for variant in schema["anyOf"])


def _make_strict(schema: Any) -> None:
    if not isinstance(schema, dict):
        raise UnsupportedStrictSchema("boolean schemas are unsupported")
    for key in _UNSUPPORTED_KEYS:
        if key in schema:
            raise UnsupportedStrictSchema(f"{key} schemas are unsupported")
    if "anyOf" in schema:
        variants = schema["anyOf"]
        if not isinstance(variants, list) or not variants:
            raise UnsupportedStrictSchema("anyOf must contain at least one schema")
        for variant in variants:
            if _is_structured(variant):
                raise UnsupportedStrictSchema("object and array unions are unsupported")
            _make_strict(variant)
    if "items" in schema:
        if isinstance(schema["items"], list):
            raise UnsupportedStrictSchema("tuple schemas are unsupported")
        _make_strict(schema["items"])
    is_object = schema.get("type") == "object"
    if "properties" in schema and not is_object:
        raise UnsupportedStrictSchema("properties require type object")
    if not is_object:
        return
    if "additionalProperties" in schema and schema["additionalProperties"] is not False:
        raise UnsupportedStrictSchema("schema-valued or true additionalProperties is unsupported")
    if "properties" in schema and not isinstance(schema["properties"], dict):
        raise UnsupportedStrictSchema("object properties must be a schema map")
    if "required" in schema and (
        not isinstance(schema["required"], list)
        or any(not isinstance(key, str) for key in schema["required"])
    ):
        raise UnsupportedStrictSchema("object required must be a string array")
    properties: dict[str, Any] = schema.get("properties") or {}
    names = list(properties)
    required = set(schema.get("required") or [])
    if any(key not in names for key in required):
        raise UnsupportedStrictSchema("required contains an unknown property")
    for key, prop in list(properties.items()):
        _make_strict(prop)
        if key not in required and not _allows_null(prop):
            properties[key] = {"anyOf": [prop, {"type": "null"}]}
    schema["required"] = names
    schema["additionalProperties"] = False


def make_strict_json_schema(schema: Any) -> dict[str, Any]:
    """A deep copy of ``schema`` in the strict subset (all properties required, no extras)."""
    cloned = copy.deepcopy(schema)
    if not isinstance(cloned, dict):
        raise UnsupportedStrictSchema("root schema must have type object")
    _make_strict(cloned)
    if cloned.get("type") != "object":
        raise UnsupportedStrictSchema("root schema must have type object")
    return cloned


def resolve_strict(tool: Tool, supports_strict: bool) -> bool | None:
    """True when ``tool`` is sent strict; None otherwise. Raises when strict is required but impossible."""
    config = tool.constrained_sampling
    if not isinstance(config, dict) or config.get("type") != "json_schema":
        return None
    if supports_strict:
        try:
            make_strict_json_schema(tool.parameters)
            return True
        except UnsupportedStrictSchema as error:
            if config.get("strict") != "require":
                return None
            raise ValueError(
                f'Tool "{tool.name}" requires JSON-schema constrained sampling, but {error}.'
            ) from None
    if config.get("strict") == "require":
        raise ValueError(
            f'Tool "{tool.name}" requires JSON-schema constrained sampling, but strict tools are unsupported.'
        )
    return None


def tool_parameters(tool: Tool, strict: bool | None) -> dict[str, Any]:
    """The schema to send: strict form when ``strict`` is True, else the tool's own."""
    return make_strict_json_schema(tool.parameters) if strict else tool.parameters


@dataclass(frozen=True, slots=True)
class GrammarTool:
    format: str
    """``lark`` or ``regex``."""
    definition: str
    input_property: str
    """The single required string property that carries the grammar-constrained input."""


def _grammar_input_property(tool: Tool) -> str:
    schema = tool.parameters
    if schema.get("type") != "object":
        raise ValueError("grammar constrained sampling requires an object parameter schema")
    required = schema.get("required")
    if not isinstance(required, list) or len(required) != 1 or not isinstance(required[0], str):
        raise ValueError("grammar constrained sampling requires exactly one required string property")
    name = required[0]
    prop = (schema.get("properties") or {}).get(name)
    if not prop:
        raise ValueError(f"grammar constrained sampling requires a properties entry for {name}")
    if prop.get("type") != "string":
        raise ValueError(f"grammar constrained sampling property {name} must have type string")
    return name


def resolve_grammar(tool: Tool, supports_grammar_tools: bool) -> GrammarTool | None:
    """The grammar to send for ``tool``, when it asks for one and the target supports it."""
    config = tool.constrained_sampling
    if not isinstance(config, dict) or config.get("type") != "grammar" or not supports_grammar_tools:
        return None
    variants = config.get("variants") or {}
    lark = variants.get("openai_lark")
    regex = variants.get("openai_regex")
    has_lark = isinstance(lark, str) and bool(lark.strip())
    has_regex = isinstance(regex, str) and bool(regex.strip())
    if not has_lark and not has_regex:
        raise ValueError(
            f'Tool "{tool.name}" cannot use grammar constrained sampling: no supported grammar variant was provided.'
        )
    try:
        prop = _grammar_input_property(tool)
    except ValueError as error:
        raise ValueError(f'Tool "{tool.name}" cannot use grammar constrained sampling: {error}.') from None
    definition = str(lark if has_lark else regex)
    return GrammarTool("lark" if has_lark else "regex", definition, prop)


def grammar_input_properties(tools: Sequence[Tool] | None, supports_grammar_tools: bool) -> dict[str, str]:
    """Tool name -> the argument that carries grammar-constrained input, for the grammar tools."""
    found: dict[str, str] = {}
    for tool in tools or ():
        grammar = resolve_grammar(tool, supports_grammar_tools)
        if grammar is not None:
            found[tool.name] = grammar.input_property
    return found


def grammar_tool_input(tool_name: str, arguments: Any, input_property: str) -> str:
    """The free-form input of a grammar tool call, read back from its arguments (for replay)."""
    value = arguments.get(input_property) if isinstance(arguments, dict) else None
    if not isinstance(value, str):
        raise ValueError(
            f'Grammar tool call "{tool_name}" requires argument "{input_property}" to be a string.'
        )
    return value


class GrammarInput:
    """A grammar tool call's input as it streams, re-encoded as JSON argument deltas.

    Grammar tools stream plain text; tool-call deltas are JSON, so the text goes out as the
    growing string value of the one argument: ``{"<property>":"<input so far>``, closed with
    ``"}`` at the end. ``append`` returns the JSON text that extends what was sent to
    ``next_input`` (``None`` when there is nothing to send).
    """

    __slots__ = ("closed", "input", "prop", "started")

    def __init__(self, prop: str) -> None:
        self.prop = prop
        self.input = ""
        self.started = False
        self.closed = False

    def append(self, next_input: Any, close: bool) -> str | None:
        """``next_input`` is what the provider sent (text, or any JSON value, which fails as
        ``nextInput.startsWith`` fails in JavaScript)."""
        if self.closed:
            if close and next_input == self.input and isinstance(next_input, str):
                return None
            raise ValueError(f'grammar tool input for property "{self.prop}" changed after it was closed')
        if not isinstance(next_input, str):
            if nullish(next_input):
                kind = "null" if next_input is None else "undefined"
                raise JsTypeError(f"Cannot read properties of {kind} (reading 'startsWith')")
            raise JsTypeError("nextInput.startsWith is not a function")
        if not next_input.startswith(self.input):
            raise ValueError(f'grammar tool input for property "{self.prop}" changed non-monotonically')
        added = next_input[len(self.input) :]
        if not close and not added:
            return None
        delta = ""
        if not self.started:
            delta += "{" + stringify(self.prop) + ':"'
            self.started = True
        delta += stringify(added)[1:-1]
        self.input = next_input
        if close:
            delta += '"}'
            self.closed = True
        return delta
