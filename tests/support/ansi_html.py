"""Terminal text with SGR styles (what ``tmux capture-pane -e`` prints) as an HTML page.

Colours: the 16 base colours (xterm's defaults), the 256-colour cube and greys, and 24-bit
``38;2;r;g;b``; bold, dim, italic, underline, strikethrough and reverse video. Escape
sequences other than SGR are dropped. ``standalone_lines`` cuts a capture into lines that
each carry their own styles, so any range of them can be shown. Each run of equally styled text becomes one ``<span>``;
the page is one ``<pre>`` in a monospace font on the terminal's own background.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, replace

BASE_16 = (
    "#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
    "#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff",
)  # fmt: skip
_CUBE = (0, 95, 135, 175, 215, 255)
_SEQUENCE = re.compile(r"\x1b\[([0-9;:]*)m|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b\[[0-?]*[ -/]*[@-~]|\x1b.")


def colour_256(index: int) -> str:
    if index < 16:
        return BASE_16[index]
    if index < 232:
        index -= 16
        r, g, b = _CUBE[index // 36], _CUBE[index // 6 % 6], _CUBE[index % 6]
        return f"#{r:02x}{g:02x}{b:02x}"
    grey = 8 + 10 * (index - 232)
    return f"#{grey:02x}{grey:02x}{grey:02x}"


@dataclass(frozen=True)
class Style:
    fg: str | None = None
    bg: str | None = None
    bold: bool = False
    dim: bool = False
    italic: bool = False
    underline: bool = False
    strike: bool = False
    reverse: bool = False

    def css(self, foreground: str, background: str) -> str:
        fg, bg = self.fg or foreground, self.bg
        if self.reverse:
            fg, bg = bg or background, fg
        rules = [f"color:{fg}"] if fg != foreground else []
        rules += [f"background:{bg};padding:1px 0"] if bg else []  # no gap between lines
        rules += ["font-weight:bold"] if self.bold else []
        rules += ["opacity:0.6"] if self.dim else []
        rules += ["font-style:italic"] if self.italic else []
        lines = [name for on, name in ((self.underline, "underline"), (self.strike, "line-through")) if on]
        rules += [f"text-decoration:{' '.join(lines)}"] if lines else []
        return ";".join(rules)


_FLAGS = {1: ("bold", True), 2: ("dim", True), 3: ("italic", True), 4: ("underline", True), 7: ("reverse", True),
          9: ("strike", True), 23: ("italic", False), 24: ("underline", False), 27: ("reverse", False),
          29: ("strike", False)}  # fmt: skip


def _extended(codes: list[int], at: int) -> tuple[str | None, int]:
    """A ``38;5;n`` / ``38;2;r;g;b`` colour starting after the 38/48 at ``at``; (colour, codes used)."""
    if at + 1 < len(codes) and codes[at + 1] == 5 and at + 2 < len(codes):
        return colour_256(codes[at + 2]), 3
    if at + 1 < len(codes) and codes[at + 1] == 2 and at + 4 < len(codes):
        r, g, b = codes[at + 2 : at + 5]
        return f"#{r:02x}{g:02x}{b:02x}", 5
    return None, 1


def apply_sgr(style: Style, parameters: str) -> Style:
    codes = [int(part) if part.isdigit() else 0 for part in re.split("[;:]", parameters)] if parameters else [0]
    index = 0
    while index < len(codes):
        code = codes[index]
        step = 1
        if code == 0:
            style = Style()
        elif code in _FLAGS:
            name, value = _FLAGS[code]
            style = replace(style, **{name: value})
        elif code == 22:
            style = replace(style, bold=False, dim=False)
        elif 30 <= code <= 37 or 90 <= code <= 97:
            style = replace(style, fg=BASE_16[code - 30 if code < 90 else code - 82])
        elif 40 <= code <= 47 or 100 <= code <= 107:
            style = replace(style, bg=BASE_16[code - 40 if code < 100 else code - 92])
        elif code in (38, 48):
            colour, step = _extended(codes, index)
            style = replace(style, **{"fg" if code == 38 else "bg": colour})
        elif code == 39:
            style = replace(style, fg=None)
        elif code == 49:
            style = replace(style, bg=None)
        index += step
    return style


def ansi_to_spans(text: str, foreground: str, background: str) -> str:
    """``text`` as HTML: escaped, each styled run in a ``<span style>``."""
    out: list[str] = []
    style = Style()
    position = 0
    for match in _SEQUENCE.finditer(text):
        out.append(_span(text[position : match.start()], style, foreground, background))
        if match.group(1) is not None:
            style = apply_sgr(style, match.group(1))
        position = match.end()
    out.append(_span(text[position:], style, foreground, background))
    return "".join(out)


def _span(text: str, style: Style, foreground: str, background: str) -> str:
    if not text:
        return ""
    css = style.css(foreground, background)
    escaped = html.escape(text)
    return f'<span style="{css}">{escaped}</span>' if css else escaped


def standalone_lines(text: str) -> list[str]:
    """The lines of ``text``, each starting with the styles in force where it starts
    (``tmux capture-pane -e`` sets a style once and lets it run on over the next lines)."""
    lines: list[str] = []
    active: list[str] = []
    for line in text.split("\n"):
        lines.append("".join(active) + line)
        for match in _SEQUENCE.finditer(line):
            parameters = match.group(1)
            if parameters is None:
                continue
            if parameters in ("", "0"):
                active = []
            else:
                active.append(match.group(0))
    return lines


def visible(line: str) -> str:
    return _SEQUENCE.sub("", line)


def ansi_page(text: str, *, foreground: str = "#d4d4d4", background: str = "#1e1e1e", font_px: int = 14) -> str:
    body = ansi_to_spans(text, foreground, background)
    return (
        "<!doctype html><html><head><meta charset='utf-8'><style>"
        f"html,body{{margin:0;background:{background}}}"
        f"pre{{margin:0;padding:12px;color:{foreground};font:{font_px}px/{round(font_px * 1.2)}px 'DejaVu Sans Mono',monospace}}"
        f"</style></head><body><pre>{body}</pre></body></html>"
    )
