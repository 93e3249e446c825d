"""Published MCP reference servers for the tests, installed once into a cache and reused.

``time_server()`` is PyPI's ``mcp-server-time`` (the MCP project's reference time server) in its
own virtual environment under ``~/.cache/pi-for-python/test-mcp/time-<version>``, created with
this interpreter and pip the first time (a lock keeps parallel workers from racing) and reused
after. It returns the command that starts the server on stdio.
"""

from __future__ import annotations

import fcntl
import subprocess
import sys
from pathlib import Path

TIME_VERSION = "2026.10.19"
CACHE = Path.home() / ".cache" / "pi-for-python" / "test-mcp"


def time_server() -> list[str]:
    """``[executable]`` of ``mcp-server-time`` (installed on first use)."""
    folder = CACHE / f"time-{TIME_VERSION}"
    executable = folder / "bin" / "mcp-server-time"
    if executable.exists():
        return [str(executable)]
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not executable.exists():
            subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
            subprocess.run(
                [
                    str(folder / "bin" / "python"),
                    "-m",
                    "pip",
                    "install",
                    "-q",
                    f"mcp-server-time=={TIME_VERSION}",
                ],
                check=True,
            )
    return [str(executable)]


if __name__ == "__main__":
    print(time_server())
