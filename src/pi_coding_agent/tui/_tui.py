"""``TUI``: the root container, focus, overlays, input routing and the frame loop.

Frames are throttled to one per 16 ms (``MIN_FRAME_INTERVAL``) however often components
ask for one (a stream asks for every delta); a key press is drawn at once, not at the
next tick, so typing is never a frame late.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from pi_coding_agent.tui._component import Component, Container
from pi_coding_agent.tui._input import PASTE_END, PASTE_START, Paste
from pi_coding_agent.tui._renderer import ScreenRenderer
from pi_coding_agent.tui._terminal import Terminal
from pi_coding_agent.tui._text import slice_columns, visible_width

MIN_FRAME_INTERVAL = 0.016

InputListener = Callable[[str], bool]
"""Sees every input before the focused component; returning True consumes it."""

_ANCHORS = {
    "center", "top-left", "top-center", "top-right", "left-center", "right-center",
    "bottom-left", "bottom-center", "bottom-right",
}  # fmt: skip


@dataclass
class OverlayOptions:
    """Where an overlay sits: sizes are columns/rows or percentages ("50%") of the screen."""

    width: int | str | None = None
    min_width: int | None = None
    max_height: int | str | None = None
    anchor: str = "center"
    offset_x: int = 0
    offset_y: int = 0
    row: int | str | None = None
    col: int | str | None = None
    margin: int = 0
    visible: Callable[[int, int], bool] | None = None


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
    def __init__(self, terminal: Terminal, show_hardware_cursor: bool = False) -> None:
        super().__init__()
        self.terminal = terminal
        self.renderer = ScreenRenderer(terminal.write, show_hardware_cursor)
        self.focused: Component | None = None
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
        self.request_render()

    def stop(self) -> None:
        if self.stopped:
            return
        self.render_now()
        self.stopped = True
        if self._timer is not None:
            self._timer.cancel()
        self.renderer.finish()
        self.terminal.stop()

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
        for listener in list(self._listeners):
            if listener(data):
                self.request_render(immediate=True)
                return
        handler = getattr(self.focused, "handle_input", None)
        if callable(handler):
            handler(data)
        self.request_render(immediate=True)

    def feed_input(self, data: str) -> None:
        """Handle ``data`` as if typed (extensions and tests)."""
        self._handle_input(data)

    # ------------------------------------------------------------------ frames

    def request_render(self, force: bool = False, immediate: bool = False) -> None:
        """Ask for a frame; ``force`` redraws everything, ``immediate`` skips the throttle."""
        if force:
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
        lines = self.render(width)
        if self._overlays:
            lines = self._composite(lines, width, height)
        self.renderer.render(lines, width, height)

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
