"""``ensure_node_runtime``: a Node binary and Pi 1.6's libraries, found or installed once."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pi_coding_agent.core.local_model import Progress, StderrProgress
from pi_coding_agent.core.node_runtime._errors import NodeUnavailable
from pi_coding_agent.core.node_runtime._find import find_system_node, usable
from pi_coding_agent.core.node_runtime._install import (
    NODE_VERSION,
    install_libraries,
    install_node,
    libraries_key,
    libraries_ready,
    node_binary_in,
    pi_package_root,
)
from pi_coding_agent.core.node_runtime._paths import cache_root, node_package_name
from pi_coding_agent.core.paths import exclusive

OFFLINE_ENV = "PI_OFFLINE"


@dataclass(frozen=True)
class NodeRuntime:
    node: str
    """The Node binary (22.19 or later)."""
    pi_root: str
    """The installed ``@earendil-works/pi-coding-agent`` folder; its ``node_modules`` neighbours
    are the libraries extensions import."""


def _offline() -> bool:
    return os.environ.get(OFFLINE_ENV, "").lower() in ("1", "true", "yes")


def _node_folder(root: Path) -> tuple[Path, str]:
    package = node_package_name()
    return root / f"node-v{NODE_VERSION}-{package.removeprefix('node-')}", package


def _present_node(root: Path) -> str | None:
    """The user's Node when new enough, else the one installed in our cache before."""
    found = find_system_node()
    if found is not None:
        return found
    cached = node_binary_in(*_node_folder(root))
    return str(cached) if cached.is_file() and usable(str(cached)) else None


def _node(root: Path, npm_command: Sequence[str] | None, progress: Progress) -> str:
    found = _present_node(root)
    if found is not None:
        return found
    if _offline():
        raise NodeUnavailable("no Node 22.19 or later on PATH, and PI_OFFLINE forbids installing one")
    folder, package = _node_folder(root)
    return str(install_node(folder, package, npm_command, progress))


def _libraries(root: Path, npm_command: Sequence[str] | None, progress: Progress) -> Path:
    folder = root / libraries_key()
    if not libraries_ready(folder):
        if _offline():
            raise NodeUnavailable("Pi's libraries are not installed, and PI_OFFLINE forbids installing them")
        install_libraries(folder, npm_command, progress)
    return pi_package_root(folder)


def installed_node_runtime() -> NodeRuntime | None:
    """Node and Pi's libraries when both are there already (nothing is installed), else ``None``:
    for starting the host early, before it is known that a TypeScript extension will load."""
    root = cache_root()
    node = _present_node(root)
    folder = root / libraries_key()
    if node is None or not libraries_ready(folder):
        return None
    return NodeRuntime(node, str(pi_package_root(folder)))


def ensure_node_runtime(
    npm_command: Sequence[str] | None = None, progress: Progress | None = None
) -> NodeRuntime:
    """Node and Pi's libraries, installing what is missing (once; other processes wait for it)."""
    root = cache_root()
    shown = progress if progress is not None else StderrProgress()
    with exclusive(root / ".lock"):
        node = _node(root, npm_command, shown)
        pi_root = _libraries(root, npm_command, shown)
    return NodeRuntime(node, str(pi_root))
