"""Every recorded oracle case, and every case of our own, through ``tools/conformance.py``.

The cases run in-process through its ``answer`` (what its command line prints), each in a fresh
state; the first cases of each subcommand also run through the command line itself
(``THROUGH_THE_COMMAND_LINE``) to show it answers the same.

Cases are ``<sub>/NAME.json`` with Pi's answer in ``NAME.out.json`` (and Pi 1.6's in
``NAME.current.out.json`` where recorded, which is then the answer to match): the shared ones in
``../shared/oracle/cases`` and ours in ``tests/conformance/cases`` (generated with the live
oracle). Where Pi 1.6 answered one of ours or a shared one too (``cases/pi-1.6/<sub>/NAME.out.json``),
its answer is the reference (``tests/support/pi16.py``). A subcommand that is not built yet is an xfail naming the issue it waits for.

``DELIBERATE`` names our own cases that show a documented difference from Pi (see
docs/providers/streams.md): Pi's answer is compared after ``comparable``, and each must really
differ without it, so the list cannot go stale.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support import pi16
from tests.support.oracle import REPO, conformance_in_process, oracle_dir, run_conformance, run_oracle
from tests.support.stream_shapes import comparable

sys.path.insert(0, str(REPO / "tools"))
from conformance import NOT_BUILT_EXIT, SUBCOMMANDS

OWN_CASES = Path(__file__).resolve().parent / "cases"

_DELTA_IS_TEXT = "a delta event's delta is the appended text (docs/providers/streams.md)"
DELIBERATE: dict[str, str] = {
    "parse-stream/quirk_anthropic_partial_json_number_is_text": _DELTA_IS_TEXT,
    "parse-stream/quirk_anthropic_text_delta_number_appends_text": _DELTA_IS_TEXT,
    "parse-stream/quirk_anthropic_text_delta_without_text_appends_undefined": _DELTA_IS_TEXT,
    "parse-stream/quirk_completions_content_array_is_joined": _DELTA_IS_TEXT,
    "parse-stream/quirk_google_text_null_appends_null": _DELTA_IS_TEXT,
    "parse-stream/quirk_responses_text_delta_missing_appends_undefined": _DELTA_IS_TEXT,
    "parse-stream/quirk_completions_finish_reason_true_is_an_error": (
        "text fields hold text: rawStopReason is String(true) (docs/providers/streams.md)"
    ),
}
"""Own case (``<subcommand>/<name>``) -> the documented difference it shows."""


def _case_files() -> list[tuple[str, Path]]:
    roots = [OWN_CASES]
    shared = oracle_dir()
    if shared is not None:
        roots.insert(0, shared / "cases")
    found = []
    for root in roots:
        for sub in SUBCOMMANDS:
            for path in sorted((root / sub).glob("*.json")):
                if not path.name.endswith(".out.json"):
                    found.append((sub, path))
    return found


CASES = _case_files()
THROUGH_THE_COMMAND_LINE = 2
"""Cases per subcommand and origin (the first, by name) that also run through the command line."""


def _command_line_cases() -> list[tuple[str, Path]]:
    seen: dict[tuple[str, Path], int] = {}
    chosen = []
    for sub, path in CASES:
        key = (sub, path.parent.parent)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] <= THROUGH_THE_COMMAND_LINE:
            chosen.append((sub, path))
    return chosen


def _case_id(case: tuple[str, Path]) -> str:
    sub, path = case
    origin = "own" if OWN_CASES in path.parents else "shared"
    return f"{origin}/{sub}/{path.stem}"


def _normalizer(sub: str) -> Any:
    try:
        module = importlib.import_module(SUBCOMMANDS[sub][0])
    except ModuleNotFoundError:
        return lambda value: value
    return getattr(module, "normalize", lambda value: value)


def test_shared_cases_are_found() -> None:
    if oracle_dir() is None:
        pytest.skip("the oracle folder is not here; only our own cases run")
    assert any(OWN_CASES not in path.parents for _, path in CASES)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_case_matches_pi(case: tuple[str, Path]) -> None:
    sub, path = case
    current_path = path.with_name(path.stem + ".current.out.json")
    # Pi 1.6's answer, where recorded, is the reference (its 0.85 answer is kept beside it).
    expected_path = current_path if current_path.exists() else path.with_name(path.stem + ".out.json")
    assert expected_path.exists(), f"{path} has no recorded answer {expected_path.name}"
    expected = json.loads(expected_path.read_text())
    current = pi16.answer_path(sub, path.stem)
    # Shared cases too: Pi 1.6's answers to them live with ours (their names do not collide).
    use_current = sub in pi16.WHOLE_ANSWER_SUBCOMMANDS and current.exists()
    # Model references name the models of the Pi that answered (its catalog: docs/pi-1.6/models.md);
    # a model 1.6 no longer has was given to it written out (tools/gen_pi16_payload_answers.py).
    request_path = current.with_name(f"{path.stem}.json") if use_current else path
    request_path = request_path if request_path.exists() else path
    code, actual = conformance_in_process(sub, json.loads(request_path.read_text()), current=use_current)
    if code == NOT_BUILT_EXIT:
        pytest.xfail(actual["error"]["message"])
    normalize = _normalizer(sub)
    key = f"{sub}/{path.stem}"
    if use_current:
        # Pi 1.6 is the reference where it has answered (tests/support/pi16.py).
        expected, actual = pi16.not_yet_followed(json.loads(current.read_text())), pi16.not_yet_followed(actual)
        expected, actual = pi16.without_not_followed(key, expected), pi16.without_not_followed(key, actual)
    else:
        # Pi 0.85 is the reference: the message fields only 1.6 writes are left out (of ours).
        expected, actual = pi16.as_pi085(expected), pi16.as_pi085(actual)
    if sub == "agent-events" and pi16.has_validation_failure(expected):
        # Tool-argument validation follows Pi 1.6 (its words and coercion): those texts come from 1.6.
        expected, actual = pi16.with_validation_of(
            expected, actual, run_oracle(sub, json.loads(path.read_text()), current=True)[1])
    if key in DELIBERATE and OWN_CASES in path.parents:
        assert normalize(actual) != normalize(expected), f"{key} no longer differs: {DELIBERATE[key]}"
        expected = comparable(expected, actual)
    assert normalize(actual) == normalize(expected)


def test_some_cases_of_each_subcommand_go_through_the_command_line() -> None:
    subcommands = {sub for sub, _ in CASES}
    assert {sub for sub, _ in _command_line_cases()} == subcommands
    assert len(_command_line_cases()) < len(CASES)


@pytest.mark.parametrize("case", _command_line_cases(), ids=_case_id)
def test_the_command_line_answers_the_same(case: tuple[str, Path]) -> None:
    sub, path = case
    request = json.loads(path.read_text())
    normalize = _normalizer(sub)
    (code, output), (in_process_code, in_process) = run_conformance(sub, request), conformance_in_process(sub, request)
    assert (code, normalize(output)) == (in_process_code, normalize(in_process))


def test_deliberate_cases_exist() -> None:
    for key in DELIBERATE:
        assert (OWN_CASES / f"{key}.json").exists(), key


def test_pi16_answers_have_their_inputs() -> None:
    answers = sorted(p for p in pi16.PI16_ANSWERS.glob("*/*.out.json") if p.parent.name != "corpus-sse")
    assert answers
    inputs = {(sub, path.name) for sub, path in CASES}
    for answer in answers:
        assert (answer.parent.name, answer.name.replace(".out.json", ".json")) in inputs, answer
