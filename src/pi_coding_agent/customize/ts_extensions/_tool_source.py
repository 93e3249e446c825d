"""A tool's ``sourceInfo`` as Pi 1.6's ``getAllTools()`` reports it to TypeScript extensions."""

from __future__ import annotations

from typing import Any

from pi_agent import AgentTool


def source_info(tool: AgentTool) -> dict[str, Any]:
    """Built-in tools and the tools of Pi's own extensions (MCP, codemode, ``tool_search``) come
    from a ``builtin:`` path; an extension's tools from its file. Pi's ``baseDir`` is left out
    (Pi leaves it undefined for built-in paths, which JSON drops)."""
    own = getattr(tool, "source_path", None)
    extension = getattr(tool, "extension_path", None)
    if isinstance(own, str):
        path, source = own, "builtin"
    elif isinstance(extension, str) and extension:
        path, source = extension, "extension"
    else:
        path, source = f"builtin:{tool.name}", "builtin"
    return {"path": path, "source": source, "scope": "temporary", "origin": "top-level"}
