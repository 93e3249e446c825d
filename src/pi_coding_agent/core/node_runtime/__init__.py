"""Node.js and Pi 1.6's libraries for running Pi's TypeScript extensions.

``ensure_node_runtime()`` returns a Node 22.19+ (the user's, else one installed from npm into
``~/.cache/pi-for-python/node``) and a pinned install of ``@earendil-works/pi-coding-agent``
with ``pi-tui``, ``pi-ai`` and ``typebox`` beside it, so extensions' imports resolve. It raises
``NodeUnavailable`` when neither can be had (no Node and npm fails, or ``PI_OFFLINE``).
"""

from pi_coding_agent.core.node_runtime._errors import NodeUnavailable
from pi_coding_agent.core.node_runtime._find import MIN_NODE, find_system_node, node_version
from pi_coding_agent.core.node_runtime._install import NODE_VERSION, PI_VERSION
from pi_coding_agent.core.node_runtime._paths import cache_root
from pi_coding_agent.core.node_runtime._runtime import (
    NodeRuntime,
    ensure_node_runtime,
    installed_node_runtime,
)

__all__ = [
    "MIN_NODE",
    "NODE_VERSION",
    "PI_VERSION",
    "NodeRuntime",
    "NodeUnavailable",
    "cache_root",
    "ensure_node_runtime",
    "find_system_node",
    "installed_node_runtime",
    "node_version",
]
