"""Changing ``mcp.json`` the way Pi 1.6 does (``pi mcp add``/``remove``, ``/mcp``'s enable,
disable and exposure): only ``mcpServers`` is touched, the rest of the file is kept, and the
file is written back with the indentation it had (two spaces when new).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from typing import Any

from pi_coding_agent.core.mcp.config._validate import DEFAULT_EXPOSURE, is_override

_INDENT = re.compile(r"^([ \t]+)\S", re.MULTILINE)


class McpConfigEditError(Exception):
    """The file cannot be changed (unreadable, not JSON, not the ``mcpServers`` shape)."""


def _edit(path: str, edit: Callable[[dict[str, Any] | None, dict[str, Any]], bool]) -> None:
    text: str | None = None
    if os.path.exists(path):
        try:
            with open(path, encoding="utf-8-sig") as file:
                text = file.read()
        except OSError as error:
            raise McpConfigEditError(str(error)) from None
    try:
        parsed = {} if text is None else json.loads(text)
    except json.JSONDecodeError as error:
        raise McpConfigEditError(
            f"invalid JSON at line {error.lineno} column {error.colno}: {error.msg}"
        ) from None
    if not isinstance(parsed, dict) or (
        "mcpServers" in parsed and not isinstance(parsed["mcpServers"], dict)
    ):
        raise McpConfigEditError(f'{path}: expected an object with an "mcpServers" object')
    servers = parsed.get("mcpServers") if isinstance(parsed.get("mcpServers"), dict) else None
    if not edit(servers, parsed):
        return
    found = _INDENT.search(text) if text else None
    indent = found.group(1) if found else "  "
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8") as file:
        file.write(json.dumps(parsed, indent=indent, ensure_ascii=False) + "\n")


def add_server_config(path: str, name: str, config: dict[str, Any]) -> bool:
    """Add (or replace) a server, creating the file when missing; whether one was replaced."""
    replaced = False

    def edit(servers: dict[str, Any] | None, parsed: dict[str, Any]) -> bool:
        nonlocal replaced
        target = servers if servers is not None else {}
        replaced = name in target
        target[name] = config
        parsed["mcpServers"] = target
        return True

    _edit(path, edit)
    return replaced


def remove_server_config(path: str, name: str) -> bool:
    """Remove a server; ``False`` when the file does not define it."""
    if not os.path.exists(path):
        return False
    removed = False

    def edit(servers: dict[str, Any] | None, _parsed: dict[str, Any]) -> bool:
        nonlocal removed
        if servers is None or name not in servers:
            return False
        del servers[name]
        removed = True
        return True

    _edit(path, edit)
    return removed


def update_server_config(path: str, name: str, patch: dict[str, Any], *, override: bool = False) -> None:
    """Set ``enabled`` and/or ``exposure`` of one server, as ``/mcp`` saves them (Pi 1.6's rule):
    in a full entry the default value (``enabled: true``, ``exposure: codemode``) is written by
    leaving the key out; an override entry (no ``command``/``url``/``type``) keeps it written so
    it still overrides. ``override``: add an empty override entry when the file lacks the server
    (a project's "Enable/Disable in this project"). ``McpConfigEditError`` when it cannot."""

    def edit(servers: dict[str, Any] | None, parsed: dict[str, Any]) -> bool:
        server = servers.get(name) if servers is not None else None
        if server is None and override:
            server = {}
            parsed["mcpServers"] = {**(servers or {}), name: server}
        if not isinstance(server, dict):
            raise McpConfigEditError(f'{path} does not define MCP server "{name}"')
        keep_defaults = is_override(server)
        for key, default in (("enabled", True), ("exposure", DEFAULT_EXPOSURE)):
            if key not in patch:
                continue
            if patch[key] == default and not keep_defaults:
                server.pop(key, None)
            else:
                server[key] = patch[key]
        return True

    _edit(path, edit)
