"""Every real recorded provider stream of the corpus (``../shared/corpus/sse``: SDK and framework
test cassettes for the four wire APIs) read by our adapters must give Pi's recorded answer.

The cases run in-process through the ``parse-stream`` command of ``tools/conformance.py``
(``conformance_cmds.parse_stream``), each in a fresh state (Gemini's process-wide tool-call
counter restarts, as in the oracle's new process); a few also run through the command line
itself to show it answers the same. ``DELIBERATE`` names the cases where we differ from Pi on
purpose (documented in docs/providers/streams.md): Pi's answer is compared after
``comparable``, and the case must really differ without it, so the list cannot go stale.
"""

from __future__ import annotations

import itertools
import sys
from typing import Any

import pytest

from pi_ai.api import _google_stream
from tests.support.corpus import case_names, load_case, require_corpus
from tests.support.oracle import REPO, run_conformance
from tests.support.stream_shapes import comparable

sys.path.insert(0, str(REPO / "tools"))
from conformance_cmds._llm import normalize
from conformance_cmds.parse_stream import run

CASES = case_names("sse")
DELIBERATE: dict[str, str] = {}
"""Corpus case -> the documented difference it shows (none today: every case matches Pi)."""
THROUGH_THE_COMMAND_LINE = ["anth_llm_parts_thinking", "gem_vercel_streamed_args"]


def _ours(request: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(_google_stream, "_tool_call_counter", itertools.count(1))
    return normalize(run(request))


def test_the_corpus_is_here() -> None:
    require_corpus()
    assert len(CASES) >= 171


@pytest.mark.parametrize("name", CASES)
def test_stream_reads_as_pi_reads_it(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    request, answer = load_case("sse", name)
    ours = _ours(request, monkeypatch)
    assert ours == normalize(comparable(answer, ours) if name in DELIBERATE else answer)


def test_deliberate_differences_still_differ(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in DELIBERATE:
        request, answer = load_case("sse", name)
        assert _ours(request, monkeypatch) != normalize(answer), name


@pytest.mark.parametrize("name", THROUGH_THE_COMMAND_LINE)
def test_the_command_line_gives_the_same_answer(name: str) -> None:
    request, answer = load_case("sse", name)
    code, output = run_conformance("parse-stream", request)
    assert (code, normalize(output)) == (0, normalize(answer))
