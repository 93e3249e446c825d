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
import json
import sys
from typing import Any

import pytest

from pi_ai.api import _google_stream
from tests.support import pi16
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


PI16_CORPUS = pi16.PI16_ANSWERS / "corpus-sse"
"""Pi 1.6's answers to the streams served by OpenRouter (``tools/gen_pi16_corpus_answers.py``):
1.6 takes OpenRouter's reported cost as the total, so for those its answer is the reference."""


def _ours(request: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Any:
    """Our answer, without the message fields Pi 0.85 (whose answers the corpus holds) does not write."""
    monkeypatch.setattr(_google_stream, "_tool_call_counter", itertools.count(1))
    return normalize(pi16.as_pi085(run(request)))


def _ours_and_pi16(name: str, request: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any] | None:
    """Our answer and Pi 1.6's, where 1.6's is the reference (``None`` elsewhere)."""
    path = PI16_CORPUS / f"{name}.out.json"
    if not path.exists():
        return None
    monkeypatch.setattr(_google_stream, "_tool_call_counter", itertools.count(1))
    answer = json.loads(path.read_text(encoding="utf-8"))
    return pi16.not_yet_followed(normalize(run(request))), pi16.not_yet_followed(answer)


def test_the_corpus_is_here() -> None:
    require_corpus()
    assert len(CASES) >= 171


@pytest.mark.parametrize("name", CASES)
def test_stream_reads_as_pi_reads_it(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    request, answer = load_case("sse", name)
    current = _ours_and_pi16(name, request, monkeypatch)
    if current is not None:
        assert current[0] == current[1]
        return
    ours = _ours(request, monkeypatch)
    assert ours == normalize(comparable(answer, ours) if name in DELIBERATE else answer)


def test_pi16_answers_are_of_corpus_streams() -> None:
    names = set(CASES)
    assert all(path.name.removesuffix(".out.json") in names for path in PI16_CORPUS.glob("*.out.json"))


def test_deliberate_differences_still_differ(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in DELIBERATE:
        request, answer = load_case("sse", name)
        assert _ours(request, monkeypatch) != normalize(answer), name


@pytest.mark.parametrize("name", THROUGH_THE_COMMAND_LINE)
def test_the_command_line_gives_the_same_answer(name: str) -> None:
    request, answer = load_case("sse", name)
    code, output = run_conformance("parse-stream", request)
    assert (code, normalize(pi16.as_pi085(output))) == (0, normalize(answer))
