"""The built-in MCP support connecting the servers extensions register (Pi 1.6's
``pi.registerMcpServer``): those registered while extensions loaded join the run's servers
before the session is built; later registrations and removals follow at once. A run that
started with no server at all makes its manager at the first registration and hands it to the
running session, so the MCP modules load only in runs that have a server."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_coding_agent.core.mcp import McpManager
    from pi_coding_agent.customize.extensions import ExtensionRunner


def connect_registered(
    runner: ExtensionRunner,
    mcp: McpManager | None,
    new_manager: Callable[[], McpManager],
    after_change: Callable[[McpManager], None],
) -> McpManager | None:
    """The run's manager with the registered servers added (one is made with ``new_manager``
    when there is none and an extension registered a server). When there is neither, ``None``,
    and the first later registration makes the manager then. ``after_change``: called with the
    manager after each later change (first the one that made it)."""
    runner.mcp_connector = True
    if mcp is None and not runner.mcp_servers.list():
        _follow_first_registration(runner, new_manager, after_change)
        return None
    manager = mcp if mcp is not None else new_manager()
    _sync(runner, manager)
    _follow(runner, manager, after_change)
    return manager


def _sync(runner: ExtensionRunner, manager: McpManager) -> None:
    from pi_coding_agent.core.mcp.config import McpServerEntry

    entries = [
        McpServerEntry(s.name, s.config, s.extension_path, "extension") for s in runner.mcp_servers.list()
    ]
    manager.sync_extension_servers(entries)


def _follow(runner: ExtensionRunner, manager: McpManager, after_change: Callable[[McpManager], None]) -> None:
    def changed() -> None:
        _sync(runner, manager)
        after_change(manager)

    runner.mcp_servers.add_listener(changed)


def _follow_first_registration(
    runner: ExtensionRunner, new_manager: Callable[[], McpManager], after_change: Callable[[McpManager], None]
) -> None:
    """Wait, without loading anything of MCP, for a registration; then make the manager, connect
    what is registered and follow later changes as for a manager made at start-up."""
    made: list[McpManager] = []

    def first() -> None:
        if made or not runner.mcp_servers.list():
            return
        stop()
        manager = new_manager()
        made.append(manager)
        _sync(runner, manager)
        _follow(runner, manager, after_change)
        after_change(manager)

    stop = runner.mcp_servers.add_listener(first)


def registered_manager_factory(home: Path, session_cwd: str) -> Callable[[], McpManager]:
    """A manager with the ``mcp.json`` servers of none (there were no files): registered servers only."""

    def make() -> McpManager:
        from pi_coding_agent import PI_COMPAT_VERSION
        from pi_coding_agent.core.mcp import McpManager
        from pi_coding_agent.core.mcp.config import McpConfig

        return McpManager(McpConfig(), session_cwd, PI_COMPAT_VERSION, str(home / "mcp.log"), str(home))

    return make
