"""Where the coding agent keeps its files, and how the paths users write are read (Pi's
``config.ts`` ``getAgentDir`` and ``utils/paths.ts`` ``normalizePath``/``resolvePath``).

The agent dir is ``$PI_CODING_AGENT_DIR`` (tilde expanded) or ``~/.pi/agent``; it holds
``settings.json``, ``auth.json``, ``models.json`` and ``sessions/``. Every layer that needs it
asks ``get_agent_dir()`` here. Only ``os`` is imported up front: session code on the resume path
uses this module.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

AGENT_DIR_ENV = "PI_CODING_AGENT_DIR"
SESSION_DIR_ENV = "PI_CODING_AGENT_SESSION_DIR"
CONFIG_DIR_NAME = ".pi"
"""Name of the per-user (``~/.pi``) and per-project (``<cwd>/.pi``) configuration folders."""

PRIVATE_DIR_MODE = 0o700
"""Mode of every folder pi creates for itself (agent dir, sessions, output files)."""

__all__ = [
    "AGENT_DIR_ENV",
    "CONFIG_DIR_NAME",
    "PRIVATE_DIR_MODE",
    "SESSION_DIR_ENV",
    "cache_dir",
    "exclusive",
    "expand_tilde",
    "get_agent_dir",
    "make_private_dirs",
    "manual_dir",
    "resolve_path",
]


def manual_dir() -> str:
    """Where pi's own README, docs and examples are installed (Pi's ``getDocsPath`` and
    friends): ``pi_coding_agent/manual``, which in a checkout links to the repository's."""
    package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return os.path.join(package, "manual")


def expand_tilde(path: str) -> str:
    """``~`` and ``~/...`` become paths under the home folder, a ``file://`` URL its path;
    anything else is unchanged (``~other`` included), as Pi's ``normalizePath``."""
    if path == "~":
        return _home()
    if path.startswith("~/"):
        return os.path.join(_home(), path[2:])
    if path.startswith("file://"):
        from urllib.parse import unquote, urlparse  # rare: not worth importing up front

        return unquote(urlparse(path).path)
    return path


def _home() -> str:
    # pathlib (and what it imports) is loaded only when a path needs the home folder.
    from pathlib import Path

    return str(Path.home())


def resolve_path(path: str, base: str | os.PathLike[str] | None = None) -> str:
    """Absolute and normalized (``..`` and ``.`` folded), symlinks not followed: Node's
    ``path.resolve`` of the tilde-expanded ``path`` against ``base`` (default: the process cwd)."""
    expanded = expand_tilde(path)
    if not os.path.isabs(expanded):
        expanded = os.path.join(expand_tilde(os.fspath(base)) if base else os.getcwd(), expanded)
    resolved = os.path.normpath(expanded)
    # POSIX keeps a leading "//"; Node's path.resolve does not.
    return "/" + resolved.lstrip("/") if resolved.startswith("//") else resolved


def get_agent_dir(env: Mapping[str, str] | None = None) -> str:
    """``$PI_CODING_AGENT_DIR`` (tilde expanded) or ``~/.pi/agent``; never created here."""
    configured = (os.environ if env is None else env).get(AGENT_DIR_ENV)
    if configured:
        return expand_tilde(configured)
    return os.path.join(_home(), CONFIG_DIR_NAME, "agent")


def cache_dir(kind: str, override_env: str) -> str:
    """The cache folder pi keeps ``kind`` in (the embedded model's ``local``, Node's ``node``):
    ``$override_env`` if set, else ``$XDG_CACHE_HOME/pi-for-python/<kind>`` or
    ``~/.cache/pi-for-python/<kind>``."""
    override = os.environ.get(override_env)
    if override:
        return expand_tilde(override)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = expand_tilde(xdg) if xdg else os.path.join(_home(), ".cache")
    return os.path.join(base, "pi-for-python", kind)


def make_private_dirs(path: str) -> None:
    """``mkdir -p`` where every folder created is ``0700`` (the umask may only narrow it);
    folders that exist already are left as they are."""
    missing: list[str] = []
    current = os.path.abspath(path)
    while not os.path.isdir(current):
        missing.append(current)
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, PRIVATE_DIR_MODE)
        except FileExistsError:
            if not os.path.isdir(folder):
                raise


from pi_coding_agent.core.paths._lock import exclusive as exclusive  # noqa: E402  (after the helpers it uses)
