"""``pi``: what an extension's ``setup(pi)`` and its handlers call.

Registration methods (``on``, ``register_*``) record into the extension; action methods
(``send_message``, ``set_model``, ...) act on the session the runner is bound to, and raise
``NoSessionError`` before there is one (use them from ``session_start`` on).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

from pi_ai import ImageContent, TextContent
from pi_coding_agent.customize.extensions._context import (
    NoSessionError,
    send_custom_message,
    send_user_message,
)
from pi_coding_agent.customize.extensions._events import EVENT_NAMES
from pi_coding_agent.customize.extensions._extension import Extension, MessageConverter
from pi_coding_agent.customize.extensions._host import ExtensionHost
from pi_coding_agent.customize.extensions._mcp_servers import RegisteredMcpServer
from pi_coding_agent.customize.extensions._runner import ExtensionRunner
from pi_coding_agent.customize.extensions._types import (
    CommandDefinition,
    FlagDefinition,
    Handler,
    ShortcutDefinition,
    ToolDefinition,
)

DeliverAs = Literal["steer", "followUp", "nextTurn"]


class ExtensionAPI:
    def __init__(self, extension: Extension, runner: ExtensionRunner) -> None:
        self._extension = extension
        self._runner = runner

    @property
    def events(self) -> Any:
        """The bus shared by every extension (``pi.events.on(channel, fn)``, ``pi.events.emit(channel, data)``)."""
        return self._runner.events

    def runner_host(self) -> ExtensionHost:
        """The session this API acts on; ``NoSessionError`` before there is one."""
        return self._host()

    def _host(self) -> ExtensionHost:
        host = self._runner.host
        if host is None:
            raise NoSessionError("no session yet: call this from session_start or later")
        return host

    # ------------------------------------------------------------------ registration

    def on(self, event: str, handler: Handler) -> None:
        if event not in EVENT_NAMES:
            raise ValueError(f"unknown event {event!r} (see docs/extensions.md for the list)")
        self._extension.handlers.setdefault(event, []).append(handler)
        self._runner.refresh_handlers()

    def register_tool(self, tool: ToolDefinition | None = None, /, **fields: Any) -> ToolDefinition:
        """Register a tool (a ``ToolDefinition`` or its fields as keywords); usable at once."""
        definition = tool if tool is not None else ToolDefinition(**fields)
        self._extension.tools[definition.name] = definition
        if self._runner.host is not None:
            self._runner.host.refresh_tools()
        return definition

    def register_command(
        self,
        name: str,
        handler: Handler,
        *,
        description: str = "",
        get_argument_completions: Callable[[str], Any] | None = None,
    ) -> None:
        self._extension.commands[name] = CommandDefinition(
            name, handler, description, get_argument_completions, extension_path=self._extension.path
        )

    def get_commands(self) -> list[dict[str, Any]]:
        """Extension commands, then prompt templates, then skills (RPC ``get_commands``'s order)."""
        return self._host().available_commands_for_extensions()

    def register_flag(
        self,
        name: str,
        *,
        type: Literal["boolean", "string"] = "boolean",
        description: str = "",
        default: bool | str | None = None,
    ) -> None:
        self._extension.flags[name] = FlagDefinition(name, type, description, default, self._extension.path)

    def get_flag(self, name: str) -> bool | str | None:
        """The flag's value on the command line, else its default."""
        return self._runner.get_flag(name)

    def register_shortcut(self, key: str, handler: Handler, *, description: str = "") -> None:
        self._extension.shortcuts[key] = ShortcutDefinition(key, handler, description, self._extension.path)

    def register_message_renderer(self, custom_type: str, renderer: Callable[..., Any]) -> None:
        """``renderer(message, options)`` -> lines (or a TUI component) for custom messages of this type."""
        self._extension.message_renderers[custom_type] = renderer

    def register_message_converter(self, custom_type: str, converter: MessageConverter) -> None:
        """How custom messages of this type reach the model: ``converter(message)`` returns a
        message, a list of messages, or ``None`` (never sent). Without one they go as user text."""
        self._extension.message_converters[custom_type] = converter

    def register_entry_renderer(self, custom_type: str, renderer: Callable[..., Any]) -> None:
        self._extension.entry_renderers[custom_type] = renderer

    def register_markdown_transformer(self, transformer: Callable[[str, dict[str, Any]], str]) -> None:
        self._extension.markdown_transformer = transformer

    def register_provider(self, name: str, config: dict[str, Any]) -> None:
        """A provider as a ``models.json`` entry (``baseUrl``, ``api``, ``apiKey``, ``models``...).

        Calls during setup are applied once the session exists; later calls at once.
        """
        if self._runner.host is None:
            self._runner.pending_providers.append((name, config))
        else:
            self._runner.host.catalog.register_provider(name, config)

    def register_mcp_server(self, name: str, config: dict[str, Any]) -> None:
        """An MCP server for this run, shaped like an ``mcpServers`` entry of ``mcp.json``.
        Registered during setup it connects with the configured servers; later, at once. A
        server of the same name in ``mcp.json`` wins. Raises ``ValueError`` for an invalid name
        or config and for a name another extension registered."""
        self._runner.mcp_servers.register(self._extension.path, name, config)

    def unregister_mcp_server(self, name: str) -> None:
        """Remove a server this extension registered; its connection closes, its tools go."""
        self._runner.mcp_servers.unregister(self._extension.path, name)

    def get_mcp_servers(self) -> list[RegisteredMcpServer]:
        """Every server extensions registered (``name``, ``config``, ``extension_path``)."""
        return self._runner.mcp_servers.list()

    # ------------------------------------------------------------------ messages and entries

    async def send_message(
        self,
        custom_type: str,
        content: str | list[TextContent | ImageContent],
        *,
        display: bool = True,
        details: Any = None,
        deliver_as: DeliverAs | None = None,
        trigger_turn: bool | None = None,
    ) -> None:
        """A custom message (role ``custom``): stored in the session, sent to the model as its
        converter says, shown by its renderer. Delivery follows Pi: while a run is active it
        is steered in (``followUp``: after the run), unless ``trigger_turn=False``, which stores
        it after the current turn; ``nextTurn`` sends it with the next prompt; when idle,
        ``trigger_turn=True`` starts a run with it, otherwise it is stored at once."""
        await send_custom_message(self._host(), custom_type, content, display=display, details=details,
                                  deliver_as=deliver_as, trigger_turn=trigger_turn)  # fmt: skip

    async def send_user_message(
        self,
        content: str | Sequence[TextContent | ImageContent],
        *,
        deliver_as: Literal["steer", "followUp"] | None = None,
        expand_prompt_templates: bool = False,
    ) -> None:
        """A user message, as if typed; raises while a run is active unless ``deliver_as`` is given."""
        await send_user_message(self._host(), content, deliver_as=deliver_as, expand=expand_prompt_templates)

    def append_entry(self, custom_type: str, data: Any = None) -> str:
        """Store extension data in the session (a ``custom`` entry: never part of the model's context)."""
        manager = self._host().session_manager
        entry_id = manager.append_custom_entry(custom_type, data)
        if self._runner.on_entry_appended is not None:
            self._runner.on_entry_appended(manager.get_entry(entry_id))
        return entry_id

    def set_session_name(self, name: str) -> None:
        self._host().set_session_name(name)

    def get_session_name(self) -> str | None:
        return self._host().session_manager.get_session_name()

    def set_label(self, entry_id: str, label: str | None) -> None:
        self._host().set_label(entry_id, label)

    # ------------------------------------------------------------------ tools, model, thinking

    def get_active_tools(self) -> list[str]:
        return self._host().active_tool_names()

    def get_all_tools(self) -> list[dict[str, Any]]:
        """``name``, ``description``, ``parameters``, ``prompt_guidelines``, ``exposure`` of every configured tool,
        and where the tool has them (Pi 1.6): ``namespace`` (a dict; MCP tools: their server's),
        ``annotations`` (``readOnlyHint`` ...) and ``reaches_tools`` (the function)."""
        host = self._host()
        return [
            {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
                "prompt_guidelines": list(getattr(tool, "prompt_guidelines", ()) or ()),
                "exposure": getattr(tool, "listed_exposure", None) or getattr(tool, "exposure", "direct"),
                "source": getattr(tool, "extension_path", None) or "builtin",
                **({"namespace": group} if (group := host.tool_namespace(tool.name)) else {}),
                **({"annotations": dict(hints)} if (hints := getattr(tool, "annotations", None)) else {}),
                **({"reaches_tools": reach} if (reach := getattr(tool, "reaches_tools", None)) else {}),
            }
            for tool in host.all_tools()
        ]

    def set_active_tools(self, names: Sequence[str]) -> None:
        """Enable exactly these tools (unknown names are ignored)."""
        self._host().set_active_tools(names)

    def set_model(self, model: Any) -> bool:
        """Use ``model`` for this session; ``False`` when its provider has no credentials."""
        return self._host().set_model_from_extension(model)

    def get_thinking_level(self) -> str:
        return self._host().thinking_level

    def set_thinking_level(self, level: str) -> None:
        self._host().set_thinking_level(level)

    async def exec(
        self,
        command: str,
        args: Sequence[str] = (),
        *,
        cwd: str | None = None,
        timeout_ms: float | None = None,
        signal: Any = None,
    ) -> dict[str, Any]:
        """Run a program (no shell): ``{"stdout", "stderr", "code", "killed"}``."""
        from pi_coding_agent.customize.extensions._exec import run_program

        return await run_program(command, list(args), cwd=cwd or self._runner.cwd, timeout_ms=timeout_ms, signal=signal)
