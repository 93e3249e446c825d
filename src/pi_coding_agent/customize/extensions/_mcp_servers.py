"""MCP servers extensions register (``pi.register_mcp_server``), as Pi 1.6 keeps them.

The registry only checks and stores registrations; whatever connects MCP servers (the built-in
MCP support, wired by the CLI, or an extension handling ``mcp_servers_change``) reads them with
``list()`` and follows changes. Registrations live for the run only: nothing is saved.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pi_coding_agent.customize.extensions._events import Event


@dataclass
class RegisteredMcpServer:
    """One registration: the server's name, its checked ``mcpServers``-shaped config, and the
    extension that made it (TypeScript handlers see ``extensionPath``)."""

    name: str
    config: dict[str, Any]
    extension_path: str


@dataclass
class McpServersChangeEvent(Event):
    """After a registration changed once extensions are bound: every registered server."""

    servers: list[RegisteredMcpServer] = field(default_factory=list)


class McpServerRegistryError(ValueError):
    """A registration refused: invalid name or config, or a name another extension owns."""


class McpServerRegistry:
    def __init__(self) -> None:
        self._servers: dict[str, RegisteredMcpServer] = {}
        self._listeners: list[Callable[[], None]] = []

    def register(self, extension_path: str, name: str, config: Any) -> None:
        """Add or replace (same extension) a server; ``McpServerRegistryError`` when refused,
        with Pi 1.6's reasons."""
        from pi_coding_agent.core.mcp.config import mcp_namespace, validate_server

        checked = validate_server(name, config)
        if isinstance(checked, str):
            raise McpServerRegistryError(
                f'Invalid MCP server registered by extension "{extension_path}": {checked}'
            )
        owner = self._servers.get(name)
        if owner is not None and owner.extension_path != extension_path:
            raise McpServerRegistryError(
                f'MCP server "{name}" is already registered by extension "{owner.extension_path}"'
            )
        clash = next(
            (
                s
                for s in self._servers.values()
                if s.name != name and mcp_namespace(s.name) == mcp_namespace(name)
            ),
            None,
        )
        if clash is not None:
            raise McpServerRegistryError(
                f'MCP server "{name}" conflicts with registered server "{clash.name}"'
            )
        self._servers[name] = RegisteredMcpServer(name, copy.deepcopy(checked), extension_path)
        self._changed()

    def unregister(self, extension_path: str, name: str) -> None:
        """Remove a server this extension registered; other extensions' servers stay."""
        server = self._servers.get(name)
        if server is None or server.extension_path != extension_path:
            return
        del self._servers[name]
        self._changed()

    def replace_owned(self, extension_paths: set[str], servers: list[RegisteredMcpServer]) -> None:
        """Make the servers of these extensions exactly ``servers`` (the TypeScript host checks
        and keeps its extensions' registrations; this mirrors them)."""
        kept = {n: s for n, s in self._servers.items() if s.extension_path not in extension_paths}
        wanted = {s.name: s for s in servers if s.name not in kept}
        current = {n: s for n, s in self._servers.items() if s.extension_path in extension_paths}
        if wanted == current:
            return
        self._servers = {**kept, **wanted}
        self._changed()

    def list(self) -> list[RegisteredMcpServer]:
        """Copies of the registrations, in registration order."""
        return [
            RegisteredMcpServer(s.name, copy.deepcopy(s.config), s.extension_path)
            for s in self._servers.values()
        ]

    def add_listener(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` after every change; returns the function that stops it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener()
