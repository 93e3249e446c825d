"""An MCP server tool as an agent tool: declared as Pi 1.6 declares it (the server's description,
else its title, else a line naming tool and server; its input schema as an object schema), and
executed on the manager's connection."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from pi_agent import AgentTool, AgentToolResult, ToolUpdateCallback
from pi_ai import AbortSignal, TextContent


class ToolCaller(Protocol):
    """What runs the calls (the manager)."""

    async def call_tool(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any],
        on_progress: Callable[[float, float | None, str | None], None] | None = None,
        signal: AbortSignal | None = None,
    ) -> AgentToolResult[Any]: ...


ANNOTATION_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


@dataclass(frozen=True)
class McpToolInfo:
    """One tool a server offers, with the name and exposure it has in this run (the seam for
    codemode and tool_search: ``McpManager.indirect_tools()`` lists these)."""

    name: str
    """``mcp__<server>__<tool>``."""
    server: str
    tool: str
    """The server's own name for it."""
    exposure: str
    description: str
    parameters: dict[str, Any]
    annotations: dict[str, bool] = field(default_factory=dict)
    output_schema: dict[str, Any] | None = None


_CONTENT_BLOCK = {
    "type": "object",
    "properties": {
        "type": {"enum": ["text", "image", "audio", "resource_link", "resource"]},
        "text": {"type": "string"},
        "data": {"type": "string"},
        "mimeType": {"type": "string"},
    },
    "required": ["type"],
    "additionalProperties": True,
}
_DATA_KEYWORDS = frozenset(("const", "enum", "default", "examples"))
_MAP_KEYWORDS = frozenset(
    ("properties", "patternProperties", "dependentSchemas", "dependencies", "$defs", "definitions")
)


def _relocate(schema: Any, pointer: str) -> Any:
    """``schema`` moved below ``pointer``: its local ``$ref``s (``#``, ``#/$defs/x``) follow it."""
    if isinstance(schema, list):
        return [_relocate(item, pointer) for item in schema]
    if not isinstance(schema, dict):
        return schema
    moved: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "$ref" and isinstance(value, str) and (value == "#" or value.startswith("#/")):
            moved[key] = pointer + value[1:]
        elif key in _DATA_KEYWORDS:
            moved[key] = value
        elif key in _MAP_KEYWORDS and isinstance(value, dict):
            moved[key] = {name: _relocate(sub, pointer) for name, sub in value.items()}
        else:
            moved[key] = _relocate(value, pointer)
    return moved


def result_schema(structured: dict[str, Any] | None) -> dict[str, Any]:
    """The output schema of every MCP tool (Pi 1.6's): a ``CallToolResult`` whose
    ``structuredContent`` is the tool's own output schema, when it has one."""
    return {
        "type": "object",
        "properties": {
            "content": {"type": "array", "items": _CONTENT_BLOCK},
            "structuredContent": _relocate(structured, "#/properties/structuredContent")
            if structured
            else {},
            "isError": {"type": "boolean"},
        },
        "required": ["content"],
        "additionalProperties": True,
    }


def normalize_schema(schema: dict[str, Any] | None) -> dict[str, Any]:
    """An object schema with ``properties``, other keywords kept (providers need both)."""
    schema = dict(schema or {})
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    return schema


def describe(server: str, tool: dict[str, Any]) -> str:
    title = tool.get("title") or (tool.get("annotations") or {}).get("title")
    return str(
        (tool.get("description") or "").strip() or title or f"MCP tool {tool['name']} from server {server}"
    )


def tool_info(server: str, tool: dict[str, Any], name: str, exposure: str) -> McpToolInfo:
    raw = tool.get("annotations") or {}
    hints = {hint: raw[hint] for hint in ANNOTATION_HINTS if isinstance(raw.get(hint), bool)}
    return McpToolInfo(
        name=name, server=server, tool=str(tool["name"]), exposure=exposure, description=describe(server, tool),
        parameters=normalize_schema(tool.get("inputSchema")), annotations=hints, output_schema=tool.get("outputSchema"),
    )  # fmt: skip


def listed_exposure(exposure: str) -> str:
    """An MCP exposure as a tool exposure, as Pi 1.6 registers MCP tools: ``codemode`` and
    ``deferred`` differ only in which tool reaches them, so both are ``deferred`` tools."""
    return "deferred" if exposure == "codemode" else exposure


class McpTool(AgentTool):
    """An MCP tool on the session's tool list."""

    source_path = "builtin:mcp"
    """Where Pi 1.6 says the tool comes from (``getAllTools()``'s ``sourceInfo.path``)."""

    def __init__(self, info: McpToolInfo, manager: ToolCaller) -> None:
        self.info = info
        self.name = info.name
        self.label = f"{info.server}/{info.tool}"
        self.description = info.description
        self.parameters = info.parameters
        self.annotations = info.annotations
        """``readOnlyHint`` and friends, for permission extensions."""
        self.output_schema = result_schema(info.output_schema)
        """Scripts get the whole ``CallToolResult`` (``content``, ``structuredContent``, ``isError``)."""
        self._manager = manager

    @property
    def listed_exposure(self) -> str:
        """What ``get_all_tools()`` reports: the configured exposure, ``codemode`` as
        ``deferred`` (Pi 1.6's tool registry knows no MCP ``codemode``)."""
        return listed_exposure(self.info.exposure)

    async def execute(
        self,
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
    ) -> AgentToolResult[Any]:
        server, tool = self.info.server, self.info.tool

        def progress(done: float, total: float | None, message: str | None) -> None:
            if on_update is None:
                return
            text = message or f"Progress {_number(done)}{'' if total is None else '/' + _number(total)}"
            on_update(
                AgentToolResult(content=[TextContent(text=text)], details={"server": server, "tool": tool})
            )

        return await self._manager.call_tool(server, tool, params or {}, progress, signal)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)
