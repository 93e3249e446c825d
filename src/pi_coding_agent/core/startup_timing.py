"""``PI_TS_TIMING=<launch time>``: where start-up time goes, one stderr line per step.

The benchmark (``bench/ts_extensions_startup.py --phases``) sets the variable to the epoch
seconds at which it launched ``pi``; each ``mark`` prints ``[ts-timing] <label> +<s>`` counted
from there. Unset (always, outside the benchmark), ``mark`` does nothing.
"""

from __future__ import annotations

import os
import sys
import time

TIMING_ENV = "PI_TS_TIMING"


def mark(label: str) -> None:
    launched = os.environ.get(TIMING_ENV)
    if not launched:
        return
    try:
        since = time.time() - float(launched)
    except ValueError:
        return
    print(f"[ts-timing] {label} +{since:.3f}s", file=sys.stderr, flush=True)
