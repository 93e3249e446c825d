"""Tool arguments a schema coerces from strings reach the tool as JavaScript numbers, written
as Pi writes them (``3``, never ``3.0``; ``123456789012345680000``; ``1e+21``), against the
answers of Pi 0.85 and Pi 1.6 to ``agent-events/coerced_numbers_from_strings`` (recorded by
``tools/gen_midway_cases.py``), compared as JSON text."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support import deep_json, pi16
from tests.support.oracle import conformance_in_process

CASE = Path(__file__).resolve().parent / "cases" / "agent-events" / "coerced_numbers_from_strings"


def _tool_calls_text(answer: dict[str, object]) -> str:
    return deep_json.dumps(answer["toolCalls"])


def test_coerced_arguments_are_written_as_both_pis_write_them() -> None:
    code, ours = conformance_in_process("agent-events", json.loads(CASE.with_suffix(".json").read_text()))
    pi085 = json.loads(CASE.with_suffix(".out.json").read_text())
    pi160 = json.loads(pi16.answer_path("agent-events", CASE.name).read_text())
    assert code == 0
    assert _tool_calls_text(ours) == _tool_calls_text(pi085) == _tool_calls_text(pi160)
    params = ours["toolCalls"][0]["params"]
    assert deep_json.dumps([params["n0"], params["n1"], params["i1"], params["n10"], params["n11"]]) == (
        "[3,3,3,123456789012345680000,1e+21]"
    )
