"""The fullscreen transcript as the interactive mode sets it up (Pi's ``createInteractiveTui``):
the scrollbar, search matches and "Jump to latest message" label in the theme's colours,
selections copied through the clipboard (``OSC 52`` included, our own copy action: model
text never reaches the terminal as one), and the ``fullscreen*`` settings."""

from __future__ import annotations

from collections.abc import Callable

from pi_coding_agent.app.interactive._clipboard import ClipboardError, copy_to_clipboard
from pi_coding_agent.core.settings import Settings
from pi_coding_agent.customize.themes import Theme
from pi_tui import TUI, Keybindings


def style_viewport(tui: TUI, theme: Theme, keys: Keybindings, write: Callable[[str], None]) -> None:
    view, viewport = tui.fullscreen, tui.viewport
    view.track_style = lambda s: theme.fg("scrollbarTrack", s)
    view.thumb_style = lambda s: theme.fg("scrollbarThumb", s)

    def jump_label() -> str:
        key = keys.display("tui.altScreen.bottom")
        return theme.bg("selectedBg", theme.fg("text", f" ↓ Jump to latest message{f' · {key}' if key else ''} "))

    def match(s: str) -> str:
        return theme.bg("searchMatchBg", theme.fg("searchMatchText", s))

    def copy(text: str) -> bool:
        try:
            copy_to_clipboard(text, write)
        except ClipboardError:
            return False
        return True

    view.jump_label = jump_label
    viewport.search_style = lambda s: theme.underline(match(s))
    viewport.current_match_style = lambda s: theme.bold(theme.inverse(match(s)))
    viewport.on_copy = copy


def apply_fullscreen_settings(tui: TUI, settings: Settings) -> None:
    """``fullscreenScrollbar``, ``fullscreenCopyOnSelect`` and (Pi 1.6) ``fullscreenWheelScrollLines``."""
    tui.fullscreen.scrollbar = settings.fullscreen_scrollbar
    tui.viewport.copy_on_select = settings.fullscreen_copy_on_select
    tui.viewport.wheel.lines = settings.fullscreen_wheel_scroll_lines
    tui.request_render()
