"""What the keyboard and the mouse do to the fullscreen transcript (Pi's ``TuiAltScreen``).

Keys (``tui.altScreen.*``, taking precedence over the editor's): page, half page and line
scrolling, start and end, the previous/next marked message (``OSC 133`` prompt zones), and
the transcript search panel (its next/previous/close keys while it has the focus). The
mouse (SGR reports): the wheel scrolls the transcript (``wheel``: how far a notch goes); dragging
with the left button selects text (a double click a word, a triple click a line), which is
copied when the button is let go if ``copy_on_select`` (else ``copy_selection()`` copies
it, Pi's Ctrl+X); the scrollbar can be clicked and dragged; the "Jump to latest message"
label scrolls to the end. A copy goes through ``on_copy`` (the application's clipboard,
``OSC 52`` included), and a "Copied!" flash shows in the top-right corner for a second.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from pi_tui._fullscreen import FullscreenRenderer, ScrollbarGeometry
from pi_tui._keybindings import Keybindings
from pi_tui._overlay import OverlayOptions
from pi_tui._selection import (
    Point,
    Range,
    columns_of,
    highlight,
    line_at,
    ordered,
    restyle_columns,
    selected_text,
    word_at,
)
from pi_tui._text import visible_width
from pi_tui._transcript_search import SearchBox, Segment, find_matches
from pi_tui._wheel import WheelScroll

_SGR_MOUSE = re.compile(r"\x1b\[<(\d+);(\d+);(\d+)([Mm])\Z")
_MOUSE = re.compile(r"\x1b\[<\d+;\d+;\d+[Mm]\Z|\x1b\[M")
FOCUS_IN, FOCUS_OUT = "\x1b[I", "\x1b[O"
DOUBLE_CLICK_SECONDS = 0.5
FLASH_SECONDS = 1.0
_SCROLL_ACTIONS = (
    "tui.altScreen.pageUp", "tui.altScreen.pageDown", "tui.altScreen.halfPageUp", "tui.altScreen.halfPageDown",
    "tui.altScreen.lineUp", "tui.altScreen.lineDown", "tui.altScreen.previousPrompt", "tui.altScreen.nextPrompt",
    "tui.altScreen.top", "tui.altScreen.bottom",
)  # fmt: skip


@dataclass(frozen=True)
class MouseEvent:
    button: int
    """The SGR button code: bits 0-1 the button (3: none), 32 motion, 64 the wheel."""
    x: int
    y: int
    release: bool

    @property
    def motion(self) -> bool:
        return bool(self.button & 32)

    @property
    def wheel(self) -> bool:
        return bool(self.button & 64)

    @property
    def left(self) -> bool:
        return self.button & 3 == 0


def parse_mouse(data: str) -> MouseEvent | None:
    found = _SGR_MOUSE.match(data)
    if found is None:
        return None
    return MouseEvent(int(found[1]), int(found[2]) - 1, int(found[3]) - 1, found[4] == "m")


class _Hideable(Protocol):
    def hide(self) -> None: ...


class _Columns(Protocol):
    @property
    def columns(self) -> int: ...


class ViewportHost(Protocol):
    """What the viewport uses of its ``TUI``."""

    fullscreen: FullscreenRenderer
    keybindings: Keybindings

    @property
    def focused(self) -> object: ...
    @property
    def terminal(self) -> _Columns: ...
    def has_overlay(self) -> bool: ...
    def show_overlay(self, component: SearchBox, options: OverlayOptions | None = None) -> _Hideable: ...
    def request_render_at(self, delay: float) -> None: ...


@dataclass
class _Search:
    box: SearchBox
    overlay: _Hideable
    query: str = ""
    matches: tuple[list[Segment], ...] = ()
    selected: int = -1
    anchor_row: int = 0
    source: list[str] | None = None
    """The document the matches were found in."""


class Viewport:
    def __init__(self, tui: ViewportHost) -> None:
        self.tui = tui
        self.view = tui.fullscreen
        self.wheel = WheelScroll()
        self.copy_on_select = True
        self.on_copy: Callable[[str], bool] | None = None
        self.search_style: Callable[[str], str] = lambda s: f"\x1b[4m{s}\x1b[24m"
        self.current_match_style: Callable[[str], str] = lambda s: f"\x1b[1;7m{s}\x1b[22;27m"
        self._anchor: Point | None = None
        self._focus: Point | None = None
        self._pressed = False
        self._dragged = False
        self._word_range: Range | None = None
        self._last_click: tuple[float, int, int, int] | None = None
        """``(time, row, col, count)`` of the last press, for double and triple clicks."""
        self._thumb_grab: tuple[ScrollbarGeometry, int] | None = None
        self._search: _Search | None = None
        self._flash: tuple[str, float] | None = None

    # ------------------------------------------------------------------ input

    def handle(self, data: str) -> bool:
        """Whether ``data`` was the viewport's (then nothing else sees it)."""
        if data in (FOCUS_IN, FOCUS_OUT):
            if data == FOCUS_OUT and self._pressed:
                self._pressed = False
                self._anchor = self._focus = None
            return True
        event = parse_mouse(data)
        if event is not None:
            self._mouse(event)
            return True
        if _MOUSE.match(data):
            return True
        keys = self.tui.keybindings
        if keys.matches(data, "tui.altScreen.search"):
            self.toggle_search()
            return True
        search = self._search
        if search is not None and self.tui.focused is search.box:
            for action, step in (("tui.altScreen.searchNext", 1), ("tui.altScreen.searchPrevious", -1)):
                if keys.matches(data, action):
                    self._step_search(step)
                    return True
            if keys.matches(data, "tui.altScreen.searchClose"):
                self.close_search()
                return True
        elif self.tui.has_overlay():
            return False
        scroll = keys.action_for(data, _SCROLL_ACTIONS)
        if scroll is None:
            return False
        self._scroll_action(scroll.rsplit(".", 1)[1])
        return True

    def _scroll_action(self, name: str) -> None:
        view = self.view
        steps = {"pageUp": -view.page(), "pageDown": view.page(), "halfPageUp": -max(1, view.view_rows // 2),
                 "halfPageDown": max(1, view.view_rows // 2), "lineUp": -1, "lineDown": 1}  # fmt: skip
        if name in steps:
            view.scroll(steps[name])
        elif name in ("previousPrompt", "nextPrompt"):
            row = view.prompt_row(-1 if name == "previousPrompt" else 1)
            if row is not None:
                view.scroll_to_row(row)
        else:
            view.scroll_to("top" if name == "top" else "end")

    # ------------------------------------------------------------------ mouse

    def _mouse(self, event: MouseEvent) -> None:
        view = self.view
        if event.wheel:
            if event.button & 3 in (0, 1):
                direction = -1 if event.button & 3 == 0 else 1
                view.scroll(
                    direction * self.wheel.next(direction, time.monotonic(), alt=bool(event.button & 8))
                )
            return
        width = self.tui.terminal.columns
        if self._thumb_grab is not None:
            self._drag_thumb(event)
            return
        if self._jump_clicked(event):
            view.scroll_to("end")
            return
        hover = self._on_track(event, width)
        if hover != view.scrollbar_hover:
            view.scrollbar_hover = hover
        if hover and not event.release and not event.motion and event.left:
            geometry = view.scrollbar_geometry(width, reveal=True)
            if geometry is not None:
                self._grab_thumb(geometry, event.y)
                return
        if self.tui.has_overlay() and self._search is None:
            return
        if event.left or (event.release and self._pressed):
            self._select(event)

    def _on_track(self, event: MouseEvent, width: int) -> bool:
        view = self.view
        return event.x == width - 1 and event.y < view.view_rows and len(view.document) > view.view_rows \
            and view.scrollbar != "hidden"  # fmt: skip

    def _jump_clicked(self, event: MouseEvent) -> bool:
        rect = self.view.jump_rect
        if rect is None or event.release or event.motion or not event.left:
            return False
        row, column, width = rect
        return event.y == row and column <= event.x < column + width

    def _grab_thumb(self, geometry: ScrollbarGeometry, row: int) -> None:
        on_thumb = geometry.thumb_top <= row < geometry.thumb_top + geometry.thumb_height
        grab = row - geometry.thumb_top if on_thumb else geometry.thumb_height // 2
        if not on_thumb:
            self.view.scroll_to_pointer(geometry, row, grab)
        self._thumb_grab = (geometry, grab)

    def _drag_thumb(self, event: MouseEvent) -> None:
        assert self._thumb_grab is not None
        if event.release:
            self._thumb_grab = None
            return
        geometry = self.view.scrollbar_geometry(self.tui.terminal.columns, reveal=True)
        if geometry is not None:
            self.view.scroll_to_pointer(geometry, event.y, self._thumb_grab[1])

    # ------------------------------------------------------------------ selection

    def _point(self, event: MouseEvent) -> Point:
        view = self.view
        row = max(0, min(view.view_rows - 1, event.y))
        last = max(0, len(view.document) - 1)
        return Point(max(0, min(last, view.top + row)), max(0, event.x))

    def _select(self, event: MouseEvent) -> None:
        point = self._point(event)
        if event.release:
            if not self._pressed:
                return
            self._pressed = False
            self._extend(point)
            if self.copy_on_select and self.selection() is not None:
                self.copy_selection()
            return
        if event.motion:
            if self._pressed and self._anchor is not None:
                self._dragged = True
                self._extend(point)
            return
        if event.y >= self.view.view_rows:
            self.clear_selection()
            return
        self._press(point)

    def _press(self, point: Point) -> None:
        line = self._line(point.row)
        word = word_at(line, point)
        now = time.monotonic()
        count = 1
        last = self._last_click
        if word is not None and last is not None and now - last[0] <= DOUBLE_CLICK_SECONDS \
                and (last[1], last[2]) == (point.row, word.start.col):  # fmt: skip
            count = last[3] % 3 + 1
        self._last_click = (now, point.row, word.start.col, count) if word is not None else None
        chosen = word if count == 2 else line_at(line, point) if count == 3 else None
        self._word_range = chosen
        self._anchor = chosen.start if chosen else point
        self._focus = chosen.end if chosen else point
        self._pressed = True
        self._dragged = False

    def _extend(self, point: Point) -> None:
        initial = self._word_range
        if initial is None:
            self._focus = point
            return
        if (point.row, point.col) < (initial.start.row, initial.start.col):
            self._anchor, self._focus = initial.end, point
        else:
            self._anchor, self._focus = initial.start, max(initial.end, point, key=lambda p: (p.row, p.col))

    def _line(self, row: int) -> str:
        document = self.view.document
        return document[row] if 0 <= row < len(document) else ""

    def selection(self) -> Range | None:
        if self._anchor is None or self._focus is None:
            return None
        return ordered(self._anchor, self._focus)

    def selected_text(self) -> str | None:
        selection = self.selection()
        if selection is None:
            return None
        return selected_text(self.view.document, selection) or None

    def clear_selection(self) -> None:
        self._anchor = self._focus = self._word_range = None
        self._pressed = False

    def copy_selection(self) -> bool:
        """Copy the selected text (``on_copy``); whether there was one and it was copied."""
        text = self.selected_text()
        if text is None or self.on_copy is None:
            return False
        copied = self.on_copy(text)
        self.flash("Copied!" if copied else "Copy failed")
        return copied

    def flash(self, message: str) -> None:
        self._flash = (message, time.monotonic() + FLASH_SECONDS)
        self.tui.request_render_at(FLASH_SECONDS)

    # ------------------------------------------------------------------ search

    def toggle_search(self) -> None:
        if self._search is not None:
            self.close_search()
            return
        box = SearchBox(self._query_changed, self.tui.keybindings)
        overlay = self.tui.show_overlay(
            box, OverlayOptions(width="40%", min_width=32, anchor="top-right", margin=1)
        )
        self._search = _Search(box, overlay, anchor_row=self.view.top)

    def close_search(self) -> None:
        search, self._search = self._search, None
        if search is not None:
            search.overlay.hide()

    def _query_changed(self, query: str) -> None:
        search = self._search
        if search is None:
            return
        if 0 <= search.selected < len(search.matches):
            search.anchor_row = search.matches[search.selected][0][0]
        search.query = query
        self._find(search)
        rows = [match[0][0] for match in search.matches]
        search.selected = (
            next((i for i, row in enumerate(rows) if row >= search.anchor_row), 0) if rows else -1
        )
        self._reveal()

    def _step_search(self, step: int) -> None:
        search = self._search
        if search is None or not search.query:
            return
        self._find(search)
        if search.matches:
            count = len(search.matches)
            search.selected = (
                (search.selected + step) % count if search.selected >= 0 else (0 if step > 0 else count - 1)
            )
        self._reveal()

    def _find(self, search: _Search) -> None:
        search.source = self.view.document
        search.matches = tuple(find_matches(search.source, search.query))
        search.selected = min(search.selected, len(search.matches) - 1)
        search.box.index, search.box.count = search.selected, len(search.matches)

    def _reveal(self) -> None:
        search = self._search
        assert search is not None
        search.box.index, search.box.count = search.selected, len(search.matches)
        if search.selected < 0:
            return
        match = search.matches[search.selected]
        view = self.view
        first, last = match[0][0], match[-1][0]
        if first < view.top or last > view.top + view.view_rows - 1:
            view.scroll_to_row(first - view.view_rows // 3)

    # ------------------------------------------------------------------ drawing

    def decorate(self, screen: list[str], width: int) -> list[str]:
        """The frame with search matches, the selection and a flash drawn in."""
        screen = list(screen)
        self._paint_matches(screen)
        self._paint_selection(screen)
        flash = self._flash
        if flash is not None and time.monotonic() < flash[1] and screen:
            text = f" {flash[0]} "[:width]
            column = width - visible_width(text)
            line = screen[0] + " " * max(0, width - visible_width(screen[0]))
            screen[0] = restyle_columns(line, column, width, lambda _: f"\x1b[7m{text}\x1b[27m")
        elif flash is not None:
            self._flash = None
        return screen

    def _paint_matches(self, screen: list[str]) -> None:
        search = self._search
        if search is None or not search.query:
            return
        view = self.view
        if search.source is not view.document:
            self._find(search)
        for index, match in enumerate(search.matches):
            style = self.current_match_style if index == search.selected else self.search_style
            for row, start, end in match:
                on_screen = row - view.top
                if 0 <= on_screen < view.view_rows:
                    screen[on_screen] = restyle_columns(screen[on_screen], start, end, style)

    def _paint_selection(self, screen: list[str]) -> None:
        selection = self.selection()
        if selection is None:
            return
        view = self.view
        for row in range(
            max(selection.start.row, view.top), min(selection.end.row, view.top + view.view_rows - 1) + 1
        ):
            on_screen = row - view.top
            start, end = columns_of(screen[on_screen], row, selection)
            screen[on_screen] = restyle_columns(screen[on_screen], start, end, highlight)
