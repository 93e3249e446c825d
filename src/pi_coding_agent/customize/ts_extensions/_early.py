"""The host started early: Node imports Pi's library while Python is still starting.

Pi's library takes Node seconds to import, about as long as our own start-up up to the point
where the extension list is known. ``start_host_early`` (called by the CLI as soon as the
settings make a TypeScript extension likely) spawns ``host.mjs``, which imports the library
and waits; no extension code runs before ``load``. ``load_typescript_extensions`` then takes
this host (``take_early_host``) instead of starting one; if no TypeScript extension turned up
after all, ``stop_early_host`` ends it. Only a Node and libraries already installed are used:
nothing is installed on a guess.
"""

from __future__ import annotations

import asyncio
import contextlib

from pi_coding_agent.core.node_runtime import NodeRuntime, installed_node_runtime
from pi_coding_agent.customize.ts_extensions._process import spawn_host

_EARLY: list[tuple[str, NodeRuntime, asyncio.subprocess.Process]] = []


async def start_host_early(cwd: str) -> bool:
    """Spawn the host for ``cwd`` unless one is waiting already; ``False`` when Node or Pi's
    libraries would first have to be installed."""
    if _EARLY:
        return True
    runtime = installed_node_runtime()
    if runtime is None:
        return False
    _EARLY.append((cwd, runtime, await spawn_host(runtime, cwd)))
    return True


def take_early_host(cwd: str) -> tuple[NodeRuntime, asyncio.subprocess.Process] | None:
    """The early host when it was started in ``cwd`` (it is then no longer ours to stop)."""
    if _EARLY and _EARLY[0][0] == cwd:
        _, runtime, process = _EARLY.pop()
        return runtime, process
    return None


async def stop_early_host() -> None:
    """End an early host nobody took: closing its stdin makes it exit."""
    while _EARLY:
        _, _, process = _EARLY.pop()
        if process.stdin is not None:
            process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), 5)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
