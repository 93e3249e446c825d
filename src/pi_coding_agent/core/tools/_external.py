"""Locating ripgrep and fd, what the installed fd can do, and the base of the tools that use them.

A binary in the agent's own ``bin`` directory wins, then the ``PATH`` (Debian names fd
``fdfind``), then the scripts directory of the Python environment pi runs in. Nothing is downloaded: without a binary the tools use their Python fallback.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sysconfig
from typing import Literal

from pi_agent import AgentTool

ExternalTool = Literal["rg", "fd"]
Backend = Literal["auto", "external", "python"]
"""``external`` requires the program, ``python`` forces the fallback, ``auto`` prefers the program."""
_NAMES: dict[str, tuple[str, ...]] = {"rg": ("rg",), "fd": ("fd", "fdfind")}
_fd_flags: dict[str, bool] = {}


def find_executable(tool: ExternalTool, bin_dir: str | None = None) -> str | None:
    if bin_dir:
        local = os.path.join(bin_dir, tool)
        if os.access(local, os.X_OK):
            return local
    for name in _NAMES[tool]:
        found = shutil.which(name)
        if found:
            return found
    # A binary installed into pi's own environment (pip's ``ripgrep`` package), even when
    # that environment is not activated.
    scripts = sysconfig.get_path("scripts")
    for name in _NAMES[tool]:
        candidate = os.path.join(scripts, name)
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def fd_supports_no_require_git(fd_path: str) -> bool:
    """Whether fd knows ``--no-require-git`` (Pi passes it outside repositories; old fd releases, such as Debian 12's 8.6, do not)."""
    cached = _fd_flags.get(fd_path)
    if cached is None:
        try:
            help_text = subprocess.run(
                [fd_path, "--help"], capture_output=True, text=True, timeout=10, check=False
            ).stdout
        except (OSError, subprocess.SubprocessError):
            help_text = ""
        cached = _fd_flags[fd_path] = "--no-require-git" in help_text
    return cached


class ExternalSearchTool(AgentTool):
    """A tool (``grep``, ``find``) that runs rg or fd when installed, else its Python fallback."""

    def __init__(self, cwd: str, *, backend: Backend = "auto", bin_dir: str | None = None) -> None:
        self.cwd = cwd
        self.backend = backend
        self.bin_dir = bin_dir
