"""The component model: anything that renders itself to lines of a given width.

This is Pi's ``Component`` in Python terms. ``render(width)`` returns one string per screen
line, each at most ``width`` columns wide (escape sequences are free); styles must not
leak from one line to the next, the renderer closes every line with a reset anyway.
``handle_input(data)`` receives raw terminal input (one key or one paste) while the
component has the focus. ``invalidate()`` drops cached output (the theme changed).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

CURSOR_MARKER = "\x1b_pi:c\x07"
"""Zero-width marker a focused component puts where the terminal cursor belongs (IME)."""


@runtime_checkable
class Component(Protocol):
    def render(self, width: int) -> list[str]: ...

    def invalidate(self) -> None: ...


@runtime_checkable
class InputHandler(Protocol):
    def handle_input(self, data: str) -> None: ...


@runtime_checkable
class Focusable(Protocol):
    """A component that shows a cursor; the TUI sets ``focused`` when it gains or loses focus."""

    focused: bool


class Container:
    """Children rendered one below the other."""

    def __init__(self) -> None:
        self.children: list[Component] = []

    def add_child(self, component: Component) -> None:
        self.children.append(component)

    def insert_child(self, index: int, component: Component) -> None:
        self.children.insert(index, component)

    def remove_child(self, component: Component) -> None:
        if component in self.children:
            self.children.remove(component)

    def clear(self) -> None:
        self.children.clear()

    def render(self, width: int) -> list[str]:
        lines: list[str] = []
        for child in self.children:
            lines.extend(child.render(width))
        return lines

    def invalidate(self) -> None:
        for child in self.children:
            child.invalidate()


class StaticLines:
    """Fixed lines (an extension's ``setWidget(key, lines)``), cut to the width."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines

    def render(self, width: int) -> list[str]:
        from pi_tui._text import truncate_to_width

        return [truncate_to_width(line, width) for line in self.lines]

    def invalidate(self) -> None:
        return
