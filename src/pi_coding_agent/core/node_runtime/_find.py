"""Finding a Node.js new enough for Pi's extensions (Pi 1.6 needs 22.19 or later)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

MIN_NODE = (22, 19, 0)
"""The oldest Node that Pi 1.6 runs on (its ``engines`` field)."""
NODE_ENV = "PI_NODE"
"""A Node binary to use instead of looking on ``PATH``."""


def node_version(binary: str) -> tuple[int, int, int] | None:
    """``node --version`` of ``binary`` as numbers, or ``None`` when it does not run."""
    try:
        done = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.match(r"v(\d+)\.(\d+)\.(\d+)", done.stdout.strip())
    if done.returncode != 0 or match is None:
        return None
    major, minor, patch = (int(part) for part in match.groups())
    return major, minor, patch


def usable(binary: str) -> bool:
    version = node_version(binary)
    return version is not None and version >= MIN_NODE


def find_system_node() -> str | None:
    """``$PI_NODE``, else ``node`` on ``PATH``, when it is new enough."""
    candidates = [os.environ.get(NODE_ENV) or "", shutil.which("node") or ""]
    return next((candidate for candidate in candidates if candidate and usable(candidate)), None)
