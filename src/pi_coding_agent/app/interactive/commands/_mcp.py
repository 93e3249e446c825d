"""``/mcp``: Pi 1.6's MCP server manager in the terminal UI.

The list shows every configured server (those that need attention first) with its state,
exposure and where it is configured; a server's menu shows how it is reached and offers its
tools, Reconnect, Exposure and Enable/Disable (also "in this project" for a global server in a
trusted project). Changes are saved to the file that defines the server, or to its project
override, and apply at once: the menus redraw as connections change. ``/mcp <subcommand>``
goes to the session, which answers as outside the terminal UI (``_mcp_command``). OAuth servers
get Sign in (when they need it) and Sign out (when connected) entries; the sign-in shows the URL
as a notice, where Pi 1.6 has a sign-in screen of its own (which also takes a pasted redirect URL).
Servers extensions registered change for this session only.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol

from pi_coding_agent.app.interactive.selectors import McpMenu, McpView
from pi_coding_agent.core.paths import get_agent_dir

if TYPE_CHECKING:
    from pi_coding_agent.app.interactive._parts import Notices, Renderer, Spawn
    from pi_coding_agent.app.interactive._ui import InteractiveUI
    from pi_coding_agent.core.mcp import McpManager
    from pi_coding_agent.core.mcp.config import McpServerEntry
    from pi_coding_agent.runtime.agent_session import AgentSession

IN_PROJECT = "saved to the project mcp.json"


class McpHost(Protocol):
    @property
    def session(self) -> AgentSession: ...
    @property
    def transcript(self) -> Notices: ...
    @property
    def ui(self) -> InteractiveUI: ...
    @property
    def tui(self) -> Renderer: ...
    @property
    def spawn(self) -> Spawn: ...


def has_builtin_mcp(session: AgentSession) -> bool:
    """Whether ``/mcp`` is the built-in one: MCP is on and no extension registered ``/mcp``."""
    return session.builtin_mcp and not any(
        c.name == "mcp" and c.source == "extension" for c in session.available_commands()
    )


async def mcp(host: McpHost, arguments: str) -> None:
    manager = host.session.mcp
    if arguments.strip() or manager is None:  # the session answers (without servers: that there are none)
        await host.session.prompt(f"/mcp {arguments.strip()}".strip())
        return
    host.spawn(_show(host, manager))


async def _show(host: McpHost, manager: McpManager) -> None:
    view = McpView(host.ui.context())
    done = host.ui.show_selector(view)
    try:
        await _Manager(host, view, manager).run()
    except Exception as error:  # Pi reports whatever ended the manager, then closes it
        host.transcript.error(str(error))
    finally:
        done()
        host.tui.request_render()


class _Manager:
    def __init__(self, host: McpHost, view: McpView, manager: McpManager) -> None:
        self.host, self.view, self.mcp = host, view, manager
        self.messages: dict[str, str | None] = {}
        loop = asyncio.get_running_loop()

        def subscribe(render: Callable[[], None]) -> Callable[[], None]:
            def later() -> None:
                if not loop.is_closed():  # the servers' thread may outlive the UI's loop
                    loop.call_soon_threadsafe(render)

            return manager.add_listener(later)

        self.subscribe = subscribe

    async def run(self) -> None:
        while True:
            name = await self.view.menu(self.servers_menu, self.subscribe)
            if name is None:
                return
            while True:
                action = await self.view.menu(functools.partial(self.server_menu, name), self.subscribe)
                if action is None or self.mcp.connection(name) is None:
                    break
                await self.act(name, action)

    # ----------------------------------------------------------------- menus

    def servers_menu(self) -> McpMenu:
        from pi_coding_agent.core.mcp.manager import describe_state, exposure_of, listed, source_label
        from pi_coding_agent.core.mcp.texts import no_servers

        errors = [f"config: {error}" for error in self.mcp.config.errors]
        items = [
            (c.name, c.name, f"{describe_state(c)} · {exposure_of(c.entry)} · {source_label(c.entry)}")
            for c in listed(self.mcp)
        ]
        return McpMenu("MCP servers", items, error="\n".join(errors) or None, empty=no_servers(get_agent_dir()),
                       confirm="manage", cancel="close")  # fmt: skip

    def _in_project(self, entry: McpServerEntry) -> bool:
        return (
            entry.scope == "global" and entry.override is None and self.mcp.config.project_config is not None
        )

    def server_menu(self, name: str) -> McpMenu:
        from pi_coding_agent.core.mcp.manager import describe_state, exposure_of, transport

        connection = self.mcp.connection(name)
        if connection is None:
            return McpMenu(name, empty="This server is not configured any more.")
        entry, state = connection.entry, connection.state
        saved = (
            "for this session"
            if entry.scope == "extension"
            else "saved to the project mcp.json"
            if entry.override
            else f"saved to the {entry.scope} mcp.json"
        )
        in_project = self._in_project(entry)
        items: list[tuple[str, str, str]] = []
        if not entry.enabled:
            items.append(("enable", "Enable", saved))
            items += [("enable-project", "Enable in this project", IN_PROJECT)] if in_project else []
        else:
            if state == "needs-auth":
                items.append(("signin", "Sign in", "opens the browser"))
            if state == "connected":
                items.append(("tools", "Tools", f"{len(connection.tools)} offered"))
            if state in ("failed", "disconnected", "connected", "needs-auth"):
                items.append(("reconnect", "Reconnect", ""))
            if state == "connected" and self.mcp.uses_oauth(name):
                items.append(("signout", "Sign out", "deletes the stored credentials"))
            items.append(("exposure", "Exposure", exposure_of(entry)))
            items.append(("disable", "Disable", saved))
            items += [("disable-project", "Disable in this project", IN_PROJECT)] if in_project else []
        details = [transport(entry), f"{entry.scope}: {entry.source}"]
        details += [f"project override: {entry.override}"] if entry.override else []
        details.append(f"State: {describe_state(connection, with_error=False)}")
        problem = None if state == "connected" or not entry.enabled else connection.error
        error = "\n".join(line for line in (self.messages.get(name), problem) if line)
        return McpMenu(f"MCP server {name}", items, "\n".join(details), error or None,
                       selected=items[0][0] if items else None)  # fmt: skip

    def tools_menu(self, name: str) -> McpMenu:
        from pi_coding_agent.core.mcp.config import tool_exposure
        from pi_coding_agent.core.mcp.manager import EXPOSURE_TEXT, exposure_of

        connection = self.mcp.connection(name)
        if connection is None:
            return McpMenu(f"Tools of {name}")
        config, exposure = connection.entry.config, exposure_of(connection.entry)
        details = f"Exposure {exposure}: {EXPOSURE_TEXT.get(exposure, 'not reachable')}"
        if config.get("toolExposure"):
            details += "\ntoolExposure gives some tools another exposure."
        items = []
        for tool in connection.tools:
            own = tool_exposure(config, tool.name)
            first = (tool.description or "").strip().split("\n", 1)[0]
            items.append((tool.name, tool.name, first if own == exposure else f"[{own}] {first}"))
        return McpMenu(f"Tools of {name}", items, details, empty="The server has no tools.", confirm="back")

    def exposure_menu(self, entry: McpServerEntry) -> McpMenu:
        from pi_coding_agent.core.mcp.manager import EXPOSURE_TEXT, exposure_of

        current = exposure_of(entry)
        items = [(x, f"{'✓ ' if x == current else '  '}{x}", text) for x, text in EXPOSURE_TEXT.items()]
        details = (
            f"Applies to this session; the server is registered by {entry.source}."
            if entry.scope == "extension"
            else f"Saved to {entry.override or entry.source}."
        )
        return McpMenu(f"Exposure of {entry.name}", items, details, selected=current, confirm="save")

    # ----------------------------------------------------------------- actions

    async def act(self, name: str, action: str) -> None:
        from pi_coding_agent.core.mcp.manager import exposure_of, save_change

        connection = self.mcp.connection(name)
        if connection is None:
            return
        entry, message = connection.entry, None
        if action == "tools":
            await self.view.menu(lambda: self.tools_menu(name), self.subscribe)
        elif action == "reconnect":
            self._background(self.mcp.reconnect(name))  # a failure shows in the server's state
        elif action in ("signin", "signout"):
            message = await self._account(name, action)
        elif action == "exposure":
            choice = await self.view.menu(lambda: self.exposure_menu(entry), self.subscribe)
            if choice is not None and choice != exposure_of(entry):
                changed = save_change(entry, {"exposure": choice})
                if isinstance(changed, str):
                    message = changed
                else:
                    self.mcp.set_exposure(changed)
        else:
            enable = action.startswith("enable")
            project = self.mcp.config.project_config if action.endswith("-project") else None
            changed = save_change(entry, {"enabled": enable}, project)
            if isinstance(changed, str):
                message = changed
            else:
                self._background(self.mcp.set_enabled(changed, enable))
        self.messages[name] = message
        self.host.session.activate_mcp_discovery()
        self.host.tui.request_render()

    async def _account(self, name: str, action: str) -> str | None:
        """Sign in (the URL as a notice and the browser opened; Pi 1.6 has a sign-in screen of its
        own) or out; the menu's message."""
        from pi_coding_agent.core.mcp.manager import CANCELLED, sign_in_with_notices, sign_out_of

        if action == "signout":
            await sign_out_of(self.mcp, name)
            return None
        ui = self.host.session.ui

        def notify(message: str, kind: str) -> None:
            ui.notify(message, "error" if kind == "error" else "info")

        # No question for a pasted redirect URL here: a dialog would replace the menu
        # (``/mcp login`` asks it).
        failure = await sign_in_with_notices(self.mcp, name, notify, None)
        return None if failure == CANCELLED else failure

    def _background(self, work: Awaitable[object]) -> None:
        """Connecting and closing go on while the menu stays usable (it redraws as they do)."""

        async def run() -> None:
            await work
            self.host.session.activate_mcp_discovery()

        self.host.spawn(run())


HANDLERS = {"mcp": mcp}
