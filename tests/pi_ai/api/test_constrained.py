"""Grammar (custom) tool input shared by the Chat Completions and Responses adapters: the
free-form text streams as JSON argument deltas and is read back from the arguments on replay.
(Whole streams are compared with Pi in the conformance cases ``completions_custom_tool_streaming``
and ``openai_responses_custom_tool_call``.)"""

from __future__ import annotations

import json

import pytest

from pi_ai.api._constrained import GrammarInput, grammar_tool_input


def test_grammar_input_streams_as_json_argument_deltas() -> None:
    grammar = GrammarInput("input")
    deltas = [
        grammar.append("*** Begin", False),
        grammar.append("*** Begin", False),
        grammar.append('*** Begin\n"x"', True),
        grammar.append('*** Begin\n"x"', True),
    ]
    assert deltas == ['{"input":"*** Begin', None, '\\n\\"x\\""}', None]
    assert json.loads("".join(d for d in deltas if d)) == {"input": '*** Begin\n"x"'}
    with pytest.raises(ValueError, match="changed after it was closed"):
        grammar.append("other", False)


def test_grammar_input_must_grow() -> None:
    grammar = GrammarInput("patch")
    assert grammar.append("ab", False) == '{"patch":"ab'
    with pytest.raises(ValueError, match='property "patch" changed non-monotonically'):
        grammar.append("b", False)


def test_lone_surrogates_are_escaped_like_json_stringify() -> None:
    assert GrammarInput("p").append("a\ud83d", True) == '{"p":"a\\ud83d"}'


def test_replayed_input_must_be_a_string() -> None:
    assert grammar_tool_input("apply_patch", {"patch": "x"}, "patch") == "x"
    for arguments in ({"patch": 1}, {}, "not an object"):
        with pytest.raises(ValueError) as caught:
            grammar_tool_input("apply_patch", arguments, "patch")
        assert str(caught.value) == 'Grammar tool call "apply_patch" requires argument "patch" to be a string.'
