"""Constrained sampling of tool arguments: strict JSON Schema and grammar (custom) tools.

A ``Tool`` may ask for ``constrained_sampling``:

- ``{"type": "json_schema", "strict": "prefer" | "require"}``: send the schema in the strict
  subset providers accept (every property required, optional ones made nullable, no
  ``additionalProperties``). When the schema cannot be made strict, ``prefer`` falls back
  to a normal tool and ``require`` fails the request.
- ``{"type": "grammar", "variants": {"openai_lark": ..., "openai_regex": ...}}``: on OpenAI
  models that support it the tool becomes a ``custom`` tool whose single string argument is
  generated under the grammar.

Pi's exact error texts are kept: they reach the user as the request's error message.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pi_ai._context import Tool
from pi_ai.api._responses_js import js_stringify

_UNSUPPORTED_STRICT_KEYS = (
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
    """The schema uses a construct strict mode cannot express."""


def _is_object(value: Any) -> bool:
    return isinstance(value, dict)


def _is_structured(schema: Any) -> bool:
    if not _is_object(schema):
        return False
    kind = schema.get("type")
    kinds = [kind] if isinstance(kind, str) else (kind if isinstance(kind, list) else [])
    return "object" in kinds or "array" in kinds or "properties" in schema or "items" in schema


def _allows_null(schema: Any) -> bool:
    if not _is_object(schema):
        return False
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if "const" in schema and schema["const"] is None:
        return True
    if isinstance(schema.get("enum"), list) and None in schema["enum"]:
        return True
    any_of = schema.get("anyOf")
    return isinstance(any_of, list) and any(_allows_null(variant) for variant in any_of)


def _make_strict(schema: Any) -> None:
    if not _is_object(schema):
        raise UnsupportedStrictSchema("boolean schemas are unsupported")
    for key in _UNSUPPORTED_STRICT_KEYS:
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
    if "properties" in schema and not _is_object(schema["properties"]):
        raise UnsupportedStrictSchema("object properties must be a schema map")
    required_value = schema.get("required")
    if "required" in schema and (
        not isinstance(required_value, list) or any(not isinstance(key, str) for key in required_value)
    ):
        raise UnsupportedStrictSchema("object required must be a string array")
    properties: dict[str, Any] = schema.get("properties") or {}
    required = set(required_value) if isinstance(required_value, list) else set()
    if any(key not in properties for key in required):
        raise UnsupportedStrictSchema("required contains an unknown property")
    for key, prop in list(properties.items()):
        _make_strict(prop)
        if key not in required and not _allows_null(prop):
            properties[key] = {"anyOf": [prop, {"type": "null"}]}
    schema["required"] = list(properties)
    schema["additionalProperties"] = False


def make_strict_json_schema(schema: Any) -> dict[str, Any]:
    """A strict copy of ``schema`` (the original is not modified)."""
    cloned = copy.deepcopy(schema)
    if not _is_object(cloned):
        raise UnsupportedStrictSchema("root schema must have type object")
    _make_strict(cloned)
    if cloned.get("type") != "object":
        raise UnsupportedStrictSchema("root schema must have type object")
    return dict(cloned)


def json_schema_tool_parameters(tool: Tool, strict: bool) -> dict[str, Any]:
    """The parameters to send: the strict form when ``strict`` resolved true, else as given."""
    return make_strict_json_schema(tool.parameters) if strict else tool.parameters


def _config(tool: Tool) -> dict[str, Any] | None:
    config = tool.constrained_sampling
    return config if isinstance(config, dict) else None


def resolve_json_schema_strict_sampling(tool: Tool, supports_strict_mode: bool) -> bool | None:
    """True when the tool asked for strict JSON-schema sampling and it can be given.

    ``None`` means "not strict" (not asked, or ``prefer`` with an unsupported schema); a
    ``require`` that cannot be met raises ``ValueError`` with Pi's message.
    """
    config = _config(tool)
    if config is None or config.get("type") != "json_schema":
        return None
    if supports_strict_mode:
        try:
            make_strict_json_schema(tool.parameters)
        except UnsupportedStrictSchema as error:
            if config.get("strict") != "require":
                return None
            raise ValueError(
                f'Tool "{tool.name}" requires JSON-schema constrained sampling, but {error}.'
            ) from None
        return True
    if config.get("strict") == "require":
        raise ValueError(
            f'Tool "{tool.name}" requires JSON-schema constrained sampling, but strict tools are unsupported.'
        )
    return None


@dataclass(frozen=True, slots=True)
class Grammar:
    syntax: str
    """``lark`` or ``regex``."""
    definition: str
    input_property: str
    """The one required string argument that carries the generated text."""


def _grammar_input_property(tool: Tool) -> str:
    schema = tool.parameters
    if schema.get("type") != "object":
        raise ValueError("grammar constrained sampling requires an object parameter schema")
    required = schema.get("required")
    if not isinstance(required, list) or len(required) != 1 or not isinstance(required[0], str):
        raise ValueError("grammar constrained sampling requires exactly one required string property")
    name = required[0]
    properties = schema.get("properties")
    prop = properties.get(name) if isinstance(properties, dict) else None
    if not prop:
        raise ValueError(f"grammar constrained sampling requires a properties entry for {name}")
    if not isinstance(prop, dict) or prop.get("type") != "string":
        raise ValueError(f"grammar constrained sampling property {name} must have type string")
    return name


def resolve_grammar_constrained_sampling(tool: Tool, supports_grammar_tools: bool) -> Grammar | None:
    """The grammar to send for a grammar tool, when the model supports custom tools."""
    config = _config(tool)
    if config is None or config.get("type") != "grammar" or not supports_grammar_tools:
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
        input_property = _grammar_input_property(tool)
    except ValueError as error:
        raise ValueError(f'Tool "{tool.name}" cannot use grammar constrained sampling: {error}.') from None
    return Grammar("lark" if has_lark else "regex", str(lark if has_lark else regex), input_property)


def grammar_tool_input_properties(
    tools: Sequence[Tool] | None, supports_grammar_tools: bool
) -> dict[str, str]:
    """Tool name -> input argument, for the tools sent as grammar (custom) tools."""
    found: dict[str, str] = {}
    for tool in tools or ():
        grammar = resolve_grammar_constrained_sampling(tool, supports_grammar_tools)
        if grammar is not None:
            found[tool.name] = grammar.input_property
    return found


def grammar_tool_input(tool_name: str, arguments: dict[str, Any], input_property: str) -> str:
    """The free-form input of a grammar tool call, read back from its arguments."""
    value = arguments.get(input_property)
    if not isinstance(value, str):
        raise ValueError(
            f'Grammar tool call "{tool_name}" requires argument "{input_property}" to be a string.'
        )
    return value


@dataclass(slots=True)
class GrammarInputBuffer:
    """What has been emitted so far of a grammar tool call's input, as JSON argument deltas."""

    input: str = ""
    started: bool = False
    closed: bool = False


def append_grammar_tool_input_json_delta(
    buffer: GrammarInputBuffer, input_property: str, next_input: str, close: bool
) -> str | None:
    """The JSON text that extends ``{"<property>":"<input so far>`` to ``next_input``.

    Grammar tools stream plain text; tool-call deltas are JSON, so the text is re-encoded as
    the growing string value of the one argument (closed with ``"}`` at the end).
    """
    if buffer.closed:
        if close and next_input == buffer.input:
            return None
        raise ValueError(f'grammar tool input for property "{input_property}" changed after it was closed')
    if not next_input.startswith(buffer.input):
        raise ValueError(f'grammar tool input for property "{input_property}" changed non-monotonically')
    added = next_input[len(buffer.input) :]
    if not close and not added:
        return None
    delta = ""
    if not buffer.started:
        delta += "{" + js_stringify(input_property) + ':"'
        buffer.started = True
    delta += js_stringify(added)[1:-1]
    buffer.input = next_input
    if close:
        delta += '"}'
        buffer.closed = True
    return delta
