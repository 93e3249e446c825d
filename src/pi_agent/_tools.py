"""Tools the agent can execute: ``AgentTool`` and what it returns, ``AgentToolResult``.

A tool is a pi-ai ``Tool`` (name, description, JSON Schema parameters) plus a UI label and an
``execute`` coroutine. ``execute`` receives the validated and coerced arguments and raises on
failure: the loop turns the exception into an ``is_error`` tool result, so tools never encode
errors in their content.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeAlias, TypeVar

from pi_ai import AbortSignal, ImageContent, TextContent, Tool, Usage

TDetails = TypeVar("TDetails")
ToolExecutionMode: TypeAlias = Literal["sequential", "parallel"]


@dataclass(kw_only=True)
class AgentToolResult(Generic[TDetails]):
    content: list[TextContent | ImageContent] = field(default_factory=list)
    details: TDetails | None = None
    """Application data kept in the tool-result message for UIs; never sent to the model."""
    usage: Usage | None = None
    """The tool's own model usage, if it made calls (not context accounting)."""
    structured_content: Any = None
    """For tools that declare ``output_schema``: the value programmatic callers (``codemode``
    scripts) receive instead of the text. Never sent to the model."""
    is_error: bool | None = None
    """``True`` when the tool reported its failure as a result that still carries data (a
    ``ToolFailure`` with content or structured content: a command's exit code, an MCP
    ``isError`` result). Pi 1.6 keeps ``isError: true`` on such a result in
    ``tool_execution_end``; a plain exception leaves it ``None``."""
    added_tool_names: list[str] | None = None
    terminate: bool | None = None
    """``True`` asks the loop to stop after this batch (honoured only if every result in the
    batch asks). ``None`` means the tool did not say, which is not the same as ``False`` for
    ``after_tool_call`` merging."""


ToolUpdateCallback = Callable[[AgentToolResult[Any]], None]


class ToolFailure(Exception):
    """Raised by ``execute`` to fail with this message as the error text, or with ``content``
    when given (several blocks, images), still handing programmatic callers a structured value
    (e.g. a command's exit code) and the UI its ``details``. ``usage``: the model calls the tool
    made before failing (a codemode script's), which the failed result still reports, as Pi 1.6's."""

    def __init__(
        self,
        message: str,
        *,
        structured_content: Any = None,
        content: list[TextContent | ImageContent] | None = None,
        details: Any = None,
        usage: Usage | None = None,
    ) -> None:
        super().__init__(message)
        self.structured_content = structured_content
        self.content = content
        self.details = details
        self.usage = usage


class AgentTool(ABC):
    """Base class of every agent tool. Subclasses set the attributes and implement ``execute``."""

    name: str
    label: str
    description: str
    parameters: dict[str, Any]
    """JSON Schema of the arguments (an object schema)."""
    execution_mode: ToolExecutionMode | None = None
    """``"sequential"`` forces the whole batch containing a call to this tool to run in order."""
    output_schema: dict[str, Any] | None = None
    """JSON Schema of ``structured_content``, for tools whose results are data; programmatic
    callers get that value instead of the text. ``None``: they get the text."""
    replay: Literal["never", "safe"] | None = None
    """Whether a host may re-run this call when recovering an interrupted session. The loop
    itself ignores it."""

    def prepare_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Reshape raw arguments before validation (e.g. legacy shapes). Default: unchanged."""
        return arguments

    @abstractmethod
    async def execute(
        self,
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
    ) -> AgentToolResult[Any]:
        """Run the tool. Raise on failure; honour ``signal`` (kill child processes on abort)."""

    def to_tool(self) -> Tool:
        """The pi-ai description sent to the model."""
        return Tool(name=self.name, description=self.description, parameters=self.parameters)
