"""``InteractiveMode``: ``pi`` in a terminal, driven by an ``AgentSession``.

Session events become transcript components (user and assistant messages, tool runs,
retries, errors); the editor's submissions become prompts, ``!cmd``/``!!cmd`` user
commands or slash commands. Escape aborts the running answer (and a running user
command), Ctrl+C clears the editor and quits when pressed twice, Ctrl+D quits on an
empty editor, Ctrl+Z suspends.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_agent import (
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
)
from pi_ai import AssistantMessage, ImageContent, TextContent, ToolCall, ToolResultMessage, UserMessage
from pi_coding_agent.agent_session import (
    AgentSettledEvent,
    AutoRetryEndEvent,
    AutoRetryStartEvent,
    SessionError,
    SessionEvent,
    ThinkingLevelChangedEvent,
)
from pi_coding_agent.messages import BashExecutionMessage, BranchSummaryMessage, CompactionSummaryMessage
from pi_coding_agent.modes.interactive._commands import BUILTIN_COMMANDS, READY, split_command
from pi_coding_agent.modes.interactive._keys import load_keybindings
from pi_coding_agent.modes.interactive._layout import Layout
from pi_coding_agent.modes.interactive._styles import markdown_theme
from pi_coding_agent.modes.interactive.components import (
    AssistantMessageView,
    BashExecutionView,
    Footer,
    SummaryCard,
    ToolExecutionView,
    UserMessageView,
    notice,
)
from pi_coding_agent.modes.interactive.theme import Theme, ThemeError, builtin_theme, discover_themes
from pi_coding_agent.tui import TUI, Completer, Editor, Loader, ProcessTerminal, Spacer, Terminal, Text

if TYPE_CHECKING:
    from pi_coding_agent.agent_session import AgentSession

DOUBLE_PRESS_SECONDS = 0.5


class InteractiveMode:
    def __init__(
        self,
        session: AgentSession,
        *,
        agent_dir: Path,
        version: str,
        terminal: Terminal | None = None,
        theme_name: str | None = None,
    ) -> None:
        self.session = session
        self.agent_dir = agent_dir
        self.version = version
        self.terminal = terminal or ProcessTerminal()
        self.tui = TUI(self.terminal, show_hardware_cursor=_flag(session, "showHardwareCursor"))
        self.keys, key_problem = load_keybindings(agent_dir)
        self.theme, theme_problems = _choose_theme(session, agent_dir, theme_name)
        self.md_theme = markdown_theme(self.theme)
        self.hide_thinking = _flag(session, "hideThinkingBlock")
        self.tools_expanded = False
        self.editor = Editor(
            self.keys,
            Completer(session.cwd, self._command_list),
            border=self._border_style,
            selected=lambda s: self.theme.fg("accent", s),
            muted=lambda s: self.theme.fg("dim", s),
            max_visible_items=_int_setting(session, "autocompleteMaxVisible", 5, 3, 20),
            padding_x=_int_setting(session, "editorPaddingX", 0, 0, 3),
        )
        self.editor.on_submit = self._on_submit
        self.footer = Footer(session, self.theme)
        self.footer.provider_count = len({m.provider for m in session.catalog.available()})
        self.layout = Layout(self.tui, self.editor, self.footer)
        self._streaming: AssistantMessageView | None = None
        self._tools: dict[str, ToolExecutionView] = {}
        self._expandables: list[Any] = []
        self._loader: Loader | None = None
        self._exit = asyncio.Event()
        self._exit_code = 0
        self._last_ctrl_c = 0.0
        self._last_escape = 0.0
        self._tasks: set[asyncio.Task[None]] = set()
        self._problems = [p for p in (key_problem, *theme_problems) if p]
        self._unsubscribe = session.subscribe(self._on_event)
        self.tui.add_input_listener(self._app_key)

    # ------------------------------------------------------------------ lifecycle

    async def run(
        self, initial_message: str | None = None, initial_images: Sequence[ImageContent] = ()
    ) -> int:
        self._build_header()
        self._render_history()
        self.layout.status.children = [Spacer(1)]
        for problem in self._problems:
            self._add(notice(f"Warning: {problem}", self.theme, "warning"))
        self.tui.start()
        self.tui.set_focus(self.editor)
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGHUP):
            loop.add_signal_handler(signum, self.shutdown, 128 + signum)
        if initial_message is not None:
            self._start_prompt(initial_message, list(initial_images))
        try:
            await self._exit.wait()
        finally:
            for signum in (signal.SIGTERM, signal.SIGHUP):
                loop.remove_signal_handler(signum)
            if self._loader is not None:
                self._loader.stop()
            self.tui.stop()
            self._unsubscribe()
            self.session.dispose()
        return self._exit_code

    def shutdown(self, code: int = 0) -> None:
        self._exit_code = code
        self._exit.set()

    def _build_header(self) -> None:
        if _flag(self.session, "quietStartup"):
            return
        theme = self.theme
        hints = " · ".join(
            (
                f"{theme.fg('dim', 'escape')} interrupt",
                f"{theme.fg('dim', 'ctrl+c/ctrl+d')} clear/exit",
                f"{theme.fg('dim', '/')} commands",
                f"{theme.fg('dim', '!')} bash",
                f"{theme.fg('dim', 'ctrl+o')} more",
            )
        )
        self.layout.header.add_child(Spacer(1))
        self.layout.header.add_child(
            Text(theme.bold(theme.fg("accent", "pi")) + theme.fg("dim", f" v{self.version}"), 1, 0)
        )
        self.layout.header.add_child(Text(hints, 1, 0))
        self.layout.header.add_child(Spacer(1))

    def _render_history(self) -> None:
        for message in self.session.agent.state.messages:
            if isinstance(message, UserMessage):
                self._add(UserMessageView(_user_text(message), self.theme, self.md_theme))
            elif isinstance(message, AssistantMessage):
                view = AssistantMessageView(self.theme, self.md_theme, self.hide_thinking)
                view.update(message)
                self._add(view)
                for block in message.content:
                    if isinstance(block, ToolCall):
                        self._tool_view(block.id, block.name, block.arguments)
            elif isinstance(message, ToolResultMessage):
                tool = self._tools.pop(message.tool_call_id, None)
                if tool is not None:
                    tool.set_result(list(message.content), message.details, message.is_error, False)
            else:
                self._add_special(message)
        self._tools.clear()

    def _add_special(self, message: object) -> None:
        if isinstance(message, BashExecutionMessage):
            view = BashExecutionView(message.command, self.theme, bool(message.exclude_from_context))
            view.finish(message)
            self._add(view, expandable=True)
        elif isinstance(message, CompactionSummaryMessage):
            label = f"[compaction] Compacted from {message.tokens_before:,} tokens"
            self._add(SummaryCard(label, message.summary, self.theme, self.md_theme), expandable=True)
        elif isinstance(message, BranchSummaryMessage):
            self._add(
                SummaryCard("[branch summary]", message.summary, self.theme, self.md_theme), expandable=True
            )

    def _add(self, component: Any, expandable: bool = False) -> None:
        self.layout.chat.add_child(component)
        if expandable:
            self._expandables.append(component)
            component.set_expanded(self.tools_expanded)
        self.tui.request_render()

    def _border_style(self, text: str) -> str:
        if self.editor.get_raw_text().lstrip().startswith("!"):
            return self.theme.fg("bashMode", text)
        return self.theme.fg(self.theme.thinking_border(self.session.thinking_level), text)

    def _command_list(self) -> list[tuple[str, str]]:
        return list(BUILTIN_COMMANDS)

    # ------------------------------------------------------------------ session events

    def _on_event(self, event: SessionEvent) -> None:
        if isinstance(event, MessageStartEvent):
            self._message_start(event.message)
        elif isinstance(event, MessageUpdateEvent):
            self._message_update(event.message)
        elif isinstance(event, MessageEndEvent):
            self._message_end(event.message)
        elif isinstance(event, ToolExecutionStartEvent):
            self._tool_view(event.tool_call_id, event.tool_name, event.args).mark_started()
        elif isinstance(event, ToolExecutionUpdateEvent):
            view = self._tools.get(event.tool_call_id)
            partial = event.partial_result
            if view is not None and partial is not None:
                view.set_result(list(partial.content), partial.details, False, True)
        elif isinstance(event, ToolExecutionEndEvent):
            view = self._tools.pop(event.tool_call_id, None)
            if view is not None:
                view.set_result(list(event.result.content), event.result.details, event.is_error, False)
        elif isinstance(event, AutoRetryStartEvent):
            seconds = event.delay_ms / 1000
            self._set_working(
                f"Retrying ({event.attempt}/{event.max_attempts}) in {seconds:g}s... {event.error_message}"
            )
        elif isinstance(event, AutoRetryEndEvent) and not event.success:
            self._add(
                notice(
                    f"Retry failed after {event.attempt} attempts: {event.final_error}", self.theme, "error"
                )
            )
        elif isinstance(event, ThinkingLevelChangedEvent):
            self.footer.invalidate()
        elif isinstance(event, AgentSettledEvent):
            self._set_working(None)
            self._tools.clear()
            self._flush_pending_bash()
            self.footer.refresh()
        elif getattr(event, "type", "") == "agent_start":
            self._set_working("Working...")
        self.tui.request_render()

    def _message_start(self, message: object) -> None:
        if isinstance(message, UserMessage):
            self._add(UserMessageView(_user_text(message), self.theme, self.md_theme))
        elif isinstance(message, AssistantMessage):
            self._streaming = AssistantMessageView(self.theme, self.md_theme, self.hide_thinking)
            self._add(self._streaming)
            self._streaming.update(message)

    def _message_update(self, message: object) -> None:
        if self._streaming is None or not isinstance(message, AssistantMessage):
            return
        self._streaming.update(message)
        for block in message.content:
            if isinstance(block, ToolCall):
                view = self._tools.get(block.id)
                if view is None:
                    self._tool_view(block.id, block.name, block.arguments)
                else:
                    view.update_args(block.arguments)

    def _message_end(self, message: object) -> None:
        if isinstance(message, AssistantMessage) and self._streaming is not None:
            self._streaming.update(message)
            if message.stop_reason in ("error", "aborted"):
                text = message.error_message or (
                    "Operation aborted" if message.stop_reason == "aborted" else "Error"
                )
                for view in self._tools.values():
                    view.set_result([TextContent(text=text)], None, True, False)
                self._tools.clear()
            self._streaming = None
            self.footer.refresh()
        elif (
            not isinstance(message, UserMessage | AssistantMessage)
            and getattr(message, "role", "") != "toolResult"
        ):
            self._add_special(message)

    def _tool_view(self, call_id: str, name: str, args: Any) -> ToolExecutionView:
        view = self._tools.get(call_id)
        if view is None:
            view = ToolExecutionView(name, args, self.theme, self.session.cwd, expanded=self.tools_expanded)
            self._tools[call_id] = view
            self._add(view, expandable=True)
        return view

    def _set_working(self, message: str | None) -> None:
        status = self.layout.status
        if message is None:
            if self._loader is not None:
                self._loader.stop()
                self._loader = None
            status.children = [Spacer(1)]
            return
        if self._loader is None:
            self._loader = Loader(
                message,
                self.tui.request_render,
                spinner_style=lambda s: self.theme.fg("accent", s),
                message_style=lambda s: self.theme.fg("muted", s),
            )
            status.children = [Spacer(1), self._loader]
            self._loader.start()
        self._loader.message = f"{message} ({self.keys.describe('app.interrupt')} to interrupt)"

    # ------------------------------------------------------------------ keys

    def _app_key(self, data: str) -> bool:
        """Application keys, checked before the editor sees the input (Pi's ``CustomEditor``)."""
        keys = self.keys
        if self.tui.focused is not self.editor:
            return False
        if keys.matches(data, "app.interrupt") and not self.editor.completion_open:
            self._on_escape()
            return True
        if keys.matches(data, "app.clear"):
            self._on_ctrl_c()
            return True
        if keys.matches(data, "app.exit") and not self.editor.get_raw_text():
            self.shutdown(0)
            return True
        if keys.matches(data, "app.suspend"):
            self._suspend()
            return True
        if keys.matches(data, "app.thinking.cycle"):
            self._cycle_thinking()
            return True
        if keys.matches(data, "app.tools.expand"):
            self.tools_expanded = not self.tools_expanded
            for component in self._expandables:
                component.set_expanded(self.tools_expanded)
            return True
        if keys.matches(data, "app.thinking.toggle"):
            self.hide_thinking = not self.hide_thinking
            for component in self.layout.chat.children:
                if isinstance(component, AssistantMessageView):
                    component.set_hide_thinking(self.hide_thinking)
            return True
        if keys.matches(data, "app.editor.external"):
            self._external_editor()
            return True
        for action, what in (
            ("app.model.select", "the model selector"),
            ("app.model.cycleForward", "model cycling"),
            ("app.model.cycleBackward", "model cycling"),
            ("app.message.followUp", "follow-up messages"),
            ("app.message.dequeue", "the message queue"),
        ):
            if keys.matches(data, action):
                self._status(f"{what} is not available yet in this version")
                return True
        return False

    def _on_escape(self) -> None:
        session = self.session
        if session.is_bash_running:
            session.abort_bash()
        elif session.is_streaming:
            self._spawn(session.abort())
        else:
            now = time.monotonic()
            if self.editor.get_raw_text() == "" and now - self._last_escape < DOUBLE_PRESS_SECONDS:
                self._status("/tree is not available yet in this version")
            self._last_escape = now

    def _on_ctrl_c(self) -> None:
        now = time.monotonic()
        if now - self._last_ctrl_c < DOUBLE_PRESS_SECONDS:
            self.shutdown(0)
            return
        self._last_ctrl_c = now
        self.editor.clear()

    def _cycle_thinking(self) -> None:
        levels = self.session.available_thinking_levels()
        if self.session.model is None or not self.session.model.reasoning or len(levels) < 2:
            self._status("Current model does not support thinking")
            return
        current = self.session.thinking_level
        following = levels[(levels.index(current) + 1) % len(levels)] if current in levels else levels[0]
        self.session.set_thinking_level(following)
        self._status(f"Thinking level: {following}")
        self.footer.invalidate()

    def _suspend(self) -> None:
        terminal = self.terminal
        if not isinstance(terminal, ProcessTerminal):
            return
        terminal.suspend()
        os.kill(os.getpid(), signal.SIGSTOP)
        terminal.resume()  # runs once the shell's ``fg`` continued us
        self.tui.request_render(force=True)

    def _external_editor(self) -> None:
        from pi_coding_agent.modes.interactive._external_editor import edit_externally

        terminal = self.terminal
        if isinstance(terminal, ProcessTerminal):
            terminal.suspend()
        try:
            text = edit_externally(self.editor.get_raw_text(), self.session.settings.get("externalEditor"))
        finally:
            if isinstance(terminal, ProcessTerminal):
                terminal.resume()
            self.tui.request_render(force=True)
        if text is None:
            self._status("External editor failed or was cancelled")
        else:
            self.editor.set_text(text.removesuffix("\n"))

    def _status(self, text: str) -> None:
        self._add(notice(text, self.theme, "dim"))

    # ------------------------------------------------------------------ submissions

    def _on_submit(self, raw: str) -> None:
        text = raw.strip()
        if not text:
            return
        command = split_command(text)
        if command is not None:
            self._slash_command(*command, text)
            return
        if text.startswith("!"):
            exclude = text.startswith("!!")
            bash_command = text[2:].strip() if exclude else text[1:].strip()
            if bash_command:
                self._user_bash(bash_command, exclude, text)
                return
        if self.session.is_streaming:
            self._status(
                "The agent is still answering; queued messages (steer/follow-up) come in a later version"
            )
            return
        self.editor.add_to_history(text)
        self.editor.clear()
        self._start_prompt(text, [])

    def _start_prompt(self, text: str, images: list[ImageContent]) -> None:
        async def run() -> None:
            try:
                await self.session.prompt(text, images)
            except SessionError as error:
                self._add(notice(str(error), self.theme, "error"))

        self._spawn(run())

    def _slash_command(self, name: str, args: str, text: str) -> None:
        self.editor.add_to_history(text)
        self.editor.clear()
        if name == "quit":
            self.shutdown(0)
        elif name == "thinking" and args:
            self.session.set_thinking_level(args)
            self._status(f"Thinking level: {self.session.thinking_level}")
        elif name == "hotkeys":
            self._add(notice(_hotkeys(self.keys), self.theme, "text"))
        elif name not in READY or name == "thinking":
            self._status(f"/{name} is not available yet in this version")

    def _user_bash(self, command: str, exclude: bool, text: str) -> None:
        session = self.session
        if session.is_bash_running:
            self._add(
                notice(
                    "A bash command is already running. Press Esc to cancel it first.", self.theme, "warning"
                )
            )
            return
        self.editor.add_to_history(text)
        self.editor.clear()
        view = BashExecutionView(command, self.theme, exclude)
        if session.is_streaming:
            self.layout.pending.add_child(view)  # shown below the answer until the run settles
        else:
            self._add(view, expandable=True)

        def chunk(delta: str) -> None:
            view.append_output(delta)
            self.tui.request_render()

        async def run() -> None:
            result = await session.execute_bash(command, exclude_from_context=exclude, on_chunk=chunk)
            from pi_coding_agent.bash import bash_execution_message

            view.finish(bash_execution_message(command, result, exclude_from_context=exclude))
            if view in self.layout.pending.children and not session.is_streaming:
                self._flush_pending_bash()
            self.tui.request_render()

        self._spawn(run())

    def _flush_pending_bash(self) -> None:
        for view in list(self.layout.pending.children):
            self.layout.pending.remove_child(view)
            self._add(view, expandable=True)

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _user_text(message: UserMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    return "\n".join(block.text for block in message.content if isinstance(block, TextContent))


def _flag(session: AgentSession, key: str) -> bool:
    return session.settings.get(key) is True


def _int_setting(session: AgentSession, key: str, default: int, low: int, high: int) -> int:
    value = session.settings.get(key)
    if isinstance(value, int) and not isinstance(value, bool):
        return max(low, min(high, value))
    return default


def _hotkeys(keys: Any) -> str:
    rows = [
        ("Submit", "tui.input.submit"), ("New line", "tui.input.newLine"), ("Interrupt", "app.interrupt"),
        ("Clear / exit", "app.clear"), ("Exit (empty editor)", "app.exit"), ("Suspend", "app.suspend"),
        ("Cycle thinking level", "app.thinking.cycle"), ("Expand tools", "app.tools.expand"),
        ("Toggle thinking", "app.thinking.toggle"), ("External editor", "app.editor.external"),
        ("Undo", "tui.editor.undo"), ("Yank", "tui.editor.yank"),
    ]  # fmt: skip
    return "\n".join(f"{label:<22} {', '.join(keys.keys(action))}" for label, action in rows)


def _choose_theme(session: AgentSession, agent_dir: Path, requested: str | None) -> tuple[Theme, list[str]]:
    """The theme named on the command line or in settings (``dark`` when none), and problems found."""
    name = requested or session.settings.get("theme") or "dark"
    if not isinstance(name, str):
        name = "dark"
    name = name.split("/")[-1] if "/" in name else name
    problems: list[str] = []
    if name in ("dark", "light"):
        return builtin_theme(name), problems
    directories = [agent_dir / "themes"]
    if session.settings.project_trusted:
        directories.append(Path(session.cwd) / ".pi" / "themes")
    try:
        themes, problems = discover_themes(directories)
    except ThemeError as error:
        themes, problems = {}, [str(error)]
    if name in themes:
        return themes[name], problems
    problems.append(
        f"theme '{name}' not found (looked in {', '.join(str(d) for d in directories)}); using dark"
    )
    return builtin_theme("dark"), problems
