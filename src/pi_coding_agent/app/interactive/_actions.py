"""Application keys, checked before the editor sees a key (Pi's ``CustomEditor`` actions).

They act only while the editor has the focus (a selector or dialog gets its keys itself).
Escape aborts what runs (the answer, restoring queued messages into the editor; a retry
wait; a compaction; a branch summary; a user command), leaves bash host, and pressed twice
on an empty editor opens ``/tree`` (or ``/fork``, setting ``doubleEscapeAction``). Ctrl+C
clears the editor and quits when pressed twice; Ctrl+D quits on an empty editor; Ctrl+Z
suspends. The rest: Shift+Tab thinking level, Ctrl+P/Shift+Ctrl+P models, Ctrl+L model
picker, Ctrl+O tool output, Ctrl+T thinking blocks, Ctrl+G external editor, Ctrl+X copy,
Alt+Enter follow-up, Alt+Up take the queue back, Ctrl+V paste an image.
"""

from __future__ import annotations

import os
import signal
import tempfile
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from pi_coding_agent.app.interactive._clipboard import EXTENSIONS, read_clipboard_image, read_clipboard_text
from pi_coding_agent.runtime.agent_session import ModelChangeError
from pi_tui import ProcessTerminal

if TYPE_CHECKING:
    from pi_ai import Model
    from pi_coding_agent.app.interactive._parts import EditorComponent, Spawn
    from pi_coding_agent.app.interactive._queue import MessageQueue
    from pi_coding_agent.app.interactive._transcript import Transcript
    from pi_coding_agent.app.interactive.components import Footer
    from pi_coding_agent.runtime.agent_session import AgentSession
    from pi_tui import TUI, Keybindings, Terminal

DOUBLE_PRESS_SECONDS = 0.5


class KeysHost(Protocol):
    """What the application keys act on."""

    @property
    def session(self) -> AgentSession: ...
    @property
    def editor(self) -> EditorComponent: ...
    @property
    def keys(self) -> Keybindings: ...
    @property
    def tui(self) -> TUI: ...
    @property
    def terminal(self) -> Terminal: ...
    @property
    def transcript(self) -> Transcript: ...
    @property
    def footer(self) -> Footer: ...
    @property
    def queue(self) -> MessageQueue: ...
    @property
    def escape_override(self) -> Callable[[], None] | None: ...
    @property
    def spawn(self) -> Spawn: ...
    def warn_extra_usage(self, model: Model | None = None) -> None: ...
    def shutdown(self, code: int = 0) -> None: ...
    def on_submit(self, raw: str) -> None: ...
    def set_tools_expanded(self, expanded: bool) -> None: ...
    async def run_command(self, name: str, arguments: str) -> None: ...


class AppKeys:
    def __init__(self, host: KeysHost) -> None:
        self.host = host
        self._last_ctrl_c = 0.0
        self._last_escape = 0.0
        self._table: dict[str, Callable[[], None]] = {
            "app.clear": self._ctrl_c,
            "app.suspend": self._suspend,
            "app.thinking.cycle": self._cycle_thinking,
            "app.model.cycleForward": lambda: host.spawn(self._cycle_model("forward")),
            "app.model.cycleBackward": lambda: host.spawn(self._cycle_model("backward")),
            "app.model.select": lambda: host.spawn(host.run_command("model", "")),
            "app.tools.expand": self._toggle_tools,
            "app.thinking.toggle": self._toggle_thinking,
            "app.editor.external": self._external_editor,
            "app.message.copy": self._copy,
            "app.message.followUp": self._follow_up,
            "app.message.dequeue": host.queue.dequeue,
            "app.clipboard.pasteImage": self._paste_image,
            "app.session.new": lambda: host.spawn(host.run_command("new", "")),
            "app.session.tree": lambda: host.spawn(host.run_command("tree", "")),
            "app.session.fork": lambda: host.spawn(host.run_command("fork", "")),
            "app.session.resume": lambda: host.spawn(host.run_command("resume", "")),
        }

    def _copy(self) -> None:
        """Ctrl+X: the fullscreen selection when it is not copied on release (Pi's
        ``fullscreenCopyOnSelect: false``), else the last answer (``/copy``)."""
        tui = self.host.tui
        if tui.mode == "fullscreen" and not tui.viewport.copy_on_select and tui.viewport.copy_selection():
            return
        self.host.spawn(self.host.run_command("copy", ""))

    def handle(self, data: str) -> bool:
        host = self.host
        keys = host.keys
        if host.tui.focused is not host.editor:
            return False
        if keys.matches(data, "tui.editor.historyPrevious") or keys.matches(data, "tui.editor.historyNext"):
            return False  # an explicit history binding wins over app actions in the editor
        if keys.matches(data, "app.interrupt"):
            if getattr(host.editor, "completion_open", False):
                return False
            self.escape()
            return True
        if keys.matches(data, "app.exit"):
            if host.editor.get_text():
                return False
            host.shutdown(0)
            return True
        action = keys.action_for(data, tuple(self._table))
        if action is None:
            return False
        self._table[action]()
        return True

    # ------------------------------------------------------------------ stopping and leaving

    def escape(self) -> None:
        host = self.host
        session = host.session
        if host.escape_override is not None:
            host.escape_override()
        elif session.is_streaming:
            host.queue.take_back(abort=True)
        elif session.is_bash_running:
            session.abort_bash()
        elif host.editor.get_text().lstrip().startswith("!"):
            host.editor.set_text("")
        elif not host.editor.get_text().strip():
            action = session.settings.get("doubleEscapeAction") or "tree"
            if action == "none":
                return
            now = time.monotonic()
            if now - self._last_escape < DOUBLE_PRESS_SECONDS:
                self._last_escape = 0.0
                host.spawn(host.run_command("tree" if action == "tree" else "fork", ""))
            else:
                self._last_escape = now

    def _ctrl_c(self) -> None:
        now = time.monotonic()
        if now - self._last_ctrl_c < DOUBLE_PRESS_SECONDS:
            self.host.shutdown(0)
            return
        self._last_ctrl_c = now
        self.host.editor.set_text("")

    def _suspend(self) -> None:
        terminal = self.host.terminal
        if not isinstance(terminal, ProcessTerminal):
            return
        terminal.suspend()
        os.kill(0, signal.SIGTSTP)  # the whole process group, as Pi does; the shell takes the terminal
        terminal.resume()  # runs once the shell's ``fg`` continued us
        self.host.tui.request_render(force=True)

    # ------------------------------------------------------------------ display and models

    def _cycle_thinking(self) -> None:
        host = self.host
        level = host.session.cycle_thinking_level()
        if level is None:
            host.transcript.status("Current model does not support thinking")
        else:
            host.footer.invalidate()
            host.transcript.status(f"Thinking level: {level}")

    async def _cycle_model(self, direction: str) -> None:
        host = self.host
        try:
            result = await host.session.cycle_model("forward" if direction == "forward" else "backward")
        except ModelChangeError as error:
            host.transcript.error(str(error))
            return
        if result is None:
            host.transcript.status(
                "Only one model in scope" if host.session.scoped_models else "Only one model available"
            )
            return
        host.footer.invalidate()
        model = result.model
        thinking = (
            f" (thinking: {result.thinking_level})"
            if model.reasoning and result.thinking_level != "off"
            else ""
        )
        host.transcript.status(f"Switched to {model.name or model.id}{thinking}")
        host.warn_extra_usage(model)

    def _toggle_tools(self) -> None:
        host = self.host
        expanded = not host.transcript.style.tools_expanded
        host.set_tools_expanded(expanded)
        host.transcript.status(f"Tool output: {'expanded' if expanded else 'collapsed'}")

    def _toggle_thinking(self) -> None:
        host = self.host
        hide = not host.transcript.style.hide_thinking
        host.transcript.set_hide_thinking(hide)
        host.session.settings.set_global(("hideThinkingBlock",), hide)
        host.transcript.status(f"Thinking blocks: {'hidden' if hide else 'visible'}")

    # ------------------------------------------------------------------ editor

    def _follow_up(self) -> None:
        host = self.host
        text = host.editor.get_text().strip()
        if not text:
            return
        if host.session.is_streaming or host.session.is_compacting:
            host.queue.submit(text, "followUp")
        else:
            host.editor.set_text("")
            host.on_submit(text)

    def _external_editor(self) -> None:
        from pi_coding_agent.app.interactive._external_editor import edit_externally

        host = self.host
        terminal = host.terminal
        if isinstance(terminal, ProcessTerminal):
            terminal.suspend()
        try:
            text = edit_externally(host.editor.get_text(), host.session.settings.get("externalEditor"))
        finally:
            if isinstance(terminal, ProcessTerminal):
                terminal.resume()
            host.tui.request_render(force=True)
        if text is not None:
            host.editor.set_text(text.removesuffix("\n"))

    def _paste_image(self) -> None:
        """Ctrl+V: an image on the clipboard is saved to a temporary file whose path goes into
        the editor (the model reads it with the read tool); otherwise the clipboard's text."""
        image = read_clipboard_image()
        if image is not None:
            data, mime = image
            path = os.path.join(tempfile.gettempdir(), f"pi-clipboard-{uuid.uuid4()}.{EXTENSIONS[mime]}")
            with open(path, "wb") as file:
                file.write(data)
            self._insert(path)
            return
        text = read_clipboard_text()
        if text:
            self._insert(text)

    def _insert(self, text: str) -> None:
        editor = self.host.editor
        insert = getattr(editor, "insert_text", None)
        if callable(insert):
            insert(text)
        else:
            editor.set_text(editor.get_text() + text)
