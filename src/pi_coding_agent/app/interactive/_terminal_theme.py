"""Following the terminal's light or dark look, as Pi does (``_themes`` picks the theme).

With a ``light/dark`` pair as the theme, Pi asks two things at once: the terminal's colour
scheme (``CSI ? 996 n``) and its background (``OSC 11``), each for at most 100 ms. An
answer about the scheme wins; else the background decides, else ``COLORFGBG``, else dark.
Then it asks the terminal to report scheme changes (mode ``?2031``) and switches between
the pair's themes on each report. Without a setting only the background is asked (then
``COLORFGBG``), and what it gave is saved as the ``theme`` setting. A single theme name
asks nothing and turns the reports off.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Protocol

from pi_coding_agent.app.interactive._themes import appearance_for, appearance_from_env, split_auto
from pi_coding_agent.customize.themes import SYSTEM_THEME, terminal_appearance

if TYPE_CHECKING:
    from pi_coding_agent.app.interactive._themes import ThemeChoice
    from pi_coding_agent.runtime.agent_session import AgentSession
    from pi_tui import TUI, ColorScheme, RgbColor, TerminalColors


class ThemeHost(Protocol):
    """Where the theme choice lives, the terminal it asks, and how a new theme is shown."""

    @property
    def session(self) -> AgentSession: ...
    @property
    def themes(self) -> ThemeChoice: ...
    @property
    def tui(self) -> TUI: ...
    def apply_theme(self, name: str | None = None) -> None: ...


class TerminalTheme:
    def __init__(self, host: ThemeHost) -> None:
        self.host = host
        host.tui.on_color_scheme_change(self._reported)

    def detect(self) -> None:
        """Ask the terminal what the theme setting needs to know (at start, after a change)."""
        requested = self.host.themes.requested
        if requested is None:
            self._from_background()
        elif split_auto(requested) is not None:
            self._follow_pair()
        elif requested == SYSTEM_THEME:
            self.host.tui.set_color_scheme_notifications(True)
            self._ask_colors()
        else:
            self.host.tui.set_color_scheme_notifications(False)

    def _ask_colors(self) -> None:
        """The terminal's colours for the ``system`` theme, which is built again from them."""
        host = self.host

        def answered(colors: TerminalColors) -> None:
            themes = host.themes
            if colors.background is None and colors.foreground is None and colors.palette is None:
                return  # nothing reported (or nothing new): keep what the theme was built from
            themes.terminal_colors = colors
            if colors.background is not None:
                themes.appearance = terminal_appearance(colors.background, colors.foreground)
            if themes.uses_system() or split_auto(themes.requested or "") is not None:
                host.apply_theme()

        host.tui.query_terminal_colors(answered)

    def _from_background(self) -> None:
        host = self.host

        def answered(rgb: RgbColor | None) -> None:
            if host.themes.requested is not None:
                return  # a theme was chosen meanwhile
            if rgb is None:
                if os.environ.get("COLORFGBG"):
                    host.session.settings.set_global(("theme",), host.themes.resolve())
                return
            host.session.settings.set_global(("theme",), appearance_for(rgb))
            self._show(appearance_for(rgb))

        host.tui.query_background_color(answered)

    def _follow_pair(self) -> None:
        tui = self.host.tui
        answers: dict[str, str | None] = {}

        def answered(kind: str, appearance: str | None) -> None:
            answers[kind] = appearance
            scheme = answers.get("scheme")
            if "decided" in answers or (scheme is None and len(answers) < 2):
                return  # already decided, or the scheme may still come
            answers["decided"] = None
            self._show(scheme or answers["background"] or appearance_from_env(os.environ) or "dark")
            tui.set_color_scheme_notifications(True)
            if SYSTEM_THEME in (split_auto(self.host.themes.requested or "") or ()):
                self._ask_colors()

        tui.query_color_scheme(lambda scheme: answered("scheme", scheme))
        tui.query_background_color(
            lambda rgb: answered("background", None if rgb is None else appearance_for(rgb))
        )

    def _reported(self, scheme: ColorScheme) -> None:
        """A scheme report once the reports are on: the pair's other theme if it changed."""
        host = self.host
        if not host.tui.color_scheme_notifications:
            return
        if host.themes.requested == SYSTEM_THEME:
            self._ask_colors()
            return
        pair = split_auto(host.themes.requested or "")
        if pair is None:
            host.tui.set_color_scheme_notifications(False)
            return
        self._show(scheme)
        if SYSTEM_THEME in pair:
            self._ask_colors()

    def _show(self, appearance: str) -> None:
        themes = self.host.themes
        before = themes.resolve()
        themes.appearance = appearance
        if themes.resolve() != before:
            self.host.apply_theme()
