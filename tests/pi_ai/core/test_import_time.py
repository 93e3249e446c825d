"""Importing pi_ai stays fast and loads no HTTP library or provider SDK."""

from __future__ import annotations

import re
import subprocess
import sys

HEAVY = ("httpx", "httpcore", "anyio", "openai", "anthropic", "google", "jiter", "pydantic", "h11", "ssl")


def _import_profile(code: str = "import pi_ai") -> tuple[float, set[str]]:
    completed = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        capture_output=True,
        text=True,
        check=True,
    )
    modules = set()
    total_us = 0
    for line in completed.stderr.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)", line)
        if not match:
            continue
        modules.add(match.group(4))
        if match.group(4) == "pi_ai":
            total_us = int(match.group(2))
    return total_us / 1000, modules


def test_import_is_fast_and_lazy() -> None:
    # Best of three: the first run may pay for cold .pyc caches and disk.
    runs = [_import_profile() for _ in range(3)]
    cumulative_ms = min(ms for ms, _ in runs)
    modules = runs[-1][1]
    assert cumulative_ms < 80, f"import pi_ai took {cumulative_ms:.1f} ms cumulative"
    loaded_heavy = sorted(m for m in modules if m.split(".")[0] in HEAVY)
    assert loaded_heavy == [], f"import pi_ai loaded {loaded_heavy}"


def test_using_every_export_still_loads_no_transport() -> None:
    """Touching every public name (the whole message model) loads no HTTP library either."""
    _, modules = _import_profile("import pi_ai; [getattr(pi_ai, name) for name in pi_ai.__all__]")
    loaded_heavy = sorted(m for m in modules if m.split(".")[0] in HEAVY)
    assert loaded_heavy == [], f"pi_ai's public names pulled in {loaded_heavy}"
    assert "pi_ai._messages" in modules and "msgspec" in modules
