"""Our built-in themes: ``dark`` and ``light`` with Pi 1.6's colours, and the ``system``
theme built from the terminal's (``_system``).

Pi 1.6 drew both in OKHSL. Here each is one table: a token's colour is either one of the
shared colours in ``_SHARED`` (named by key) or a ``(dark, light)`` pair of its own. A colour
is ``(hue in degrees, saturation %, lightness %)`` in OKHSL, which ``pi_tui.parse_color``
turns into the same 8-bit RGB as Pi's ``pi-tui``. Every token has a colour (none falls back).
"""

from __future__ import annotations

from pi_coding_agent.customize.themes._system import generate_system_colors
from pi_coding_agent.customize.themes._theme import (
    SYSTEM_THEME,
    THEME_TOKENS,
    Theme,
    ThemeValue,
)
from pi_tui import TerminalColors, supports_true_color

Okhsl = tuple[int, int, int]
"""An OKHSL colour: hue in degrees, saturation and lightness in percent."""

_SHARED: dict[str, tuple[Okhsl, Okhsl]] = {
    "text": ((234, 3, 89), (225, 5, 27)),
    "muted": ((229, 6, 67), (229, 8, 47)),
    "violet": ((295, 50, 67), (295, 60, 46)),
    "blue": ((232, 54, 67), (231, 68, 47)),
    "green": ((159, 59, 67), (159, 75, 46)),
    "red": ((20, 72, 67), (20, 91, 47)),
    "yellow": ((83, 88, 67), (83, 99, 47)),
    "blueBg": ((233, 41, 24), (235, 19, 91)),
}
"""Colours several tokens use, as ``(dark, light)``."""

_TOKENS: dict[str, str | tuple[Okhsl, Okhsl]] = {
    "accent": "violet",
    "border": ((231, 57, 65), (231, 67, 55)),
    "borderAccent": ((295, 53, 64), (295, 59, 55)),
    "borderMuted": ((229, 8, 53), (235, 7, 66)),
    "success": "green",
    "error": "red",
    "warning": "yellow",
    "muted": "muted",
    "dim": ((229, 8, 56), (229, 7, 59)),
    "text": "text",
    "thinkingText": ((226, 7, 65), (234, 8, 55)),
    "selectedBg": "blueBg",
    "scrollbarTrack": ((237, 7, 33), (248, 3, 90)),
    "scrollbarThumb": ((232, 7, 65), (226, 7, 65)),
    "searchMatchBg": ((53, 51, 24), (56, 22, 91)),
    "searchMatchText": "muted",
    "userMessageBg": "blueBg",
    "userMessageText": "text",
    "customMessageBg": ((295, 42, 24), (295, 25, 91)),
    "customMessageText": "muted",
    "customMessageLabel": "violet",
    "toolPendingBg": ((229, 5, 24), (248, 3, 91)),
    "toolSuccessBg": ((158, 46, 25), (156, 21, 91)),
    "toolErrorBg": ((19, 54, 25), (24, 23, 91)),
    "toolTitle": "text",
    "toolOutput": "muted",
    "mdHeading": "yellow",
    "mdLink": "blue",
    "mdLinkUrl": "muted",
    "mdCode": "violet",
    "mdCodeBlock": "green",
    "mdCodeBlockBorder": "muted",
    "mdQuote": "muted",
    "mdQuoteBorder": "muted",
    "mdHr": "muted",
    "mdListBullet": "violet",
    "toolDiffAdded": "green",
    "toolDiffRemoved": "red",
    "toolDiffContext": "muted",
    "syntaxComment": "muted",
    "syntaxKeyword": "blue",
    "syntaxFunction": "yellow",
    "syntaxVariable": ((202, 58, 67), (203, 73, 46)),
    "syntaxString": ((52, 67, 67), (52, 84, 46)),
    "syntaxNumber": "green",
    "syntaxType": "violet",
    "syntaxOperator": "muted",
    "syntaxPunctuation": "muted",
    "thinkingOff": ((229, 8, 49), (223, 5, 80)),
    "thinkingMinimal": ((232, 20, 52), (229, 14, 78)),
    "thinkingLow": ((232, 45, 54), (232, 33, 76)),
    "thinkingMedium": ((263, 59, 56), (264, 48, 74)),
    "thinkingHigh": ((295, 73, 59), (295, 62, 72)),
    "thinkingXhigh": ((337, 81, 61), (337, 74, 70)),
    "thinkingMax": ((20, 99, 63), (20, 98, 68)),
    "bashMode": ((159, 64, 65), (159, 74, 55)),
}
"""Each token's colour: a key of ``_SHARED``, or a ``(dark, light)`` pair."""

_EXPORT: dict[str, tuple[Okhsl, Okhsl]] = {
    "pageBg": ((262, 14, 16), (17, 3, 94)),
    "cardBg": ((264, 13, 19), (17, 5, 97)),
    "infoBg": ((53, 51, 24), (56, 22, 91)),
}
"""The HTML export's backgrounds, as ``(dark, light)`` (Pi 1.6's ``export`` sections)."""

_VARIANTS = ("dark", "light")


def _okhsl(color: Okhsl) -> str:
    hue, saturation, lightness = color
    return f"okhsl({hue} {saturation}% {lightness}%)"


def builtin_theme(name: str, truecolor: bool | None = None) -> Theme:
    """The ``dark`` or ``light`` theme shipped with us (``system`` is built from the terminal's colours)."""
    variant = _VARIANTS.index(name)
    colors: dict[str, ThemeValue] = {}
    for token in THEME_TOKENS:
        color = _TOKENS[token]
        pair = _SHARED[color] if isinstance(color, str) else color
        colors[token] = _okhsl(pair[variant])
    export: dict[str, ThemeValue] = {key: _okhsl(pair[variant]) for key, pair in _EXPORT.items()}
    mode = supports_true_color() if truecolor is None else truecolor
    return Theme(name, colors, mode, name, name, export=export)


def system_theme(
    terminal: TerminalColors | None = None,
    *,
    pending: bool = False,
    appearance_hint: str | None = None,
    truecolor: bool | None = None,
) -> Theme:
    """The ``system`` theme for what the terminal reported (greys while its answer is
    ``pending``); ``appearance_hint``: light or dark, for a terminal that reported nothing."""
    reported = terminal or TerminalColors()
    generated = generate_system_colors(
        reported.background,
        reported.foreground,
        reported.palette,
        saturation=0 if pending else 1,
        appearance_hint=appearance_hint,
    )
    mode = supports_true_color() if truecolor is None else truecolor
    return Theme(
        SYSTEM_THEME, dict(generated.colors), mode, None, generated.appearance, frozenset(generated.dim)
    )
