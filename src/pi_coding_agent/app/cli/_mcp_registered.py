"""The built-in MCP support connecting the servers extensions register (Pi 1.6's
``pi.registerMcpServer``): those registered while extensions loaded join the run's servers
before the session is built; later registrations and removals follow at once."""

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
    after_change: Callable[[], None],
) -> McpManager | None:
    """The run's manager with the registered servers added (one is made with ``new_manager``
    when there is none and an extension registered a server). Without a manager at this point,
    registrations made later are reported as errors: the session was built without MCP (a
    deliberate difference, docs/mcp.md). ``after_change``: called after each later change."""
    runner.mcp_connector = True
    if mcp is None and not runner.mcp_servers.list():
        runner.mcp_servers.add_listener(_late_reporter(runner))
        return None
    manager = mcp if mcp is not None else new_manager()

    def sync() -> None:
        from pi_coding_agent.core.mcp.config import McpServerEntry

        entries = [
            McpServerEntry(s.name, s.config, s.extension_path, "extension") for s in runner.mcp_servers.list()
        ]
        manager.sync_extension_servers(entries)

    sync()

    def changed() -> None:
        sync()
        after_change()

    runner.mcp_servers.add_listener(changed)
    return manager


def registered_manager_factory(home: Path, session_cwd: str) -> Callable[[], McpManager]:
    """A manager with the ``mcp.json`` servers of none (there were no files): registered servers only."""

    def make() -> McpManager:
        from pi_coding_agent import PI_COMPAT_VERSION
        from pi_coding_agent.core.mcp import McpManager
        from pi_coding_agent.core.mcp.config import McpConfig

        return McpManager(McpConfig(), session_cwd, PI_COMPAT_VERSION, str(home / "mcp.log"), str(home))

    return make


def _late_reporter(runner: ExtensionRunner) -> Callable[[], None]:
    """Each server registered once the run started without MCP, reported once as an error."""
    reported: set[str] = set()

    def report() -> None:
        for server in runner.mcp_servers.list():
            if server.name in reported:
                continue
            reported.add(server.name)
            runner.report(
                server.extension_path,
                "register_mcp_server",
                f'MCP server "{server.name}" was registered after start-up, and this run started without '
                "MCP servers, so it is not connected: register it while the extension loads",
            )

    return report
