"""Keeping the theme in step with the terminal, as Pi 1.6 does (``_themes`` picks the theme).

Each time the theme setting is applied (at the start, after ``/settings``) the terminal is
asked for its colours (``pi_tui.TUI.query_terminal_colors``: foreground, background, the 16
palette entries). What it reports builds the ``system`` theme, decides which theme of a
``light/dark`` pair is shown, and is kept: a later answer that leaves a colour out keeps the
one known before. Replies that come after the 100 ms wait still apply (a slow link), and an
answer that changes nothing draws nothing. For a pair or ``system`` the terminal is also asked
to report colour-scheme changes (mode ``?2031``); a report asks for the colours again (they
decide), and for a terminal that does not report its background the report itself decides.
Nothing is saved: without a setting the theme stays ``system``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from pi_coding_agent.customize.themes import SYSTEM_THEME
from pi_tui import TerminalColors

if TYPE_CHECKING:
    from pi_coding_agent.app.interactive._themes import ThemeChoice
    from pi_coding_agent.customize.themes import Theme
    from pi_coding_agent.runtime.agent_session import AgentSession
    from pi_tui import TUI, ColorScheme


class ThemeHost(Protocol):
    """Where the theme choice lives, the terminal it asks, and how a new theme is shown."""

    @property
    def session(self) -> AgentSession: ...
    @property
    def themes(self) -> ThemeChoice: ...
    @property
    def theme(self) -> Theme: ...
    @property
    def tui(self) -> TUI: ...
    def apply_theme(self, name: str | None = None) -> None: ...


class TerminalTheme:
    def __init__(self, host: ThemeHost) -> None:
        self.host = host
        host.tui.on_color_scheme_change(self._reported)

    def detect(self) -> None:
        """The setting was applied (at the start, after a change): follow the terminal's scheme
        reports for a pair or ``system``, and ask for its colours."""
        self.host.tui.set_color_scheme_notifications(self.host.themes.follows_terminal())
        self._ask_colors()

    def _ask_colors(self) -> None:
        tui = self.host.tui
        tui.query_terminal_colors(self._colors_reported, on_late_reply=self._colors_reported)

    def _colors_reported(self, reported: TerminalColors) -> None:
        themes = self.host.themes
        previous = themes.terminal_colors
        merged = TerminalColors(
            reported.foreground or previous.foreground,
            reported.background or previous.background,
            reported.palette or previous.palette,
        )
        if not themes.colors_pending and merged == previous:
            return  # nothing new (a silent terminal, or the same colours again): nothing to draw
        themes.terminal_colors, themes.colors_pending = merged, False
        self._reapply()

    def _reapply(self) -> None:
        """The terminal's colours or scheme changed: build ``system`` again, or show the pair's other theme."""
        name = self.host.themes.resolve()
        if name == SYSTEM_THEME or name != self.host.theme.name:
            self.host.apply_theme()

    def _reported(self, scheme: ColorScheme) -> None:
        """A scheme report: it decides only for a terminal that does not report its
        background, and its colours changed too, so they are asked for again."""
        themes = self.host.themes
        if not self.host.tui.color_scheme_notifications:
            return
        before = themes.appearance
        themes.reported_scheme = scheme
        if themes.appearance != before:
            self._reapply()
        self._ask_colors()
