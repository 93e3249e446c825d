"""Loading TypeScript extensions into our runner, or warning about each when Node cannot be had."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from pi_coding_agent.core.node_runtime import MIN_NODE, NodeUnavailable, ensure_node_runtime
from pi_coding_agent.core.startup_timing import mark
from pi_coding_agent.customize.extensions import Extension, ExtensionError, ExtensionRunner
from pi_coding_agent.customize.ts_extensions._bridge import TypeScriptHost
from pi_coding_agent.customize.ts_extensions._early import stop_early_host, take_early_host
from pi_coding_agent.customize.ts_extensions._process import HostError

TYPESCRIPT_SUFFIXES = (".ts", ".mts", ".cts", ".js", ".mjs", ".cjs")
"""What Pi's loader (jiti) imports; Pi discovers ``.ts`` and ``.js`` in extension folders."""


def is_typescript_extension(path: str) -> bool:
    """A Pi extension: a script file, or a folder whose entry point is ``index.ts``/``index.js``."""
    if os.path.isdir(path):
        return not os.path.exists(os.path.join(path, "__init__.py")) and any(
            os.path.exists(os.path.join(path, index)) for index in ("index.ts", "index.js")
        )
    return path.endswith(TYPESCRIPT_SUFFIXES)


def unavailable_warning(path: str, reason: str) -> str:
    minimum = ".".join(map(str, MIN_NODE))
    return (
        f"TypeScript extension {path} was not loaded: it needs Node.js {minimum} or later ({reason}); "
        "install Node (https://nodejs.org) or let pi fetch it with npm on the next start"
    )


@dataclass
class TypeScriptLoad:
    extensions: list[Extension] = field(default_factory=list)
    errors: list[ExtensionError] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    host: TypeScriptHost | None = None


async def load_typescript_extensions(
    paths: Sequence[str],
    runner: ExtensionRunner,
    *,
    npm_command: Sequence[str] | None = None,
) -> TypeScriptLoad:
    """Start Node (installing it and Pi's libraries on first use) and load ``paths`` in it; the
    extensions that loaded become ``Extension`` objects (not yet added to ``runner``)."""
    loaded = TypeScriptLoad()
    if not paths:
        return loaded
    mark("typescript load begins")
    early = take_early_host(runner.cwd)
    if early is not None:
        runtime, spawned = early
    else:
        await stop_early_host()
        try:
            runtime, spawned = ensure_node_runtime(npm_command), None
        except NodeUnavailable as error:
            loaded.warnings = [unavailable_warning(path, str(error)) for path in paths]
            return loaded
    host = TypeScriptHost(runner)
    await host.start(runtime, runner.cwd, spawned=spawned)
    mark("host started" if spawned is None else "host started early taken")
    try:
        answer = await host.request("load", {"paths": list(paths), "cwd": runner.cwd})
    except HostError as error:
        loaded.errors = [ExtensionError(path, "load", f"Failed to load extension: {error}") for path in paths]
        await host.close()
        return loaded
    mark("extensions loaded (answer read)")
    registry = answer.get("registry") or []
    host.extensions = [Extension(str(item.get("path"))) for item in registry]
    host.apply_registry(registry)
    for provider in answer.get("providers") or []:
        runner.pending_providers.append((str(provider.get("name")), dict(provider.get("config") or {})))
    host.share_mcp_servers(answer.get("mcpServers"))
    loaded.errors = [
        ExtensionError(str(e.get("path")), "load", str(e.get("error"))) for e in answer.get("errors") or []
    ]
    loaded.extensions = host.extensions
    loaded.host = host
    return loaded
