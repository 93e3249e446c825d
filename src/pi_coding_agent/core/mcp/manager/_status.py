"""What ``/mcp`` says about servers: a state in a few words, the order servers are listed in,
the plain status text of print/RPC mode, and saving an enable/exposure change to the right file.

The formats are Pi 1.6's (``<name>: <state>, <n> tools (<exposure>)``, ``connected · 3 tools ·
resources``, ``global, project override``); the sentences are ours.
"""

from __future__ import annotations

import dataclasses
import os
from typing import TYPE_CHECKING, Any

from pi_coding_agent.core.mcp.config import (
    DEFAULT_EXPOSURE,
    McpConfigEditError,
    McpServerEntry,
    update_server_config,
)
from pi_coding_agent.core.mcp.texts import no_servers

if TYPE_CHECKING:
    from pi_coding_agent.core.mcp.client import McpConnection
    from pi_coding_agent.core.mcp.manager._manager import McpManager

EXPOSURE_TEXT = {
    "codemode": "reached from codemode scripts, found with searchTools()",
    "deferred": "declared once tool_search finds them, then called directly",
    "direct": "declared to the model with the built-in tools",
}
"""The exposures ``/mcp`` offers, each with what it means (``hidden`` is only set in files)."""
_RANKS = {"needs-auth": 0, "failed": 1, "disconnected": 2, "connected": 4}


def exposure_of(entry: McpServerEntry) -> str:
    return str(entry.config.get("exposure") or DEFAULT_EXPOSURE)


def _count(n: int) -> str:
    return f"{n} tool{'' if n == 1 else 's'}"


def describe_state(connection: McpConnection, with_error: bool = True) -> str:
    """``disabled``, ``connecting…``, ``connected · 3 tools · resources``, ``failed: <first
    line>`` (``with_error``), ``needs sign-in``, ``disconnected``."""
    state = connection.state
    if not connection.entry.enabled or state == "disabled":
        return "disabled"
    if state == "connected":
        return (
            f"connected · {_count(len(connection.tools))}{' · resources' if connection.has_resources else ''}"
        )
    if state == "needs-auth":
        return "needs sign-in"
    if state == "failed":
        first = (connection.error or "unknown error").split("\n", 1)[0]
        return f"failed: {first}" if with_error else "failed"
    return "connecting…" if state == "connecting" else state


def attention_rank(connection: McpConnection) -> int:
    """Servers that need the user come first: failed, disconnected, connecting, connected,
    then disabled ones."""
    if not connection.entry.enabled:
        return 5
    return _RANKS.get(connection.state, 3)


def listed(manager: McpManager) -> list[McpConnection]:
    """The servers in ``/mcp``'s order: by attention, then by name."""
    found = [c for e in manager.config.servers if (c := manager.connection(e.name)) is not None]
    return sorted(found, key=lambda c: (attention_rank(c), c.name.casefold(), c.name))


def source_label(entry: McpServerEntry) -> str:
    return "global, project override" if entry.override else entry.scope


def transport(entry: McpServerEntry) -> str:
    """The URL, or the command line of a stdio server."""
    config = entry.config
    if "url" in config:
        return str(config["url"])
    return " ".join([str(config.get("command", "")), *(str(a) for a in config.get("args") or [])])


def status_text(manager: McpManager, agent_dir: str | os.PathLike[str]) -> str:
    """``/mcp`` outside the terminal UI: a line per server in configuration order (its error's
    lines indented under it), then the configuration errors."""
    servers = [c for e in manager.config.servers if (c := manager.connection(e.name)) is not None]
    if not servers and not manager.config.errors and not manager.overridden:
        return no_servers(agent_dir)
    lines: list[str] = []
    for c in servers:
        exposure = exposure_of(c.entry)
        if c.state == "needs-auth" and c.entry.enabled:
            lines.append(f"{c.name}: needs sign-in, run /mcp login {c.name} ({exposure})")
            continue
        tools = f", {len(c.tools)} tools" if c.state == "connected" else ""
        state = "disabled" if not c.entry.enabled else (
            "disconnected, reconnects on next call" if c.state == "disconnected" else c.state)  # fmt: skip
        error = c.error if c.error and c.state != "connected" and c.entry.enabled else None
        lines.append(f"{c.name}: {state}{tools} ({exposure})")
        lines += [f"    {line}" for line in (error or "").split("\n") if error]
    lines += [f"config error: {error}" for error in manager.config.errors]
    lines += [f"overridden: {line}" for line in manager.overridden]
    return "\n".join(lines)


def save_change(
    entry: McpServerEntry, patch: dict[str, Any], project_config: str | None = None
) -> McpServerEntry | str:
    """Write ``patch`` (``enabled``/``exposure``) where the server is defined, or to its
    project override; ``project_config``: add an override there (a global server turned on or
    off "in this project"). The changed entry, or the one-line reason it could not be saved."""
    if entry.scope == "extension":  # registered by an extension: for this run only (Pi 1.6)
        return dataclasses.replace(entry, config={**entry.config, **patch})
    override = project_config or entry.override
    path = override or entry.source
    try:
        update_server_config(path, entry.name, patch, override=override is not None)
    except (McpConfigEditError, OSError) as error:
        return f"Could not save {path}: {error}"
    return dataclasses.replace(entry, config={**entry.config, **patch}, override=override)
