"""The extensions of an interactive run, wired into the terminal UI (Pi's ``bindExtensions``).

``ExtensionBridge`` starts them once the screen is up (``session_start``, then
``resources_discover``), shows each extension error in the transcript as Pi words it
(``Extension "<path>" error: <message>``), runs their shortcuts before the application
keys see a key (a key of Pi's reserved actions stays the application's; the header's
``[Extension issues]`` block, ``_issues``, says so),
and gives the transcript their renderings:

* a custom message (``display`` on) through its ``register_message_renderer`` renderer,
  else Pi's default card (``[custom_type]`` and the text, on ``customMessageBg``);
* a ``custom`` entry (``append_entry``) through its ``register_entry_renderer`` renderer,
  when the entry is appended and when the session is drawn again; without one it is not shown;
* an extension tool's call and result through its ``render_call`` / ``render_result``.

The views themselves are ``components._custom``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from pi_coding_agent.app.interactive._issues import extension_issues, issues_block
from pi_coding_agent.app.interactive.components import (
    CustomEntryView,
    CustomMessageView,
    ExtensionToolView,
    ToolExecutionView,
)
from pi_coding_agent.core.messages import CustomRoleMessage
from pi_coding_agent.core.session import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    SessionMessageEntry,
)
from pi_coding_agent.customize.extensions import ExtensionError, ExtensionRunner, call_handler
from pi_coding_agent.runtime.agent_session import EntryAppendedEvent
from pi_tui import (
    Component,
    Container,
    Suggestion,
    Text,
    capitalize_keys,
    matches_key,
    terminal_safe,
)

if TYPE_CHECKING:
    from pi_coding_agent.app.interactive._parts import EditorComponent, Spawn
    from pi_coding_agent.app.interactive._transcript import Transcript
    from pi_coding_agent.customize.themes import Theme
    from pi_coding_agent.runtime.agent_session import AgentSession, AgentSessionRuntime
    from pi_tui import TUI, Keybindings

RESERVED_ACTIONS = (
    "app.interrupt", "app.clear", "app.exit", "app.suspend", "app.thinking.cycle", "app.model.cycleForward",
    "app.model.cycleBackward", "app.model.select", "app.tools.expand", "app.thinking.toggle",
    "app.editor.external", "app.message.copy", "app.message.followUp", "tui.input.submit",
    "tui.select.confirm", "tui.select.cancel", "tui.input.copy", "tui.editor.deleteToLineEnd",
)  # fmt: skip
"""Keys an extension shortcut may not take (Pi's ``RESERVED_KEYBINDINGS_FOR_EXTENSION_CONFLICTS``)."""


class BridgeHost(Protocol):
    """What the bridge connects the extensions to: the runtime (and its session), the
    transcript their messages and errors go to, the editor, and the mode's own reactions
    (a replaced session, a reload, quitting)."""

    @property
    def runtime(self) -> AgentSessionRuntime: ...
    @property
    def session(self) -> AgentSession: ...
    @property
    def transcript(self) -> Transcript: ...
    @property
    def editor(self) -> EditorComponent: ...
    @property
    def tui(self) -> TUI: ...
    @property
    def theme(self) -> Theme: ...
    @property
    def keys(self) -> Keybindings: ...
    @property
    def spawn(self) -> Spawn: ...
    def rebind(self) -> None: ...
    def shutdown(self, code: int = 0) -> None: ...
    async def run_command(self, name: str, arguments: str) -> None: ...


class ExtensionBridge:
    def __init__(self, host: BridgeHost) -> None:
        self.host = host
        self._listening: ExtensionRunner | None = None
        self._completed: dict[tuple[str, str], Any] = {}
        runner = self.runner
        if runner is not None and runner.markdown_transformers():
            host.transcript.style.markdown_transform = self.transform_markdown

    def transform_markdown(self, text: str, context: dict[str, Any]) -> str:
        """Every extension's transformer in load order; one that raises is skipped (Pi's rule)."""
        runner = self.runner
        for transformer in runner.markdown_transformers() if runner is not None else ():
            try:
                changed = transformer(text, dict(context))
            except Exception:
                continue
            if isinstance(changed, str):
                text = changed
        return text

    @property
    def runner(self) -> ExtensionRunner | None:
        return self.host.session.extensions

    async def start(self) -> None:
        """Show errors, take the renderers, then ``session_start`` and ``resources_discover``."""
        runner = self.runner
        if runner is None:
            return
        self.bind(runner)
        await self.host.runtime.start_extensions()
        self.host.tui.request_render()

    def bind(self, runner: ExtensionRunner) -> None:
        if self._listening is runner:
            return
        self._listening = runner
        runner.on_error(self.show_error)
        runner.on_session_replaced = self.replaced
        runner.on_shutdown_request = self.shutdown_requested
        runner.on_reload = lambda: self.host.run_command("reload", "")
        self.host.runtime.subscribe(self._on_session_event)

    def shutdown_requested(self) -> None:
        """``ctx.shutdown()``: quit now when idle, else once the agent settles (Pi's rule)."""
        if self.host.session.is_idle:
            self.host.shutdown(0)

    def _on_session_event(self, event: object) -> None:
        runner = self.runner
        if isinstance(event, EntryAppendedEvent):
            self.entry_appended(event.entry)
        elif getattr(event, "type", "") == "agent_settled" and runner is not None and runner.shutdown_requested:
            self.host.shutdown(0)

    def replaced(self, action: str, result: Any) -> None:
        """A command context replaced the session (or moved in the tree): show it, as Pi does."""
        host = self.host
        host.rebind()
        if action == "fork":
            host.editor.set_text(getattr(result, "selected_text", None) or "")
            host.transcript.status("Forked to new session")
        elif action == "tree":
            editor_text = getattr(result, "editor_text", None)
            if editor_text and not host.editor.get_text().strip():
                host.editor.set_text(editor_text)
            host.transcript.status("Navigated to selected point")

    def show_error(self, error: ExtensionError) -> None:
        theme = self.host.theme
        line = terminal_safe(f'Extension "{error.extension_path}" error: {error.error}')
        self.host.transcript.add(Text(theme.fg("error", line), 1, 0))

    def is_command(self, text: str) -> bool:
        """``/name ...`` where ``name`` is an extension command."""
        runner = self.runner
        return runner is not None and text.startswith("/") and runner.get_command(text[1:].split(" ", maxsplit=1)[0]) is not None

    def argument_completions(self, name: str, prefix: str) -> list[Suggestion] | None:
        """What an extension command's ``get_argument_completions(prefix)`` offers: items
        ``{"value", "label", "description"}`` or strings; an error or a coroutine offers nothing."""
        runner = self.runner
        command = runner.get_command(name) if runner is not None else None
        if command is None or command.get_argument_completions is None:
            return None
        key = (name, prefix)
        if key in self._completed:
            found: Any = self._completed.pop(key)
        else:
            try:
                found = command.get_argument_completions(prefix)
            except Exception as error:
                runner.report(command.extension_path, "command_completions", error)  # type: ignore[union-attr]
                return None
            if inspect.isawaitable(found):
                self.host.spawn(self._complete_later(key, found, command.extension_path))
                return None
        if not isinstance(found, list):
            return None
        items = []
        for item in found:
            if isinstance(item, str):
                items.append(Suggestion(item, item))
            elif isinstance(item, dict) and isinstance(item.get("value"), str):
                value = item["value"]
                items.append(Suggestion(value, str(item.get("label") or value), str(item.get("description") or "")))
        return items or None

    async def _complete_later(self, key: tuple[str, str], pending: Any, path: str) -> None:
        """An asynchronous ``get_argument_completions`` (Pi awaits them; TypeScript commands'
        are, since they run in Node): once answered, the editor asks again and gets the answer
        if it still shows ``/name prefix``."""
        try:
            found = await pending
        except Exception as error:
            if self.runner is not None:
                self.runner.report(path, "command_completions", error)
            return
        editor = self.host.editor
        if editor.get_text() != f"/{key[0]} {key[1]}":
            return
        self._completed = {key: found}
        refresh = getattr(editor, "refresh_completion", None)
        if callable(refresh):
            refresh()
            self.host.tui.request_render()
        self._completed = {}

    # ------------------------------------------------------------------ shortcuts

    def _reserved(self, key: str) -> bool:
        keys = self.host.keys
        return any(key.lower() in (k.lower() for k in keys.keys(action)) for action in RESERVED_ACTIONS)

    def issues(self) -> list[Component]:
        """The ``[Extension issues]`` block of the header (shortcut and command conflicts)."""
        runner = self.runner
        if runner is None:
            return []
        return issues_block(extension_issues(runner, self.host.keys, RESERVED_ACTIONS), runner, self.host.theme)

    def shortcut_rows(self) -> list[tuple[str, str]]:
        """``/hotkeys``'s Extensions table: each usable shortcut and its description (or extension)."""
        runner = self.runner
        shortcuts = runner.shortcuts() if runner is not None else []
        return [(capitalize_keys(s.key), s.description or s.extension_path) for s in shortcuts if not self._reserved(s.key)]

    def handle_key(self, data: str) -> bool:
        """Run the extension shortcut ``data`` is (while the editor has the focus)."""
        runner = self.runner
        host = self.host
        if runner is None or host.tui.focused is not host.editor:
            return False
        for shortcut in runner.shortcuts():
            if matches_key(data, shortcut.key) and not self._reserved(shortcut.key):
                host.spawn(self._run_shortcut(runner, shortcut.handler))
                return True
        return False

    async def _run_shortcut(self, runner: ExtensionRunner, handler: Callable[..., Any]) -> None:
        try:
            await call_handler(handler, runner.context())
        except Exception as error:
            self.host.transcript.error(f"Shortcut handler error: {error}")

    # ------------------------------------------------------------------ renderings

    def with_entries(self, messages: Sequence[object]) -> list[object]:
        """The session's messages with its ``custom`` entries that have a renderer, in file
        order (when the branch has no compaction, whose summary stands for older entries;
        then those entries come last)."""
        runner = self.runner
        manager = self.host.session.session_manager
        if runner is None or not any(e.entry_renderers for e in runner.extensions):
            return list(messages)
        branch = manager.get_branch()
        custom = [e for e in branch if isinstance(e, CustomEntry) and runner.entry_renderer(e.custom_type)]
        if not custom:
            return list(messages)
        carriers = [e for e in branch if isinstance(e, SessionMessageEntry | CustomMessageEntry | BranchSummaryEntry)]
        if any(isinstance(e, CompactionEntry) for e in branch) or len(carriers) != len(messages):
            return [*messages, *custom]
        items: list[object] = []
        remaining = iter(messages)
        for entry in branch:
            if isinstance(entry, CustomEntry):
                if entry in custom:
                    items.append(entry)
            elif isinstance(entry, SessionMessageEntry | CustomMessageEntry | BranchSummaryEntry):
                items.append(next(remaining))
        return items

    def custom_view(self, item: object) -> Component | None:
        """The view of a custom message or a ``custom`` entry; ``None`` for anything else."""
        if isinstance(item, CustomEntry):
            return self.entry_view(item)
        if not isinstance(item, CustomRoleMessage):
            return None
        message = item
        if not message.display:
            return Container()
        runner = self.runner
        renderer = runner.message_renderer(message.custom_type) if runner is not None else None
        style = self.host.transcript.style

        def report(error: BaseException) -> None:
            if runner is not None:
                runner.report(runner_path(runner, message.custom_type), f"render:{message.custom_type}", error)

        return CustomMessageView(message, renderer, style.theme, style.markdown, report)

    def entry_view(self, entry: Any) -> Component | None:
        runner = self.runner
        renderer = runner.entry_renderer(entry.custom_type) if runner is not None else None
        if renderer is None:
            return None
        view = CustomEntryView(entry, renderer, self.host.theme)
        view.set_expanded(self.host.transcript.style.tools_expanded)
        return view if view.has_content else None

    def entry_appended(self, entry: Any) -> None:
        view = self.entry_view(entry)
        if view is not None:
            self.host.transcript.add(view)

    def tool_view(self, call_id: str, name: str, args: Any, expanded: bool) -> ToolExecutionView | None:
        runner = self.runner
        if runner is None:
            return None
        definition = next((d for d, _ in runner.tools() if d.name == name), None)
        if definition is None or (
            definition.render_call is None and definition.render_result is None and definition.render_shell != "self"
        ):
            return None
        path = next(p for d, p in runner.tools() if d.name == name)
        return ExtensionToolView(definition, call_id, name, args if isinstance(args, dict) else {},
                                 self.host.theme, cwd=self.host.session.cwd, expanded=expanded,
                                 report=lambda event, error: runner.report(path, event, error))  # fmt: skip


def runner_path(runner: ExtensionRunner, custom_type: str) -> str:
    """The extension that registered the renderer of ``custom_type``."""
    return next((e.path for e in runner.extensions if custom_type in e.message_renderers), "extension")
