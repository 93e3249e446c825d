"""``InteractiveMode``: ``pi`` in a terminal, driven by an ``AgentSessionRuntime``.

Session events become transcript components; the editor's submissions become prompts
(queued as steering or follow-up messages while the agent works), ``!cmd``/``!!cmd`` user
commands or slash commands (``commands``); application keys (``_actions``) are checked
before the editor sees a key. When the runtime replaces the session (``/new``,
``/resume``, ``/fork``, ``/clone``, ``/import``, ``/reload``) the screen is rebuilt for the
new one (``rebind``). Its partners (the queue, the indicators, the keys, the extension
bridge and UI, the header, the commands) each see it through a protocol of the few members
they use (``_parts``), so none of them imports this module.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import signal
import sys
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_ai import AssistantMessage, ImageContent, Model, UserMessage, content_text
from pi_coding_agent.app.interactive._actions import AppKeys
from pi_coding_agent.app.interactive._cache_notices import live_notice, stored_notices
from pi_coding_agent.app.interactive._catalog_refresh import start_catalog_refresh
from pi_coding_agent.app.interactive._extension_sources import completion_tag, source_of
from pi_coding_agent.app.interactive._extensions import ExtensionBridge
from pi_coding_agent.app.interactive._extra_usage import ExtraUsageWarning
from pi_coding_agent.app.interactive._indicators import StatusIndicators
from pi_coding_agent.app.interactive._keys import load_keybindings
from pi_coding_agent.app.interactive._layout import Layout
from pi_coding_agent.app.interactive._parts import EditorComponent
from pi_coding_agent.app.interactive._queue import MessageQueue
from pi_coding_agent.app.interactive._screen_settings import (
    TerminalProgress,
    apply_fullscreen_settings,
    apply_image_settings,
    apply_terminal_capabilities,
    style_viewport,
)
from pi_coding_agent.app.interactive._startup_notices import model_scope_line, tmux_keyboard_warning
from pi_coding_agent.app.interactive._startup_resources import StartupResources
from pi_coding_agent.app.interactive._styles import markdown_theme
from pi_coding_agent.app.interactive._terminal_theme import TerminalTheme
from pi_coding_agent.app.interactive._themes import ThemeChoice, load_theme_choice
from pi_coding_agent.app.interactive._transcript import Transcript, TranscriptStyle
from pi_coding_agent.app.interactive._ui import InteractiveUI
from pi_coding_agent.app.interactive.commands import (
    argument_completions,
    command_list,
    is_builtin,
    mcp_command,
    run_command,
    split_command,
    startup_changelog,
)
from pi_coding_agent.app.interactive.components import BashExecutionView, Footer
from pi_coding_agent.customize.themes import Theme
from pi_coding_agent.runtime.agent_session import (
    AgentSessionEvent,
    AgentSettledEvent,
    AutoRetryEndEvent,
    AutoRetryStartEvent,
    CompactionEndEvent,
    CompactionStartEvent,
    QueueUpdateEvent,
    SessionAgentEndEvent,
    SessionError,
    SessionInfoChangedEvent,
    SummarizationRetryEvent,
    ThinkingLevelChangedEvent,
)
from pi_tui import (
    TUI,
    Completer,
    Editor,
    ProcessTerminal,
    Spacer,
    Suggestion,
    Terminal,
    Text,
    TuiMode,
    terminal_safe,
)

if TYPE_CHECKING:
    from pi_coding_agent.runtime.agent_session import AgentSession, AgentSessionRuntime

ReloadResources = Callable[[], list[str]]
"""Re-reads skills, prompt templates and context files for the next session; returns warnings."""


GIT_BRANCH_POLL_S = 0.5


class InteractiveMode:
    def __init__(
        self,
        runtime: AgentSessionRuntime,
        *,
        agent_dir: Path,
        version: str,
        terminal: Terminal | None = None,
        theme_name: str | None = None,
        theme_paths: Sequence[str] = (),
        tui_mode: TuiMode | None = None,
        reload_resources: ReloadResources | None = None,
        trust_on_reload: str | None = None,
        verbose: bool = False,
        startup_resources: StartupResources | None = None,
    ) -> None:
        self.runtime = runtime
        self.trust_on_reload = trust_on_reload
        self.startup_resources = startup_resources or StartupResources()
        self.verbose = verbose
        self.agent_dir = agent_dir
        self.version = version
        self.reload_resources = reload_resources
        settings = runtime.session.settings
        self.terminal = terminal or ProcessTerminal()
        self.keys, key_problem = load_keybindings(agent_dir)
        mode: TuiMode = tui_mode or ("fullscreen" if settings.get("tuiMode") == "fullscreen" else "regular")
        self.tui = TUI(self.terminal, show_hardware_cursor=self._flag("showHardwareCursor"), mode=mode,
                       keybindings=self.keys)  # fmt: skip
        apply_terminal_capabilities(settings)
        self.theme_name_override = theme_name
        self.theme_paths = [Path(p) for p in theme_paths]
        self.themes = self.load_themes()
        self.theme = self.themes.theme()
        style_viewport(self.tui, self.theme, self.keys, self.terminal.write)
        apply_fullscreen_settings(self.tui, settings)
        apply_image_settings(settings)
        self.tui.renderer.clear_on_shrink = settings.clear_on_shrink
        self.progress = TerminalProgress(settings, self.terminal.write)
        self.terminal_theme = TerminalTheme(self)
        self.md_theme = markdown_theme(self.theme, terminal_safe(settings.code_block_indent, keep_sgr=False))
        self.default_editor = self._new_editor()
        self.editor: EditorComponent = self.default_editor
        self.footer = Footer(runtime.session, self.theme)
        self.update_provider_count()
        self.layout = Layout(self.tui, self.default_editor, self.footer)
        style = TranscriptStyle(
            self.theme, self.md_theme, self._flag("hideThinkingBlock"), False, self._output_pad()
        )
        style.show_images = settings.get("terminal", "showImages") is not False
        self.transcript = Transcript(self.layout.chat, style, runtime.session.cwd, self.tui.request_render)
        self.transcript.retry_attempt = lambda: self.session.retry_attempt
        self.transcript.expand_key = self.keys.text("app.tools.expand")
        self.ui = InteractiveUI(self)
        self.queue = MessageQueue(self)
        self.indicators = StatusIndicators(self)
        self.actions = AppKeys(self)
        self.extensions = ExtensionBridge(self)
        self.transcript.custom_view = self.extensions.custom_view
        self.transcript.tool_view = self.extensions.tool_view
        self.pending_bash: list[BashExecutionView] = []
        self.extra_usage = ExtraUsageWarning()
        self.escape_override: Callable[[], None] | None = None
        self.header_expanded = verbose  # as Pi: --verbose starts with the full startup help
        self._exit = asyncio.Event()
        self._exit_code = 0
        self._tasks: set[asyncio.Task[Any]] = set()
        self._problems = [p for p in (key_problem, *self.themes.problems) if p]
        self._unsubscribe = runtime.subscribe(self._on_event)
        runtime.bind_ui(self.ui, "tui")
        runtime.before_session_start = self.ui.reset
        self.tui.add_input_listener(self.extensions.handle_key)
        self.tui.add_input_listener(self.actions.handle)

    @property
    def session(self) -> AgentSession:
        return self.runtime.session

    # ------------------------------------------------------------------ construction helpers

    def _flag(self, key: str) -> bool:
        return self.runtime.session.settings.get(key) is True

    def int_setting(self, key: str, default: int, low: int, high: int) -> int:
        value = self.session.settings.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return max(low, min(high, value))
        return default

    def _output_pad(self) -> int:
        return 0 if self.runtime.session.settings.get("outputPad") == 0 else 1

    def load_themes(self) -> ThemeChoice:
        session = self.runtime.session
        directories = [self.agent_dir / "themes"]
        if session.settings.project_trusted:
            directories.append(Path(session.cwd) / ".pi" / "themes")
        return load_theme_choice(
            session.settings.get("theme"), self.theme_name_override, directories, self.theme_paths
        )

    def _new_editor(self) -> Editor:
        editor = Editor(
            self.keys,
            Completer(self.runtime.session.cwd, self._commands, arguments=self._argument_completions),
            border=self.editor_border_style,
            selected=lambda s: self.theme.fg("accent", s),
            muted=lambda s: self.theme.fg("dim", s),
            max_visible_items=self.int_setting("autocompleteMaxVisible", 5, 3, 20),
            padding_x=self.int_setting("editorPaddingX", 0, 0, 3),
        )
        editor.on_submit = self.on_submit
        editor.on_change = lambda _text: self.tui.request_render()
        return editor

    def _commands(self) -> list[tuple[str, str]]:
        runner = self.session.extensions
        origins = {**(runner.sources if runner is not None else {}), **self.startup_resources.origins}
        return command_list(
            self.session,
            skills=self.session.settings.get("enableSkillCommands") is not False,
            tag=lambda path: completion_tag(source_of(path, origins)),
        )

    def _argument_completions(self, name: str, prefix: str) -> list[Suggestion] | None:
        if is_builtin(name):  # an extension's command of the same name is not offered (Pi's rule)
            return argument_completions(self, name, prefix)
        return self.extensions.argument_completions(name, prefix)  # the bridge comes after the editor

    def editor_border_style(self, text: str) -> str:
        if self.editor.get_text().lstrip().startswith("!"):
            return self.theme.fg("bashMode", text)
        return self.theme.fg(self.theme.thinking_border(self.session.thinking_level), text)

    def editor_history(self, text: str) -> None:
        add = getattr(self.editor, "add_to_history", None)
        if callable(add):
            add(text)

    # ------------------------------------------------------------------ lifecycle

    async def run(
        self, initial_message: str | None = None, initial_images: Sequence[ImageContent] = ()
    ) -> int:
        scope = self._model_scope_notice()
        if scope is not None and self.tui.mode != "fullscreen":
            self.terminal.write(scope + "\r\n")  # above the UI, as Pi prints it
        self.build_header()
        self.render_session()
        for problem in self._problems:
            self.transcript.warning(problem)
        self.warn_extra_usage()
        startup_changelog(self)
        self.tui.start()
        self.tui.set_focus(self.editor)
        self._query_cell_size()
        self.terminal_theme.detect()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGHUP):
            loop.add_signal_handler(signum, self.shutdown, 0)
        await self.extensions.start()
        # in the background, after the first frame (Pi's order)
        start_catalog_refresh(self.session.catalog, self.agent_dir, self.spawn, self._catalog_refreshed)
        git_watch = asyncio.ensure_future(self._watch_git_branch())
        self.spawn(self._warn_about_tmux())
        if initial_message is not None:
            self.start_prompt(initial_message, list(initial_images))
        try:
            await self._exit.wait()
        finally:
            git_watch.cancel()
            for signum in (signal.SIGTERM, signal.SIGHUP):
                loop.remove_signal_handler(signum)
            self.indicators.clear()
            self.progress.stop()
            self.ui.close_selector()
            self.tui.stop(print_transcript=self.session.settings.get("fullscreenExitOutput") != "resume-hint")
            self._unsubscribe()
            await self.runtime.dispose()
            self._print_resume_hint()
        return self._exit_code

    def warn_extra_usage(self, model: Model | None = None) -> None:
        """Pi's Anthropic extra-usage warning, once per run (``_extra_usage``)."""
        self.extra_usage.check(self.session, self.transcript, model)

    def _model_scope_notice(self) -> str | None:
        """``Model scope: ...`` unless ``quietStartup`` (``true``, or Pi 1.6's ``"header"``) hides it."""
        if not self.verbose and self.session.settings.get("quietStartup") not in (None, False):
            return None
        return model_scope_line(self.session.scoped_models, self.keys, self.theme)

    async def _warn_about_tmux(self) -> None:
        warning = await tmux_keyboard_warning()
        if warning is not None:
            self.transcript.warning(warning)

    async def _watch_git_branch(self) -> None:
        """The footer's branch follows a checkout made anywhere (Pi watches git's HEAD and
        reacts within half a second; we look that often)."""
        while True:
            await asyncio.sleep(GIT_BRANCH_POLL_S)
            if self.footer.poll_git_branch():
                self.tui.request_render()

    def shutdown(self, code: int = 0) -> None:
        self._exit_code = code
        self._exit.set()

    def _print_resume_hint(self) -> None:
        """``To resume this session: pi --session <id>`` once the session has a file (Pi's hint)."""
        manager = self.session.session_manager
        path = manager.get_session_file()
        if not manager.is_persisted() or not path or not os.path.exists(path) or not sys.stdout.isatty():
            return
        words = ["pi"]
        if not manager.uses_default_session_dir():
            words += ["--session-dir", shlex.quote(manager.get_session_dir())]
        words += ["--session", manager.get_session_id()]
        sys.stdout.write(f"\x1b[2mTo resume this session:\x1b[22m {' '.join(words)}\n")
        sys.stdout.flush()

    def spawn(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            self.transcript.error(f"{type(task.exception()).__name__}: {task.exception()}")

    # ------------------------------------------------------------------ screen parts

    def build_header(self) -> None:
        header = self.layout.header
        header.clear()
        from pi_coding_agent.app.interactive._header import (
            conflict_sections,
            header_text,
            resource_sections,
        )

        quiet = self.session.settings.get("quietStartup")
        headed = quiet is not True or self.verbose  # Pi 1.6's "header": the header, no listing
        listed = quiet not in (True, "header") or self.verbose
        custom = self.ui.custom_header
        if custom is not None and not headed:
            header.add_child(custom)  # in the quiet header's place, which has nothing around it
        elif custom is not None or headed:
            header.add_child(Spacer(1))
            header.add_child(custom or Text(header_text(self, self.header_expanded), 1, 0))
            header.add_child(Spacer(1))
        if listed and self.startup_resources.context_paths:
            header.add_child(Spacer(1))  # Pi leaves one more line above [Context]
        listing = resource_sections(self, self.header_expanded) if listed else []
        for section in [*listing, *conflict_sections(self, ("Skill conflicts", "Prompt conflicts"))]:
            header.add_child(Text(section, 0, 0))  # the conflicts with quietStartup too, as in Pi
            header.add_child(Spacer(1))
        for part in self.extensions.issues():
            header.add_child(part)
        for section in conflict_sections(self, ("Theme conflicts",)):
            header.add_child(Text(section, 0, 0))
            header.add_child(Spacer(1))
        scope = self._model_scope_notice()
        if scope is not None and self.tui.mode == "fullscreen":  # Pi 1.6: no print on the alternate screen
            header.add_child(Text(scope, 1, 0))
            header.add_child(Spacer(1))

    def render_session(self) -> None:
        """The transcript of the current session from its stored messages."""
        transcript = self.transcript
        transcript.clear()
        transcript.cwd = self.session.cwd
        transcript.render_messages(self.extensions.with_entries(self.session.messages), stored_notices(self.session))
        manager = self.session.session_manager
        if not self.session.settings.project_trusted:
            from pi_coding_agent.core.settings import needs_project_trust

            if needs_project_trust(manager.get_cwd()):
                transcript.warning(
                    "This project is not trusted. Project .pi resources and packages are ignored. "
                    "Use /trust to save a trust decision, then restart pi."
                )
        compactions = sum(1 for entry in manager.get_entries() if entry.type == "compaction")
        if compactions:
            transcript.status(f"Session compacted {'1 time' if compactions == 1 else f'{compactions} times'}")
        for message in self.session.messages:
            if isinstance(message, UserMessage):
                self.editor_history(content_text(message.content, ""))

    def model_choices(self) -> list[Model]:
        """The models to choose from: the scope (``--models``, ``enabledModels``), else every
        available one (Pi's rule for the footer, ``/model`` and its completion)."""
        session = self.session
        return [scoped.model for scoped in session.scoped_models] or session.available_models()

    def update_provider_count(self) -> None:
        """The footer names the provider when the models to choose from come from more than one."""
        self.footer.provider_count = len({model.provider for model in self.model_choices()})
        self.footer.invalidate()

    def _catalog_refreshed(self) -> None:
        self.update_provider_count()
        self.tui.request_render()

    def rebind(self) -> None:
        """The runtime replaced the session: show the new one, reset what belonged to the old
        (the extensions' UI went before the new session started: ``before_session_start``)."""
        self.indicators.clear()
        self.queue.held.clear()
        self.pending_bash.clear()
        self.footer.session = self.session
        self.update_provider_count()
        self.footer.refresh()
        self.build_header()  # its listing is the new session's folder's (another project's, after /resume)
        self.render_session()
        self.queue.refresh()
        self.tui.request_render()

    def restore_editor(self) -> None:
        self.layout.show_in_editor_area(self.editor)
        self.tui.set_focus(self.editor)

    def replace_editor(self, editor: EditorComponent | None) -> None:
        text = self.editor.get_text()
        self.ui.close_selector()
        working = self.indicators.kind == "working"
        self.indicators.clear("working")
        replacement = editor or self.default_editor
        replacement.on_submit = self.on_submit
        replacement.on_change = self.default_editor.on_change
        replacement.set_text(text)
        self.editor = replacement
        self.restore_editor()
        if working:
            self.indicators.working()

    def set_tools_expanded(self, expanded: bool) -> None:
        self.transcript.set_expanded(expanded)
        self.header_expanded = expanded
        self.build_header()
        self.tui.request_render()

    def apply_theme(self, name: str | Theme | None = None) -> None:
        """Switch every component to another theme: each draws itself again in its colours (as
        Pi 1.6 invalidates its UI), so what only the screen holds (extension errors, notices) stays.
        An ordinary frame, not a forced one: a forced frame clears the scrollback, which would wipe
        ``Model scope: ...`` printed above the UI when the terminal reports its colours at start."""
        self.theme.replace_with(name if isinstance(name, Theme) else self.themes.theme(name))
        self.footer.invalidate()
        self.build_header()
        self.tui.invalidate()
        self.queue.refresh()
        self.tui.request_render()

    def choose_theme(self, name: str, *, save: bool) -> str | None:
        """An extension's ``setTheme``: draw with theme ``name`` (``save``: it becomes the
        ``theme`` setting, as picking it in /settings does). A name no theme has falls back to
        ``system`` and gives the problem, as in Pi 1.6."""
        from pi_coding_agent.customize.themes import SYSTEM_THEME

        if name not in self.themes.names():
            self.apply_theme(SYSTEM_THEME)
            return f"there is no theme named '{name}'"
        if save:
            if self.session.settings.get("theme") != name:
                self.session.settings.set_global(("theme",), name)
            self.themes.requested = name
            self.apply_theme()
        else:
            self.apply_theme(name)
        return None

    def _query_cell_size(self) -> None:
        """Where images can be shown, Pi asks for the cell size in pixels to size them."""
        from pi_coding_agent.app.interactive.components import image_protocol, set_cell_size

        if image_protocol() is None:
            return

        def answered(width: int, height: int) -> None:
            set_cell_size(width, height)
            self.tui.request_render(force=True)

        self.tui.query_cell_size(answered)

    # ------------------------------------------------------------------ session events

    def _cache_miss_notice(self, message: object) -> None:
        if isinstance(message, AssistantMessage) and (notice := live_notice(self.session, message)) is not None:
            self.transcript.notice(notice)

    def _on_event(self, event: AgentSessionEvent) -> None:
        self.footer.invalidate()
        kind = getattr(event, "type", "")
        self.progress.on_event(kind)
        if kind == "turn_start":
            self.indicators.working()
        elif isinstance(event, QueueUpdateEvent):
            self.queue.refresh()
        elif isinstance(event, SessionInfoChangedEvent | ThinkingLevelChangedEvent):
            self.tui.request_render()
        elif kind in ("message_start", "message_update", "message_end") or kind.startswith("tool_execution"):
            self.transcript.on_event(event)
            if kind == "message_end":
                self.footer.refresh()
                self._cache_miss_notice(getattr(event, "message", None))
            if kind == "message_start" and getattr(getattr(event, "message", None), "role", "") == "user":
                self.queue.refresh()
        elif isinstance(event, SessionAgentEndEvent):
            self.indicators.clear("working")
            self.transcript.run_ended()
        elif isinstance(event, AgentSettledEvent):
            self._flush_pending_bash()
            self.footer.refresh()
        elif isinstance(event, CompactionStartEvent | CompactionEndEvent):
            self._compaction_event(event)
        elif isinstance(event, AutoRetryStartEvent):
            self.escape_override = self.session.abort_retry
            self.indicators.retrying(event.attempt, event.max_attempts, event.delay_ms)
        elif isinstance(event, AutoRetryEndEvent):
            self.escape_override = None
            self.indicators.clear("retry")
            if not event.success:
                self.transcript.error(
                    f"Retry failed after {event.attempt} attempts: {event.final_error or 'Unknown error'}"
                )
        elif isinstance(event, SummarizationRetryEvent):
            self._summary_retry(event)
        self.tui.request_render()

    def _compaction_event(self, event: CompactionStartEvent | CompactionEndEvent) -> None:
        if isinstance(event, CompactionStartEvent):
            self.escape_override = self.session.abort_compaction
            self.indicators.compacting(event.reason)
            return
        self.escape_override = None
        self.indicators.clear("compaction")
        manual = event.reason == "manual"
        if event.aborted:
            (self.transcript.error if manual else self.transcript.status)(
                "Compaction cancelled" if manual else "Auto-compaction cancelled"
            )
        elif event.result is not None:
            self._show_compacted()
        elif event.error_message:
            if manual:
                self.transcript.error(event.error_message)
            else:
                self.transcript.add(Text(self.theme.fg("error", event.error_message), 1, 0))
        self.spawn(self.queue.flush_held(event.will_retry))

    def _show_compacted(self) -> None:
        """The transcript after a compaction, as Pi redraws it: the kept messages, then the
        new summary card below them (where it happened in time)."""
        messages = list(self.session.messages)
        # The summary follows the compaction's checkpoint of the prompt and tools, when it has one.
        at = next((i for i, message in enumerate(messages) if message.role == "compactionSummary"), None)
        self.transcript.clear()
        if at is None:
            self.transcript.render_messages(messages)
        else:
            self.transcript.render_messages(messages[:at] + messages[at + 1 :])
            self.transcript.add_message(messages[at])
        self.footer.refresh()

    def _summary_retry(self, event: SummarizationRetryEvent) -> None:
        fields = event.fields
        if event.kind == "summarization_retry_scheduled":
            self.transcript.error(str(fields.get("errorMessage", "")))
            self.indicators.retrying(int(fields.get("attempt", 1)), int(fields.get("maxAttempts", 1)),
                                     int(fields.get("delayMs", 0)))  # fmt: skip
        elif event.kind == "summarization_retry_attempt_start":
            if fields.get("source") == "branchSummary":
                self.indicators.summarizing()
            else:
                self.indicators.compacting(str(fields.get("reason", "manual")))
        else:
            self.indicators.clear("retry")

    # ------------------------------------------------------------------ submissions

    def on_submit(self, raw: str) -> None:
        text = raw.strip()
        if not text:
            return
        command = split_command(text) or mcp_command(self.session, text)
        if command is not None:
            self.editor_history(text)
            self.editor.set_text("")
            self.spawn(self.run_command(*command))
            return
        if text.startswith("!"):
            exclude = text.startswith("!!")
            bash_command = text[2:].strip() if exclude else text[1:].strip()
            if bash_command:
                self._user_bash(bash_command, exclude, text)
                return
        if self.session.is_compacting or self.session.is_streaming:
            self.queue.submit(text, "steer")
            return
        self._flush_pending_bash()
        self.editor_history(text)
        self.editor.set_text("")
        self.start_prompt(text)

    async def run_command(self, name: str, arguments: str) -> None:
        """Run the built-in slash command ``name``."""
        await run_command(self, name, arguments)

    def start_prompt(
        self, text: str, images: Sequence[ImageContent] = (), on_accepted: Callable[[], None] | None = None
    ) -> None:
        async def run() -> None:
            try:
                await self.session.prompt(
                    text,
                    list(images),
                    on_accepted=None if on_accepted is None else lambda _disposition: on_accepted(),
                )
            except SessionError as error:
                self.transcript.error(str(error))

        self.spawn(run())

    def _user_bash(self, command: str, exclude: bool, text: str) -> None:
        session = self.session
        if session.is_bash_running:
            self.transcript.warning("A bash command is already running. Press Esc to cancel it first.")
            return
        self.editor_history(text)
        self.editor.set_text("")
        view = BashExecutionView(command, self.theme, exclude, self.tui.request_render)
        view.set_expanded(self.transcript.style.tools_expanded)
        view.start()
        held = session.is_streaming
        if held:
            self.pending_bash.append(view)  # shown below the answer, stored once the run settles
            self.queue.refresh()
        else:
            self.transcript.add(view)

        def chunk(delta: str) -> None:
            view.append_output(delta)
            self.tui.request_render()

        async def run() -> None:
            try:
                result = await session.execute_bash(command, exclude_from_context=exclude, on_chunk=chunk)
            except (OSError, SessionError) as error:
                self.transcript.error(f"Bash command failed: {error}")
                return
            from pi_coding_agent.core.bash import bash_execution_message

            view.finish(bash_execution_message(command, result, exclude_from_context=exclude))
            if held and not session.is_streaming:
                self._flush_pending_bash()
            self.tui.request_render()

        self.spawn(run())

    def _flush_pending_bash(self) -> None:
        for view in self.pending_bash:
            self.transcript.add(view)
        self.pending_bash.clear()
        self.queue.refresh()


__all__ = ["InteractiveMode", "ReloadResources"]
