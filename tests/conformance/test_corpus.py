"""The real-world corpus (``../shared/corpus``) through ``tools/conformance.py``.

The cases run in-process through its ``answer`` (what its command line prints); a few
(``THROUGH_THE_COMMAND_LINE``) also go through the command line to show it answers the same.

Each folder of the corpus holds cases for one oracle subcommand: ``NAME.json.gz`` is the
input, ``NAME.out.json.gz`` the real Pi 0.85's answer. The folders run here are listed in
``FOLDERS`` (one line per folder; the stream folder is added the same way). Answers are read,
compared and printed without recursion: a long session's ``tree`` nests thousands of levels.

A case where we differ from Pi on purpose is listed in ``DELIBERATE`` with the section of
``docs/sessions`` that explains it; its answers are compared after that difference is
taken out (``normalize`` of the entry), and the difference itself has its own test.
"""

from __future__ import annotations

import gzip
import importlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support import deep_json
from tests.support.oracle import REPO, conformance_in_process, oracle_dir, run_conformance

sys.path.insert(0, str(REPO / "tools"))
from conformance import SUBCOMMANDS

FOLDERS: dict[str, str] = {
    "sessions": "session-context",
    "migrate": "session-migrate",
}
"""Corpus folder -> the oracle subcommand its cases are for."""


def corpus_dir() -> Path | None:
    """``$PI_CORPUS_DIR``, else ``corpus`` beside the oracle folder (``../shared/corpus``)."""
    candidates = [os.environ.get("PI_CORPUS_DIR")]
    found = oracle_dir()
    if found is not None:
        candidates.append(str(found.parent / "corpus"))
    candidates.append(str(REPO.parent / "shared" / "corpus"))
    for candidate in candidates:
        if candidate and Path(candidate, "README.md").exists():
            return Path(candidate)
    return None


Normalizer = Callable[[Any], Any]
DELIBERATE: dict[str, tuple[str, Normalizer]] = {}
"""``folder/case`` -> (the ``docs/sessions`` section that explains the difference, and what
takes it out of both answers before they are compared)."""


PENDING: dict[str, str] = {}
"""``folder/case`` -> why it does not match yet (a strict xfail: it fails loudly once it does)."""


def _cases() -> list[tuple[str, Path]]:
    root = corpus_dir()
    if root is None:
        return []
    return [
        (folder, path)
        for folder in FOLDERS
        for path in sorted((root / folder).glob("*.json.gz"))
        if not path.name.endswith(".out.json.gz")
    ]


CASES = _cases()
THROUGH_THE_COMMAND_LINE = 2
"""Cases per folder (the first, by name) that also run through the command line."""


def _case_id(case: tuple[str, Path]) -> str:
    folder, path = case
    return f"{folder}/{path.name.removesuffix('.json.gz')}"


def _normalizer(subcommand: str) -> Normalizer:
    module = importlib.import_module(SUBCOMMANDS[subcommand][0])
    normalize: Normalizer = getattr(module, "normalize", lambda value: value)
    return normalize


def test_corpus_is_found() -> None:
    if corpus_dir() is None:
        if os.environ.get("PI_REQUIRE_ORACLE") == "1":
            pytest.fail(
                "PI_REQUIRE_ORACLE=1 but the corpus (../shared/corpus) was not found; set PI_CORPUS_DIR"
            )
        pytest.skip("the corpus (../shared/corpus) is not here")
    assert {folder for folder, _ in CASES} == set(FOLDERS)


def test_deliberate_differences_name_real_cases() -> None:
    names = {_case_id(case) for case in CASES}
    if not names:
        pytest.skip("the corpus (../shared/corpus) is not here")
    assert set(DELIBERATE) <= names and set(PENDING) <= names
    docs = (REPO / "docs" / "sessions" / "README.md").read_text()
    for section, _ in DELIBERATE.values():
        assert section in docs, f"docs/sessions has no section {section!r}"


def _marked(case: tuple[str, Path]) -> Any:
    reason = PENDING.get(_case_id(case))
    return pytest.param(case, marks=pytest.mark.xfail(reason=reason, strict=True)) if reason else case


@pytest.mark.parametrize("case", [_marked(case) for case in CASES], ids=_case_id)
def test_corpus_case_matches_pi(case: tuple[str, Path]) -> None:
    folder, path = case
    subcommand = FOLDERS[folder]
    answer = path.with_name(path.name.removesuffix(".json.gz") + ".out.json.gz")
    expected = deep_json.loads(gzip.decompress(answer.read_bytes()))
    request = deep_json.loads(gzip.decompress(path.read_bytes()))
    _, actual = conformance_in_process(subcommand, request)
    normalize = _normalizer(subcommand)
    actual, expected = normalize(actual), normalize(expected)
    deliberate = DELIBERATE.get(_case_id(case))
    if deliberate is not None:
        actual, expected = deliberate[1](actual), deliberate[1](expected)
    difference = deep_json.first_difference(actual, expected)
    assert difference is None, difference


def _command_line_cases() -> list[tuple[str, Path]]:
    return [case for folder in FOLDERS for case in [c for c in CASES if c[0] == folder][:THROUGH_THE_COMMAND_LINE]]


@pytest.mark.parametrize("case", _command_line_cases(), ids=_case_id)
def test_the_command_line_answers_the_same(case: tuple[str, Path]) -> None:
    folder, path = case
    subcommand = FOLDERS[folder]
    request = deep_json.loads(gzip.decompress(path.read_bytes()))
    normalize = _normalizer(subcommand)
    command_line = normalize(run_conformance(subcommand, request, timeout=300)[1])
    difference = deep_json.first_difference(command_line, normalize(conformance_in_process(subcommand, request)[1]))
    assert difference is None, difference
