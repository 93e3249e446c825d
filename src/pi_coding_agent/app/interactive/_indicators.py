"""The spinner lines: working (drawn in the editor's top border, as Pi does), retrying with a
countdown, compacting, summarizing a branch (in the status area above the editor)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Protocol

from pi_tui import Loader

if TYPE_CHECKING:
    from pi_coding_agent.app.interactive._layout import Layout
    from pi_coding_agent.app.interactive._parts import EditorComponent
    from pi_coding_agent.customize.themes import Theme
    from pi_coding_agent.runtime.agent_session import AgentSession
    from pi_tui import TUI, Keybindings

DEFAULT_WORKING_MESSAGE = "Working"


class IndicatorHost(Protocol):
    """What the indicators draw with: the status area and the editor whose border shows
    the working line, in the editor border's style."""

    @property
    def session(self) -> AgentSession: ...
    @property
    def editor(self) -> EditorComponent: ...
    @property
    def layout(self) -> Layout: ...
    @property
    def tui(self) -> TUI: ...
    @property
    def theme(self) -> Theme: ...
    @property
    def keys(self) -> Keybindings: ...
    def editor_border_style(self, text: str) -> str: ...


class StatusIndicators:
    def __init__(self, host: IndicatorHost) -> None:
        self.host = host
        self.kind: str | None = None
        self.loader: Loader | None = None
        self.working_message: str | None = None
        self.working_visible = True
        self._countdown: asyncio.TimerHandle | None = None

    def show(self, kind: str, message: str, spinner: str = "accent") -> None:
        self.clear()
        host = self.host
        theme = host.theme
        border = host.editor_border_style if kind == "working" else None
        loader = Loader(
            message,
            host.tui.request_render,
            spinner_style=border or (lambda s: theme.fg(spinner, s)),
            message_style=border or (lambda s: theme.fg("muted", s)),
        )
        self.kind, self.loader = kind, loader
        loader.start()
        editor = host.editor
        if kind == "working" and hasattr(editor, "border_status"):
            editor.border_status = loader.inline
        else:
            host.layout.status.children = [loader]
        host.tui.request_render()

    def clear(self, kind: str | None = None) -> None:
        if kind is not None and kind != self.kind:
            return
        if self.loader is not None:
            self.loader.stop()
        if self._countdown is not None:
            self._countdown.cancel()
            self._countdown = None
        self.kind = self.loader = None
        host = self.host
        if hasattr(host.editor, "border_status"):
            host.editor.border_status = None
        host.layout.status.children = []
        host.tui.request_render()

    def working(self) -> None:
        if self.working_visible:
            if self.kind != "working":
                self.show("working", self.working_message or DEFAULT_WORKING_MESSAGE)
        else:
            self.clear("working")

    def set_working_message(self, message: str | None) -> None:
        self.working_message = message
        if self.kind == "working" and self.loader is not None:
            self.loader.message = message or DEFAULT_WORKING_MESSAGE

    def set_working_visible(self, visible: bool) -> None:
        self.working_visible = visible
        if not visible:
            self.clear("working")
        elif self.host.session.is_streaming:
            self.working()

    def retrying(self, attempt: int, max_attempts: int, delay_ms: int) -> None:
        """``Retrying (1/3) in 2s... (escape to cancel)``, counting down each second."""
        cancel = self.host.keys.text("app.interrupt")
        seconds = max(0, -(-delay_ms // 1000))

        def text(left: int) -> str:
            return f"Retrying ({attempt}/{max_attempts}) in {left}s... ({cancel} to cancel)"

        self.show("retry", text(seconds), "warning")

        def tick(left: int) -> None:
            if self.kind != "retry" or self.loader is None or left <= 0:
                return
            self.loader.message = text(left)
            self._countdown = asyncio.get_running_loop().call_later(1, tick, left - 1)

        self._countdown = asyncio.get_running_loop().call_later(1, tick, seconds - 1)

    def compacting(self, reason: str) -> None:
        cancel = f"({self.host.keys.text('app.interrupt')} to cancel)"
        if reason == "manual":
            self.show("compaction", f"Compacting context... {cancel}")
        else:
            overflow = "Context overflow detected, " if reason == "overflow" else ""
            self.show("compaction", f"{overflow}Auto-compacting... {cancel}")

    def summarizing(self) -> None:
        self.show(
            "branchSummary", f"Summarizing branch... ({self.host.keys.text('app.interrupt')} to cancel)"
        )
