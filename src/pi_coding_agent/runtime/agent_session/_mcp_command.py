"""``/mcp`` with arguments, and without them outside the terminal UI: Pi 1.6's built-in MCP
extension answers through the extension UI (notify, and select to pick a server), so print mode
shows nothing, RPC gets ``extension_ui_request`` messages and the terminal UI shows notices.

``/mcp`` prints the servers' status once every server settled; ``/mcp reconnect [server]``
reconnects one (asking which when several could be meant); ``/mcp login|logout [server]`` pick
among servers that sign in with OAuth (``McpManager.uses_oauth``) and sign in or out inside the
session (``_sign_in``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pi_coding_agent.core.mcp.texts import (
    NO_OAUTH,
    NO_RECONNECT,
    USAGE,
    no_server_named,
    no_servers,
)
from pi_coding_agent.core.paths import get_agent_dir

if TYPE_CHECKING:
    from pi_ai import AbortSignal
    from pi_coding_agent.core.mcp import McpManager
    from pi_coding_agent.customize.extensions.ui import ExtensionUI


async def run_mcp_command(
    mcp: McpManager | None, arguments: str, ui: ExtensionUI, *, has_ui: bool = True
) -> None:
    """``mcp``: ``None`` when MCP is on but no ``mcp.json`` exists (nothing was loaded);
    ``has_ui``: someone can answer (not print or JSON mode), which a sign-in needs."""
    action, *rest = arguments.split() or [""]
    if mcp is None:
        _without_servers(action, rest, ui)
        return
    from pi_coding_agent.core.mcp.manager import describe_state, status_text

    if not action:
        await mcp.wait_for_all()
        ui.notify(status_text(mcp, get_agent_dir()), "info")
        return
    if len(rest) > 1 or action not in ("login", "logout", "reconnect"):
        ui.notify(USAGE, "warning")
        return
    await mcp.wait_for_all()
    name = rest[0] if rest else None
    if action != "reconnect":
        chosen = await _pick(mcp, ui, name, eligible=mcp.uses_oauth, preferred=_needs_sign_in(mcp), none=NO_OAUTH)
        if chosen is not None and action == "login":
            await _sign_in(mcp, chosen, ui, has_ui)
        elif chosen is not None:
            await _sign_out(mcp, chosen, ui)
        return

    def enabled(server: str) -> bool:
        return server in {entry.name for entry in mcp.enabled}

    def broken(server: str) -> bool:
        connection = mcp.connection(server)
        return connection is not None and connection.state in ("failed", "disconnected")

    chosen = await _pick(mcp, ui, name, eligible=enabled, preferred=broken, none=NO_RECONNECT)
    if chosen is None:
        return
    failure = await mcp.reconnect(chosen)
    if failure:
        ui.notify(failure, "error")
        return
    connection = mcp.connection(chosen)
    state = describe_state(connection) if connection is not None else "disabled"
    ui.notify(f'MCP server "{chosen}" is connected again ({state}).', "info")


def _needs_sign_in(mcp: McpManager) -> Callable[[str], bool]:
    def needs(server: str) -> bool:
        connection = mcp.connection(server)
        return connection is not None and connection.state == "needs-auth"

    return needs


async def _sign_in(mcp: McpManager, name: str, ui: ExtensionUI, has_ui: bool) -> None:
    from pi_coding_agent.core.mcp.manager import CANCELLED, sign_in_with_notices

    if not has_ui:
        ui.notify(f'Signing in to MCP server "{name}" requires interactive mode.', "error")
        return

    def notify(message: str, kind: str) -> None:
        ui.notify(message, "error" if kind == "error" else "info")

    async def ask(question: str, placeholder: str, signal: AbortSignal) -> str | None:
        return await ui.input(question, placeholder, signal=signal)

    failure = await sign_in_with_notices(mcp, name, notify, ask)
    if failure:
        ui.notify(failure, "info" if failure == CANCELLED else "error")


async def _sign_out(mcp: McpManager, name: str, ui: ExtensionUI) -> None:
    from pi_coding_agent.core.mcp.manager import sign_out_of

    removed = await sign_out_of(mcp, name)
    ui.notify(
        f'Signed out of MCP server "{name}".' if removed else f'No stored credentials for MCP server "{name}".',
        "info",
    )


def _without_servers(action: str, rest: list[str], ui: ExtensionUI) -> None:
    """Pi's answers when no server is configured, without loading the MCP modules."""
    if not action:
        ui.notify(no_servers(get_agent_dir()), "info")
    elif len(rest) > 1 or action not in ("login", "logout", "reconnect"):
        ui.notify(USAGE, "warning")
    elif rest:
        ui.notify(no_server_named(rest[0]), "error")
    else:
        ui.notify(NO_RECONNECT if action == "reconnect" else NO_OAUTH, "info")


async def _pick(
    mcp: McpManager,
    ui: ExtensionUI,
    name: str | None,
    *,
    eligible: Callable[[str], bool],
    preferred: Callable[[str], bool],
    none: str,
) -> str | None:
    """The server a subcommand acts on: the one named, else the only eligible one, else the only
    preferred one, else the user's choice (Pi's rules, and its notices when there is none)."""
    names = [entry.name for entry in mcp.config.servers]
    if name is not None:
        if name not in names:
            ui.notify(no_server_named(name), "error")
            return None
        if not eligible(name):
            ui.notify(none, "error")
            return None
        return name
    candidates = [server for server in names if eligible(server)]
    if not candidates:
        ui.notify(none, "info")
        return None
    liked = [server for server in candidates if preferred(server)]
    if len(candidates) == 1 or len(liked) == 1:
        return candidates[0] if len(candidates) == 1 else liked[0]
    choice = await ui.select("MCP server", candidates)
    return choice if choice in candidates else None
