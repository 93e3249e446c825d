"""``ExtensionRunner``: the event bus between the session and every loaded extension.

Handlers run one after another in load order (extensions in the order they were found,
handlers in the order they were registered). A handler that raises is reported as an
``ExtensionError`` to every error listener (``on_error``) and the next handler runs; the
one exception is ``tool_call``, where a raising handler blocks the call (Pi's fail-safe).
How each event combines its handlers' results follows Pi 0.85's runner:

* ``session_before_*``: the last result counts; one with ``cancel`` stops at once;
* ``context``: a deep copy of the messages goes through each handler in turn, each getting
  the previous one's ``{"messages": ...}`` (or the list it changed in place);
* ``tool_call``: the first ``{"block": True}`` wins; ``input`` changes are kept;
* ``tool_result``: partial patches (``content``, ``details``, ``is_error``, ``usage``) chain;
* ``message_end``: ``{"message": ...}`` replaces the message (same role only);
* ``input``: ``transform`` results chain, the first ``handled`` wins;
* ``before_agent_start``: messages accumulate, ``system_prompt`` chains;
* ``before_provider_request``: a returned value replaces the payload;
* ``before_provider_headers``: handlers change the headers dict in place.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any

import msgspec

from pi_agent import AgentMessage
from pi_ai import ImageContent
from pi_coding_agent.core.messages import SystemMessage, current_system_message
from pi_coding_agent.customize.extensions._bus import EventBus
from pi_coding_agent.customize.extensions._events import (
    BeforeAgentStartEvent,
    BeforeProviderHeadersEvent,
    BeforeProviderRequestEvent,
    ContextEvent,
    Event,
    InputEvent,
    ResourcesDiscoverEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from pi_coding_agent.customize.extensions._extension import Extension, MessageConverter
from pi_coding_agent.customize.extensions._host import ExtensionHost
from pi_coding_agent.customize.extensions._mcp_servers import McpServerRegistry, McpServersChangeEvent
from pi_coding_agent.customize.extensions._types import (
    CommandDefinition,
    ExtensionError,
    FlagDefinition,
    ShortcutDefinition,
    ToolDefinition,
)
from pi_coding_agent.customize.extensions.ui import ExtensionUI, NoExtensionUI, UiMode

ErrorListener = Callable[[ExtensionError], None]
_SESSION_BEFORE = frozenset(
    {"session_before_switch", "session_before_fork", "session_before_compact", "session_before_tree"}
)


async def call_handler(handler: Callable[..., Any], *args: Any) -> Any:
    """Call a plain or coroutine function and return its (awaited) result."""
    result = handler(*args)
    if inspect.isawaitable(result):
        result = await result
    return result


def error_text(error: BaseException) -> str:
    return str(error) or type(error).__name__


def _field(result: Any, name: str) -> Any:
    """``result[name]`` for dict results, ``result.name`` for objects; ``None`` when absent."""
    if isinstance(result, dict):
        return result.get(name)
    return getattr(result, name, None)


class ExtensionRunner:
    def __init__(self, extensions: Sequence[Extension], cwd: str, flag_values: dict[str, bool | str] | None = None):
        self.extensions = list(extensions)
        self.cwd = cwd
        self.flag_values: dict[str, bool | str] = dict(flag_values or {})
        self.events = EventBus(lambda channel, error: self.report("pi.events", f"events:{channel}", error))
        self.host: ExtensionHost | None = None
        self.runtime: Any = None
        """The session runtime (new session, fork, switch) for command contexts; set by the CLI."""
        self.ui: ExtensionUI = NoExtensionUI()
        self.mode: UiMode = "print"
        self.has_ui = False
        self.project_trusted = False
        self.shutdown_requested = False
        self.pending_providers: list[tuple[str, dict[str, Any]]] = []
        self.sources: dict[str, tuple[str, str, str | None]] = {}
        self.package_warnings: list[tuple[str, str]] = []
        """``(package.json path, message)``: packages of these extensions that list a package Pi
        provides under ``dependencies`` (``ts_extensions.host_dependency_warnings``)."""
        """Where each extension (by its path) came from: ``(source, scope, base folder)``, as the
        resource resolver says (``local``/``auto``/a package source; ``user``/``project``/``temporary``);
        the interactive UI labels the paths it names with it. Set by the CLI."""
        self.on_resources: Callable[[dict[str, list[str]]], None] | None = None
        """Loads the skill, prompt and theme paths ``resources_discover`` handlers returned (set by the CLI)."""
        self.on_entry_appended: Callable[[Any], None] | None = None
        """The UI draws a ``custom`` entry an extension appended (its entry renderer)."""
        self.on_session_replaced: Callable[[str, Any], None] | None = None
        """The UI shows the session a command context made (``new``, ``fork``, ``resume``,
        ``tree``; with the runtime's result), before ``with_session`` runs."""
        self.on_reload: Callable[[], Awaitable[None]] | None = None
        """The mode's ``/reload`` (the interactive UI's), run by ``ctx.reload()``."""
        self.on_shutdown_request: Callable[[], None] | None = None
        """The interactive UI quits when an extension asks (``ctx.shutdown()``) and the agent is idle."""
        self._error_listeners: list[ErrorListener] = []
        self._handled: set[str] = set()
        self.mcp_servers = McpServerRegistry()
        """Servers extensions registered (``pi.register_mcp_server``)."""
        self.mcp_connector = False
        """The built-in MCP support connects registered servers (set by the CLI); without it
        only an extension handling ``mcp_servers_change`` can."""
        self._reported_mcp: set[str] = set()
        self.mcp_servers.add_listener(self._mcp_servers_changed)
        self._background: set[asyncio.Task[Any]] = set()
        """Work a request must wait for (a TypeScript tool's ``prepareLoadout`` answer): ``settle``."""
        self.refresh_handlers()

    # ------------------------------------------------------------------ registry

    def refresh_handlers(self) -> None:
        """Recompute which events have handlers (``pi.on`` after setup calls this)."""
        self._handled = {name for ext in self.extensions for name, handlers in ext.handlers.items() if handlers}

    def has_handlers(self, event_type: str) -> bool:
        return event_type in self._handled

    def tools(self) -> list[tuple[ToolDefinition, str]]:
        """Every registered tool with its extension's path; a later registration of a name wins."""
        found: dict[str, tuple[ToolDefinition, str]] = {}
        for ext in self.extensions:
            for name, tool in ext.tools.items():
                found[name] = (tool, ext.path)
        return list(found.values())

    def commands(self) -> list[CommandDefinition]:
        """Commands in load order; a name registered by several extensions becomes ``name:1``, ``name:2``."""
        registered = [command for ext in self.extensions for command in ext.commands.values()]
        counts: dict[str, int] = {}
        for command in registered:
            counts[command.name] = counts.get(command.name, 0) + 1
        seen: dict[str, int] = {}
        taken: set[str] = set()
        for command in registered:
            occurrence = seen[command.name] = seen.get(command.name, 0) + 1
            name = f"{command.name}:{occurrence}" if counts[command.name] > 1 else command.name
            suffix = occurrence
            while name in taken:
                suffix += 1
                name = f"{command.name}:{suffix}"
            taken.add(name)
            command.invocation_name = name
        return registered

    def get_command(self, name: str) -> CommandDefinition | None:
        return next((command for command in self.commands() if command.invocation_name == name), None)

    def flags(self) -> list[FlagDefinition]:
        return [flag for ext in self.extensions for flag in ext.flags.values()]

    def shortcuts(self) -> list[ShortcutDefinition]:
        """Shortcuts by key; a later extension's registration of a key wins."""
        found: dict[str, ShortcutDefinition] = {}
        for ext in self.extensions:
            for shortcut in ext.shortcuts.values():
                found[shortcut.key.lower()] = shortcut
        return list(found.values())

    def message_renderer(self, custom_type: str) -> Callable[..., Any] | None:
        return next((e.message_renderers[custom_type] for e in self.extensions if custom_type in e.message_renderers), None)

    def message_converter(self, custom_type: str) -> MessageConverter | None:
        return next(
            (e.message_converters[custom_type] for e in self.extensions if custom_type in e.message_converters), None
        )

    def has_message_converters(self) -> bool:
        return any(ext.message_converters for ext in self.extensions)

    def entry_renderer(self, custom_type: str) -> Callable[..., Any] | None:
        return next((e.entry_renderers[custom_type] for e in self.extensions if custom_type in e.entry_renderers), None)

    def markdown_transformers(self) -> list[Callable[..., Any]]:
        return [ext.markdown_transformer for ext in self.extensions if ext.markdown_transformer is not None]

    def get_flag(self, name: str) -> bool | str | None:
        if name in self.flag_values:
            return self.flag_values[name]
        flag = next((f for f in self.flags() if f.name == name), None)
        return flag.default if flag is not None else None

    # ------------------------------------------------------------------ binding

    def bind_host(self, host: ExtensionHost | None) -> None:
        self.host = host

    def bind_ui(self, ui: ExtensionUI, mode: UiMode, *, has_ui: bool) -> None:
        from pi_coding_agent.customize.extensions._context import PromptTrackingUI

        self.ui = PromptTrackingUI(ui, self) if has_ui else ui
        self.mode = mode
        self.has_ui = has_ui

    # ------------------------------------------------------------------ MCP servers

    def _mcp_servers_changed(self) -> None:
        """Once a session is bound, a change is the ``mcp_servers_change`` event (servers
        registered while extensions load are read when the session starts)."""
        if self.host is None:
            return
        self.emit_soon(McpServersChangeEvent("mcp_servers_change", self.mcp_servers.list()))
        self.report_unhandled_mcp_servers()

    def report_unhandled_mcp_servers(self) -> None:
        """Each registered server nothing connects, once, as an extension error (Pi 1.6: when
        another extension replaced the built-in MCP support and handles no ``mcp_servers_change``)."""
        if self.mcp_connector or self.has_handlers("mcp_servers_change"):
            return
        for server in self.mcp_servers.list():
            if server.name in self._reported_mcp:
                continue
            self._reported_mcp.add(server.name)
            self.report(
                server.extension_path,
                "register_mcp_server",
                f'MCP server "{server.name}" is registered, but no loaded extension connects MCP servers; '
                "another extension may have replaced the built-in MCP support",
            )

    def track(self, work: Coroutine[Any, Any, Any]) -> bool:
        """Run ``work`` on the running loop until ``settle`` (``False``: no loop runs, nothing is done)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            work.close()
            return False
        task = loop.create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return True

    async def settle(self) -> None:
        """Until the tracked work, and the work it started, is done."""
        while self._background:
            await asyncio.gather(*list(self._background), return_exceptions=True)

    # ------------------------------------------------------------------ errors

    def on_error(self, listener: ErrorListener) -> Callable[[], None]:
        self._error_listeners.append(listener)
        return lambda: self._error_listeners.remove(listener) if listener in self._error_listeners else None

    def report(self, extension_path: str, event: str, error: BaseException | str) -> None:
        text = error if isinstance(error, str) else error_text(error)
        record = ExtensionError(extension_path, event, text)
        for listener in list(self._error_listeners):
            listener(record)

    # ------------------------------------------------------------------ emitting

    def context(self) -> Any:
        from pi_coding_agent.customize.extensions._context import ExtensionContext

        return ExtensionContext(self)

    def _handlers(self, event_type: str) -> list[tuple[Extension, Callable[..., Any]]]:
        return [(ext, handler) for ext in self.extensions for handler in ext.handlers.get(event_type, ())]

    async def emit(self, event: Any) -> Any:
        """Run every handler of ``event.type``; for ``session_before_*`` the combined result."""
        event_type = event.type
        if event_type not in self._handled:
            return None
        ctx = self.context()
        result: Any = None
        for ext, handler in self._handlers(event_type):
            try:
                answer = await call_handler(handler, event, ctx)
            except Exception as error:
                self.report(ext.path, event_type, error)
                continue
            if event_type in _SESSION_BEFORE and answer:
                result = answer
                if _field(answer, "cancel"):
                    return result
        return result

    async def emit_context(self, messages: list[AgentMessage]) -> list[AgentMessage]:
        """The ``transform_context`` hook: handlers in order over a deep copy of ``messages``.

        As in Pi 1.6, handlers see the conversation only (no ``system`` messages). A handler that
        leaves it as it was keeps every system message in place; one that changes it gets the
        replayed prompt and tools as one leading system message, so trimming cannot drop them.
        """
        if "context" not in self._handled:
            return messages
        ctx = self.context()
        current = deep_copy_messages(messages)
        for ext, handler in self._handlers("context"):
            visible: list[AgentMessage] = [message for message in current if not isinstance(message, SystemMessage)]
            snapshot = list(visible)
            event = ContextEvent("context", visible)
            try:
                answer = await call_handler(handler, event, ctx)
            except Exception as error:
                self.report(ext.path, "context", error)
                continue
            replaced = _field(answer, "messages") if answer is not None else None
            returned = list(replaced) if replaced is not None else event.messages
            if not _same_messages(returned, snapshot):
                head = current_system_message(current)
                current = [head, *returned] if head is not None else returned
        return current

    async def emit_tool_call(self, event: ToolCallEvent) -> Any:
        """The first blocking result, else the last result. A raising handler raises (the call is blocked)."""
        ctx = self.context()
        result: Any = None
        for ext, handler in self._handlers("tool_call"):
            try:
                answer = await call_handler(handler, event, ctx)
            except Exception as error:
                self.report(ext.path, "tool_call", error)
                raise
            if answer:
                result = answer
                if _field(answer, "block"):
                    return result
        return result

    async def emit_tool_result(self, event: ToolResultEvent) -> dict[str, Any] | None:
        """The patched fields (``content``, ``details``, ``structured_content``, ``is_error``,
        ``usage``), or ``None`` if unchanged."""
        ctx = self.context()
        modified = False
        for ext, handler in self._handlers("tool_result"):
            try:
                answer = await call_handler(handler, event, ctx)
            except Exception as error:
                self.report(ext.path, "tool_result", error)
                continue
            if not answer:
                continue
            if _field(answer, "content") is not None and _field(answer, "structured_content") is None:
                event.structured_content = None  # it may no longer match the new content (Pi 1.6)
            for name in ("content", "details", "structured_content", "is_error", "usage"):
                value = _field(answer, name)
                if value is not None:
                    setattr(event, name, value)
                    modified = True
        if not modified:
            return None
        return {
            "content": event.content, "details": event.details, "structured_content": event.structured_content,
            "is_error": event.is_error, "usage": event.usage,
        }  # fmt: skip

    async def emit_message_end(self, event: Any) -> AgentMessage | None:
        """A replacement for the finished message, or ``None``. Replacements must keep the role."""
        ctx = self.context()
        current = event.message
        modified = False
        for ext, handler in self._handlers("message_end"):
            try:
                answer = await call_handler(handler, type(event)(message=current), ctx)
            except Exception as error:
                self.report(ext.path, "message_end", error)
                continue
            replacement = _field(answer, "message") if answer is not None else None
            if replacement is None:
                continue
            if getattr(replacement, "role", None) != current.role:
                self.report(ext.path, "message_end", "message_end handlers must return a message with the same role")
                continue
            current, modified = replacement, True
        return current if modified else None

    async def emit_input(
        self, text: str, images: list[ImageContent] | None, source: str, streaming_behavior: str | None
    ) -> dict[str, Any]:
        """``{"action": "continue" | "transform" | "handled", "text", "images"}``."""
        ctx = self.context()
        current_text, current_images = text, images
        for ext, handler in self._handlers("input"):
            event = InputEvent("input", current_text, current_images, source, streaming_behavior)
            try:
                answer = await call_handler(handler, event, ctx)
            except Exception as error:
                self.report(ext.path, "input", error)
                continue
            action = _field(answer, "action") if answer is not None else None
            if action == "handled":
                return {"action": "handled"}
            if action == "transform":
                current_text = str(_field(answer, "text") or "")
                current_images = _field(answer, "images") or current_images
        if current_text != text or current_images is not images:
            return {"action": "transform", "text": current_text, "images": current_images}
        return {"action": "continue"}

    async def emit_before_agent_start(
        self, prompt: str, images: list[ImageContent] | None, system_prompt: str, options: dict[str, Any]
    ) -> tuple[list[Any], str | None]:
        """(messages to inject, the chained system prompt or ``None`` when no handler changed it)."""
        from pi_coding_agent.customize.extensions._context import ExtensionContext

        current = system_prompt
        ctx = ExtensionContext(self, system_prompt=lambda: current)
        messages: list[Any] = []
        changed = False
        for ext, handler in self._handlers("before_agent_start"):
            event = BeforeAgentStartEvent("before_agent_start", prompt, images, current, options)
            try:
                answer = await call_handler(handler, event, ctx)
            except Exception as error:
                self.report(ext.path, "before_agent_start", error)
                continue
            if not answer:
                continue
            message = _field(answer, "message")
            if message is not None:
                messages.append(message)
            prompt_text = _field(answer, "system_prompt")
            if prompt_text is not None:
                current, changed = str(prompt_text), True
        return messages, current if changed else None

    async def emit_before_provider_request(self, payload: Any) -> Any:
        ctx = self.context()
        current = payload
        for ext, handler in self._handlers("before_provider_request"):
            try:
                answer = await call_handler(handler, BeforeProviderRequestEvent("before_provider_request", current), ctx)
            except Exception as error:
                self.report(ext.path, "before_provider_request", error)
                continue
            if answer is not None:
                current = answer
        return current

    async def emit_before_provider_headers(self, headers: dict[str, str | None]) -> dict[str, str | None]:
        ctx = self.context()
        event = BeforeProviderHeadersEvent("before_provider_headers", headers)
        for ext, handler in self._handlers("before_provider_headers"):
            try:
                await call_handler(handler, event, ctx)
            except Exception as error:
                self.report(ext.path, "before_provider_headers", error)
        return event.headers

    async def emit_resources_discover(self, reason: str) -> dict[str, list[str]]:
        ctx = self.context()
        found: dict[str, list[str]] = {"skill_paths": [], "prompt_paths": [], "theme_paths": []}
        for ext, handler in self._handlers("resources_discover"):
            try:
                answer = await call_handler(handler, ResourcesDiscoverEvent("resources_discover", self.cwd, reason), ctx)
            except Exception as error:
                self.report(ext.path, "resources_discover", error)
                continue
            for key, paths in found.items():
                paths.extend(str(path) for path in (_field(answer, key) or ()))
        if self.on_resources is not None and any(found.values()):
            self.on_resources(found)
        return found

    async def emit_project_trust(self, cwd: str) -> tuple[bool | None, bool]:
        """(the first ``yes``/``no`` decision or ``None``, whether to remember it)."""
        from pi_coding_agent.customize.extensions._events import ProjectTrustEvent

        ctx = self.context()
        for ext, handler in self._handlers("project_trust"):
            try:
                answer = await call_handler(handler, ProjectTrustEvent("project_trust", cwd), ctx)
            except Exception as error:
                self.report(ext.path, "project_trust", error)
                continue
            trusted = _field(answer, "trusted") if answer is not None else None
            if trusted in ("yes", "no"):
                return trusted == "yes", bool(_field(answer, "remember"))
        return None, False

    async def emit_first(self, event: Any) -> Any:
        """The first truthy result (``user_bash``); raising handlers are reported and skipped."""
        ctx = self.context()
        for ext, handler in self._handlers(event.type):
            try:
                answer = await call_handler(handler, event, ctx)
            except Exception as error:
                self.report(ext.path, event.type, error)
                continue
            if answer:
                return answer
        return None

    def emit_soon(self, event: Event) -> None:
        """Fire and forget (``ui_prompt_*``, ``thinking_level_select`` from a sync caller)."""
        import asyncio

        if event.type not in self._handled:
            return
        try:
            asyncio.get_running_loop().create_task(self.emit(event))
        except RuntimeError:
            return

    async def shutdown(self, reason: str, target: str | None = None) -> None:
        from pi_coding_agent.customize.extensions._events import SessionShutdownEvent

        await self.emit(SessionShutdownEvent("session_shutdown", reason, target))


_DECODERS: dict[int, Any] = {}
_ENCODER = msgspec.msgpack.Encoder()


def deep_copy_messages(messages: list[AgentMessage]) -> list[AgentMessage]:
    """An independent copy of a transcript (Pi's ``structuredClone``).

    A msgpack round trip through the message classes: 40 times cheaper than
    ``copy.deepcopy`` for a 60-message transcript (``bench/extensions_startup.py``, the
    ``context`` handler cost). Messages msgpack cannot carry (an opaque role) fall back
    to ``copy.deepcopy``.
    """
    from pi_agent import agent_message_union

    union = agent_message_union()
    decoder = _DECODERS.get(id(union))
    if decoder is None:
        _DECODERS.clear()
        decoder = _DECODERS[id(union)] = (union, msgspec.msgpack.Decoder(list[union]))  # type: ignore[valid-type]
    try:
        return list(decoder[1].decode(_ENCODER.encode(messages)))
    except (TypeError, msgspec.MsgspecError):
        return copy.deepcopy(messages)


def now_ms() -> int:
    return int(time.time() * 1000)


def _same_messages(left: list[AgentMessage], right: list[AgentMessage]) -> bool:
    """The same message objects in the same order (a handler that changed nothing)."""
    return len(left) == len(right) and all(a is b for a, b in zip(left, right, strict=True))
