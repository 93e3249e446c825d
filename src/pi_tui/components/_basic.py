"""Text, boxes and spacing."""

from __future__ import annotations

from collections.abc import Callable

from pi_tui._component import Component, Container
from pi_tui._text import truncate_to_width, visible_width, wrap_text_with_ansi

StyleFn = Callable[[str], str]


def _pad_lines(lines: list[str], width: int, padding_x: int, padding_y: int, bg: StyleFn | None) -> list[str]:
    """Indent ``lines`` by ``padding_x``, add ``padding_y`` blank lines around; with ``bg``, fill the width."""
    margin = " " * padding_x
    out = [margin + line for line in lines]
    blank = ""
    out = [blank] * padding_y + out + [blank] * padding_y
    if bg is None:
        return out
    return [bg(line + " " * max(0, width - visible_width(line))) for line in out]


class Text:
    """Word-wrapped text with horizontal and vertical padding and an optional background."""

    def __init__(
        self, text: str = "", padding_x: int = 1, padding_y: int = 1, bg: StyleFn | None = None
    ) -> None:
        self.text = text
        self.padding_x = padding_x
        self.padding_y = padding_y
        self.bg = bg
        self._cache: tuple[int, list[str]] | None = None

    def set_text(self, text: str) -> None:
        if text != self.text:
            self.text = text
            self._cache = None

    def set_bg(self, bg: StyleFn | None) -> None:
        self.bg = bg
        self._cache = None

    def render(self, width: int) -> list[str]:
        if self._cache is not None and self._cache[0] == width:
            return self._cache[1]
        if not self.text or not self.text.strip():
            lines: list[str] = []
        else:
            inner = max(1, width - 2 * self.padding_x)
            wrapped = wrap_text_with_ansi(self.text.replace("\t", "   "), inner)
            lines = _pad_lines(wrapped, width, self.padding_x, self.padding_y, self.bg)
        self._cache = (width, lines)
        return lines

    def invalidate(self) -> None:
        self._cache = None


class TruncatedText:
    """One line, cut to the width with an ellipsis."""

    def __init__(self, text: str = "", padding_x: int = 0) -> None:
        self.text = text
        self.padding_x = padding_x

    def set_text(self, text: str) -> None:
        self.text = text

    def render(self, width: int) -> list[str]:
        first = self.text.split("\n", 1)[0]
        margin = " " * self.padding_x
        return [margin + truncate_to_width(first, max(1, width - 2 * self.padding_x))]

    def invalidate(self) -> None:
        return


class Spacer:
    """``lines`` empty lines."""

    def __init__(self, lines: int = 1) -> None:
        self.lines = lines

    def render(self, width: int) -> list[str]:
        return [""] * self.lines

    def invalidate(self) -> None:
        return


class Box(Container):
    """Children inside padding, on an optional background that fills the width."""

    def __init__(self, padding_x: int = 1, padding_y: int = 1, bg: StyleFn | None = None) -> None:
        super().__init__()
        self.padding_x = padding_x
        self.padding_y = padding_y
        self.bg = bg

    def set_bg(self, bg: StyleFn | None) -> None:
        self.bg = bg

    def render(self, width: int) -> list[str]:
        inner = max(1, width - 2 * self.padding_x)
        lines: list[str] = []
        for child in self.children:
            lines.extend(child.render(inner))
        if not lines and not self.children:
            return []
        return _pad_lines(lines, width, self.padding_x, self.padding_y, self.bg)


class DynamicBorder:
    """A horizontal rule as wide as the screen."""

    def __init__(self, style: StyleFn | None = None, char: str = "─") -> None:
        self.style = style
        self.char = char

    def render(self, width: int) -> list[str]:
        line = self.char * max(1, width)
        return [self.style(line) if self.style else line]

    def invalidate(self) -> None:
        return


class Lines:
    """A component made from a function of the width (handy for one-off renderers)."""

    def __init__(self, render: Callable[[int], list[str]]) -> None:
        self._render = render

    def render(self, width: int) -> list[str]:
        return self._render(width)

    def invalidate(self) -> None:
        return


__all__ = ["Box", "Component", "DynamicBorder", "Lines", "Spacer", "StyleFn", "Text", "TruncatedText"]
