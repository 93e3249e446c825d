"""Colours as Pi 1.6's ``pi-tui`` writes and draws them.

A colour is a 256-colour palette index, an sRGB colour, or an OKLCH colour (gamut-mapped
to sRGB when drawn). ``parse_color`` reads the forms theme files use: an index, ``#rgb``,
``#rrggbb``, ``oklch(L C H)`` and ``okhsl(H S L)``. ``color_sgr`` is the escape sequence
that draws one: 24-bit where the terminal has it, else the nearest xterm-256 entry, picked
as Pi picks it so both programs draw the same palette.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from pi_tui._oklab import js_degrees, js_round, okhsl_to_rgb, oklab_to_linear_srgb, rgb_to_okhsl, rgb_to_oklab
from pi_tui._oklab import linear_srgb_to_rgb as _linear_to_rgb


class ColorError(ValueError):
    """A colour value that cannot be read; the message says which and why."""


@dataclass(frozen=True)
class Indexed:
    """A palette entry 0-255, drawn by the terminal with its own palette."""

    index: int


@dataclass(frozen=True)
class Rgb:
    """An sRGB colour, channels 0-255 (fractions allowed, rounded when drawn)."""

    r: float
    g: float
    b: float


@dataclass(frozen=True)
class Oklch:
    """OKLCH: lightness 0-1, chroma >= 0, hue in degrees [0, 360)."""

    l: float  # noqa: E741 (the colour space's own name for it)
    c: float
    h: float


Color = Indexed | Rgb | Oklch

_NUMBER = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:e[+-]?[0-9]+)?"
_HEX = re.compile(r"#([0-9a-f]{3}|[0-9a-f]{6})", re.IGNORECASE)
_OKLCH = re.compile(rf"oklch\(\s*({_NUMBER})(%)?\s+({_NUMBER})\s+({_NUMBER})(?:deg)?\s*\)", re.IGNORECASE)
_OKHSL = re.compile(rf"okhsl\(\s*({_NUMBER})(?:deg)?\s+({_NUMBER})(%)?\s+({_NUMBER})(%)?\s*\)", re.IGNORECASE)
_BASIC = (
    (0, 0, 0), (128, 0, 0), (0, 128, 0), (128, 128, 0), (0, 0, 128), (128, 0, 128), (0, 128, 128), (192, 192, 192),
    (128, 128, 128), (255, 0, 0), (0, 255, 0), (255, 255, 0), (0, 0, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
)  # fmt: skip
_CUBE = (0, 95, 135, 175, 215, 255)
_GREYS = tuple(8 + 10 * step for step in range(24))


def _finite(value: float, name: str) -> float:
    if not math.isfinite(value):
        raise ColorError(f"{name} must be finite")
    return value


def rgb_color(r: float, g: float, b: float) -> Rgb:
    for name, value in (("r", r), ("g", g), ("b", b)):
        if not 0 <= _finite(value, name) <= 255:
            raise ColorError(f"{name} must be between 0 and 255: {value}")
    return Rgb(r, g, b)


def oklch_color(lightness: float, chroma: float, hue: float) -> Oklch:
    if not 0 <= _finite(lightness, "l") <= 1:
        raise ColorError(f"OKLCH lightness must be between 0 and 1 (0%-100%): {lightness:g}")
    if _finite(chroma, "c") < 0:
        raise ColorError(f"OKLCH chroma must not be negative: {chroma:g}")
    return Oklch(lightness, chroma, js_degrees(_finite(hue, "h")))


def okhsl_color(hue: float, saturation: float, lightness: float) -> Rgb:
    """An OKHSL colour as sRGB (saturation and lightness 0-1)."""
    _finite(hue, "h")
    if not 0 <= _finite(saturation, "s") <= 1:
        raise ColorError(f"OKHSL saturation must be between 0 and 1 (0%-100%): {saturation:g}")
    if not 0 <= _finite(lightness, "l") <= 1:
        raise ColorError(f"OKHSL lightness must be between 0 and 1 (0%-100%): {lightness:g}")
    return Rgb(*okhsl_to_rgb(hue, saturation, lightness))


def parse_color(value: str | int) -> Color:
    """A colour from a theme value; ``ColorError`` for anything else."""
    if isinstance(value, int):
        if not 0 <= value <= 255:
            raise ColorError(f"a 256-color index must be 0-255: {value}")
        return Indexed(value)
    if match := _HEX.fullmatch(value):
        digits = match[1] if len(match[1]) == 6 else "".join(digit * 2 for digit in match[1])
        return Rgb(int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16))
    if match := _OKLCH.fullmatch(value):
        lightness = float(match[1]) / (100 if match[2] else 1)
        return oklch_color(lightness, float(match[3]), float(match[4]))
    if match := _OKHSL.fullmatch(value):
        saturation = float(match[2]) / (100 if match[3] else 1)
        lightness = float(match[4]) / (100 if match[5] else 1)
        return okhsl_color(float(match[1]), saturation, lightness)
    raise ColorError(f"invalid color value: {value!r}")


def _indexed_rgb(index: int) -> Rgb:
    if index < 16:
        return Rgb(*_BASIC[index])
    if index < 232:
        cube = index - 16
        return Rgb(_CUBE[cube // 36], _CUBE[cube % 36 // 6], _CUBE[cube % 6])
    grey = 8 + (index - 232) * 10
    return Rgb(grey, grey, grey)


def _in_gamut(linear: tuple[float, float, float]) -> bool:
    return all(-1e-7 <= channel <= 1 + 1e-7 for channel in linear)


def _oklch_rgb(color: Oklch) -> Rgb:
    """Gamut-mapped: chroma is reduced (hue and lightness kept) until the colour fits sRGB."""
    radians = (color.h * math.pi) / 180
    cos, sin = math.cos(radians), math.sin(radians)

    def at(chroma: float) -> tuple[float, float, float]:
        return oklab_to_linear_srgb((color.l, chroma * cos, chroma * sin))

    direct = at(color.c)
    if _in_gamut(direct):
        return Rgb(*_linear_to_rgb(direct))
    linear, low, high = at(0), 0.0, color.c
    for _ in range(20):
        chroma = (low + high) / 2
        candidate = at(chroma)
        if _in_gamut(candidate):
            low, linear = chroma, candidate
        else:
            high = chroma
    return Rgb(*_linear_to_rgb(linear))


def color_to_rgb(color: Color) -> Rgb:
    if isinstance(color, Indexed):
        return _indexed_rgb(color.index)
    if isinstance(color, Oklch):
        return _oklch_rgb(color)
    return color


def color_to_oklch(color: Color) -> Oklch:
    if isinstance(color, Oklch):
        return color
    rgb = color_to_rgb(color)
    lightness, a, b = rgb_to_oklab((rgb.r, rgb.g, rgb.b))
    return Oklch(lightness, math.hypot(a, b), math.fmod((math.atan2(b, a) * 180) / math.pi + 360, 360))


def color_to_okhsl(color: Color) -> tuple[float, float, float]:
    """(hue, saturation, lightness) of a colour."""
    rgb = color_to_rgb(color)
    return rgb_to_okhsl((rgb.r, rgb.g, rgb.b))


def color_to_hex(color: Color) -> str:
    rgb = color_to_rgb(color)
    return "#" + "".join(f"{js_round(channel):02x}" for channel in (rgb.r, rgb.g, rgb.b))


def mix_colors(first: Color, second: Color, amount: float) -> Oklch:
    """``amount`` (0-1) of the way from ``first`` to ``second`` in OKLCH, the short way round."""
    a, b = color_to_oklch(first), color_to_oklch(second)
    first_hue = b.h if a.c < 1e-7 else a.h
    second_hue = first_hue if b.c < 1e-7 else b.h
    delta = math.fmod(second_hue - first_hue + 540, 360) - 180
    return oklch_color(a.l + (b.l - a.l) * amount, a.c + (b.c - a.c) * amount, first_hue + delta * amount)


def _closest(values: tuple[int, ...], target: float) -> int:
    best, best_distance = 0, math.inf
    for index, value in enumerate(values):
        distance = abs(target - value)
        if distance < best_distance:
            best, best_distance = index, distance
    return best


def _distance(a: Rgb, b: Rgb) -> float:
    dr, dg, db = a.r - b.r, a.g - b.g, a.b - b.b
    return dr * dr * 0.299 + dg * dg * 0.587 + db * db * 0.114


def rgb_to_256(color: Rgb) -> int:
    """Nearest xterm-256 entry: the colour cube, or the grey ramp for nearly neutral colours."""
    ri, gi, bi = _closest(_CUBE, color.r), _closest(_CUBE, color.g), _closest(_CUBE, color.b)
    grey_offset = _closest(_GREYS, js_round(0.299 * color.r + 0.587 * color.g + 0.114 * color.b))
    grey = _GREYS[grey_offset]
    spread = max(color.r, color.g, color.b) - min(color.r, color.g, color.b)
    if spread < 10 and _distance(color, Rgb(grey, grey, grey)) < _distance(
        color, Rgb(_CUBE[ri], _CUBE[gi], _CUBE[bi])
    ):
        return 232 + grey_offset
    return 16 + 36 * ri + 6 * gi + bi


def color_sgr(color: Color, background: bool, truecolor: bool) -> str:
    """The SGR sequence that sets ``color`` as the foreground (or background)."""
    base = 48 if background else 38
    if isinstance(color, Indexed):
        return f"\x1b[{base};5;{color.index}m"
    rgb = color_to_rgb(color)
    if truecolor:
        return f"\x1b[{base};2;{js_round(rgb.r)};{js_round(rgb.g)};{js_round(rgb.b)}m"
    return f"\x1b[{base};5;{rgb_to_256(rgb)}m"
