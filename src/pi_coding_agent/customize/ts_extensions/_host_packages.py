"""Packages that declare a dependency on a package Pi itself provides to extensions.

Pi hands every extension its own copy of ``@earendil-works/pi-*`` (and the ``@mariozechner``
names of older releases) and ``typebox``; a package meant for Pi lists them under
``peerDependencies`` with the range ``*``. One that lists them under ``dependencies`` gets its
own copies installed beside it, which an import can reach instead of the host's (two instances
of one module). Pi 1.6 warns at start, once per such package, naming its ``package.json`` and
the names; so do we (``app/cli/_setup.py``: stderr, and the TUI's ``[Extension issues]``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable

HOST_PROVIDED_PACKAGES = frozenset({
    "@earendil-works/pi-agent-core", "@earendil-works/pi-ai", "@earendil-works/pi-coding-agent",
    "@earendil-works/pi-tui", "@mariozechner/pi-agent-core", "@mariozechner/pi-ai",
    "@mariozechner/pi-coding-agent", "@mariozechner/pi-tui", "@sinclair/typebox", "typebox",
})  # fmt: skip


def host_dependency_warnings(package_roots: Iterable[str]) -> list[tuple[str, str]]:
    """``(package.json path, message)`` for each package root (each once, in the given order)
    whose ``dependencies`` name a package Pi provides; an unreadable manifest is skipped."""
    warnings: list[tuple[str, str]] = []
    for root in dict.fromkeys(package_roots):
        manifest = os.path.join(root, "package.json")
        names = _host_dependencies(manifest)
        if names:
            listed = ", ".join(names)
            warnings.append((manifest, (
                f"lists {listed} under dependencies; Pi provides these to extensions, so declare them "
                'in peerDependencies with the range "*" instead (an installed copy can be imported '
                "in place of Pi's own and load the module twice)."
            )))  # fmt: skip
    return warnings


def _host_dependencies(manifest: str) -> list[str]:
    try:
        with open(manifest, encoding="utf-8-sig") as file:
            data = json.load(file)
    except (OSError, ValueError):
        return []
    dependencies = data.get("dependencies") if isinstance(data, dict) else None
    if not isinstance(dependencies, dict):
        return []
    return sorted(name for name in dependencies if name in HOST_PROVIDED_PACKAGES)
