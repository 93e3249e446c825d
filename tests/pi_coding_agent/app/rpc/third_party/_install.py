"""The third-party clients the tests drive, installed once from their registries and cached.

``pi-acp`` (npm; the Agent Client Protocol bridge editors such as Zed run for Pi) goes into an
npm prefix, ``pi-agent-python-sdk`` (PyPI; it requires Pi >= 0.85.1 by ``pi --version``) into
its own virtual environment: its import name, ``pi_agent``, is also one of our packages. Both
live under ``$XDG_CACHE_HOME/pi-for-python-clients`` (default ``~/.cache``), versions pinned;
a later run reuses them. Installs are locked (parallel test workers) and land by rename, so a
broken install never looks finished.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ACP_BRIDGE = "pi-acp@0.0.34"
PYTHON_SDK = "pi-agent-python-sdk==0.2.6"


def _cache() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    folder = base / "pi-for-python-clients"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _installed(name: str, install: Callable[[Path], None]) -> Path:
    final = _cache() / name
    if final.exists():
        return final
    with open(_cache() / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not final.exists():
            staging = _cache() / f".{name}.partial"
            shutil.rmtree(staging, ignore_errors=True)
            install(staging)
            staging.rename(final)
    return final


def _run(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stderr[-3000:]}"


def acp_bridge() -> tuple[Path, Path]:
    """(pi-acp's ``dist/index.js``, the ACP SDK's ``dist/acp.js`` it depends on)."""

    def install(prefix: Path) -> None:
        prefix.mkdir(parents=True)
        _run(
            [
                "npm",
                "install",
                "--prefix",
                str(prefix),
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                ACP_BRIDGE,
            ]
        )

    modules = _installed(ACP_BRIDGE.replace("@", "-"), install) / "node_modules"
    return (
        modules / "pi-acp" / "dist" / "index.js",
        modules / "@agentclientprotocol" / "sdk" / "dist" / "acp.js",
    )


def python_sdk() -> Path:
    """The Python of a virtual environment holding the SDK."""

    def install(venv: Path) -> None:
        _run([sys.executable, "-m", "venv", str(venv)])
        _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-deps", PYTHON_SDK])

    return _installed(PYTHON_SDK.replace("==", "-"), install) / "bin" / "python"
