"""``/mcp``'s fixed texts, light to import: a run without ``mcp.json`` answers ``/mcp`` with them
without loading the MCP modules."""

from __future__ import annotations

import os

MCP_COMMAND = ("mcp", "Manage MCP servers: reconnect, turn on or off, change exposure")
MCP_SOURCE = {"path": "builtin:mcp", "source": "builtin", "scope": "temporary", "origin": "top-level"}
"""Where Pi 1.6 says ``/mcp`` comes from (RPC ``get_commands``'s ``sourceInfo``)."""
USAGE = "Usage: /mcp, /mcp login [server], /mcp logout [server], /mcp reconnect [server]"
NO_OAUTH = "None of the enabled MCP servers signs in with OAuth; only HTTP servers without an Authorization header can."
NO_RECONNECT = "There is no enabled MCP server to reconnect."


def no_servers(agent_dir: str | os.PathLike[str]) -> str:
    path = os.path.join(os.path.abspath(agent_dir), "mcp.json")
    return f"No MCP servers are configured: add them to {path} or .pi/mcp.json."


def no_server_named(name: str) -> str:
    return f'There is no MCP server named "{name}".'

