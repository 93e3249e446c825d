"""The ``mcp_servers`` system prompt section: the enabled servers whose tools are not declared
(``codemode`` or ``deferred`` exposure), one line each: ``- mcp__<server> (<how>): <summary>``,
``<how>`` being ``codemode`` or ``tool_search`` and the summary the first line of the configured
``description``, else of the instructions the server sent. Pi 1.6's layout and limits (250
characters per summary, 4096 for the section, servers that do not fit counted in a last line);
the first line, which tells the model how to reach them, is in our words."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pi_coding_agent.core.mcp.config import McpServerEntry, mcp_namespace

SECTION_NAME = "mcp_servers"
MAX_SUMMARY_CHARS = 250
MAX_SECTION_CHARS = 4096


@dataclass(frozen=True)
class ListedServer:
    entry: McpServerEntry
    instructions: str | None


def configured_exposures(entry: McpServerEntry) -> set[str]:
    """The exposures a server's tools can have, known before it connects."""
    return {
        str(entry.config.get("exposure") or "codemode"),
        *(entry.config.get("toolExposure") or {}).values(),
    }


def summary(entry: McpServerEntry, instructions: str | None) -> str:
    text = str(entry.config.get("description") or "").strip() or (instructions or "").strip()
    return text.split("\n", 1)[0].strip()


def _intro(reaches: set[str]) -> str:
    text = "These MCP servers have tools you are not given directly."
    if "codemode" in reaches:
        text += " Tools of `codemode` servers are called from codemode scripts."
    if "tool_search" in reaches:
        text += " Tools of `tool_search` servers become available after `tool_search` finds them."
    return text


def _shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return "" if limit <= 1 else text[: limit - 1].rstrip() + "…"


def servers_section(servers: Sequence[ListedServer]) -> str | None:
    """The section's text (without its tags); ``None`` when no server is listed."""
    listed = sorted(
        (s for s in servers if s.entry.enabled and configured_exposures(s.entry) & {"codemode", "deferred"}),
        key=lambda s: (s.entry.name.casefold(), s.entry.name),
    )
    if not listed:
        return None
    reaches = ["codemode" if "codemode" in configured_exposures(s.entry) else "tool_search" for s in listed]
    intro = _intro(set(reaches))
    heads = [f"- {mcp_namespace(s.entry.name)} ({how})" for s, how in zip(listed, reaches, strict=True)]

    def omitted(count: int) -> list[str]:
        if count <= 0:
            return []
        return [f"- … {count} more server{'' if count == 1 else 's'}; find their tools with searchTools()"]

    def size(kept: int) -> int:
        return len("\n".join([intro, *heads[:kept], *omitted(len(listed) - kept)]))

    kept = len(listed)
    while kept > 0 and size(kept) > MAX_SECTION_CHARS:
        kept -= 1
    room = 0 if kept == 0 else min(MAX_SUMMARY_CHARS, (MAX_SECTION_CHARS - size(kept)) // kept - 2)
    lines = []
    for server, head in zip(listed[:kept], heads[:kept], strict=True):
        text = _shorten(summary(server.entry, server.instructions), room) if room > 0 else ""
        lines.append(f"{head}: {text}" if text else head)
    return "\n".join([intro, *lines, *omitted(len(listed) - kept)])
