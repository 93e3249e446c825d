#!/usr/bin/env python3
"""Run the reliability checks once and print their figures (issue #15's acceptance table).

    .venv/bin/python tools/reliability_figures.py [--full] [-n 2] [pytest args...]

Runs the checks that count something (the kill -9 append tests, the session loader fuzz,
the SSE decoder property test and the four stream parsers' fuzz, the provider fault matrix
through the library and the CLI, the process-leak checks, the private-file checks, the
deadline tests, the terminal-output policy checks, the HTML export fuzz and the session paths
that are no regular file) in one pytest run, with ``PI_RELIABILITY_FIGURES`` set so each check
records what it counted (``tests/reliability/figures.py``), and a JUnit report for what failed.
``--full`` is the nightly-style run: ``PI_RELIABILITY_FULL=1``, 1,000 kills,
``PI_FUZZ_EXAMPLES=3000`` (3,000 loader files, 3,000 bodies per stream parser and kind).

``--tally FIGURES JUNIT`` only tabulates a run made elsewhere, for example the whole
``./test`` with ``PI_RELIABILITY_FIGURES=FIGURES`` and ``--junitxml=JUNIT``; it also prints the
reliability checks' share of the test time.

Every "failed" figure must be 0. Exit status: pytest's.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

ROOT = Path(__file__).resolve().parent.parent
CHECKS = [
    "tests/reliability",
    "tests/pi_coding_agent/core/session/test_safety.py",
    "tests/pi_coding_agent/core/session/test_fuzz.py",
    "tests/pi_coding_agent/core/session/test_cli_files.py",
    "tests/pi_ai/api/test_sse.py",
    "tests/pi_ai/api/test_stream_fuzz.py",
    "tests/pi_ai/api/test_http.py",
    "tests/pi_coding_agent/app/batch/test_trust.py",
    "tests/pi_ai/api/test_response_deadline.py",
    "tests/pi_tui/test_safe_text.py",
    "tests/pi_coding_agent/app/print_mode/test_terminal_output.py",
    "tests/pi_coding_agent/app/interactive/test_terminal_output.py",
    "tests/pi_coding_agent/core/session/test_not_regular.py",
    "tests/pi_coding_agent/core/export/test_export_fuzz.py",
    "tests/pi_coding_agent/app/rpc/test_bad_session_paths.py",
    "tests/pi_ai/test_js_json_large.py",
    "tests/pi_coding_agent/app/rpc/test_large_lines.py",
]
FULL_ENV = {
    "PI_RELIABILITY_FULL": "1",
    "PI_FUZZ_EXAMPLES": "3000",
    "PI_FUZZ_ORACLE": "60",
    "PI_KILL_ROUNDS": "1000",
}
FUZZ_FILES = ("test_fuzz.py", "test_sse.py", "test_stream_fuzz.py")
LEAK_FILES = ("test_process_leaks.py", "test_user_bash_leaks.py")
FAULT_FILES = ("test_provider_faults.py", "test_provider_faults_cli.py")
KILL_TESTS = ("test_sigkill_in_the_middle", "test_hundreds_of_kills")
TERMINAL_FILES = ("test_safe_text.py", "test_terminal_output.py")
BAD_INPUT_FILES = ("test_fuzz.py", "test_export_fuzz.py", "test_not_regular.py", "test_bad_session_paths.py")
"""Issue 28 items 3 and 4: odd values in session files, HTML export, paths that are no file."""


def _failures(junit: Path) -> list[tuple[str, str, str]]:
    """(file, test name, message) of each failed or erroring test case."""
    found = []
    for case in ElementTree.parse(junit).iter("testcase"):
        for problem in [*case.findall("failure"), *case.findall("error")]:
            where = case.get("classname", "").replace(".", "/")
            found.append((where, case.get("name", ""), problem.get("message", "")))
    return found


def _outcomes(junit: Path) -> Counter[str]:
    counts: Counter[str] = Counter()
    for case in ElementTree.parse(junit).iter("testcase"):
        kinds = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        counts[kinds[0] if kinds else "passed"] += 1
    return counts


def _read(figures: Path) -> list[dict[str, Any]]:
    if not figures.exists():
        return []
    return [json.loads(line) for line in figures.read_text().splitlines() if line.strip()]


def _sum(rows: list[dict[str, Any]], figure: str, field: str) -> int:
    return sum(int(row.get(field, 0)) for row in rows if row["figure"] == figure)


def _count(rows: list[dict[str, Any]], figure: str, **match: str) -> int:
    return sum(
        1 for row in rows if row["figure"] == figure and all(row.get(k) == v for k, v in match.items())
    )


def _failed_in(failures: list[tuple[str, str, str]], files: tuple[str, ...], names: tuple[str, ...] = ()) -> int:
    return sum(
        1
        for where, name, _ in failures
        if any(where.endswith(f.removesuffix(".py")) for f in files) and (not names or name.startswith(names))
    )


def table(rows: list[dict[str, Any]], failures: list[tuple[str, str, str]]) -> list[tuple[str, str]]:
    """The acceptance figures as (what, value) pairs."""
    fuzzed = Counter(row["target"] for row in rows if row["figure"] == "fuzz_input")
    compared = _count(rows, "fuzz_oracle")
    faults = {surface: _count(rows, "provider_fault", surface=surface) for surface in ("library", "cli")}
    settled = {surface: _count(rows, "provider_fault_settled", surface=surface) for surface in ("library", "cli")}
    hangs = _count(rows, "hang") + sum(1 for _, _, message in failures if "Timeout" in message)
    return [
        ("kills (SIGKILL during appends)", str(_sum(rows, "kills", "kills"))),
        ("acknowledged entries", str(_sum(rows, "kills", "acknowledged"))),
        ("acknowledged entries lost", str(_sum(rows, "kills", "lost"))),
        ("files unreadable by us", str(_sum(rows, "kills", "unreadable"))),
        (
            "files unreadable by Pi (of those it read)",
            f"{_sum(rows, 'pi_read', 'unreadable')} (of {_sum(rows, 'pi_read', 'files')})",
        ),
        ("kill tests failed", str(_failed_in(failures, ("test_safety.py",), KILL_TESTS))),
        ("fuzzed inputs", ", ".join(f"{target}: {n}" for target, n in sorted(fuzzed.items())) or "0"),
        ("fuzzed inputs compared with Pi (live oracle)", str(compared)),
        ("fuzz tests with an unhandled exception or a mismatch", str(_failed_in(failures, FUZZ_FILES))),
        ("hangs", str(hangs)),
        ("provider fault runs (library, CLI)", f"{faults['library']}, {faults['cli']}"),
        (
            "provider faults not settled",
            str(sum(faults.values()) - sum(settled.values())),
        ),
        ("processes checked", str(_sum(rows, "processes", "checked"))),
        ("processes left", str(_sum(rows, "processes", "left"))),
        ("leak tests failed", str(_failed_in(failures, LEAK_FILES))),
        (
            "batch tasks run by the trust checks (of them without opt-in)",
            f"{_sum(rows, 'batch_trust', 'tasks')} ({_sum(rows, 'batch_trust', 'untrusted')})",
        ),
        ("project resources obeyed without opt-in", str(_sum(rows, "batch_trust", "obeyed_untrusted"))),
        ("project resources obeyed with opt-in", str(_sum(rows, "batch_trust", "obeyed_approved"))),
        ("session files fuzzed with lone surrogates or huge numbers", str(_count(rows, "odd_value_file"))),
        (
            "HTML export inputs (exported, refused in one line)",
            f"{_sum(rows, 'export_input', 'exported')}, {_sum(rows, 'export_input', 'refused')}",
        ),
        (
            "non-regular session paths tried (refused)",
            f"{_count(rows, 'non_regular_path')} ({_sum(rows, 'non_regular_path', 'refused')})",
        ),
        ("bad-input tests with an escaped exception (loader, export, paths)", str(_failed_in(failures, BAD_INPUT_FILES))),
        ("seconds to answer a huge bad RPC line (ours)", _bad_line_seconds(rows)),
        (
            "reopens refused right after kill -9 of the writer",
            f"{_sum(rows, 'lock_after_kill', 'refused')} (of {_sum(rows, 'lock_after_kill', 'rounds')})",
        ),
        (
            "long refused JSON texts mismatching the V8 scanner",
            f"{_sum(rows, 'rpc_parse_mutations', 'mismatched')} (of {_sum(rows, 'rpc_parse_mutations', 'compared')})",
        ),
        *_stalled_streams(rows),
        *_terminal_rows(rows, failures),
    ]


def _stalled_streams(rows: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Issue #28 item 5: streams that never end, stopped by the response deadline."""
    from pi_ai import DEFAULT_RESPONSE_TIMEOUT_MS

    surfaces = ("library", "cli", "batch")
    tried = Counter(row["surface"] for row in rows if row["figure"] == "stalled_stream")
    settled = [row for row in rows if row["figure"] == "stalled_stream_settled"]
    kinds = Counter(row["kind"] for row in rows if row["figure"] == "stalled_stream")
    delays = {s: max((r["delay_ms"] for r in settled if r["surface"] == s), default=None) for s in surfaces}
    deadlines = sorted({r["deadline_ms"] for r in settled})
    return [
        ("stalled streams tried (library, CLI, batch)", ", ".join(str(tried[s]) for s in surfaces)
         + " (" + ", ".join(f"{kind}: {n}" for kind, n in sorted(kinds.items())) + ")"),
        ("stalled streams settled", f"{len(settled)} of {sum(tried.values())}"),
        (f"settle delay past a {'/'.join(map(str, deadlines)) or '-'} ms deadline (max ms: library, CLI with start-up, batch task)",
         ", ".join("-" if delays[s] is None else str(delays[s]) for s in surfaces)),
        (
            "stalled stream settles, default responseTimeoutMs (computed)",
            f"{DEFAULT_RESPONSE_TIMEOUT_MS // 1000} s + {delays['library'] or 0} ms (library's max delay)",
        ),
    ]


def _terminal_rows(rows: list[dict[str, Any]], failures: list[tuple[str, str, str]]) -> list[tuple[str, str]]:
    """The terminal-output policy (issue #28, item 1): families tried, and where."""
    tried = [row for row in rows if row["figure"] == "escape_family"]
    surfaces = Counter(row["surface"] for row in tried)
    leaked = {row["family"] for row in tried if row.get("leaked")}
    return [
        (
            "escape families tried (checks per surface)",
            f"{len({row['family'] for row in tried})} ("
            + ", ".join(f"{surface}: {n}" for surface, n in sorted(surfaces.items()))
            + ")",
        ),
        (
            "escape families through to a terminal (+ failed policy tests)",
            f"{len(leaked)} (+{_failed_in(failures, TERMINAL_FILES)})",
        ),
    ]


def _bad_line_seconds(rows: list[dict[str, Any]]) -> str:
    seen = [row for row in rows if row["figure"] == "rpc_bad_line" and row.get("target") == "ours"]
    return ", ".join(f"{row['case']}: {row['seconds']}" for row in seen) or "not run"


def share_of_test_time(junit: Path) -> tuple[float, float]:
    """Seconds the reliability checks took, and all tests of the report (summed per test:
    with several workers that is CPU-side time, not the wall clock)."""
    mine = total = 0.0
    prefixes = tuple(check.removesuffix(".py").replace("/", ".") for check in CHECKS)
    for case in ElementTree.parse(junit).iter("testcase"):
        seconds = float(case.get("time") or 0)
        total += seconds
        if case.get("classname", "").startswith(prefixes):
            mine += seconds
    return mine, total


def _report(rows: list[dict[str, Any]], junit: Path, title: str) -> None:
    failures = _failures(junit) if junit.exists() else []
    outcomes = _outcomes(junit) if junit.exists() else Counter()
    print(f"\n{title}: " + ", ".join(f"{n} {kind}" for kind, n in sorted(outcomes.items())))
    if junit.exists():
        mine, total = share_of_test_time(junit)
        print(f"  reliability checks: {mine:.0f} s of {total:.0f} s test time ({100 * mine / max(total, 1):.0f}%)")
    lines = table(rows, failures)
    width = max(len(what) for what, _ in lines)
    for what, value in lines:
        print(f"  {what:<{width}}  {value}")
    for where, name, message in failures:
        print(f"FAILED {where}::{name}: {message[:200]}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--full", action="store_true", help="the larger, nightly-style run")
    parser.add_argument("-n", default="2", help="pytest-xdist workers (default 2)")
    parser.add_argument(
        "--tally",
        nargs=2,
        type=Path,
        metavar=("FIGURES", "JUNIT"),
        help="run nothing: tabulate a run made elsewhere (./test with PI_RELIABILITY_FIGURES=FIGURES "
        "and --junitxml=JUNIT)",
    )
    args, pytest_args = parser.parse_known_args(argv)
    if args.tally:
        figures, junit = args.tally
        _report(_read(figures), junit, f"tally of {junit.name}")
        return 1 if _failures(junit) else 0
    with tempfile.TemporaryDirectory(prefix="pi-figures-") as scratch:
        figures, junit = Path(scratch) / "figures.jsonl", Path(scratch) / "junit.xml"
        env = {**os.environ, "PI_RELIABILITY_FIGURES": str(figures), **(FULL_ENV if args.full else {})}
        checks = [check for check in CHECKS if (ROOT / check).exists()]
        command = [sys.executable, "-m", "pytest", "-q", "-n", args.n, f"--junitxml={junit}", *checks, *pytest_args]
        started = time.monotonic()
        code = subprocess.run(command, cwd=ROOT, env=env, check=False).returncode
        title = f"{'full' if args.full else 'default'} run, {time.monotonic() - started:.0f} s wall, {args.n} workers"
        _report(_read(figures), junit, title)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
