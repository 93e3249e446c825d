"""``tool_search``: ranks the tools that are callable but not declared (MCP ``codemode`` and
``deferred`` tools) and activates the matches, so the next model call declares them. The
activation is a change of the active tools like any other, recorded in the transcript at the
next turn, so the loaded tools stay declared on that branch (and after resuming it)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pi_agent import AgentTool, AgentToolResult, ToolUpdateCallback
from pi_ai import AbortSignal, TextContent
from pi_coding_agent.core.tool_search._rank import SearchDocument, rank

TOOL_SEARCH_NAME = "tool_search"
DEFAULT_LIMIT = 8


@dataclass(frozen=True)
class Candidate:
    """A tool ``tool_search`` may load, with the namespace (MCP server) it belongs to."""

    name: str
    description: str
    parameters: dict[str, Any]
    namespace: str = ""
    """The namespace's name, description and instructions, one text."""


@dataclass(frozen=True)
class ToolSearchHost:
    """What the tool needs from its session."""

    candidates: Callable[[], Sequence[Candidate]]
    """Searchable tools that are not active (declared) now."""
    activate: Callable[[Sequence[str]], None]
    """Add these tools to the active ones (declared from the next model call on)."""
    wait_for_servers: Callable[[], Any] | None = None
    """An awaitable factory: wait until no MCP server is still connecting (a search may match
    any server's tools)."""


def _resolve(reference: str, root: dict[str, Any]) -> Any:
    if not reference.startswith("#"):
        return None
    target: Any = root
    for part in (p for p in reference[1:].split("/") if p):
        key = part.replace("~1", "/").replace("~0", "~")
        target = target.get(key) if isinstance(target, dict) else None
    return target


def _schema_text(schema: Any, root: dict[str, Any], parts: list[str], seen: list[Any]) -> None:
    """Descriptions and property names of a schema, local ``$ref``s followed once each."""
    if not isinstance(schema, dict):
        return
    reference = schema.get("$ref")
    if isinstance(reference, str):
        target = _resolve(reference, root)
        if isinstance(target, dict) and not any(target is s for s in seen):
            seen.append(target)
            _schema_text(target, root, parts, seen)
    if isinstance(schema.get("description"), str):
        parts.append(schema["description"])
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for name, sub in properties.items():
            parts.append(str(name))
            _schema_text(sub, root, parts, seen)
    _schema_text(schema.get("items"), root, parts, seen)
    for key in ("anyOf", "oneOf", "allOf"):
        for variant in schema.get(key) or () if isinstance(schema.get(key), list) else ():
            _schema_text(variant, root, parts, seen)


def search_document(candidate: Candidate) -> SearchDocument:
    parts = [candidate.description]
    _schema_text(candidate.parameters, candidate.parameters, parts, [candidate.parameters])
    return SearchDocument(
        candidate.name, " ".join(part for part in parts if part.strip()), candidate.namespace
    )


_DESCRIPTION = """Find tools that are not in your tool list yet and add the best matches to it.

Tools of MCP servers are often left out of your tool list until you ask for them. Describe the \
capability you need in `query` (words or a tool name); the matching tools are ranked with BM25 \
over their names and descriptions, and become callable from your next call on. Use this tool \
whenever you need an MCP tool you do not see."""


class ToolSearchTool(AgentTool):
    source_path = "builtin:tool-search"
    """Where Pi 1.6 says the tool comes from (``getAllTools()``'s ``sourceInfo.path``)."""
    """Registered inactive; turned on for servers with ``deferred`` tools (or by name)."""

    def __init__(self, host: ToolSearchHost) -> None:
        self.name = TOOL_SEARCH_NAME
        self.label = TOOL_SEARCH_NAME
        self.exposure = "model-only"
        """Declared to the model, never called by other tools (codemode scripts), as in Pi 1.6."""
        self.reaches_tools: Callable[[dict[str, Any]], str] = lambda _params: "all"
        """Any tool not declared yet may match a query (Pi 1.6's ``reachesTools``)."""
        self.description = _DESCRIPTION
        self.prompt_snippet = "Find tools not declared yet and add the matches to your tools"
        self.parameters = {
            "type": "object",
            "required": ["query"],
            "properties": {
                "query": {"type": "string", "description": "What the tool you need does, or its name."},
                "limit": {
                    "type": "number",
                    "description": f"How many tools to add at most (default {DEFAULT_LIMIT}).",
                },
            },
        }
        self._host = host

    async def execute(
        self,
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
    ) -> AgentToolResult[Any]:
        query = str(params.get("query") or "")
        if not query.strip():
            raise ValueError("query is empty: say what the tool should do")
        limit = params.get("limit", DEFAULT_LIMIT)
        if (
            isinstance(limit, bool)
            or not isinstance(limit, (int, float))
            or limit != int(limit)
            or limit <= 0
        ):
            raise ValueError("limit must be a whole number above 0")
        if self._host.wait_for_servers is not None:
            await self._host.wait_for_servers()
        candidates = {candidate.name: candidate for candidate in self._host.candidates()}
        found = rank(query, [search_document(c) for c in candidates.values()], int(limit))
        if found:
            self._host.activate(found)
        return AgentToolResult(
            content=[TextContent(text=_report(found, candidates))], details={"loaded": found}
        )


def _report(found: list[str], candidates: dict[str, Candidate]) -> str:
    if not found:
        return "No tool matches that query."
    lines = [f"- {name}: {_first_line(candidates[name].description)}" for name in found]
    noun = "tool" if len(found) == 1 else "tools"
    return f"Added {len(found)} {noun}; call them from your next message on:\n" + "\n".join(lines)


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""
