"""What a snippet of Python imports, counted in a fresh interpreter (import-cost tests count
modules, never time)."""

from __future__ import annotations

import json
import subprocess
import sys


def new_modules(code: str) -> list[str]:
    """Modules ``code`` loads in a fresh interpreter, beyond what the interpreter had at startup."""
    script = (
        f"import sys\nbefore = set(sys.modules)\n{code}\n"
        "loaded = sorted(set(sys.modules) - before)\nimport json\nprint(json.dumps(loaded))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def outside_stdlib(modules: list[str]) -> list[str]:
    return [name for name in modules if name.split(".")[0] not in sys.stdlib_module_names]
