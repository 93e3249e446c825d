"""The ``local`` API's own layer over llama.cpp: the JSON-schema grammar (asked of llama.cpp's
grammar sampler with a real vocabulary), the fixed prefix's state kept on disk, and the one-line
errors for a library that cannot be used."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_ai import Context, UserMessage, stream
from pi_ai.api.local import _engine, _llama_lib
from pi_ai.api.local._engine import Engine
from pi_ai.api.local._schema_gbnf import schema_rules
from tests.support.gbnf import grammar_accepts
from tests.support.local_model import SMOKE_MODEL, local_model, model_file, require_runtime


@pytest.fixture(scope="module")
def engine() -> Iterator[Engine]:
    require_runtime()
    loaded = Engine(str(model_file(SMOKE_MODEL)), 2048)
    yield loaded
    loaded.close()


def _accepts(engine: Engine, schema: dict[str, Any], value: Any) -> bool:
    grammar = "\n".join([*schema_rules(schema, "root", rule_key="x-rule")]) + "\n"
    return grammar_accepts(engine, grammar, json.dumps(value) if not isinstance(value, str) else value)


OBJECT = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "limit": {"type": "integer"},
        "ratio": {"type": "number"},
        "mode": {"enum": ["fast", "slow"]},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2},
        "flag": {"type": "boolean"},
    },
    "required": ["path"],
}


@pytest.mark.parametrize(
    "value",
    [
        {"path": "a.py"},
        {"path": "a \"quoted\"\nline", "limit": -12, "mode": "slow"},
        {"path": "a", "ratio": 2.5e3, "tags": ["x", "y"], "flag": False},
        '{ "path" : "a",\n  "limit": 0 }',
    ],
)
def test_objects_with_required_then_optional_members_in_order(engine: Engine, value: Any) -> None:
    assert _accepts(engine, OBJECT, value)


@pytest.mark.parametrize(
    "value",
    [
        {"limit": 1},  # the required member is missing
        {"limit": 1, "path": "a"},  # out of order
        {"path": "a", "other": 1},  # not a declared key
        {"path": "a", "mode": "medium"},
        {"path": "a", "tags": []},  # minItems
        {"path": "a", "tags": ["1", "2", "3"]},  # maxItems
        {"path": "a", "limit": 1.5},
        {"path": 3},
    ],
)
def test_what_the_schema_does_not_allow_is_refused(engine: Engine, value: Any) -> None:
    assert not _accepts(engine, OBJECT, value)


def test_unions_refs_constants_open_objects_and_placeholders(engine: Engine) -> None:
    schema = {
        "$defs": {"point": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}},
        "type": "object",
        "properties": {
            "at": {"$ref": "#/$defs/point"},
            "kind": {"const": "move"},
            "value": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "meta": {"type": "object", "additionalProperties": True},
            "any": {},
        },
        "required": ["at", "kind"],
    }
    assert _accepts(engine, schema, {"at": {"x": 1}, "kind": "move", "value": None, "meta": {"k": [1, {"a": "b"}]}})
    assert _accepts(engine, schema, {"at": {"x": 1}, "kind": "move", "value": "v", "any": [True, None, 1.5]})
    assert not _accepts(engine, schema, {"at": {"x": 1}, "kind": "stay"})
    assert not _accepts(engine, schema, {"at": {"y": 1}, "kind": "move"})
    placeholder = {"type": "object", "properties": {"q": {"x-rule": "quoted"}}, "required": ["q"]}
    rules = schema_rules(placeholder, "root", rule_key="x-rule")
    grammar = "\n".join([*rules, 'quoted ::= "\\"yes\\"" space']) + "\n"
    assert grammar_accepts(engine, grammar, '{"q": "yes"}')
    assert not grammar_accepts(engine, grammar, '{"q": "no"}')


def test_the_fixed_prefix_state_is_read_back_by_the_next_run(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second engine (as in the next ``pi -p``) reads the prefix's state instead of evaluating
    it, and generates exactly what the first did; a damaged state file is dropped and rewritten.

    The prefix (about 315 tokens) is only a little longer than the shortest one kept on disk: each
    engine evaluates it on the CPU, and 645 tokens cost twice as much for the same checks."""
    monkeypatch.setattr(_engine, "_state_dir", tmp_path)
    prefix = engine.tokenize("Rules of the house. " + " ".join(f"Rule {i}: tidy room {i}." for i in range(30)))
    assert len(prefix) > _engine.MIN_PERSISTED
    tokens = prefix + engine.tokenize("\nQuestion: what is rule 7?\nAnswer:")

    def run() -> tuple[str, _engine.Generated]:
        fresh = Engine(engine.path, 2048)
        pieces: list[str] = []
        try:
            generated = fresh.generate(
                tokens, grammar=None, max_tokens=12, temperature=0.0, on_text=lambda t: pieces.append(t) is None,
                fixed=len(prefix),
            )
        finally:
            fresh.close()
        return "".join(pieces), generated

    first_text, first = run()
    states = list(tmp_path.glob("*.kv"))
    assert len(states) == 1 and first.restored_tokens == 0 and first.reused_tokens == 0
    second_text, second = run()
    assert second.restored_tokens == len(prefix) == second.reused_tokens
    assert second_text == first_text and second.output_tokens == first.output_tokens

    states[0].write_bytes(states[0].read_bytes()[:1000])
    third_text, third = run()
    assert third.restored_tokens == 0 and third_text == first_text
    assert states[0].stat().st_size > 1000  # written again, whole


async def test_a_library_that_is_not_llama_cpp_is_a_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = local_model(SMOKE_MODEL)
    monkeypatch.setattr(_engine, "_loaded", None)
    monkeypatch.setattr(_llama_lib, "_library", None)
    not_a_library = tmp_path / "libllama.so"
    not_a_library.write_text("not a library")
    for path, expected in (
        (str(tmp_path / "missing.so"), "cannot load the llama.cpp library"),
        (str(not_a_library), "cannot load the llama.cpp library"),
        ("libm.so.6", "libm.so.6 is not a llama.cpp this pi knows: it lacks llama_backend_init"),
    ):
        monkeypatch.setattr(_llama_lib, "_chosen", path)
        result = await stream(model, Context(messages=[UserMessage(content="hi", timestamp=0)])).result()
        assert result.stop_reason == "error"
        assert expected in (result.error_message or "") and "\n" not in (result.error_message or "")


@pytest.mark.parametrize(
    ("schema", "accepted", "refused"),
    [
        # bash's timeout as the coding agent offers it to a local model (the 1.5B wrote 0, then 0.5)
        ({"type": "number", "minimum": 10}, ["10", "30", "12.5", "120"], ["0", "0.5", "5", "9.99", "-10"]),
        ({"type": "number", "exclusiveMinimum": 0}, ["1", "30", "0.5", "0.05", "2.5e3", "120.0"], ["0", "0.0", "-1", "-0.5"]),
        ({"type": "number", "minimum": 0}, ["0", "0.0", "7", "0.25"], ["-1", "-0.1"]),
        ({"type": "integer", "minimum": 1}, ["1", "9", "10", "1234567"], ["0", "-3", "01", "1.5"]),
        ({"type": "integer", "minimum": 37}, ["37", "38", "40", "99", "100", "370"], ["36", "30", "9", "0"]),
        ({"type": "integer", "exclusiveMinimum": 99}, ["100", "101", "1000"], ["99", "98", "10"]),
        ({"type": "integer", "minimum": 5, "exclusiveMinimum": 7}, ["8", "12"], ["5", "7"]),
        ({"type": "number", "minimum": 1.5}, ["2", "3.25"], ["1", "0.5"]),  # rounded inward to 2
        ({"type": "integer", "minimum": -5}, ["-3", "0", "4"], []),  # negative bounds: not enforced
        # ... and at most 99999 (a rerun sent 1000000000000000, then 2147483647: above bash's maximum)
        (
            {"type": "number", "minimum": 10, "maximum": 100_000},
            ["10", "99999", "12.5", "600"],
            ["1000000000000000", "2147483647", "100000", "123456", "5"],
        ),
        ({"type": "integer", "minimum": 100, "maximum": 150}, ["100", "150", "999"], ["99", "1000"]),  # digits only
    ],
)
def test_lower_bounds_of_numbers_are_held_by_the_grammar(
    engine: Engine, schema: dict[str, Any], accepted: list[str], refused: list[str]
) -> None:
    for value in accepted:
        assert _accepts(engine, schema, value), value
    for value in refused:
        assert not _accepts(engine, schema, value), value
