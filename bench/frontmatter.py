"""What the direct frontmatter reader saves: forty skill/template frontmatters read in a fresh
process, by the direct reader (``key: plain value`` lines) and by PyYAML with the YAML 1.2
core-schema loader, import included (a run pays the import once). Median of N processes.

Run: ``.venv/bin/python bench/frontmatter.py [N]`` (default 9).
"""

from __future__ import annotations

import statistics
import subprocess
import sys

SNIPPET = """
import time, asyncio, re, enum, dataclasses  # what a pi run has loaded before resources
text = "name: skill-07\\ndescription: Does task number 7 for the project. Use when the user asks for task 7."
started = time.perf_counter()
if {yaml!r}:
    from pi_coding_agent.customize.resources._yaml12 import load_yaml12
    for _ in range(40):
        load_yaml12(text + "\\n")
else:
    from pi_coding_agent.customize.resources._frontmatter import _parse_simple
    for _ in range(40):
        assert _parse_simple(text) is not None
print(time.perf_counter() - started)
"""


def _measure(yaml: bool, runs: int) -> float:
    samples = []
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-c", SNIPPET.format(yaml=yaml)], capture_output=True, text=True, check=True)
        samples.append(float(done.stdout))
    return statistics.median(samples)


def main() -> int:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    direct = _measure(False, runs)
    yaml = _measure(True, runs)
    print(f"40 frontmatters, import included, median of {runs}: direct {direct * 1000:.1f} ms, PyYAML {yaml * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
