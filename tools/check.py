"""Run every check the project has: ruff, mypy --strict, the import contracts and pytest.

The import contracts (``[tool.importlinter]`` in ``pyproject.toml``): the layers, no import of
another package's private modules, no import cycles.

Each step runs even when an earlier one failed, so one run shows everything that is wrong.
Extra arguments go to pytest. Exit status is non-zero if any step failed; pytest's exit
status 5 (nothing collected) is a failure like any other.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
WORKERS = (os.cpu_count() or 1) + 1


def _run(name: str, argv: list[str]) -> bool:
    started = time.monotonic()
    print(f"==> {name}: {' '.join(argv)}", flush=True)
    code = subprocess.run(argv, cwd=ROOT, check=False).returncode
    verdict = "ok" if code == 0 else f"FAILED (exit {code})"
    print(f"==> {name}: {verdict} in {time.monotonic() - started:.1f}s", flush=True)
    return code == 0


def main() -> int:
    pytest_args = sys.argv[1:]
    steps = [
        ("ruff", [str(BIN / "ruff"), "check", "src", "tests", "tools", "bench"]),
        ("mypy", [str(BIN / "mypy")]),
        ("imports", [str(BIN / "lint-imports")]),
        # The embedded-model tests need its runtime and two small models: built and downloaded once
        # into pi's own cache (~/.cache/pi-for-python/local), which CI keeps between runs.
        ("local models", [str(BIN / "python"), "-m", "pi_coding_agent.core.local_model", "setup", "--with-source-build",
                          "smollm2-135m", "qwen2.5-coder-0.5b"]),
        # --durations: the 25 slowest tests close the report. Tests marked slow start first, and the
        # Ray tests share one worker and its cluster (tests/conftest.py). One worker more than
        # CPUs: a quarter of the tests' wall time is waiting on their child processes (Pi's Node,
        # tmux), which the extra worker fills (fresh clone, 2 CPUs: pytest 755 s with 2, 676 with 3).
        ("pytest", [str(BIN / "python"), "-m", "pytest", "-n", str(WORKERS), "--durations=25", *pytest_args]),
    ]
    failed = [name for name, argv in steps if not _run(name, argv)]
    if failed:
        print(f"FAILED: {', '.join(failed)}", file=sys.stderr)
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
