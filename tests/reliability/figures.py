"""The reliability suite's figures: what each check counted (kills, fuzzed inputs, fault runs,
processes), written where ``tools/reliability_figures.py`` collects them into one table.

``record`` does nothing unless ``PI_RELIABILITY_FIGURES`` names a file: then it appends one
JSON line. Lines are short and written with one ``O_APPEND`` write, so the pytest-xdist
workers of one run can share the file. What failed (a lost entry, an exception out of a
fuzzed input, a fault that did not settle) is read from the run's test outcomes as well, so
a figure is honest even when its test stops at the first bad example.
"""

from __future__ import annotations

import json
import os
from typing import Any

FIGURES_ENV = "PI_RELIABILITY_FIGURES"


def record(figure: str, **counts: Any) -> None:
    """Add one observation of ``figure`` (``counts``: numbers, or a short label)."""
    path = os.environ.get(FIGURES_ENV)
    if not path:
        return
    line = json.dumps({"figure": figure, **counts}, separators=(",", ":")) + "\n"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)
