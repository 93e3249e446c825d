"""An extension's ``ToolDefinition`` as an agent tool."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pi_agent import AgentTool, AgentToolResult, ToolFailure, ToolUpdateCallback
from pi_ai import AbortSignal, DecodeError, ImageContent, TextContent, Usage, convert
from pi_coding_agent.customize.extensions._runner import call_handler
from pi_coding_agent.customize.extensions._types import ToolDefinition

if TYPE_CHECKING:
    from pi_coding_agent.customize.extensions._runner import ExtensionRunner


def _blocks(value: Any) -> list[TextContent | ImageContent]:
    if value is None:
        return []
    if isinstance(value, str):
        return [TextContent(text=value)]
    blocks: list[TextContent | ImageContent] = []
    for block in value:
        if isinstance(block, TextContent | ImageContent):
            blocks.append(block)
        elif isinstance(block, dict) and block.get("type") == "image":
            blocks.append(ImageContent(data=str(block.get("data", "")), mime_type=str(block.get("mimeType", ""))))
        elif isinstance(block, dict):
            blocks.append(TextContent(text=str(block.get("text", ""))))
        else:
            blocks.append(TextContent(text=str(block)))
    return blocks


def to_tool_result(value: Any) -> AgentToolResult[Any]:
    """What ``execute`` returned, as a result: a dict with ``content``/``details``/``terminate``,
    a string, a list of blocks, or an ``AgentToolResult``."""
    if isinstance(value, AgentToolResult):
        return value
    if isinstance(value, dict):
        structured = value.get("structuredContent", value.get("structured_content"))
        return AgentToolResult(
            content=_blocks(value.get("content")),
            details=value.get("details"),
            usage=_usage(value.get("usage")),
            structured_content=structured,
            terminate=value.get("terminate"),
        )
    return AgentToolResult(content=_blocks(value))


def _usage(value: Any) -> Usage | None:
    """A result's own model usage: a ``Usage``, or its JSON shape (``{input, output, cacheRead,
    ...}``, what a TypeScript tool such as pi-subagents' returns) read as one; anything else is
    none. The footer's and ``/session``'s token totals count it, as Pi 1.6's do."""
    if isinstance(value, Usage) or value is None:
        return value
    if not isinstance(value, dict):
        return None
    try:
        return convert(value, Usage)
    except (DecodeError, TypeError, ValueError):
        return None


def _returned_error(value: Any) -> bool:
    """Pi 1.6: a returned result with ``isError: true`` is a failure that keeps its data."""
    return isinstance(value, dict) and (value.get("isError") is True or value.get("is_error") is True)


class ExtensionTool(AgentTool):
    def __init__(self, definition: ToolDefinition, extension_path: str, runner: ExtensionRunner) -> None:
        self.definition = definition
        self.extension_path = extension_path
        self._runner = runner
        self.name = definition.name
        self.label = definition.label or definition.name
        self.description = definition.description
        self.parameters = definition.parameters
        self.execution_mode = definition.execution_mode
        self.prompt_snippet = definition.prompt_snippet
        self.prompt_guidelines = list(definition.prompt_guidelines)
        self.exposure = definition.exposure
        self.output_schema = definition.output_schema
        self.namespace = definition.namespace
        self.annotations = definition.annotations
        self.reaches_tools = definition.reaches_tools
        self.loadout_hook = definition.prepare_loadout

    def prepare_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        prepare = self.definition.prepare_arguments
        return prepare(arguments) if prepare is not None else arguments

    async def execute(
        self,
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
    ) -> AgentToolResult[Any]:
        def update(partial: Any) -> None:
            if on_update is not None:
                on_update(to_tool_result(partial))

        value = await call_handler(self.definition.execute, tool_call_id, params, signal, update, self._runner.context())
        result = to_tool_result(value)
        if _returned_error(value):
            text = "\n".join(block.text for block in result.content if isinstance(block, TextContent))
            raise ToolFailure(
                text, content=result.content, details=result.details, structured_content=result.structured_content
            )
        return result
