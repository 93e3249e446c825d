"""The resource tools Pi 1.6 adds for servers that offer resources (the names Codex and opencode
use): ``list_mcp_resources``, ``list_mcp_resource_templates`` and ``read_mcp_resource``.

Listings are compact JSON: ``{server?, resources: [{server, ...}], nextCursor?}`` (``errors`` when
some server could not be listed); with ``server`` one page of that server, else every page of
every server, sorted by name. MCP App resources (``ui://`` URIs, ``profile=mcp-app`` HTML), icons
and ``_meta`` are left out. Reads come back as text and images (binary contents saved to files).
The tool descriptions are ours; names, parameters and payloads are Pi 1.6's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

from pi_agent import AgentTool, AgentToolResult, ToolUpdateCallback
from pi_ai import AbortSignal, ImageContent, TextContent
from pi_coding_agent.core.mcp.client import limit_content, resource_content

LIST_RESOURCES = "list_mcp_resources"
LIST_TEMPLATES = "list_mcp_resource_templates"
READ_RESOURCE = "read_mcp_resource"
RESOURCE_TOOL_NAMES = (LIST_RESOURCES, LIST_TEMPLATES, READ_RESOURCE)
_APP_PROFILE = re.compile(r';\s*profile\s*=\s*"?mcp-app"?', re.IGNORECASE)

_SERVER = {
    "type": "string",
    "description": "Name of the MCP server; leave it out to cover every server with resources.",
}
_CURSOR = {
    "type": "string",
    "description": "The nextCursor of an earlier page of the same server; leave it out for the first page.",
}
LIST_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {"server": _SERVER, "cursor": _CURSOR},
    "additionalProperties": False,
}
READ_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "server": {
            "type": "string",
            "description": "The server field of the resource, as list_mcp_resources gave it.",
        },
        "uri": {"type": "string", "description": "The resource's URI, as list_mcp_resources gave it."},
    },
    "required": ["server", "uri"],
    "additionalProperties": False,
}
DESCRIPTIONS = {
    LIST_RESOURCES: (
        "List the resources MCP servers share: files, schemas, records and other context the servers "
        "make readable. Check them before searching the web."
    ),
    LIST_TEMPLATES: (
        "List the resource templates MCP servers share: URI patterns with parameters that name "
        "resources the servers do not list one by one."
    ),
    READ_RESOURCE: "Read one resource of an MCP server, named by the server and the resource URI.",
}

Request = Callable[[str, str, dict[str, Any]], Awaitable[dict[str, Any]]]
"""``(server, method, params)`` to the wire JSON of the answer, run on the servers' loop."""


def _is_app(item: dict[str, Any]) -> bool:
    uri = str(item.get("uri") or item.get("uriTemplate") or "")
    return uri.startswith("ui://") or bool(_APP_PROFILE.search(str(item.get("mimeType") or "")))


def _listed(server: str, item: dict[str, Any]) -> dict[str, Any]:
    rest = {key: value for key, value in item.items() if key not in ("_meta", "icons")}
    rest.setdefault("name", item.get("uri") or item.get("uriTemplate"))
    return {"server": server, **rest}


def _argument(params: dict[str, Any], key: str) -> str | None:
    value = params.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"{key} must be a string")
    return value.strip() or None


def _json_result(tool: str, server: str | None, payload: dict[str, Any]) -> AgentToolResult[Any]:
    text = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    content, full_path = limit_content([TextContent(text=text)])
    details: dict[str, Any] = {"server": server or "", "tool": tool}
    if full_path:
        details["fullOutputPath"] = full_path
    return AgentToolResult(content=content, details=details)


class ResourceTool(AgentTool):
    """One of the three resource tools; ``servers()`` names the servers it reaches at call time."""

    source_path = "builtin:mcp"
    """Where Pi 1.6 says the tool comes from (``getAllTools()``'s ``sourceInfo.path``)."""

    def __init__(
        self,
        name: str,
        servers: Callable[[], list[str]],
        request: Request,
        settle: Callable[[], Awaitable[None]] | None = None,
        exposure: Callable[[], str] | None = None,
    ) -> None:
        self.name = self.label = name
        self._exposure = exposure
        """The exposure of the servers it reaches (``get_all_tools()`` reports it)."""
        self._settle = settle
        """Awaited first: every server that is still connecting (any may have resources)."""
        self.description = DESCRIPTIONS[name]
        self.parameters = READ_PARAMETERS if name == READ_RESOURCE else LIST_PARAMETERS
        self.annotations = {"readOnlyHint": True}
        self._servers = servers
        self._request = request

    @property
    def listed_exposure(self) -> str:
        """What ``get_all_tools()`` reports (``codemode`` as ``deferred``, as for server tools)."""
        exposure = self._exposure() if self._exposure is not None else "direct"
        return "deferred" if exposure == "codemode" else exposure

    def _server(self, name: str) -> str:
        servers = self._servers()
        if name in servers:
            return name
        known = f" (servers with resources: {', '.join(servers)})" if servers else ""
        raise ValueError(f'MCP server "{name}" offers no resources{known}')

    async def execute(
        self,
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
    ) -> AgentToolResult[Any]:
        params = params or {}
        if self._settle is not None:
            await self._settle()
        if self.name == READ_RESOURCE:
            return await self._read(params)
        key, method = (
            ("resources", "resources/list")
            if self.name == LIST_RESOURCES
            else ("resourceTemplates", "resources/templates/list")
        )
        return _json_result(self.name, _argument(params, "server"), await self._list(params, key, method))

    async def _list(self, params: dict[str, Any], key: str, method: str) -> dict[str, Any]:
        server, cursor = _argument(params, "server"), _argument(params, "cursor")
        if server is not None:
            name = self._server(server)
            page = await self._request(name, method, {"cursor": cursor} if cursor else {})
            items = [_listed(name, item) for item in page.get(key) or [] if not _is_app(item)]
            more = page.get("nextCursor")
            return {"server": name, key: items, **({"nextCursor": more} if more not in (None, "") else {})}
        if cursor is not None:
            raise ValueError("cursor needs a server: pages continue one server's listing")
        collected: list[dict[str, Any]] = []
        errors: list[dict[str, str]] = []
        for name in sorted(self._servers(), key=lambda n: (n.lower(), n)):
            try:
                collected += [
                    _listed(name, item) for item in await self._all(name, key, method) if not _is_app(item)
                ]
            except Exception as error:
                errors.append({"server": name, "error": str(error) or type(error).__name__})
        return {key: collected, **({"errors": errors} if errors else {})}

    async def _all(self, server: str, key: str, method: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        cursor: str | None = None
        seen: set[str] = set()
        while True:
            page = await self._request(server, method, {"cursor": cursor} if cursor else {})
            items += page.get(key) or []
            cursor = page.get("nextCursor") or None
            if cursor is None or cursor in seen:
                return items
            seen.add(cursor)

    async def _read(self, params: dict[str, Any]) -> AgentToolResult[Any]:
        server, uri = _argument(params, "server"), _argument(params, "uri")
        if server is None:
            raise ValueError("server is required")
        if uri is None:
            raise ValueError("uri is required")
        name = self._server(server)
        result = await self._request(name, "resources/read", {"uri": uri})
        contents = result.get("contents") or []
        blocks: list[TextContent | ImageContent] = []
        for item in contents:
            if len(contents) > 1:
                blocks.append(TextContent(text=f"{item.get('uri')}:"))
            blocks.append(resource_content(item))
        content, full_path = limit_content(blocks or [TextContent(text=f"Resource {uri} is empty.")])
        details: dict[str, Any] = {"server": name, "tool": READ_RESOURCE}
        if full_path:
            details["fullOutputPath"] = full_path
        return AgentToolResult(content=content, details=details)


def widest_exposure(exposures: set[str]) -> str:
    """The resource tools' exposure: the widest of the servers they reach (``hidden``: none)."""
    return next((value for value in ("direct", "codemode", "deferred") if value in exposures), "hidden")


def resource_tools(
    servers: Callable[[], list[str]],
    request: Request,
    settle: Callable[[], Awaitable[None]] | None = None,
    exposure: Callable[[], str] | None = None,
) -> list[AgentTool]:
    return [ResourceTool(name, servers, request, settle, exposure) for name in RESOURCE_TOOL_NAMES]
