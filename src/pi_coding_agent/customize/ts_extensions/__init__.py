"""Pi's TypeScript extensions, run unchanged in a Node process next to ours.

``load_typescript_extensions(paths, runner)`` starts ``host.mjs`` (shipped with this package)
on the Node of ``core.node_runtime``; it loads the extensions with the loader of a pinned Pi
1.6 install and mirrors each as an ``Extension`` of our runner whose handlers, tools and
commands forward to Node (``docs/extensions.md``, "TypeScript extensions").
"""

from pi_coding_agent.customize.ts_extensions._bridge import TypeScriptHost
from pi_coding_agent.customize.ts_extensions._early import start_host_early, stop_early_host
from pi_coding_agent.customize.ts_extensions._host_packages import (
    HOST_PROVIDED_PACKAGES,
    host_dependency_warnings,
)
from pi_coding_agent.customize.ts_extensions._load import (
    TYPESCRIPT_SUFFIXES,
    TypeScriptLoad,
    is_typescript_extension,
    load_typescript_extensions,
    unavailable_warning,
)
from pi_coding_agent.customize.ts_extensions._process import HostError, use_bundled_library

__all__ = [
    "HOST_PROVIDED_PACKAGES",
    "TYPESCRIPT_SUFFIXES",
    "HostError",
    "TypeScriptHost",
    "TypeScriptLoad",
    "host_dependency_warnings",
    "is_typescript_extension",
    "load_typescript_extensions",
    "start_host_early",
    "stop_early_host",
    "unavailable_warning",
    "use_bundled_library",
]
