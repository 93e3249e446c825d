"""Every recorded oracle case, and every case of our own, through ``tools/conformance.py``.

Cases are ``<sub>/NAME.json`` with Pi's answer in ``NAME.out.json``: the shared ones in
``../shared/oracle/cases`` and ours in ``tests/conformance/cases`` (generated with the live
oracle). A subcommand that is not built yet is an xfail naming the issue it waits for.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.oracle import REPO, oracle_dir, run_conformance

sys.path.insert(0, str(REPO / "tools"))
from conformance import NOT_BUILT_EXIT, SUBCOMMANDS

OWN_CASES = Path(__file__).resolve().parent / "cases"


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
    expected_path = path.with_name(path.stem + ".out.json")
    assert expected_path.exists(), f"{path} has no recorded answer {expected_path.name}"
    expected = json.loads(expected_path.read_text())
    code, actual = run_conformance(sub, json.loads(path.read_text()))
    if code == NOT_BUILT_EXIT:
        pytest.xfail(actual["error"]["message"])
    normalize = _normalizer(sub)
    assert normalize(actual) == normalize(expected)
