"""The options line of a codemode script: only first, only known fields, in range."""

from __future__ import annotations

import pytest

from pi_coding_agent.core.codemode import CodemodeSourceError, ScriptOptions, parse_source


def test_plain_source_runs_as_is() -> None:
    assert parse_source("return 1") == ("return 1", ScriptOptions())


def test_options_line_is_read_and_its_line_kept_empty() -> None:
    code, options = parse_source('// @options: {"max_output_tokens": 20, "timeout_ms": 500}\nreturn 1')
    assert code == "\nreturn 1"  # the script's line numbers stay those of the input
    assert options == ScriptOptions(max_output_tokens=20, timeout_ms=500)


@pytest.mark.parametrize(
    ("source", "fragment"),
    [
        ("   \n ", "empty"),
        ('return 1\n// @options: {"timeout_ms": 5}', "line 2"),
        ('// @options: {"timeout_ms": 5}', "followed by the script"),
        ("// @options: [1]\nreturn 1", "JSON object"),
        ("// @options: {nope}\nreturn 1", "not valid JSON"),
        ('// @options: {"memory": 1}\nreturn 1', "`memory`"),
        ('// @options: {"timeout_ms": 0}\nreturn 1', "timeout_ms"),
        ('// @options: {"timeout_ms": 2147483648}\nreturn 1', "timeout_ms"),
        ('// @options: {"max_output_tokens": -1}\nreturn 1', "max_output_tokens"),
        ('// @options: {"max_output_tokens": 1.5}\nreturn 1', "max_output_tokens"),
    ],
)
def test_bad_input_is_refused_with_a_reason(source: str, fragment: str) -> None:
    with pytest.raises(CodemodeSourceError, match=None) as caught:
        parse_source(source)
    assert fragment in str(caught.value)
