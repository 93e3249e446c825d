"""Tool-argument validation: Pi 1.6's coercion rules and error text (pi-ai validateToolArguments
over pi-schema), checked against the live Pi 1.6."""

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


COERCIONS: list[tuple[dict[str, Any], Any, Any]] = [
    ({"type": "number"}, "5", 5),
    ({"type": "number"}, " 2.50 ", 2.5),
    ({"type": "number"}, "0x10", 16),
    ({"type": "number"}, "0b101", 5),
    ({"type": "number"}, "", 0),
    ({"type": "number"}, True, 1),
    ({"type": "number"}, None, 0),
    ({"type": "integer"}, "7", 7),
    ({"type": "integer"}, "3.7", 3),
    ({"type": "integer"}, "12n", 12),
    ({"type": "boolean"}, "true", True),
    ({"type": "boolean"}, "FALSE", False),
    ({"type": "boolean"}, 0, False),
    ({"type": "boolean"}, None, False),
    ({"type": "string"}, 42, "42"),
    ({"type": "string"}, 2.5, "2.5"),
    ({"type": "string"}, 1e-7, "1e-7"),
    ({"type": "string"}, False, "false"),
    ({"type": "string"}, None, "null"),
    ({"type": "null"}, "", None),
    ({"type": "null"}, 0, None),
    ({"type": ["string", "null"]}, None, None),
    ({"type": ["integer", "null"]}, "", None),
    ({"anyOf": [{"type": "number"}, {"type": "boolean"}]}, "true", 1),
    ({"anyOf": [{"type": "number"}, {"type": "string"}]}, "12", "12"),
    ({"type": "array", "items": {"type": "integer"}}, ["1", 2], [1, 2]),
    ({"type": "array", "items": {"type": "integer"}}, "7", [7]),
    ({"enum": [1, "x"]}, "1", 1),
    ({"const": 3}, "3", 3),
]


@pytest.mark.parametrize(("prop", "given_value", "expected"), COERCIONS)
def test_coercion(prop: dict[str, Any], given_value: Any, expected: Any) -> None:
    out = validate_arguments("t", schema({"v": prop}, ["v"]), {"v": given_value})
    assert out == {"v": expected} and type(out["v"]) is type(expected)


def _one_tool_per_case(cases: list[tuple[dict[str, Any], Any]]) -> dict[str, Any]:
    tools = [{"name": f"t{i}", "description": "", "parameters": schema({"v": prop}, ["v"]),
              "results": [{"content": [{"type": "text", "text": "ok"}]}]} for i, (prop, _) in enumerate(cases)]
    calls = [{"type": "toolCall", "id": f"c{i}", "name": f"t{i}", "arguments": {"v": value}}
             for i, (_, value) in enumerate(cases)]
    return {"prompt": "go", "tools": tools, "responses": [{"content": calls}, "done"]}


def _results(output: dict[str, Any]) -> list[Any]:
    return [m for m in output["finalMessages"] if m["role"] == "toolResult"]


@pytest.mark.oracle
def test_coercions_and_refusals_are_pi_1_6s() -> None:
    """The table above, and values 1.6 still refuses (``"1e400"`` is Infinity, no number; an integer field takes 2.5 as 2), in one
    Pi 1.6 run: the same arguments reach the tools, the same texts come back."""
    refused: list[tuple[dict[str, Any], Any]] = [
        ({"type": "number"}, "1e400"), ({"type": "number"}, "abc"), ({"type": "integer"}, "2.5x"),
        ({"type": "boolean"}, "yes"), ({"type": "string", "minLength": 3}, "x"), ({"enum": ["a", "b"]}, "c"),
    ]
    request = _one_tool_per_case([(prop, value) for prop, value, _ in COERCIONS] + refused)
    code, expected = run_oracle("agent-events", request, current=True)
    ours_code, ours = conformance_in_process("agent-events", request)
    assert (ours_code, ours["toolCalls"]) == (code, expected["toolCalls"])
    assert [r["content"] for r in _results(ours)] == [r["content"] for r in _results(expected)]
    assert len(expected["toolCalls"]) == len(COERCIONS)


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
        "  - city: missing\n"
        "  - days: expected <= 14\n"
        "  - town: unknown field\n\n"
        'Received arguments:\n{\n  "town": 3,\n  "days": 30\n}'
    )
    assert caught.value.errors[0] == "city: missing"


def test_nested_paths_enum_pattern_and_union_messages() -> None:
    params = schema({
        "items": {"type": "array", "items": schema({"id": {"type": "string", "pattern": "^[a-z]+$"}}, ["id"])},
        "mode": {"enum": ["a", "b"]},
        "either": {"anyOf": [{"type": "string"}, {"type": "number"}]},
        "shape": {"anyOf": [schema({"kind": {"const": "circle"}, "r": {"type": "number"}}, ["kind", "r"]),
                            schema({"kind": {"const": "square"}, "side": {"type": "number"}}, ["kind", "side"])]},
    })
    with pytest.raises(ToolArgumentsError) as caught:
        validate_arguments("t", params, {"items": [{"id": "ok"}, {"id": "NO"}, {}], "mode": "c", "either": [1],
                                         "shape": {"kind": "square"}})
    assert caught.value.errors == [
        "items.1.id: expected to match ^[a-z]+$",
        "items.2.id: missing",
        'mode: expected one of ["a","b"]',
        "either: expected string, got array",
        "shape.side: missing",
    ]


def test_refs_into_defs_are_followed_and_dangling_refs_reject_only_their_place() -> None:
    params = {"type": "object", "properties": {"point": {"$ref": "#/$defs/Point"}, "other": {"$ref": "#/$defs/Nope"}},
              "required": ["point"], "$defs": {"Point": schema({"x": {"type": "number"}}, ["x"])}}
    assert validate_arguments("t", params, {"point": {"x": "1"}}) == {"point": {"x": 1}}
    with pytest.raises(ToolArgumentsError) as caught:
        validate_arguments("t", params, {"point": {}, "other": 1})
    assert caught.value.errors == ["point.x: missing", "other: unresolved reference #/$defs/Nope"]


def test_formats_and_every_error_listed() -> None:
    params = schema({f"d{i}": {"type": "string", "format": "date"} for i in range(10)})
    with pytest.raises(ToolArgumentsError) as caught:
        validate_arguments("t", params, {f"d{i}": "2024-02-30" for i in range(10)})
    assert len(caught.value.errors) == 10
    assert caught.value.errors[0] == "d0: expected format date"
    assert validate_arguments("t", schema({"when": {"type": "string", "format": "date-time"}}),
                              {"when": "2024-02-29T10:00:00Z"})


def test_multiple_of_is_exact_on_decimals() -> None:
    params = schema({"v": {"type": "number", "multipleOf": 0.1}})
    assert validate_arguments("t", params, {"v": 0.3}) == {"v": 0.3}
    with pytest.raises(ToolArgumentsError, match=r"v: expected a multiple of 0\.1\n"):
        validate_arguments("t", params, {"v": 0.35})


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
    """Each example sends a batch of generated tool calls through Pi 1.6 and through us."""
    calls = [{"type": "toolCall", "id": f"c{i}", "name": "configure", "arguments": args} for i, args in enumerate(batch)]
    request = {
        "prompt": "go",
        "tools": [{"name": "configure", "description": "", "parameters": LIVE_SCHEMA, "results": []}],
        "responses": [{"content": calls}, "done"],
    }
    code, expected = run_oracle("agent-events", request, current=True)
    ours_code, ours = conformance_in_process("agent-events", request)
    texts = [[r["toolCallId"], r["content"]] for r in _results(ours)]
    assert (ours_code, ours["toolCalls"], texts) == (
        code, expected["toolCalls"], [[r["toolCallId"], r["content"]] for r in _results(expected)]), json.dumps(batch)
