"""A theme's colours for a web page (the HTML export), as Pi 1.6 computes them.

Every token becomes ``#rrggbb`` through ``pi_tui``'s colour code, whatever form the theme
gives it (okhsl, oklch, ``#rgb``, a palette index; vars are already followed). A token set to
``""`` (the terminal's default) takes the colour the terminal reported for its slot, else
Pi's guess for the theme's appearance; faint tokens (the ``system`` theme on a terminal that
reported nothing) are mixed 40% of the way to that background, as they look on screen. The
page, card and info backgrounds are the theme's ``export`` colours, else shades of
``userMessageBg``.
"""

from __future__ import annotations

import os

from pi_coding_agent.customize.themes._builtin import builtin_theme, system_theme
from pi_coding_agent.customize.themes._system import appearance_from_env, relative_luminance
from pi_coding_agent.customize.themes._theme import THEME_TOKENS, Theme
from pi_tui import Color, Rgb, TerminalColors, color_to_hex, color_to_rgb, mix_colors, parse_color

_GUESSED_DEFAULTS = {"dark": ("#e5e5e7", "#000000"), "light": ("#000000", "#ffffff")}
"""Pi's guess at the terminal's (foreground, background) when it reported none."""
_FAINT_MIX = 0.4


def _default_colors(theme: Theme, terminal: TerminalColors, appearance: str) -> tuple[Color, Color]:
    guessed_fg, guessed_bg = _GUESSED_DEFAULTS[theme.appearance or appearance]
    fg, bg = terminal.foreground, terminal.background
    return (Rgb(*fg) if fg else parse_color(guessed_fg), Rgb(*bg) if bg else parse_color(guessed_bg))


def _token_colors(theme: Theme, terminal: TerminalColors, appearance: str) -> dict[str, Color]:
    foreground, background = _default_colors(theme, terminal, appearance)
    colors: dict[str, Color] = {}
    for token, value in theme.colors.items():
        if value == "":
            colors[token] = background if THEME_TOKENS[token].background else foreground
        else:
            colors[token] = parse_color(value)
        if token in theme.dim:
            colors[token] = mix_colors(colors[token], background, _FAINT_MIX)
    return colors


def _hex(r: float, g: float, b: float) -> str:
    """Channels clamped to 0-255 and rounded as JavaScript rounds them."""
    return color_to_hex(Rgb(min(255, max(0, r)), min(255, max(0, g)), min(255, max(0, b))))


def _derived_backgrounds(base: str) -> dict[str, str]:
    """Page, card and info backgrounds around the message background (``#rrggbb``): lighter
    or darker shades. (Pi's luminance threshold here is 0.03928, the system theme's 0.04045:
    no 8-bit channel lies between them, so one function serves both.)"""
    rgb = color_to_rgb(parse_color(base))
    r, g, b = rgb.r, rgb.g, rgb.b
    if relative_luminance(rgb) > 0.5:
        return {
            "pageBg": _hex(r * 0.96, g * 0.96, b * 0.96),
            "cardBg": base,
            "infoBg": _hex(r + 10, g + 5, b - 20),
        }
    return {
        "pageBg": _hex(r * 0.7, g * 0.7, b * 0.7),
        "cardBg": _hex(r * 0.85, g * 0.85, b * 0.85),
        "infoBg": _hex(r + 20, g + 15, b),
    }


def export_palette(
    theme: Theme, terminal: TerminalColors | None = None, appearance: str = "dark"
) -> dict[str, str]:
    """Every colour token of ``theme`` as ``#rrggbb``, with ``exportPageBg``, ``exportCardBg``
    and ``exportInfoBg``. ``terminal``: what the terminal reported about its colours;
    ``appearance``: whether it is light or dark, for a theme that does not say."""
    colors = _token_colors(theme, terminal or TerminalColors(), appearance)
    palette = {token: color_to_hex(color) for token, color in colors.items()}
    derived = _derived_backgrounds(palette["userMessageBg"])
    for key, fallback in derived.items():
        given = theme.export.get(key)
        palette[f"export{key[0].upper()}{key[1:]}"] = (
            fallback if given is None else color_to_hex(parse_color(given))
        )
    return palette


def export_palette_for_setting(setting: object = None) -> dict[str, str]:
    """The export's colours where no terminal was asked (``pi --export``, the RPC mode), as in
    Pi 1.6: the ``dark`` or ``light`` theme when ``setting`` names it, else the ``system``
    theme for a terminal that reported nothing, light or dark by ``COLORFGBG``."""
    appearance = appearance_from_env(os.environ) or "dark"
    if setting in ("dark", "light"):
        return export_palette(builtin_theme(str(setting)), appearance=appearance)
    return export_palette(system_theme(appearance_hint=appearance), appearance=appearance)
