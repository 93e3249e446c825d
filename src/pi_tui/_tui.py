"""``TUI``: the root container, focus, overlays, input routing and the frame loop.

Frames are throttled to one per 16 ms (``MIN_FRAME_INTERVAL``) however often components
ask for one (a stream asks for every delta); a key press is drawn at once, not at the
next tick, so typing is never a frame late.

Two modes, as Pi's: ``regular`` draws on the main screen and lets the transcript go into
the terminal's scrollback; ``fullscreen`` uses the alternate screen, where the first child
(``document``) scrolls above the others (the dock), moved by keys, the mouse wheel and the
scrollbar, searched and selected with the mouse (``Viewport``). Replies of the terminal to queries (``OSC 11`` background colour, the colour
scheme's ``CSI ? 997 ; 1|2 n``, also sent unasked on a change once ``?2031`` notifications
are on) are taken out of the input before any component sees them.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from pi_tui._color_query import (
    COLOR_QUERY,
    DEVICE_ATTRIBUTES_REPLY,
    ColorQuery,
    TerminalColors,
)
from pi_tui._component import Component, Container
from pi_tui._fullscreen import FullscreenRenderer
from pi_tui._input import PASTE_END, PASTE_START, Paste
from pi_tui._keybindings import TUI_DEFAULTS, Keybindings
from pi_tui._overlay import OverlayOptions
from pi_tui._renderer import ScreenRenderer
from pi_tui._terminal import Terminal
from pi_tui._text import slice_columns, visible_width
from pi_tui._viewport import Viewport

MIN_FRAME_INTERVAL = 0.016
_CELL_SIZE_REPLY = re.compile(r"\x1b\[6;(\d+);(\d+)t\Z")
_COLOR_SCHEME_REPORT = re.compile(r"(?:\x1b\[\?997;([12])n)+\Z")
ColorScheme = Literal["light", "dark"]
TuiMode = Literal["regular", "fullscreen"]
RgbColor = tuple[int, int, int]

InputListener = Callable[[str], bool]
"""Sees every input before the focused component; returning True consumes it."""

_ANCHORS = {
    "center", "top-left", "top-center", "top-right", "left-center", "right-center",
    "bottom-left", "bottom-center", "bottom-right",
}  # fmt: skip


@dataclass
class _Overlay:
    component: Component
    options: OverlayOptions
    previous_focus: Component | None
    hidden: bool = False


@dataclass
class OverlayHandle:
    _tui: TUI
    _overlay: _Overlay = field(repr=False)

    def hide(self) -> None:
        self._tui._remove_overlay(self._overlay)

    def set_hidden(self, hidden: bool) -> None:
        self._overlay.hidden = hidden
        self._tui.request_render()

    def focus(self) -> None:
        self._tui.set_focus(self._overlay.component)


def _size(value: int | str | None, reference: int, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, str) and value.endswith("%"):
        return int(reference * float(value[:-1]) / 100)
    return int(value)


class TUI(Container):
    def __init__(
        self,
        terminal: Terminal,
        show_hardware_cursor: bool = False,
        *,
        mode: TuiMode = "regular",
        keybindings: Keybindings | None = None,
    ) -> None:
        super().__init__()
        self.terminal = terminal
        self.keybindings = keybindings or Keybindings(TUI_DEFAULTS)
        self.renderer = ScreenRenderer(terminal.write, show_hardware_cursor)
        self.fullscreen = FullscreenRenderer(terminal.write, show_hardware_cursor)
        self.viewport = Viewport(self)
        self.mode: TuiMode = mode
        self.focused: Component | None = None
        self._color_queries: list[ColorQuery] = []
        self._cell_size_listener: Callable[[int, int], None] | None = None
        self._scheme_listeners: list[Callable[[ColorScheme], None]] = []
        self.color_scheme_notifications = False
        """Whether the terminal is asked to report colour-scheme changes (mode ``?2031``)."""
        self._overlays: list[_Overlay] = []
        self._listeners: list[InputListener] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._frame_pending = False
        self._timer: asyncio.TimerHandle | None = None
        self._last_frame = 0.0
        self.stopped = True

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self.stopped = False
        self.terminal.start(self._handle_input, self.request_render)
        if self.mode == "fullscreen":
            self.fullscreen.enter()
        if self.color_scheme_notifications:
            self.terminal.write("\x1b[?2031h")
        self.request_render()

    def stop(self, print_transcript: bool = True) -> None:
        """Draw the last frame and give the terminal back.

        In fullscreen mode the alternate screen is left; with ``print_transcript`` the whole
        document is then written to the main screen (Pi's ``fullscreenExitOutput``).
        """
        if self.stopped:
            return
        self.render_now()
        self.stopped = True
        if self._timer is not None:
            self._timer.cancel()
        if self.color_scheme_notifications:
            self.terminal.write("\x1b[?2031l")
        if self.mode == "fullscreen":
            self.fullscreen.leave()
            if print_transcript:
                self.renderer.reset()
                self.renderer.render(self.render(self.terminal.columns), self.terminal.columns, 1 << 30)
        self.renderer.finish()
        self.terminal.stop()

    def set_mode(self, mode: TuiMode) -> None:
        """Switch between the main screen and the alternate screen while running."""
        if mode == self.mode:
            return
        self.mode = mode
        if self.stopped:
            return
        if mode == "fullscreen":
            self.fullscreen.enter()
        else:
            self.fullscreen.leave()
            self.renderer.reset()
            self.terminal.write("\x1b[2J\x1b[H\x1b[3J")
        self.request_render(immediate=True)

    def set_show_hardware_cursor(self, show: bool) -> None:
        self.renderer.show_hardware_cursor = show
        self.fullscreen.show_hardware_cursor = show

    def query_terminal_colors(
        self,
        on_reply: Callable[[TerminalColors], None],
        timeout: float = 0.1,
        on_late_reply: Callable[[TerminalColors], None] | None = None,
    ) -> None:
        """Ask the terminal for its foreground, background and 16-colour palette, as Pi 1.6 does.
        ``on_reply`` gets what it reported once it answered the trailing DA1 request (or every
        colour), else what came within ``timeout`` seconds; replies after that are still
        collected and go to ``on_late_reply`` when the terminal's answer is complete (a slow
        link). The question stays open until the DA1 reply, so that reply never closes a later one."""
        if self._loop is None:
            on_reply(TerminalColors())
            return
        query = ColorQuery(on_reply)
        self._color_queries.append(query)

        def expire() -> None:
            if query.deliver is on_reply:
                query.deliver = None
                on_reply(query.result())
                query.deliver = on_late_reply

        self._loop.call_later(timeout, expire)
        self.terminal.write(COLOR_QUERY)

    def on_color_scheme_change(self, listener: Callable[[ColorScheme], None]) -> Callable[[], None]:
        """``listener`` gets every colour-scheme report (answers and change notifications)."""
        self._scheme_listeners.append(listener)
        return lambda: self._scheme_listeners.remove(listener) if listener in self._scheme_listeners else None

    def set_color_scheme_notifications(self, enabled: bool) -> None:
        """Turn the terminal's colour-scheme change reports (mode ``?2031``) on or off."""
        if enabled == self.color_scheme_notifications:
            return
        self.color_scheme_notifications = enabled
        if not self.stopped:
            self.terminal.write("\x1b[?2031h" if enabled else "\x1b[?2031l")

    def query_cell_size(self, on_reply: Callable[[int, int], None]) -> None:
        """Ask the terminal for its cell size in pixels (``CSI 16 t``, for sizing images);
        ``on_reply(width, height)`` runs if it answers (``CSI 6 ; height ; width t``)."""
        self._cell_size_listener = on_reply
        self.terminal.write("\x1b[16t")

    # ------------------------------------------------------------------ focus and overlays

    def set_focus(self, component: Component | None) -> None:
        if hasattr(self.focused, "focused"):
            self.focused.focused = False  # type: ignore[union-attr]
        self.focused = component
        if hasattr(component, "focused"):
            component.focused = True  # type: ignore[union-attr]
        self.request_render()

    def show_overlay(self, component: Component, options: OverlayOptions | None = None) -> OverlayHandle:
        overlay = _Overlay(component, options or OverlayOptions(), self.focused)
        self._overlays.append(overlay)
        self.set_focus(component)
        return OverlayHandle(self, overlay)

    def hide_overlay(self) -> None:
        if self._overlays:
            self._remove_overlay(self._overlays[-1])

    def has_overlay(self) -> bool:
        return any(not o.hidden for o in self._overlays)

    def _remove_overlay(self, overlay: _Overlay) -> None:
        if overlay not in self._overlays:
            return
        self._overlays.remove(overlay)
        if self.focused is overlay.component:
            self.set_focus(overlay.previous_focus)
        self.request_render()

    def add_input_listener(self, listener: InputListener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    # ------------------------------------------------------------------ input

    def _handle_input(self, event: str | Paste) -> None:
        data = f"{PASTE_START}{event.text}{PASTE_END}" if isinstance(event, Paste) else event
        if data.startswith("\x1b]"):
            self._terminal_reply(data)
            return
        if DEVICE_ATTRIBUTES_REPLY.match(data):
            if self._color_queries:
                self._color_queries.pop(0).close()
            return
        scheme = _COLOR_SCHEME_REPORT.match(data)
        if scheme is not None:
            reported: ColorScheme = "light" if scheme[1] == "2" else "dark"
            for on_scheme in list(self._scheme_listeners):
                on_scheme(reported)
            return
        cell = _CELL_SIZE_REPLY.match(data)
        if cell is not None:
            height, width = int(cell[1]), int(cell[2])
            if self._cell_size_listener is not None and height > 0 and width > 0:
                self._cell_size_listener(width, height)
            return
        if self.mode == "fullscreen" and self.viewport.handle(data):
            self.request_render(immediate=True)
            return
        for listener in list(self._listeners):
            if listener(data):
                self.request_render(immediate=True)
                return
        handler = getattr(self.focused, "handle_input", None)
        if callable(handler):
            handler(data)
        self.request_render(immediate=True)

    def _terminal_reply(self, data: str) -> None:
        if self._color_queries and self._color_queries[0].take(data):
            self._color_queries[0].close()  # the DA1 reply that follows ends the question

    def feed_input(self, data: str) -> None:
        """Handle ``data`` as if typed (extensions and tests)."""
        self._handle_input(data)

    # ------------------------------------------------------------------ frames

    def request_render(self, force: bool = False, immediate: bool = False) -> None:
        """Ask for a frame; ``force`` redraws everything, ``immediate`` skips the throttle."""
        if force:
            if self.mode == "fullscreen":
                self.fullscreen.reset()
            else:
                self.renderer.reset()
                self.terminal.write("\x1b[2J\x1b[H\x1b[3J")
            immediate = True
        if self.stopped or self._loop is None:
            return
        if immediate:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if not self._frame_pending:
                self._frame_pending = True
                self._loop.call_soon(self._frame)
            return
        if self._frame_pending or self._timer is not None:
            return
        delay = MIN_FRAME_INTERVAL - (time.monotonic() - self._last_frame)
        if delay <= 0:
            self._frame_pending = True
            self._loop.call_soon(self._frame)
        else:
            self._timer = self._loop.call_later(delay, self._timer_frame)

    def request_render_at(self, delay: float) -> None:
        """A frame ``delay`` seconds from now (something drawn for a while goes away then)."""
        if self._loop is not None and not self.stopped:
            self._loop.call_later(delay, self.request_render)

    def _timer_frame(self) -> None:
        self._timer = None
        self._frame()

    def _frame(self) -> None:
        self._frame_pending = False
        if not self.stopped:
            self.render_now()

    def render_now(self) -> None:
        self._last_frame = time.monotonic()
        width, height = self.terminal.columns, self.terminal.rows
        if self.mode == "fullscreen" and self.children:
            self._render_fullscreen(width, height)
            return
        lines = self.render(width)
        if self._overlays:
            lines = self._composite(lines, width, height)
        self.renderer.render(lines, width, height, overlays=self.has_overlay())

    def _render_fullscreen(self, width: int, height: int) -> None:
        view = self.fullscreen
        document = self.children[0].render(view.document_width(width))
        dock = [line for child in self.children[1:] for line in child.render(width)]
        until = view.scrollbar_until
        screen = self.viewport.decorate(view.compose(document, dock, width, height), width)
        if self._overlays:
            screen = self._composite(screen, width, height)
        view.draw(screen, width, height)
        left = until - time.monotonic()
        if view.scrollbar == "auto" and left > 0:
            self.request_render_at(left + 0.01)

    def _composite(self, lines: list[str], width: int, height: int) -> list[str]:
        visible = [
            o
            for o in self._overlays
            if not o.hidden and (o.options.visible is None or o.options.visible(width, height))
        ]
        if not visible:
            return lines
        base = list(lines) + [""] * max(0, height - len(lines))
        top = len(base) - height
        for overlay in visible:
            self._place(overlay, base, top, width, height)
        return base

    def _place(self, overlay: _Overlay, base: list[str], top: int, width: int, height: int) -> None:
        options = overlay.options
        margin = options.margin
        overlay_width = _size(options.width, width, min(width - 2 * margin, 80))
        if options.min_width is not None:
            overlay_width = max(overlay_width, options.min_width)
        overlay_width = max(1, min(overlay_width, width - 2 * margin))
        rendered = overlay.component.render(overlay_width)
        max_height = _size(options.max_height, height, height - 2 * margin)
        rendered = rendered[: max(1, max_height)]
        rows = len(rendered)
        anchor = options.anchor if options.anchor in _ANCHORS else "center"
        vertical, _, horizontal = anchor.partition("-") if anchor != "center" else ("center", "", "center")
        if anchor in ("left-center", "right-center"):
            vertical, horizontal = "center", anchor.split("-")[0]
        if vertical == "top":
            row = margin
        elif vertical == "bottom":
            row = height - margin - rows
        else:
            row = (height - rows) // 2
        if horizontal == "left":
            col = margin
        elif horizontal == "right":
            col = width - margin - overlay_width
        else:
            col = (width - overlay_width) // 2
        if options.row is not None:
            row = _size(options.row, height, row)
        if options.col is not None:
            col = _size(options.col, width, col)
        row = max(0, min(height - rows, row + options.offset_y))
        col = max(0, min(width - overlay_width, col + options.offset_x))
        for index, line in enumerate(rendered):
            target = top + row + index
            if 0 <= target < len(base):
                base[target] = _overlay_line(base[target], line, col, overlay_width, width)


def _overlay_line(base: str, overlay: str, col: int, overlay_width: int, total: int) -> str:
    left = slice_columns(base, 0, col)
    left += " " * (col - visible_width(left))
    middle = overlay + " " * max(0, overlay_width - visible_width(overlay))
    right = slice_columns(base, col + overlay_width, total - col - overlay_width)
    return f"{left}\x1b[0m{middle}\x1b[0m{right}"
