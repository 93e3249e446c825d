"""What an extension registers: tools, commands, flags, shortcuts, renderers; and its errors."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Handler = Callable[..., Any]
"""``handler(event, ctx)``: a function or a coroutine function."""


@dataclass
class ToolDefinition:
    """A tool the model may call (``pi.register_tool``).

    ``execute(tool_call_id, params, signal, on_update, ctx)`` returns a dict
    (``content``: a string or text/image blocks, ``details``, ``terminate``), a string, or an
    ``AgentToolResult``; raising marks the result as an error, as for built-in tools.
    ``render_call(args, context)`` / ``render_result(result, options, context)`` return the
    lines the interactive UI shows instead of its default rendering. ``render_shell="self"``
    draws them without the coloured, padded box around the call (Pi's ``renderShell``): the
    renderers frame themselves.
    """

    name: str
    description: str
    parameters: dict[str, Any]
    execute: Callable[..., Awaitable[Any] | Any]
    label: str | None = None
    prompt_snippet: str | None = None
    prompt_guidelines: list[str] = field(default_factory=list)
    prepare_arguments: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    render_call: Callable[..., Any] | None = None
    render_result: Callable[..., Any] | None = None
    execution_mode: Literal["sequential", "parallel"] | None = None
    render_shell: Literal["default", "self"] = "default"
    exposure: ToolExposure = "direct"
    """How the model reaches the tool (Pi 1.6): ``direct`` declared while active; ``model-only``
    declared while active, never callable from other tools; ``codemode`` and ``deferred`` not
    declared until activated, callable from ``codemode`` scripts, found by ``tool_search``;
    ``hidden`` unreachable."""
    default_active: bool = True
    """``False``: a ``direct`` or ``model-only`` tool starts inactive."""
    output_schema: dict[str, Any] | None = None
    """JSON Schema of the result's ``structured_content``: scripts get that value, not the text."""
    namespace: dict[str, Any] | None = None
    """The group the tool belongs to (Pi 1.6's ``namespace``), as an MCP server groups its tools:
    ``{"name", "aliases"?, "description"?, "instructions"?}``. ``codemode`` lists a group's tools
    under one heading with its ``description``; scripts find it by its name or an alias with
    ``describeNamespace()`` (which also gives ``instructions``) and ``searchTools(..., {namespace})``."""
    annotations: dict[str, bool] | None = None
    """Hints with the meaning of MCP's tool annotations (``readOnlyHint``, ``destructiveHint``,
    ``idempotentHint``, ``openWorldHint``): not checked, reported by ``get_all_tools()`` so that
    a permission extension can decide which calls to confirm."""
    reaches_tools: Callable[[dict[str, Any]], Any] | None = None
    """For a tool that reaches other tools: ``reaches_tools(input)`` is ``"all"`` or the words of
    the input that may name the tools (or namespaces) a call reaches (a coroutine function may
    answer it). The built-in MCP support
    turns such a tool on for its servers when it replaces ``codemode``/``tool_search``, and waits
    for the servers a call names before it runs."""
    prepare_loadout: Callable[[ToolLoadout], Any] | None = None
    """Called while the tool is active, whenever the active tools change, with the session's
    ``ToolLoadout``; returns ``None`` or ``{"descriptions": {name: text}, "hidden_declarations":
    [names]}``: new descriptions for declared tools (its own included), and active tools left
    out of the requests' declarations (they stay active and callable)."""

    def starts_active(self) -> bool:
        """Whether registering the tool activates it (Pi 1.6's rule)."""
        return self.default_active and self.exposure in ("direct", "model-only")


@dataclass(frozen=True)
class ToolLoadout:
    """The session's tools as a ``prepare_loadout`` hook sees them (Pi 1.6's ``ToolLoadout``):
    ``declared``, the active tools in order with their own descriptions; ``callable``, what
    other tools (``codemode`` scripts) may call; ``registered``, every tool. The functions give
    a tool's exposure, namespace (a dict, or ``None``) and prompt guidelines by name."""

    declared: Sequence[Any]
    callable: Sequence[Any]
    registered: Sequence[Any]
    get_exposure: Callable[[str], str]
    get_namespace: Callable[[str], dict[str, Any] | None]
    get_prompt_guidelines: Callable[[str], Sequence[str]]


ToolExposure = Literal["direct", "model-only", "codemode", "deferred", "hidden"]
TOOL_EXPOSURES: tuple[ToolExposure, ...] = ("direct", "model-only", "codemode", "deferred", "hidden")


@dataclass
class CommandDefinition:
    """A ``/name`` command (``pi.register_command``); ``handler(args, ctx)`` with a command context."""

    name: str
    handler: Handler
    description: str = ""
    get_argument_completions: Callable[[str], Any] | None = None
    extension_path: str = ""
    invocation_name: str = ""
    """``name``, or ``name:N`` when several extensions register the same name (Pi's rule)."""


@dataclass
class FlagDefinition:
    """A command-line flag (``pi.register_flag``): ``--name`` for ``boolean``, ``--name VALUE`` for ``string``."""

    name: str
    type: Literal["boolean", "string"] = "boolean"
    description: str = ""
    default: bool | str | None = None
    extension_path: str = ""


@dataclass
class ShortcutDefinition:
    """A key of the interactive UI (``pi.register_shortcut``); ``handler(ctx)``."""

    key: str
    handler: Handler
    description: str = ""
    extension_path: str = ""


@dataclass(frozen=True)
class ExtensionError:
    """A failure inside an extension: reported, never raised into the agent.

    ``extension_path`` names the extension (``command:<name>`` for a failing command, as in
    Pi); ``event`` the event, or ``load``, ``setup``, ``command``, ``shortcut``, ``tool:<name>``.
    """

    extension_path: str
    event: str
    error: str

    def to_json(self) -> dict[str, str]:
        """Pi's RPC record ``{"type": "extension_error", ...}``."""
        return {"type": "extension_error", "extensionPath": self.extension_path, "event": self.event, "error": self.error}

    def __str__(self) -> str:
        return f"Extension error ({self.extension_path}): {self.error}"
