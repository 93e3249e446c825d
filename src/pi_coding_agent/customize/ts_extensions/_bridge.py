"""``TypeScriptHost``: TypeScript extensions as ``Extension`` objects of our runner.

Each TypeScript extension becomes an ``Extension`` whose handlers, tools, commands, flags and
shortcuts are proxies: calling one sends a request to Node and returns Node's answer. Every
handler Node has is one proxy, so our runner applies Pi's result rules across TypeScript and
Python handlers alike (the first ``block`` of ``tool_call``, ``context`` chaining...). Each
request carries a snapshot of what Pi's synchronous getters read (model, tools, session
entries...); ``pi.*`` actions and ``ctx.ui`` dialogs come back as calls answered here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from pi_agent import AgentToolResult
from pi_ai import AbortSignal
from pi_coding_agent.core.node_runtime import NodeRuntime
from pi_coding_agent.customize.extensions import (
    TOOL_EXPOSURES,
    CommandDefinition,
    Extension,
    ExtensionRunner,
    FlagDefinition,
    RegisteredMcpServer,
    ShortcutDefinition,
    ToolDefinition,
    ToolExposure,
    to_tool_result,
)
from pi_coding_agent.customize.ts_extensions._autocomplete import CompletionRelay
from pi_coding_agent.customize.ts_extensions._calls import answer_call
from pi_coding_agent.customize.ts_extensions._codec import (
    apply_mutations,
    decode_result,
    encode,
    encode_event,
)
from pi_coding_agent.customize.ts_extensions._components import ComponentCalls, note_completing
from pi_coding_agent.customize.ts_extensions._input import TerminalInputRelay
from pi_coding_agent.customize.ts_extensions._loadout import RemoteLoadout
from pi_coding_agent.customize.ts_extensions._process import HostError, HostProcess
from pi_coding_agent.customize.ts_extensions._renderers import (
    active_theme,
    entry_renderer,
    message_renderer,
    theme_json,
    tool_renderers,
)
from pi_coding_agent.customize.ts_extensions._tool_source import source_info

_COMPONENT_CALLS = frozenset({"custom", "setWidgetComponent", "setHeader", "setFooter", "setEditorComponent"})
_FREQUENT = frozenset({"message_update", "tool_execution_update"})
"""Events too frequent to resend the session with (its entries do not change during them)."""


class TypeScriptHost:
    def __init__(self, runner: ExtensionRunner) -> None:
        self.runner = runner
        self.extensions: list[Extension] = []
        self.process: HostProcess | None = None
        self._contexts: dict[int, Any] = {}
        self._updates: dict[int, Callable[[Any], None]] = {}
        self._sent_session: tuple[str, int] | None = None
        self._models_sent = False
        self._sent_theme: object = None
        self._sent_themes: object = ()
        self._syncing = False
        self.lines: dict[str, list[str]] = {}
        self.completing: set[str] = set()
        """The components (editors) showing their completion list as of their last lines."""
        """The last lines of each component Node renders for us (``_components``)."""
        self.component_calls = ComponentCalls(self)
        self.kept: dict[str, object] = {}
        """Messages drawn by a renderer, kept so that their ids (their components') stay theirs."""
        self._tasks: set[asyncio.Task[None]] = set()
        self.terminal_input = TerminalInputRelay(
            lambda op, fields: self.request(op, fields, frequent=True, light=True)
        )
        self.completions = CompletionRelay(lambda op, fields: self.request(op, fields, frequent=True, light=True))

    async def start(
        self, runtime: NodeRuntime, cwd: str, *, spawned: asyncio.subprocess.Process | None = None
    ) -> None:
        self.process = await HostProcess.start(runtime, cwd, self._on_call, self._on_notify, spawned=spawned)

    # ------------------------------------------------------------------ requests

    async def request(
        self, op: str, fields: dict[str, Any], ctx: Any = None, *, frequent: bool = False, light: bool = False
    ) -> Any:
        """Node's answer to ``op``; ``light`` sends only the UI's state (a component's render)."""
        if self.process is None:
            raise HostError("the TypeScript extension host is not running")
        state = self._ui_state() if light else self._state(frequent)
        request_id, future = await self.process.request(op, {**fields, "state": state})
        self._contexts[request_id] = ctx
        try:
            reply = await future
        finally:
            self._contexts.pop(request_id, None)
        if isinstance(reply.get("registry"), list):
            self.apply_registry(reply["registry"])
        if not reply.get("ok"):
            raise HostError(str(reply.get("error") or "the extension failed"))
        return reply.get("result")

    def _state(self, frequent: bool) -> dict[str, Any]:
        runner = self.runner
        state: dict[str, Any] = {
            "cwd": runner.cwd,
            "mode": runner.mode,
            "hasUI": runner.has_ui,
            "projectTrusted": runner.project_trusted,
            **self._ui_state(),
            "flags": {
                flag.name: runner.get_flag(flag.name)
                for flag in runner.flags()
                if runner.get_flag(flag.name) is not None
            },
        }
        host = runner.host
        if host is None:
            return state
        state.update(
            model=encode(host.model) if host.model is not None else None,
            thinkingLevel=host.thinking_level,
            isIdle=host.is_idle,
            hasPendingMessages=host.pending_message_count > 0,
            sessionName=host.session_manager.get_session_name(),
        )
        if frequent:
            return state
        state.update(
            activeTools=host.active_tool_names(),
            allTools=[
                {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                    "exposure": getattr(tool, "listed_exposure", None) or getattr(tool, "exposure", "direct"),
                    **({"promptGuidelines": list(lines)} if (lines := getattr(tool, "prompt_guidelines", None)) else {}),
                    "sourceInfo": source_info(tool),
                    **({"namespace": group} if (group := host.tool_namespace(tool.name)) else {}),
                    **({"annotations": dict(hints)} if (hints := getattr(tool, "annotations", None)) else {}),
                    **(
                        {"reachesTools": True, "source": getattr(tool, "extension_path", None) or "builtin"}
                        if callable(getattr(tool, "reaches_tools", None))
                        else {}
                    ),
                }
                for tool in host.all_tools()
            ],
            commands=host.available_commands_for_extensions(),
            systemPrompt=host.system_prompt,
            contextUsage=encode(host.get_context_usage()),
            session=self._session_update(),
            mcpServers=self._foreign_mcp_servers(),
        )
        if not self._models_sent:
            # Once: the catalog's credential checks are too slow for every event.
            state["models"] = [{**encode(model), "available": True} for model in host.catalog.available()]
            self._models_sent = True
        return state

    def _ui_state(self) -> dict[str, Any]:
        """The agent folder (Pi's keybindings), the terminal's size and, when it changed, the
        active theme's colours, which Node makes Pi's theme (``ctx.ui.theme``)."""
        from pi_coding_agent.core.paths import get_agent_dir

        state: dict[str, Any] = {"agentDir": get_agent_dir()}
        tui = getattr(self.runner.ui, "tui", None)
        terminal = getattr(tui, "terminal", None)
        for name, attribute in (("columns", "columns"), ("rows", "rows"), ("kittyKeyboard", "kitty_keyboard")):
            value = getattr(terminal, attribute, None)
            if isinstance(value, int):  # bool included: the keys Node's components decode
                state[name] = value
        state.update(_interactive_state(self.runner.ui))
        max_visible = _autocomplete_max_visible(self.runner.ui)
        if max_visible is not None:
            state["autocompleteMaxVisible"] = max_visible
        theme = active_theme(self.runner.ui)
        if theme is not None:
            signature = _theme_signature(theme)
            if signature != self._sent_theme:
                self._sent_theme = signature
                state["theme"] = theme_json(theme)
        themes = self._themes_update()
        if themes is not None:
            state["themes"] = themes
        return state

    def _themes_update(self) -> list[dict[str, Any]] | None:
        """Every theme the UI has (``getAllThemes``), each with its colours (what ``getTheme``
        and ``setTheme`` answer at once in Node): sent again only when the list changed."""
        ui: Any = self.runner.ui
        infos = getattr(ui, "get_all_themes", None)
        listed = infos() if callable(infos) and self.runner.mode == "tui" else []
        signature = tuple((info["name"], info["path"]) for info in listed)
        if signature == self._sent_themes:
            return None
        self._sent_themes = signature
        return [{**info, "theme": theme_json(ui.get_theme(info["name"]))} for info in listed]

    # ------------------------------------------------------------------ components

    def send(self, op: str, fields: dict[str, Any], on_answer: Callable[[Any], None] | None = None) -> None:
        """A request about a component, not awaited: its answer goes to ``on_answer``, then a
        new frame is drawn. A failure (the host exited) leaves the component's lines as they are."""

        async def run() -> None:
            try:
                answer = await self.request(op, fields, frequent=True, light=True)
            except HostError:
                return
            if on_answer is not None:
                on_answer(answer)
                self.redraw()

        task = asyncio.get_running_loop().create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def sync_theme(self) -> None:
        """Send our theme when it is not the one Node has (a light request carries it)."""
        theme = active_theme(self.runner.ui)
        if theme is None or _theme_signature(theme) == self._sent_theme or self._syncing:
            return
        self._syncing = True  # every component is invalidated at once: one request for them all

        def synced(_answer: Any) -> None:
            self._syncing = False

        self.send("uiSync", {}, synced)

    def redraw(self) -> None:
        tui = getattr(self.runner.ui, "tui", None)
        request_render = getattr(tui, "request_render", None)
        if callable(request_render):
            request_render()

    def _session_update(self) -> dict[str, Any] | None:
        host = self.runner.host
        assert host is not None
        manager = host.session_manager
        session_id = manager.get_session_id()
        count = len(manager.get_entries())
        sent = self._sent_session
        start = sent[1] if sent is not None and sent[0] == session_id and sent[1] <= count else 0
        if sent == (session_id, count):
            return {
                "id": session_id,
                "from": count,
                "entries": [],
                "leafId": manager.get_leaf_id(),
                "file": manager.get_session_file(),
            }
        self._sent_session = (session_id, count)
        return {
            "id": session_id,
            "from": start,
            "header": manager.get_header_data(),
            "entries": manager.get_entries_data()[start:],
            "leafId": manager.get_leaf_id(),
            "file": manager.get_session_file(),
        }

    # ------------------------------------------------------------------ Node's calls

    async def _on_call(self, method: str, op: int | None, args: dict[str, Any]) -> Any:
        ctx = self._contexts.get(op) if op is not None else None
        if method == "registerProvider":
            self._models_sent = False  # the next request sends the catalog again
        if method == "builtinCompletions":
            return self.completions.builtin(args, self.runner.ui)
        if method == "ui" and args.get("method") == "autocomplete":
            self.completions.switch(self.runner.ui, bool((args.get("args") or {}).get("on")))
            return None
        if method == "ui" and args.get("method") == "terminalInput":
            self.terminal_input.switch(self.runner.ui, bool((args.get("args") or {}).get("on")))
            return None
        if method == "ui" and args.get("method") in _COMPONENT_CALLS:
            return await self.component_calls.answer(self.runner.ui, str(args["method"]), args.get("args") or {})
        return await answer_call(self.runner, ctx if ctx is not None else self.runner.context(), method, args)

    def _on_notify(self, kind: str, op: int | None, args: dict[str, Any]) -> None:
        if kind == "toolUpdate" and op is not None and op in self._updates:
            self._updates[op](args.get("partial"))
        elif kind == "error":
            self.runner.report(
                str(args.get("extensionPath") or "<ts-host>"),
                str(args.get("event") or ""),
                str(args.get("error")),
            )
        elif kind == "lines" and isinstance(args.get("lines"), list):
            cid = str(args.get("cid"))
            self.lines[cid] = [str(line) for line in args["lines"]]
            note_completing(self.completing, cid, args.get("completing"))
            self.redraw()
        elif kind in ("editorSubmit", "editorChange"):
            self.component_calls.editor_event(kind, str(args.get("cid")), str(args.get("text") or ""))
            self.redraw()
        elif kind == "close":
            self.component_calls.close(str(args.get("cid")))
        elif kind == "mcpServers":
            self.share_mcp_servers(args.get("servers"))
        elif kind == "registry" and isinstance(args.get("registry"), list):
            self.apply_registry(args["registry"])
            if self.runner.host is not None:
                self.runner.host.refresh_tools()

    # ------------------------------------------------------------------ MCP servers

    def share_mcp_servers(self, servers: Any) -> None:
        """Our runner's registrations of the TypeScript extensions become ``servers`` (what
        Pi's registry in Node holds for them, already checked there)."""
        if not isinstance(servers, list):
            return
        registered = [
            RegisteredMcpServer(str(s.get("name")), dict(s.get("config") or {}), str(s.get("extensionPath")))
            for s in servers
            if isinstance(s, dict)
        ]
        self.runner.mcp_servers.replace_owned({e.path for e in self.extensions}, registered)

    def _foreign_mcp_servers(self) -> list[Any]:
        """The servers Python extensions registered, for ``getMcpServers()`` in Node."""
        paths = {e.path for e in self.extensions}
        return [encode(s) for s in self.runner.mcp_servers.list() if s.extension_path not in paths]

    # ------------------------------------------------------------------ proxies

    def apply_registry(self, registry: list[dict[str, Any]]) -> None:
        """Make each ``Extension`` mirror what its TypeScript side has registered."""
        for index, (extension, described) in enumerate(zip(self.extensions, registry, strict=False)):
            extension.handlers = {
                event: [self._handler(index, event, position) for position in range(int(count))]
                for event, count in (described.get("events") or {}).items()
            }
            extension.tools = {
                tool["name"]: self._tool(index, tool, extension.path) for tool in described.get("tools") or []
            }
            extension.message_renderers = {
                str(kind): message_renderer(self, index, str(kind)) for kind in described.get("messageRenderers") or []
            }
            extension.entry_renderers = {
                str(kind): entry_renderer(self, index, str(kind)) for kind in described.get("entryRenderers") or []
            }
            extension.commands = {
                command["name"]: self._command(index, command, extension.path)
                for command in described.get("commands") or []
            }
            extension.flags = {
                flag["name"]: FlagDefinition(
                    flag["name"],
                    flag.get("type") or "boolean",
                    flag.get("description") or "",
                    flag.get("default"),
                    extension.path,
                )
                for flag in described.get("flags") or []
            }
            extension.shortcuts = {
                shortcut["key"]: ShortcutDefinition(
                    shortcut["key"],
                    self._shortcut(index, shortcut["key"]),
                    shortcut.get("description") or "",
                    extension.path,
                )
                for shortcut in described.get("shortcuts") or []
            }
        self.runner.refresh_handlers()

    def _handler(self, index: int, event_type: str, position: int) -> Callable[..., Any]:
        async def handler(event: Any, ctx: Any) -> Any:
            payload = encode_event(event)
            answer = await self.request(
                "emit",
                {"ext": index, "event": event_type, "index": position, "payload": payload},
                ctx,
                frequent=event_type in _FREQUENT,
            )
            answer = answer or {}
            if isinstance(answer.get("payload"), dict):
                apply_mutations(event, answer["payload"])
            return decode_result(event_type, answer.get("result"))

        return handler

    def _tool(self, index: int, described: dict[str, Any], path: str) -> ToolDefinition:
        name = str(described["name"])

        async def execute(
            tool_call_id: str, params: dict[str, Any], signal: AbortSignal | None, on_update: Any, ctx: Any
        ) -> AgentToolResult[Any]:
            return await self._execute(
                index,
                name,
                tool_call_id=tool_call_id,
                params=params,
                signal=signal,
                on_update=on_update,
                ctx=ctx,
            )

        async def reaches_tools(params: dict[str, Any]) -> Any:
            return await self.request("reaches", {"ext": index, "name": name, "input": params})

        async def ask_loadout(loadout: dict[str, Any]) -> Any:
            return await self.request("loadout", {"ext": index, "name": name, "loadout": loadout}, light=True)

        loadout = RemoteLoadout(self.runner, path, ask_loadout) if described.get("prepareLoadout") else None
        renders = tool_renderers(self, index, name)
        return ToolDefinition(
            render_call=renders[0] if described.get("renderCall") else None,
            render_result=renders[1] if described.get("renderResult") else None,
            name=name,
            description=str(described.get("description") or ""),
            parameters=described.get("parameters") or {"type": "object", "properties": {}},
            execute=execute,
            label=described.get("label"),
            prompt_snippet=described.get("promptSnippet"),
            prompt_guidelines=list(described.get("promptGuidelines") or []),
            execution_mode=described.get("executionMode"),
            render_shell="self" if described.get("renderShell") == "self" else "default",
            exposure=_exposure(described.get("exposure")),
            default_active=described.get("defaultActive") is not False,
            output_schema=schema if isinstance(schema := described.get("outputSchema"), dict) else None,
            namespace=group if isinstance(group := described.get("namespace"), dict) else None,
            annotations=hints if isinstance(hints := described.get("annotations"), dict) else None,
            reaches_tools=reaches_tools if described.get("reachesTools") else None,
            prepare_loadout=loadout,
        )

    async def _execute(
        self,
        index: int,
        name: str,
        *,
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal | None,
        on_update: Any,
        ctx: Any,
    ) -> AgentToolResult[Any]:
        assert self.process is not None
        fields = {"ext": index, "name": name, "toolCallId": tool_call_id, "params": params}
        request_id, future = await self.process.request("tool", {**fields, "state": self._state(False)})
        self._contexts[request_id] = ctx
        self._updates[request_id] = lambda partial: on_update(partial) if on_update is not None else None
        process = self.process

        def abort() -> None:
            asyncio.get_running_loop().create_task(process.request("abort", {"target": request_id}))

        unsubscribe = (
            signal.add_listener(abort) if signal is not None and hasattr(signal, "add_listener") else None
        )
        try:
            reply = await future
        finally:
            self._contexts.pop(request_id, None)
            self._updates.pop(request_id, None)
            if callable(unsubscribe):
                unsubscribe()
        if not reply.get("ok"):
            raise HostError(str(reply.get("error") or "the tool failed"))
        return to_tool_result(reply.get("result"))

    def _command(self, index: int, described: dict[str, Any], path: str) -> CommandDefinition:
        name = str(described["name"])

        async def handler(args: str, ctx: Any) -> None:
            await self.request("command", {"ext": index, "name": name, "args": args}, ctx)

        async def completions(prefix: str) -> Any:
            return await self.request("complete", {"ext": index, "name": name, "prefix": prefix})

        return CommandDefinition(
            name,
            handler,
            str(described.get("description") or ""),
            completions if described.get("completes") else None,
            extension_path=path,
        )

    def _shortcut(self, index: int, key: str) -> Callable[..., Any]:
        async def handler(ctx: Any) -> None:
            await self.request("shortcut", {"ext": index, "key": key}, ctx)

        return handler

    async def close(self) -> None:
        if self.process is not None:
            await self.process.close()
            self.process = None



def _interactive_state(ui: Any) -> dict[str, Any]:
    """What Pi's synchronous UI getters read in the interactive mode: the editor's text, the
    tools' expansion, and the footer's git branch and statuses (``setFooter``'s ``footerData``)."""
    state: dict[str, Any] = {}
    resets = getattr(ui, "resets", None)
    if isinstance(resets, int):
        state["uiResets"] = resets  # a new count: Node drops its key listeners and providers
    for name, method in (("editorText", "get_editor_text"), ("toolsExpanded", "get_tools_expanded")):
        getter = getattr(ui, method, None)
        if callable(getter):
            state[name] = getter()
    footer = getattr(getattr(ui, "host", None), "footer", None)
    if footer is not None:
        state["statuses"] = dict(getattr(footer, "statuses", {}))
        branch = getattr(footer, "git_branch", None)
        state["gitBranch"] = branch() if callable(branch) else branch
    return state


def _autocomplete_max_visible(ui: Any) -> int | None:
    """The ``autocompleteMaxVisible`` setting our editor uses (Pi gives it to editor components)."""
    setting = getattr(getattr(ui, "host", None), "int_setting", None)
    if not callable(setting):
        return None
    value = setting("autocompleteMaxVisible", 5, 3, 20)
    return value if isinstance(value, int) else None


def _theme_signature(theme: Any) -> object:
    return (theme.name, theme.truecolor, tuple(theme.colors.items()), theme.dim)


def _exposure(value: Any) -> ToolExposure:
    """A registered tool's ``exposure``; a missing or unknown one is ``direct``."""
    for exposure in TOOL_EXPOSURES:
        if value == exposure:
            return exposure
    return "direct"
