"""``tools/reliability_figures.py --tally`` counts what a real pytest run recorded and failed."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.support.oracle import REPO

_FAKE_CHECKS = '''
from tests.reliability.figures import record


def test_hundreds_of_kills():
    record("kills", kills=3, acknowledged=10, lost=0, unreadable=0)


def test_loader_fuzz():
    for _ in range(5):
        record("fuzz_input", target="session loader")
    raise AssertionError("an unhandled exception out of a fuzzed input")


def test_faults():
    record("provider_fault", surface="library")
    record("provider_fault", surface="library")
    record("provider_fault_settled", surface="library")
'''


def _row(output: str, what: str) -> str:
    """The value of the table row labelled ``what`` (label and value are two spaces or more apart)."""
    rows = [re.split(r"\s{2,}", line.strip(), maxsplit=1) for line in output.splitlines()]
    found = [row[1] for row in rows if len(row) == 2 and row[0] == what]
    assert len(found) == 1, output
    return found[0]


def test_the_tally_reports_counts_and_failures_of_a_real_run(tmp_path: Path) -> None:
    checks = tmp_path / "test_fuzz.py"  # named like the loader fuzz, so its failure counts as a fuzz failure
    checks.write_text(_FAKE_CHECKS)
    figures, junit = tmp_path / "figures.jsonl", tmp_path / "junit.xml"
    env = {**os.environ, "PI_RELIABILITY_FIGURES": str(figures), "PYTHONPATH": str(REPO)}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", f"--junitxml={junit}",
         "--rootdir", str(tmp_path), str(checks)],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=False,
    )
    assert run.returncode == 1, run.stdout
    tally = subprocess.run(
        [sys.executable, str(REPO / "tools" / "reliability_figures.py"), "--tally", str(figures), str(junit)],
        capture_output=True, text=True, check=False,
    )
    assert tally.returncode == 1  # a check failed
    out = tally.stdout
    assert _row(out, "kills (SIGKILL during appends)") == "3"
    assert _row(out, "acknowledged entries lost") == "0"
    assert _row(out, "fuzzed inputs") == "session loader: 5"
    assert _row(out, "fuzz tests with an unhandled exception or a mismatch") == "1"
    assert _row(out, "provider faults not settled") == "1"
    assert "FAILED" in out and "test_loader_fuzz" in out
