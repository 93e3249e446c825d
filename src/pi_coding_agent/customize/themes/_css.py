"""A theme's colours for a web page (the HTML export): every token as a CSS colour, plus the
page, card and info backgrounds.

As in Pi: a 256-colour index becomes its xterm RGB value, ``""`` (the terminal's default)
becomes black on the ``light`` theme and a light grey elsewhere, and the backgrounds come from
the theme file's ``export`` section or, where it is silent, from ``userMessageBg``.
"""

from __future__ import annotations

from collections.abc import Mapping

from pi_coding_agent.customize.themes._theme import Theme

Rgb = tuple[int, int, int]

_ANSI_16 = (
    (0, 0, 0), (128, 0, 0), (0, 128, 0), (128, 128, 0), (0, 0, 128), (128, 0, 128), (0, 128, 128), (192, 192, 192),
    (128, 128, 128), (255, 0, 0), (0, 255, 0), (255, 255, 0), (0, 0, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
)  # fmt: skip
_CUBE = (0, 95, 135, 175, 215, 255)
_FALLBACK_MESSAGE_BG = "#343541"


def ansi_rgb(index: int) -> Rgb:
    """The RGB value of an xterm-256 colour index."""
    if index < 16:
        return _ANSI_16[index]
    if index < 232:
        index -= 16
        return (_CUBE[index // 36], _CUBE[index // 6 % 6], _CUBE[index % 6])
    grey = 8 + 10 * (index - 232)
    return (grey, grey, grey)


def _linear(channel: int) -> float:
    value = channel / 255
    return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4


def luminance(rgb: Rgb) -> float:
    """Relative luminance, 0 (black) to 1 (white)."""
    return 0.2126 * _linear(rgb[0]) + 0.7152 * _linear(rgb[1]) + 0.0722 * _linear(rgb[2])


def appearance_from_env(env: Mapping[str, str]) -> str | None:
    """``light``/``dark`` from ``COLORFGBG`` (``fg;bg``, the last number being the background)."""
    for raw in reversed(env.get("COLORFGBG", "").split(";")):
        part = raw.strip()
        if part.isdigit() and 0 <= int(part) <= 255:
            return "light" if luminance(ansi_rgb(int(part))) >= 0.5 else "dark"
    return None


def _hex(rgb: Rgb) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def _rgb(color: str) -> Rgb:
    return (int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16))


def _scaled(rgb: Rgb, factor: float) -> str:
    return _hex(tuple(min(255, max(0, round(c * factor))) for c in rgb))  # type: ignore[arg-type]


def _derived_backgrounds(base: str) -> dict[str, str]:
    """Page, card and info backgrounds around a message background: lighter or darker shades."""
    r, g, b = rgb = _rgb(base)
    if luminance(rgb) > 0.5:
        return {
            "pageBg": _scaled(rgb, 0.96),
            "cardBg": base,
            "infoBg": _hex((min(255, r + 10), min(255, g + 5), max(0, b - 20))),
        }
    return {
        "pageBg": _scaled(rgb, 0.7),
        "cardBg": _scaled(rgb, 0.85),
        "infoBg": _hex((min(255, r + 20), min(255, g + 15), b)),
    }


def export_palette(theme: Theme) -> dict[str, str]:
    """Every colour token of ``theme`` as ``#rrggbb``, with ``exportPageBg``, ``exportCardBg``
    and ``exportInfoBg``."""
    default_text = "#000000" if theme.name == "light" else "#e5e5e7"

    def css(value: str | int) -> str:
        if isinstance(value, int):
            return _hex(ansi_rgb(value))
        return value or default_text

    palette = {token: css(value) for token, value in theme.colors.items()}
    message_bg = theme.colors.get("userMessageBg")
    derived = _derived_backgrounds(
        palette["userMessageBg"] if message_bg not in (None, "") else _FALLBACK_MESSAGE_BG
    )
    for key, fallback in derived.items():
        given = theme.export.get(key, "")
        palette[f"export{key[0].upper()}{key[1:]}"] = css(given) if given != "" else fallback
    return palette
