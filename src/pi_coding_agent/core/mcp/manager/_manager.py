"""The run's MCP servers: connected in the background, their tools named and exposed.

The servers live on an event loop of their own, in a daemon thread, so the SDK's connections
outlast every prompt and session of the run whatever the mode does with its own loop; calls from
the session's loop are handed over with ``run_coroutine_threadsafe``. ``start()`` returns at once
and every enabled server connects; ``wait_for_direct()`` (the first prompt) waits, up to ten
seconds, only for servers that can have ``direct`` tools; ``close()`` stops every server.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import threading
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pi_agent import AgentTool, AgentToolResult
from pi_ai import AbortSignal
from pi_coding_agent.core.mcp.client import McpConnection, McpServerLog, convert_result
from pi_coding_agent.core.mcp.config import McpConfig, McpServerEntry, tool_exposure
from pi_coding_agent.core.mcp.manager._naming import server_tool_names
from pi_coding_agent.core.mcp.manager._resources import RESOURCE_TOOL_NAMES, resource_tools, widest_exposure
from pi_coding_agent.core.mcp.manager._section import ListedServer, configured_exposures, servers_section
from pi_coding_agent.core.mcp.manager._tool import McpTool, McpToolInfo, tool_info
from pi_coding_agent.core.mcp.oauth import McpAuthFileError, McpAuthStore

STARTUP_WAIT_S = 10.0
STILL_CONNECTING = "MCP servers are still connecting; their tools become available once connected."
_CLOSE_WAIT_S = 10.0
T = TypeVar("T")


def has_direct_tools(entry: McpServerEntry) -> bool:
    return "direct" in configured_exposures(entry)


@dataclass(frozen=True)
class ServerReport:
    """A server's state for ``pi mcp list`` and status lines."""

    entry: McpServerEntry
    state: str
    tools: list[str]
    has_resources: bool
    error: str | None


class McpManager:
    def __init__(
        self,
        config: McpConfig,
        cwd: str,
        client_version: str = "0",
        log_path: str | None = None,
        agent_dir: str | None = None,
    ) -> None:
        """``log_path``: where server log messages go (``<agent dir>/mcp.log``); ``None``: nowhere.
        ``agent_dir``: where OAuth sign-ins are stored (``mcp-auth.json``); ``None``: OAuth servers
        connect without tokens."""
        self.config = config
        self.cwd = cwd
        self._client_version = client_version
        self._log = McpServerLog(log_path) if log_path else None
        self._auth_store = McpAuthStore(agent_dir) if agent_dir is not None else None
        self._tokens_at_sign_in: dict[str, str] = {}
        self._connections = {e.name: self._connection(e) for e in config.servers}
        self._owners: dict[str, str] = {}
        self._infos: dict[str, list[McpToolInfo]] = {}
        self._tools: dict[str, McpTool] = {}
        self._resource_tools = resource_tools(
            self.resource_servers, self._resource_request, self.wait_for_all, self.resource_exposure
        )
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task_group: Any = None
        self._stopped: asyncio.Event | None = None
        self._thread: threading.Thread | None = None
        self._waited = False
        self._reported = False
        self._tools_changed = threading.Event()
        self.on_tools_changed: Callable[[], None] | None = None
        """Called (from the servers' thread) when a server's tools appeared or changed."""
        self._listeners: list[Callable[[], None]] = []
        self.overridden: list[str] = []
        """Servers extensions registered under a name ``mcp.json`` defines, one line each."""

    def _connection(self, entry: McpServerEntry) -> McpConnection:
        return McpConnection(
            entry, self.cwd, self._changed, self._client_version, self._log, auth_store=self._auth_store
        )

    # ----------------------------------------------------------------- lifecycle

    @property
    def enabled(self) -> list[McpServerEntry]:
        return [entry for entry in self.config.servers if entry.enabled]

    def start(self) -> None:
        """Start connecting every enabled server; returns at once (nothing to do without one)."""
        if self._thread is not None or not self.enabled:
            return
        ready = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(ready,), name="pi-mcp", daemon=True)
        self._thread.start()
        ready.wait()

    def _run(self, ready: threading.Event) -> None:
        import anyio

        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._stopped = asyncio.Event()
            async with anyio.create_task_group() as group:
                self._task_group = group
                for entry in self.enabled:
                    group.start_soon(self._connect_quietly, self._connections[entry.name])
                ready.set()
                await self._stopped.wait()
                for connection in self._connections.values():
                    await connection.close()

        try:
            anyio.run(main)
        finally:
            ready.set()

    async def _connect_quietly(self, connection: McpConnection) -> None:
        try:
            await connection.session(self._task_group)
        except Exception:
            return

    def close(self) -> None:
        """Stop every server (stdio ones: stdin closed, then SIGTERM and SIGKILL to their group)."""
        thread, loop, stopped = self._thread, self._loop, self._stopped
        if thread is None or loop is None or stopped is None:
            return
        self._thread = None
        loop.call_soon_threadsafe(stopped.set)
        thread.join(_CLOSE_WAIT_S)

    def _submit(self, coroutine: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        if self._loop is None:
            coroutine.close()
            raise RuntimeError("MCP servers are not running")
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop)

    # ----------------------------------------------------------------- tools

    def _changed(self, connection: McpConnection) -> None:
        self._note_sign_in(connection)
        self._notify_listeners()
        if connection.state != "connected" or self._connections.get(connection.name) is not connection:
            return
        entry = connection.entry
        tools = [tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in connection.tools]
        with self._lock:
            names = server_tool_names(entry.name, [str(tool["name"]) for tool in tools], self._owners)
            infos = [
                tool_info(entry.name, tool, names[tool["name"]], tool_exposure(entry.config, tool["name"]))
                for tool in tools
            ]
            for old in self._infos.get(entry.name, []):
                self._tools.pop(old.name, None)
            self._infos[entry.name] = infos
            for info in infos:
                if info.exposure != "hidden":
                    self._tools[info.name] = McpTool(info, self)
        self._tools_changed.set()
        if self.on_tools_changed is not None:
            self.on_tools_changed()

    def _stored_tokens(self, connection: McpConnection) -> str:
        url = connection.entry.config.get("url")
        if self._auth_store is None or not isinstance(url, str):
            return "null"
        try:
            return json.dumps(self._auth_store.tokens(connection.name, url), sort_keys=True)
        except McpAuthFileError:
            return "null"

    def _note_sign_in(self, connection: McpConnection) -> None:
        """Remember a server's stored tokens when it starts needing a sign-in, so a sign-in done
        elsewhere (``pi mcp login``, Pi 1.6) is noticed."""
        if connection.state != "needs-auth":
            self._tokens_at_sign_in.pop(connection.name, None)
        elif connection.name not in self._tokens_at_sign_in:
            self._tokens_at_sign_in[connection.name] = self._stored_tokens(connection)

    async def reconnect_signed_in(self, timeout_s: float = 30.0) -> None:
        """Connect again the servers that needed a sign-in and whose credentials were stored
        since (Pi 1.6 does this at each turn; we do it when a prompt starts)."""
        if self._loop is None or not self._tokens_at_sign_in:
            return

        async def reconnect() -> None:
            signed_in = [
                connection
                for connection in self._connections.values()
                if connection.name in self._tokens_at_sign_in
                and self._stored_tokens(connection) != self._tokens_at_sign_in[connection.name]
            ]
            for connection in signed_in:
                self._tokens_at_sign_in.pop(connection.name, None)
            await asyncio.gather(*(self._connect_quietly(connection) for connection in signed_in))

        with contextlib.suppress(TimeoutError, concurrent.futures.TimeoutError):
            await asyncio.wait_for(asyncio.wrap_future(self._submit(reconnect())), timeout_s)

    def take_tools_changed(self) -> bool:
        """Whether a server's tools appeared or changed since the last call (then cleared)."""
        changed = self._tools_changed.is_set()
        self._tools_changed.clear()
        return changed

    def tool_infos(self) -> list[McpToolInfo]:
        """Every tool of the connected servers, in configuration order, with its exposure."""
        with self._lock:
            return [info for entry in self.config.servers for info in self._infos.get(entry.name, [])]

    def direct_tools(self) -> list[AgentTool]:
        """The tools declared to the model: ``direct`` tools of connected servers, then the
        resource tools when a ``direct`` server offers resources."""
        with self._lock:
            infos = [info for entry in self.config.servers for info in self._infos.get(entry.name, [])]
            tools: list[AgentTool] = [
                self._tools[i.name] for i in infos if i.exposure == "direct" and i.name in self._tools
            ]
        return tools + (self._resource_tools if self.resource_exposure() == "direct" else [])

    def listed_tools(self) -> list[AgentTool]:
        """Every tool of the connected servers whatever its exposure (``hidden`` ones too), then
        the resource tools unless they reach no server: what Pi 1.6's ``getAllTools()`` lists."""
        with self._lock:
            infos = [info for entry in self.config.servers for info in self._infos.get(entry.name, [])]
            tools: list[AgentTool] = [self._tools.get(i.name) or McpTool(i, self) for i in infos]
        return tools + (self._resource_tools if self.resource_exposure() != "hidden" else [])

    def resource_servers(self) -> list[str]:
        """Enabled, connected servers with resources whose exposure is not ``hidden``."""
        return [
            c.name
            for c in self._connections.values()
            if c.state == "connected"
            and c.has_resources
            and c.entry.enabled
            and self._exposure(c.entry) != "hidden"
        ]

    def resource_exposure(self) -> str:
        """The resource tools' exposure: the widest of the servers they reach."""
        return widest_exposure(
            {self._exposure(self._connections[name].entry) for name in self.resource_servers()}
        )

    @staticmethod
    def _exposure(entry: McpServerEntry) -> str:
        return str(entry.config.get("exposure") or "codemode")

    async def _resource_request(self, server: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
        connection = self._connections[server]
        return await asyncio.wrap_future(self._submit(connection.request(self._task_group, method, params)))

    def indirect_tools(self) -> list[McpToolInfo]:
        """Tools with ``codemode`` or ``deferred`` exposure: reachable only through a tool that
        calls others (codemode, tool_search), which call server tools with ``call_tool`` and the
        resource tools (``server`` empty here) through ``resource_tool(name)``."""
        infos = [info for info in self.tool_infos() if info.exposure in ("codemode", "deferred")]
        exposure = self.resource_exposure()
        if exposure in ("codemode", "deferred"):
            infos += [
                McpToolInfo(name=t.name, server="", tool=t.name, exposure=exposure, description=t.description,
                            parameters=t.parameters, annotations={"readOnlyHint": True})
                for t in self._resource_tools
            ]  # fmt: skip
        return infos

    def indirect_agent_tools(self) -> list[AgentTool]:
        """The ``codemode`` and ``deferred`` tools as agent tools (what codemode scripts call
        besides the declared ones), resource tools included when their exposure is indirect."""
        with self._lock:
            infos = [info for entry in self.config.servers for info in self._infos.get(entry.name, [])]
            tools: list[AgentTool] = [
                self._tools[i.name]
                for i in infos
                if i.exposure in ("codemode", "deferred") and i.name in self._tools
            ]
        return tools + (self._resource_tools if self.resource_exposure() in ("codemode", "deferred") else [])

    def resource_tool(self, name: str) -> AgentTool:
        """``list_mcp_resources``, ``list_mcp_resource_templates`` or ``read_mcp_resource``."""
        return self._resource_tools[RESOURCE_TOOL_NAMES.index(name)]

    async def wait_for_direct(self, timeout_s: float = STARTUP_WAIT_S) -> bool:
        """The first prompt's wait for servers that can have ``direct`` tools (codemode scripts,
        ``tool_search`` and resource tools wait for the others when they run); ``False``
        when some were still connecting when the time ran out (later calls return ``True`` at once)."""
        if self._waited or self._loop is None:
            return True
        self._waited = True
        waiting = [self._connections[e.name] for e in self.enabled if has_direct_tools(e)]
        if not waiting:
            return True

        async def settled() -> None:
            while any(connection.state == "connecting" for connection in waiting):  # noqa: ASYNC110 - states change on this loop; a 10 ms poll is enough
                await asyncio.sleep(0.01)

        try:
            await asyncio.wait_for(asyncio.wrap_future(self._submit(settled())), timeout_s)
        except TimeoutError:
            return False
        return True

    async def wait_for_all(self, timeout_s: float = 60.0, reach: Sequence[str] | None = None) -> None:
        """Until no enabled server is still connecting, or the time runs out: what ``tool_search``
        and the resource tools need (they may reach any server). ``reach``: only the servers a
        codemode script names, Pi 1.6's rule: a word of it contains ``mcp__<server>`` (``-`` as
        ``_``); ``None``: every server."""
        if self._loop is None:
            return

        def reached(connection: McpConnection) -> bool:
            if reach is None:
                return True
            namespace = "mcp__" + connection.name.replace("-", "_")
            return any(namespace in word for word in reach)

        waiting = [c for c in self._connections.values() if c.entry.enabled and reached(c)]

        async def settled() -> None:
            while any(c.state == "connecting" for c in waiting):  # noqa: ASYNC110 - states change on this loop; a 10 ms poll is enough
                await asyncio.sleep(0.01)

        if not waiting:
            return
        try:
            await asyncio.wait_for(asyncio.wrap_future(self._submit(settled())), timeout_s)
        except TimeoutError:
            return

    def wait_until_settled(self, timeout_s: float) -> None:
        """Block until no server is still connecting (``pi mcp list``), or the time runs out."""
        if self._loop is None:
            return

        async def settled() -> None:
            while any(c.state == "connecting" for c in self._connections.values() if c.entry.enabled):  # noqa: ASYNC110 - states change on this loop; a 10 ms poll is enough
                await asyncio.sleep(0.01)

        try:
            self._submit(settled()).result(timeout_s)
        except concurrent.futures.TimeoutError:
            return

    async def call_tool(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any],
        on_progress: Callable[[float, float | None, str | None], None] | None = None,
        signal: AbortSignal | None = None,
    ) -> AgentToolResult[Any]:
        """Call a server's tool (any exposure but ``hidden``) from any event loop; the result as
        the model gets it. A server that dropped is connected again first."""
        connection = self._connections.get(server)
        if connection is None or not connection.entry.enabled:
            raise RuntimeError(f'MCP server "{server}" is disabled.')
        if tool_exposure(connection.entry.config, tool) == "hidden":
            raise RuntimeError(f'MCP tool "{server}/{tool}" is no longer available.')
        caller = asyncio.get_running_loop()

        async def report(progress: float, total: float | None, message: str | None) -> None:
            if on_progress is not None:
                caller.call_soon_threadsafe(on_progress, progress, total, message)

        future = self._submit(connection.call_tool(self._task_group, tool, arguments, report))

        def cancel() -> None:
            future.cancel()

        remove = signal.add_listener(cancel) if signal is not None else None
        try:
            result = await asyncio.wrap_future(future)
        except concurrent.futures.CancelledError:
            raise RuntimeError("Operation aborted") from None
        finally:
            if remove is not None:
                remove()
        # What the server sent, without the SDK's defaults (``isError: false``, ``resultType``):
        # scripts and ``structuredContent`` get the result as Pi 1.6 passes it on.
        wire = result.model_dump(by_alias=True, exclude_none=True, exclude_unset=True, mode="json")
        return convert_result(server, tool, wire, readable_resources=server in self.resource_servers())

    # ----------------------------------------------------------------- discovery

    def servers_section(self) -> str | None:
        """The ``mcp_servers`` system prompt section as the servers are now (``None``: none)."""
        return servers_section(
            [ListedServer(c.entry, c.instructions) for c in self._connections.values()]
        )

    def indirect_exposures(self) -> set[str]:
        """``codemode`` and ``deferred`` when an enabled server's configuration gives some of its
        tools that exposure (known before any server connects): what decides whether ``codemode``
        and ``tool_search`` are turned on."""
        return {x for e in self.enabled for x in configured_exposures(e)} & {"codemode", "deferred"}

    def tool_owner(self, name: str) -> McpToolInfo | None:
        """The server tool of this name (``mcp__<server>__<tool>``), if a connected server has it."""
        with self._lock:
            return next((info for infos in self._infos.values() for info in infos if info.name == name), None)

    def server_about(self, server: str) -> tuple[str | None, str | None]:
        """A server's configured ``description`` (trimmed) and the instructions it sent."""
        connection = self._connections.get(server)
        if connection is None:
            return None, None
        description = str(connection.entry.config.get("description") or "").strip()
        return description or None, connection.instructions

    def namespace_text(self, server: str) -> str:
        """A server's name, configured description and instructions, for ranking its tools."""
        connection = self._connections.get(server)
        if connection is None:
            return ""
        description = str(connection.entry.config.get("description") or "").strip()
        return " ".join(["mcp__" + server.replace("-", "_"), description, connection.instructions or ""])

    # ----------------------------------------------------------------- status

    def reports(self) -> list[ServerReport]:
        return [
            ServerReport(
                c.entry,
                c.state,
                [t.name for t in c.tools] if c.state == "connected" else [],
                c.has_resources,
                c.error,
            )
            for c in self._connections.values()
        ]

    def take_problems(self) -> str | None:
        """Once per run, when no server is still connecting: the report of config errors and
        failed servers (``None``: nothing to report, or not yet, or reported already)."""
        if self._reported or any(
            c.state == "connecting" for c in self._connections.values() if c.entry.enabled
        ):
            return None
        self._reported = True
        lines = self.problems()
        if not lines:
            return None
        listed = "\n".join(f"  {line}" for line in lines)
        return f"MCP servers need attention:\n{listed}\nOpen /mcp to see and fix them."

    def problems(self) -> list[str]:
        """Config errors and failed servers, one line each (Pi's once-after-startup report)."""
        lines = [f"config: {error}" for error in self.config.errors]
        lines += [
            f"{c.name}: needs sign-in"
            if c.state == "needs-auth"
            else f"{c.name}: failed: {(c.error or 'unknown error').splitlines()[0]}"
            for c in self._connections.values()
            if c.state in ("failed", "needs-auth")
        ]
        return lines

    # ----------------------------------------------------------------- /mcp

    def add_listener(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` (from any thread) whenever a server's state changes; returns the
        function that stops it. ``/mcp``'s menus redraw from it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _notify_listeners(self) -> None:
        for listener in list(self._listeners):
            try:
                listener()
            except RuntimeError:  # a listener whose loop has gone; the connection goes on
                continue

    def connection(self, name: str) -> McpConnection | None:
        """A server's connection (its ``state``, ``error``, ``tools``), read-only for callers."""
        return self._connections.get(name)

    def _replace_entry(self, entry: McpServerEntry) -> None:
        self.config.servers = [entry if e.name == entry.name else e for e in self.config.servers]
        self._connections[entry.name].entry = entry

    async def on_loop(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` on the servers' loop and wait for it from the caller's loop."""
        return await asyncio.wrap_future(self._submit(coroutine))

    async def reconnect(self, name: str) -> str | None:
        """Drop a server's connection and connect again; the error message when that fails."""
        connection = self._connections[name]
        if not connection.entry.enabled:
            return f'MCP server "{name}" is disabled.'
        if self._loop is None:
            self.start()
        try:
            await self.on_loop(connection.reconnect(self._task_group))
        except Exception as error:
            return str(error)
        return None

    async def set_enabled(self, entry: McpServerEntry, enabled: bool) -> None:
        """Turn a server on (connect it; returns once that settled) or off (its tools go, its
        connection closes). ``entry`` is the server's entry with the file change already saved."""
        old = self._connections[entry.name]
        self._replace_entry(entry)
        fresh = self._connections[entry.name] = self._connection(entry)
        with self._lock:
            for info in self._infos.pop(entry.name, []):
                self._tools.pop(info.name, None)
        self._tools_changed.set()
        self._notify_listeners()
        if self._loop is not None:
            await self.on_loop(old.close())
        if not enabled:
            return
        if self._loop is None:
            self.start()
        else:
            await self.on_loop(self._connect_quietly(fresh))

    def set_exposure(self, entry: McpServerEntry) -> None:
        """Apply a server's changed ``exposure`` (``entry`` already saved): its tools are
        exposed again, so the next request declares or withdraws them."""
        self._replace_entry(entry)
        connection = self._connections[entry.name]
        if connection.state == "connected":
            self._changed(connection)
        self._notify_listeners()

    # ----------------------------------------------------------------- extensions' servers

    def sync_extension_servers(self, entries: Sequence[McpServerEntry]) -> list[str]:
        """Make the servers extensions registered (``scope`` ``extension``) exactly ``entries``:
        new ones connect (at once when servers are running), removed ones and ones registered
        again with another config close and their tools go. A name ``mcp.json`` defines wins
        (Pi 1.6): such entries are left out, and returned as lines saying so."""
        files = {e.name: e for e in self.config.servers if e.scope != "extension"}
        wanted = {e.name: e for e in entries if e.name not in files}
        current = {e.name: e for e in self.config.servers if e.scope == "extension"}
        for name, entry in current.items():
            if name not in wanted or wanted[name].config != entry.config:
                self._remove_server(name)
        for name, entry in wanted.items():
            if name not in current or current[name].config != entry.config:
                self._add_server(entry)
        self.overridden = [
            f'"{e.name}" registered by {e.source} is overridden by "{e.name}" in {files[e.name].source}'
            for e in entries
            if e.name in files
        ]
        return self.overridden

    def _add_server(self, entry: McpServerEntry) -> None:
        self.config.servers.append(entry)
        connection = self._connections[entry.name] = self._connection(entry)
        self._notify_listeners()
        if not entry.enabled:
            return
        if self._loop is None:
            self.start()
        else:
            self._submit(self._connect_quietly(connection))

    def _remove_server(self, name: str) -> None:
        self.config.servers = [e for e in self.config.servers if e.name != name]
        connection = self._connections.pop(name)
        with self._lock:
            for info in self._infos.pop(name, []):
                self._tools.pop(info.name, None)
        self._tools_changed.set()
        self._notify_listeners()
        if self._loop is not None:
            self._submit(connection.close())
        if self.on_tools_changed is not None:
            self.on_tools_changed()

    @property
    def auth_store(self) -> McpAuthStore | None:
        """Where sign-ins are kept (``None``: the run keeps none)."""
        return self._auth_store

    def uses_oauth(self, name: str) -> bool:
        """Whether a server signs in with OAuth (``/mcp login|logout`` act only on such servers)."""
        from pi_coding_agent.core.mcp.oauth import uses_oauth

        entry = next((e for e in self.config.servers if e.name == name), None)
        return entry is not None and uses_oauth(entry)
