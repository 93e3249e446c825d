"""``JSON.parse`` errors for long text (``pi_ai.js_json._large``): found around where msgspec
stopped, in time linear in the text's size, with V8's message.

The V8 scanner that reads short text in full is the reference: the long-text path, run on the
same mutated texts, must give the same message; long texts built to fail at each kind of place
are compared with Node's own ``JSON.parse`` when the oracle is installed.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable

import msgspec
import pytest

from pi_ai.js_json import JsonParseError, v8_json_parse_error
from pi_ai.js_json import parse as parse_json
from pi_ai.js_json._large import large_text_error
from pi_ai.js_json._parse import EXACT_LIMIT, _fast_decode
from tests.pi_ai.test_js_json import _mutations, _node_errors
from tests.reliability.figures import record


def _msgspec_failure(text: str) -> str | None:
    try:
        _fast_decode(text.encode())
    except msgspec.DecodeError as error:
        return str(error)
    return None


def test_long_text_path_gives_the_v8_scanner_s_message_on_mutated_json() -> None:
    compared = 0
    mismatches = []
    for mutated in _mutations(6000, seed=7):
        # (padded: V8 quotes text of up to 20 characters whole, which long text never is)
        text = mutated if len(mutated) > 20 else " " * 21 + mutated
        if any("\ud800" <= c <= "\udfff" for c in text):
            continue
        failure = _msgspec_failure(text)
        if failure is None:
            continue
        compared += 1
        expected = v8_json_parse_error(text)
        got = large_text_error(text, text.encode(), failure, _fast_decode)
        if got != expected:
            mismatches.append((text, expected, got))
    record("rpc_parse_mutations", compared=compared, mismatched=len(mismatches))
    assert compared > 3000
    assert mismatches == []


N = 24 * 1024 * 1024
# Built on use (``long_text``): together about 350 MB, which every worker would otherwise build
# and hold from collection on, whether or not it runs these tests.
LONG_TEXTS: dict[str, Callable[[], str]] = {
    "array, a bad element at the end": lambda: "[" + "1," * (N // 2) + "x]",
    "array, cut short after a comma": lambda: "[" + "1," * (N // 2),
    "array, cut short after an element": lambda: "[" + "1," * (N // 2) + "1",
    "object, cut short after a key": lambda: "{" + '"a":1,' * (N // 6) + '"b"',
    "object, a trailing comma": lambda: "{" + '"a":[1,{"b":null}],' * (N // 20) + "}",
    "strings, a literal cut short": lambda: "[" + '"ab",' * (N // 5) + "tru",
    "an unterminated string": lambda: '{"type":"prompt","message":"' + "a\\n" * (N // 3),
    "garbage": lambda: "x" * (12 * 1024 * 1024),
    "lone surrogate escapes, then a bad close": lambda: "[" + '"\\ud800",' * (N // 9) + "}",
    "whitespace lines, then a bad number": lambda: "\n" * (N // 2) + "[1.e5]",
    "text after the value": lambda: '{"a":"\\u00e9🙂"}' + " " * N + "é",
}


@functools.cache
def long_text(name: str) -> str:
    return LONG_TEXTS[name]()


@pytest.fixture(scope="module")
def node_messages() -> dict[str, str]:
    return dict(zip(LONG_TEXTS, _node_errors([long_text(name) for name in LONG_TEXTS]), strict=True))


@pytest.mark.oracle
@pytest.mark.parametrize("name", list(LONG_TEXTS))
def test_long_refused_text_gets_node_s_message(name: str, node_messages: dict[str, str]) -> None:
    text = long_text(name)
    assert len(text) > EXACT_LIMIT
    started = time.perf_counter()
    with pytest.raises(JsonParseError) as caught:
        parse_json(text.encode())
    record("rpc_parse_long", case=name, bytes=len(text.encode()), seconds=round(time.perf_counter() - started, 3))
    assert str(caught.value) == node_messages[name]


def test_long_text_v8_reads_is_read() -> None:
    """msgspec refuses unpaired surrogate escapes; V8, and so ``parse``, reads them."""
    text = "[" + '"\\ud800",' * (EXACT_LIMIT // 8) + '"\\udc00"]'
    value = parse_json(text.encode())
    assert len(value) == EXACT_LIMIT // 8 + 1 and value[0] == "\ud800" and value[-1] == "\udc00"
    assert parse_json(('{"a":"' + "\ufffd" * EXACT_LIMIT + '"}').encode()) == {"a": "\ufffd" * EXACT_LIMIT}
