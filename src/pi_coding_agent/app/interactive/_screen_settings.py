"""Settings of the screen the interactive mode applies to the terminal toolkit.

The fullscreen transcript as Pi's ``createInteractiveTui`` sets it up: the scrollbar, search
matches and "Jump to latest message" label in the theme's colours, selections copied through
the clipboard (``OSC 52`` included, our own copy action: model text never reaches the
terminal as one), and the ``fullscreen*`` settings; the ``terminal.*`` image, colour-depth,
hyperlink and clear-on-shrink settings; the tab's progress indicator.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from pi_coding_agent.app.interactive._clipboard import ClipboardError, copy_to_clipboard
from pi_coding_agent.app.interactive.components import configure_images
from pi_coding_agent.core.settings import Settings
from pi_coding_agent.customize.themes import Theme
from pi_tui import TUI, Keybindings, set_capability_overrides


def style_viewport(tui: TUI, theme: Theme, keys: Keybindings, write: Callable[[str], None]) -> None:
    view, viewport = tui.fullscreen, tui.viewport
    view.track_style = lambda s: theme.fg("scrollbarTrack", s)
    view.thumb_style = lambda s: theme.fg("scrollbarThumb", s)

    def jump_label() -> str:
        key = keys.display("tui.altScreen.bottom")
        return theme.bg(
            "selectedBg", theme.fg("text", f" ↓ Jump to latest message{f' · {key}' if key else ''} ")
        )

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


def apply_terminal_capabilities(settings: Settings) -> None:
    """``terminal.trueColor`` and ``terminal.hyperlinks``: ``true``/``false`` decide over
    ``PI_TRUE_COLOR``/``PI_HYPERLINKS`` and detection; ``"auto"`` leaves it to them. Set before
    the theme is loaded, since its colours are written for the depth found."""
    set_capability_overrides(
        true_color=settings.get("terminal", "trueColor"), hyperlinks=settings.get("terminal", "hyperlinks")
    )


def apply_image_settings(settings: Settings) -> None:
    """``terminal.images`` (force a protocol, or none) and ``terminal.imageWidthCells``."""
    configure_images(settings.get("terminal", "images"), settings.image_width_cells)


class TerminalProgress:
    """Pi's ``terminal.showTerminalProgress``: while the agent works, the terminal's tab shows
    an indeterminate progress (``OSC 9;4;3``, repeated every second as Pi does, so a terminal
    that times it out keeps it), cleared (``OSC 9;4;0``) when the run ends."""

    ACTIVE = "\x1b]9;4;3\x07"
    CLEAR = "\x1b]9;4;0\x07"
    KEEPALIVE_SECONDS = 1.0

    def __init__(self, settings: Settings, write: Callable[[str], None]) -> None:
        self.settings = settings
        self.write = write
        self._timer: asyncio.TimerHandle | None = None

    def on_event(self, kind: str) -> None:
        if kind in ("agent_start", "compaction_start") and self.settings.show_terminal_progress:
            self._show()
        elif kind in ("agent_end", "compaction_end") and self._timer is not None:
            self.stop()

    def _show(self) -> None:
        self.write(self.ACTIVE)
        self._timer = asyncio.get_running_loop().call_later(self.KEEPALIVE_SECONDS, self._show)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
            self.write(self.CLEAR)
