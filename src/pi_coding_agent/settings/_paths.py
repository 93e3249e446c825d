"""Where the coding agent keeps its files (agent dir, project config dir)."""

from __future__ import annotations

import os
from pathlib import Path

AGENT_DIR_ENV = "PI_CODING_AGENT_DIR"
SESSION_DIR_ENV = "PI_CODING_AGENT_SESSION_DIR"
CONFIG_DIR_NAME = ".pi"
"""Name of the per-user (``~/.pi``) and per-project (``<cwd>/.pi``) configuration folders."""


def expand_tilde(path: str) -> str:
    """``~`` and ``~/...`` become paths under the home directory; anything else is unchanged.

    Only the leading ``~`` of the current user is expanded (``~other`` is kept), as Pi does;
    a ``file://`` URL becomes its path.
    """
    if path == "~":
        return str(Path.home())
    if path.startswith("~/"):
        return os.path.join(str(Path.home()), path[2:])
    if path.startswith("file://"):
        from urllib.parse import unquote, urlparse

        return unquote(urlparse(path).path)
    return path


def agent_dir() -> Path:
    """``$PI_CODING_AGENT_DIR`` (tilde-expanded) or ``~/.pi/agent``; never created here."""
    configured = os.environ.get(AGENT_DIR_ENV)
    if configured:
        return Path(os.path.abspath(expand_tilde(configured)))
    return Path.home() / CONFIG_DIR_NAME / "agent"


def resolve_path(path: str, cwd: str | os.PathLike[str] | None = None) -> str:
    """Tilde-expand ``path`` and make it absolute against ``cwd`` (default: process cwd)."""
    expanded = expand_tilde(path)
    base = os.fspath(cwd) if cwd is not None else os.getcwd()
    return os.path.normpath(os.path.join(base, expanded))
