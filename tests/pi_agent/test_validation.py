"""Tool-argument validation: Pi's coercion rules and error text (pi-ai validateToolArguments)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from pi_agent import ToolArgumentsError, validate_arguments, validate_tool_arguments
from pi_ai import Tool, ToolCall
from pi_ai.js_json import js_number, stringify
from tests.support.oracle import conformance_in_process, run_oracle

OBJECT = {"type": "object"}


def schema(properties: dict[str, Any], required: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": properties, **extra}
    if required is not None:
        out["required"] = required
    return out


@pytest.mark.parametrize(("prop", "given_value", "expected"), [
    ({"type": "number"}, "5", 5),
    ({"type": "number"}, " 2.50 ", 2.5),
    ({"type": "number"}, "0x10", 16),
    ({"type": "number"}, True, 1),
    ({"type": "number"}, None, 0),
    ({"type": "integer"}, "7", 7),
    ({"type": "boolean"}, "true", True),
    ({"type": "boolean"}, "false", False),
    ({"type": "boolean"}, 0, False),
    ({"type": "boolean"}, None, False),
    ({"type": "string"}, 42, "42"),
    ({"type": "string"}, 2.5, "2.5"),
    ({"type": "string"}, 1e-7, "1e-7"),
    ({"type": "string"}, False, "false"),
    ({"type": "string"}, None, ""),
    ({"type": "null"}, "", None),
    ({"type": "null"}, 0, None),
    ({"type": ["string", "null"]}, None, None),
    ({"anyOf": [{"type": "number"}, {"type": "boolean"}]}, "true", True),
    ({"anyOf": [{"type": "number"}, {"type": "string"}]}, "12", "12"),
    ({"type": "array", "items": {"type": "integer"}}, ["1", 2], [1, 2]),
])
def test_coercion(prop: dict[str, Any], given_value: Any, expected: Any) -> None:
    out = validate_arguments("t", schema({"v": prop}, ["v"]), {"v": given_value})
    assert out == {"v": expected} and type(out["v"]) is type(expected)


def test_optional_nulls_are_dropped_and_the_input_is_not_modified() -> None:
    args = {"name": None, "count": "3", "nested": {"flag": None, "keep": None}}
    params = schema({
        "name": {"type": "string"},
        "count": {"type": "integer"},
        "nested": schema({"flag": {"type": "boolean"}, "keep": {"type": ["boolean", "null"]}}),
    })
    assert validate_arguments("t", params, args) == {"count": 3, "nested": {"keep": None}}
    assert args == {"name": None, "count": "3", "nested": {"flag": None, "keep": None}}


def test_required_null_is_coerced_not_dropped() -> None:
    assert validate_arguments("t", schema({"n": {"type": "number"}}, ["n"]), {"n": None}) == {"n": 0}


def test_error_text_lists_each_field_and_the_received_arguments() -> None:
    params = schema({"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1, "maximum": 14}},
                    ["city"], additionalProperties=False)
    with pytest.raises(ToolArgumentsError) as caught:
        validate_arguments("get_weather", params, {"town": 3, "days": 30})
    assert str(caught.value) == (
        'Validation failed for tool "get_weather":\n'
        "  - city: must have required properties city\n"
        "  - root: must not have additional properties\n"
        "  - days: must be <= 14\n\n"
        'Received arguments:\n{\n  "town": 3,\n  "days": 30\n}'
    )
    assert caught.value.errors[0] == "city: must have required properties city"


def test_nested_paths_enum_pattern_and_union_messages() -> None:
    params = schema({
        "items": {"type": "array", "items": schema({"id": {"type": "string", "pattern": "^[a-z]+$"}}, ["id"])},
        "mode": {"enum": ["a", "b"]},
        "either": {"anyOf": [{"type": "string"}, {"type": "number"}]},
    })
    with pytest.raises(ToolArgumentsError) as caught:
        validate_arguments("t", params, {"items": [{"id": "ok"}, {"id": "NO"}, {}], "mode": "c", "either": [1]})
    assert caught.value.errors == [
        "items.1.id: must match pattern \"^[a-z]+$\"",
        "items.2.id: must have required properties id",
        "mode: must be equal to one of the allowed values",
        "either: must be string",
        "either: must be number",
        "either: must match a schema in anyOf",
    ]


def test_refs_into_defs_are_followed() -> None:
    params = {"type": "object", "properties": {"point": {"$ref": "#/$defs/Point"}}, "required": ["point"],
              "$defs": {"Point": schema({"x": {"type": "number"}}, ["x"])}}
    assert validate_arguments("t", params, {"point": {"x": 1}}) == {"point": {"x": 1}}
    with pytest.raises(ToolArgumentsError, match=r"point\.x: must have required properties x"):
        validate_arguments("t", params, {"point": {}})


def test_formats_and_error_cap() -> None:
    params = schema({f"d{i}": {"type": "string", "format": "date"} for i in range(10)})
    with pytest.raises(ToolArgumentsError) as caught:
        validate_arguments("t", params, {f"d{i}": "2024-02-30" for i in range(10)})
    assert len(caught.value.errors) == 8
    assert caught.value.errors[0] == 'd0: must match format "date"'
    assert validate_arguments("t", schema({"when": {"type": "string", "format": "date-time"}}),
                              {"when": "2024-02-29T10:00:00Z"})


def test_validate_tool_arguments_takes_a_tool_and_a_call() -> None:
    tool = Tool(name="t", description="", parameters=schema({"n": {"type": "integer"}}))
    call = ToolCall(id="c", name="t", arguments={"n": "4"})
    assert validate_tool_arguments(tool, call) == {"n": 4}


@pytest.mark.parametrize(("value", "text"), [
    (5, "5"), (5.0, "5"), (0.1, "0.1"), (1e21, "1e+21"), (1e-7, "1e-7"), (0.000001, "0.000001"),
    (123456789012345680000.0, "123456789012345680000"), (-2.5e-8, "-2.5e-8"),
])
def test_numbers_print_like_javascript(value: float, text: str) -> None:
    assert js_number(value) == text


def test_pretty_json_matches_json_stringify() -> None:
    assert stringify({"a": [1, 2.0, {"b": None}], "c": {}, "d": []}, 2) == (
        '{\n  "a": [\n    1,\n    2,\n    {\n      "b": null\n    }\n  ],\n  "c": {},\n  "d": []\n}'
    )


# --------------------------------------------------------------------------- against Pi

LIVE_SCHEMA = schema(
    {
        "count": {"type": "integer", "minimum": 0},
        "ratio": {"type": "number", "exclusiveMaximum": 10},
        "flag": {"type": "boolean"},
        "name": {"type": "string", "minLength": 2, "maxLength": 6},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
        "mode": {"type": "string", "enum": ["fast", "slow"]},
        "maybe": {"type": ["number", "null"]},
        "pick": {"anyOf": [{"type": "boolean"}, {"type": "integer"}]},
        "inner": schema({"depth": {"type": "integer"}}, ["depth"]),
    },
    ["count", "name"],
)

json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-20, 20), st.sampled_from([0.5, -1.25, 12.5]),
    st.sampled_from(["", "0", "1", "5", "2.5", " 7 ", "true", "false", "fast", "slow", "ab", "abcdefgh", "x1", "0x1f"]),
)
json_values = st.recursive(json_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(["depth", "x"]), inner, max_size=2)), max_leaves=6)
argument_sets = st.dictionaries(
    st.sampled_from(["count", "ratio", "flag", "name", "tags", "mode", "maybe", "pick", "inner", "extra"]),
    json_values, max_size=6,
)


@pytest.mark.oracle
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(st.lists(argument_sets, min_size=8, max_size=12))
def test_validation_matches_pi_on_generated_arguments(batch: list[dict[str, Any]]) -> None:
    """Each example sends a batch of generated tool calls through Pi and through us."""
    calls = [{"type": "toolCall", "id": f"c{i}", "name": "configure", "arguments": args} for i, args in enumerate(batch)]
    request = {
        "prompt": "go",
        "tools": [{"name": "configure", "description": "", "parameters": LIVE_SCHEMA, "results": []}],
        "responses": [{"content": calls}, "done"],
    }
    code, expected = run_oracle("agent-events", request)
    ours_code, ours = conformance_in_process("agent-events", request)

    def results(output: dict[str, Any]) -> list[Any]:
        return [m for m in output["finalMessages"] if m["role"] == "toolResult"]

    assert (ours_code, ours["toolCalls"], results(ours)) == (code, expected["toolCalls"], results(expected)), (
        json.dumps(batch)
    )
