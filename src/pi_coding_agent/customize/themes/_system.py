"""Pi 1.6's ``system`` theme: its colours built from the terminal's own.

Each token has a colour family (a hue and a saturation range, and the ANSI palette slot
that carries the terminal's version of that hue) and contrast rules: the lightness it must
reach on the background and on the panels drawn under it. Pi fitted each contrast level as
a polynomial of the surface's OKLab lightness, one for dark and one for light terminals;
the numbers below are those facts. What the terminal reported decides the tier:

* background and 16-colour palette: the palette's hues at the lightness the rules need;
* background only: the families' own hues;
* nothing: palette indices and the terminal's default colours, which the terminal draws
  itself (neutral tokens below body text faint, panels without a background).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pi_tui import (
    Rgb,
    color_to_hex,
    color_to_okhsl,
    color_to_oklch,
    color_to_rgb,
    okhsl_color,
    oklab_to_okhsl_lightness,
    oklch_color,
)

RgbTriple = tuple[int, int, int]


@dataclass(frozen=True)
class _Family:
    hue: float
    low: float
    high: float
    slot: int


_FAMILIES = {
    "neutral": _Family(231.49, 0.02, 0.08, 8),
    "blue": _Family(231.49, 0.1, 0.68, 4),
    "green": _Family(158.68, 0.1, 0.76, 2),
    "red": _Family(20, 0.1, 0.92, 1),
    "yellow": _Family(82.36, 0.5, 1, 3),
    "orange": _Family(52, 0.12, 0.85, 3),
    "violet": _Family(295, 0.2, 0.6, 5),
    "calamine": _Family(202.43, 0.1, 0.74, 6),
    "thinkingSlate": _Family(231.49, 0.08, 0.2, 4),
    "thinkingBlue": _Family(231.49, 0.2, 0.45, 4),
    "thinkingPeriwinkle": _Family(263.25, 0.3, 0.6, 6),
    "thinkingViolet": _Family(295, 0.4, 0.75, 5),
    "thinkingMagenta": _Family(337.5, 0.5, 0.85, 13),
    "thinkingRed": _Family(20, 0.95, 1, 1),
}
_NEUTRAL = [
    "text",
    "userMessageText",
    "customMessageText",
    "toolTitle",
    "syntaxOperator",
    "syntaxPunctuation",
    "muted",
    "dim",
    "thinkingText",
    "toolOutput",
    "mdLinkUrl",
    "mdQuote",
    "mdQuoteBorder",
    "mdHr",
    "mdCodeBlockBorder",
    "toolDiffContext",
    "syntaxComment",
    "scrollbarTrack",
    "scrollbarThumb",
    "searchMatchText",
    "borderMuted",
    "thinkingOff",
]
_BY_FAMILY = {
    "blue": "selectedBg userMessageBg border mdLink syntaxKeyword",
    "orange": "searchMatchBg syntaxString",
    "violet": "customMessageBg accent borderAccent customMessageLabel mdCode mdListBullet syntaxType",
    "green": "toolSuccessBg success mdCodeBlock toolDiffAdded bashMode syntaxNumber",
    "red": "toolErrorBg error toolDiffRemoved",
    "yellow": "warning mdHeading syntaxFunction",
    "calamine": "syntaxVariable",
    "thinkingSlate": "thinkingMinimal",
    "thinkingBlue": "thinkingLow",
    "thinkingPeriwinkle": "thinkingMedium",
    "thinkingViolet": "thinkingHigh",
    "thinkingMagenta": "thinkingXhigh",
    "thinkingRed": "thinkingMax",
}
_TOKEN_FAMILY = {
    "toolPendingBg": "neutral",
    **{token: "neutral" for token in _NEUTRAL},
    **{token: family for family, tokens in _BY_FAMILY.items() for token in tokens.split()},
}
_TOKEN_SLOT = {"syntaxString": 2, "syntaxNumber": 5, "searchMatchBg": 3}

# level -> appearance -> (polynomial coefficients by power of the surface lightness, reachable range)
_Curve = tuple[tuple[float, ...], tuple[float, float]]
_LEVELS: dict[str, dict[str, _Curve]] = {
    "panel": {
        "dark": ((0.29131, -0.39746, 2.33185, -0.85524, -1.2076, 0.86276), (0, 0.979)),
        "light": ((-3.74073, 27.94549, -78.44258, 112.6798, -79.60015, 22.11277), (0.348, 1)),
    },
    "track": {
        "dark": ((0.39028, -0.23015, 0.83573, 2.43829, -4.38292, 2.01582), (0, 0.946)),
        "light": ((-5.24921, 38.37322, -107.28833, 152.10005, -106.17127, 29.18061), (0.368, 1)),
    },
    "thinking0": {
        "dark": ((0.52988, -0.05809, -0.30924, 4.63567, -6.52933, 2.89108), (0, 0.873)),
        "light": ((-28.27749, 182.85284, -469.62416, 603.15916, -384.59976, 97.35147), (0.51, 1)),
    },
    "thinking1": {
        "dark": ((0.55278, -0.03667, -0.45659, 4.95347, -6.90265, 3.0706), (0, 0.858)),
        "light": ((-37.10484, 235.86282, -596.62344, 754.3633, -474.00763, 118.3551), (0.535, 1)),
    },
    "thinking2": {
        "dark": ((0.57486, -0.01765, -0.58987, 5.25227, -7.27175, 3.25532), (0, 0.842)),
        "light": ((-59.89653, 377.05024, -945.07843, 1182.03145, -734.96375, 181.68658), (0.556, 1)),
    },
    "thinking3": {
        "dark": ((0.59621, -0.00062, -0.71148, 5.53588, -7.6392, 3.44606), (0, 0.827)),
        "light": ((-72.07122, 445.84082, -1099.57352, 1353.88793, -829.53392, 202.26164), (0.58, 1)),
    },
    "thinking4": {
        "dark": ((0.61691, 0.01462, -0.82288, 5.80651, -8.00641, 3.64333), (0, 0.811)),
        "light": ((-110.14338, 674.21488, -1645.75941, 2004.32367, -1215.15899, 293.3183), (0.6, 1)),
    },
    "thinking5": {
        "dark": ((0.63702, 0.02826, -0.92498, 6.06465, -8.37246, 3.84651), (0, 0.795)),
        "light": ((-175.47701, 1063.54495, -2570.70594, 3098.80776, -1860.15527, 444.76392), (0.62, 1)),
    },
    "thinking6": {
        "dark": ((0.65658, 0.04044, -1.01835, 6.30989, -8.73529, 4.05439), (0, 0.779)),
        "light": ((-183.81712, 1094.70055, -2602.68539, 3088.71276, -1826.91131, 430.75931), (0.643, 1)),
    },
    "subtle": {
        "dark": ((0.56762, -0.02475, -0.5383, 5.12628, -7.10931, 3.17324), (0, 0.848)),
        "light": ((-232.85459, 1376.54473, -3249.11801, 3827.91186, -2248.29472, 526.55751), (0.657, 1)),
    },
    "thumb": {
        "dark": ((0.60323, 0.00278, -0.73328, 5.57157, -7.68067, 3.46933), (0, 0.823)),
        "light": ((-82.89897, 511.01355, -1255.98095, 1540.76821, -940.68087, 228.58523), (0.586, 1)),
    },
    "readable": {
        "dark": ((0.66937, 0.04704, -1.06871, 6.43941, -8.9332, 4.17229), (0, 0.77)),
        "light": ((-1554.52576, 8733.56817, -19604.93507, 21977.72696, -12300.99599, 2749.81288), (0.751, 1)),
    },
    "emphasis": {
        "dark": ((0.7303, 0.07695, -1.31626, 7.1681, -10.14436, 4.92846), (0, 0.712)),
        "light": ((-4948.31942, 26870.91986, -58334.48399, 63280.17197, -34298.01053, 7430.30146), (0.811, 1)),
    },
    "textOnPanel": {
        "dark": ((0.86713, 0.05232, -0.89428, 4.79014, -5.5432, 1.75023), (0, 0.542)),
        "light": ((-8570.89457, 43954.60805, -90084.00702, 92220.6791, -47152.15802, 9632.27113), (0.867, 1)),
    },
    "text": {
        "dark": ((0.89242, 0.02311, -0.44862, 2.34417, -0.06084, -2.63844), (0, 0.5)),
        "light": ((-2004.67048, 6664.47299, -6060.70202, -1792.61209, 5133.82359, -1939.85583), (0.894, 1)),
    },
}  # fmt: skip

_TOOL_PANELS = ["toolPendingBg", "toolSuccessBg", "toolErrorBg"]
_MESSAGE_PANELS = ["userMessageBg", "customMessageBg"]
_PANELS = ["userMessageBg", "toolPendingBg", "toolSuccessBg", "toolErrorBg", "selectedBg", "searchMatchBg", "customMessageBg"]  # fmt: skip
_THINKING = ["thinkingOff", "thinkingMinimal", "thinkingLow", "thinkingMedium", "thinkingHigh", "thinkingXhigh", "thinkingMax"]  # fmt: skip
_BG = "background"
_ON_CODE = [_BG, *_MESSAGE_PANELS, *_TOOL_PANELS]
_ON_MUTED = [_BG, "selectedBg", "customMessageBg", *_TOOL_PANELS]


@dataclass(frozen=True)
class _Rule:
    token: str
    on: tuple[str, ...]
    level: str


def _each(tokens: Sequence[str], on: Sequence[str], level: str) -> list[_Rule]:
    return [_Rule(token, tuple(on), level) for token in tokens]


_RULES: list[_Rule] = [
    *_each(_PANELS, [_BG], "panel"),
    _Rule("text", (_BG,), "text"),
    _Rule("text", ("selectedBg",), "textOnPanel"),
    _Rule("userMessageText", ("userMessageBg",), "textOnPanel"),
    _Rule("toolTitle", tuple(_TOOL_PANELS), "textOnPanel"),
    *_each(["accent", "success", "error", "warning"], [_BG, "selectedBg", *_TOOL_PANELS], "readable"),
    _Rule("muted", tuple(_ON_MUTED), "readable"),
    _Rule("dim", tuple(_ON_MUTED), "subtle"),
    _Rule("thinkingText", (_BG,), "readable"),
    _Rule("customMessageText", ("customMessageBg", *_TOOL_PANELS), "readable"),
    _Rule("customMessageLabel", (_BG, "customMessageBg", "selectedBg", *_TOOL_PANELS), "readable"),
    _Rule("toolOutput", (_BG, *_TOOL_PANELS), "readable"),
    *_each(
        ["mdHeading", "mdLink", "mdLinkUrl", "mdCode", "mdQuote", "mdCodeBlockBorder", "mdListBullet"],
        [_BG, *_MESSAGE_PANELS],
        "readable",
    ),
    _Rule("mdCodeBlock", tuple(_ON_CODE), "readable"),
    *_each(["toolDiffAdded", "toolDiffRemoved", "toolDiffContext"], [_BG, *_TOOL_PANELS], "readable"),
    *_each(
        [
            "syntaxComment",
            "syntaxKeyword",
            "syntaxFunction",
            "syntaxVariable",
            "syntaxString",
            "syntaxNumber",
            "syntaxType",
            "syntaxOperator",
            "syntaxPunctuation",
        ],
        _ON_CODE,
        "readable",
    ),
    _Rule("searchMatchText", ("searchMatchBg",), "readable"),
    *_each(["bashMode", "border", "borderAccent"], [_BG], "readable"),
    _Rule("borderMuted", (_BG,), "subtle"),
    *_each(["mdQuoteBorder", "mdHr"], _ON_CODE, "readable"),
    _Rule("scrollbarTrack", (_BG,), "track"),
    _Rule("scrollbarThumb", ("scrollbarTrack",), "thumb"),
    *[_Rule(token, (_BG,), f"thinking{index}") for index, token in enumerate(_THINKING)],
]
_READABLE_FLOOR = {"dark": "readable", "light": "subtle"}
_FOREGROUND_LEVEL = "emphasis"
_FOREGROUND_TOKENS = ("text", "userMessageText", "toolTitle")
_TEXT_MINIMUM_CONTRAST = 4.5
"""The WCAG 2 contrast ratio body text keeps on every surface it is drawn on."""


def _solve_order() -> list[str]:
    """Every surface before the tokens drawn on it."""
    order: list[str] = []

    def visit(token: str) -> None:
        if token in order:
            return
        for rule in _RULES:
            if rule.token == token:
                for surface in rule.on:
                    if surface != _BG:
                        visit(surface)
        order.append(token)

    for rule in _RULES:
        visit(rule.token)
    return order


_SOLVE_ORDER = _solve_order()


@dataclass(frozen=True)
class SystemColors:
    colors: dict[str, str | int]
    """Every token: ``#rrggbb``, a palette index, or ``""`` (the terminal's default)."""
    dim: tuple[str, ...]
    appearance: str | None


def _oklab_lightness(rgb: Rgb) -> float:
    return color_to_oklch(rgb).l


def relative_luminance(rgb: Rgb) -> float:
    """WCAG's relative luminance, 0 (black) to 1 (white)."""

    def linear(channel: float) -> float:
        value = channel / 255
        return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4

    return 0.2126 * linear(rgb.r) + 0.7152 * linear(rgb.g) + 0.0722 * linear(rgb.b)


def wcag_contrast(first: Rgb, second: Rgb) -> float:
    a, b = relative_luminance(first), relative_luminance(second)
    return (max(a, b) + 0.05) / (min(a, b) + 0.05)


_WHITE, _BLACK = Rgb(255, 255, 255), Rgb(0, 0, 0)


def terminal_appearance(background: RgbTriple, foreground: RgbTriple | None = None) -> str:
    """``dark`` or ``light``: the side the terminal's own text is on when that text reads
    well, else the side where white (or black) text has more contrast."""
    return _appearance(Rgb(*background), None if foreground is None else Rgb(*foreground))


def appearance_from_env(env: Mapping[str, str]) -> str | None:
    """``light``/``dark`` from ``COLORFGBG`` (``fg;bg`` or ``fg;xpm;bg``), as Pi 1.6 reads it: the
    background is an index into the terminal's own palette, whose colours are unknown, so 0-6
    and 8 count as dark, 7 and 9-15 as light, anything else says nothing."""
    background = env.get("COLORFGBG", "").split(";")[-1].strip()
    if not re.fullmatch(r"[0-9]{1,2}", background) or int(background) > 15:
        return None
    return "dark" if int(background) <= 6 or int(background) == 8 else "light"


def _appearance(bg: Rgb, foreground: Rgb | None) -> str:
    white, black = wcag_contrast(_WHITE, bg), wcag_contrast(_BLACK, bg)
    if foreground is not None:
        fg_l, bg_l = _oklab_lightness(foreground), _oklab_lightness(bg)
        if abs(fg_l - bg_l) > 0.05:
            appearance = "dark" if fg_l > bg_l else "light"
            if (white if appearance == "dark" else black) >= _TEXT_MINIMUM_CONTRAST:
                return appearance
    return "dark" if white >= black else "light"


def _bell(lightness: float) -> float:
    """0 at black and white, 1 at mid lightness (a Gaussian, centre 0.5, sigma 0.25)."""

    def gaussian(x: float) -> float:
        return math.exp(-((x - 0.5) ** 2) / (2 * 0.25**2))

    return (gaussian(lightness) - gaussian(0)) / (1 - gaussian(0))


def _saturation_curve(family: _Family, lightness: float) -> float:
    floor = family.low / family.high if family.high > 0 else 1
    return floor + (1 - floor) * _bell(lightness)


def _level_target(level: str, appearance: str, surface_l: float) -> float | None:
    coefficients, (low, high) = _LEVELS[level][appearance]
    if surface_l < low or surface_l > high:
        return None
    total = 0.0
    for power, coefficient in enumerate(coefficients):
        total += coefficient * surface_l**power
    return total


@dataclass(frozen=True)
class _Source:
    h: float
    s: float
    l: float  # noqa: E741 (OKHSL's name)
    chroma: float


def _source_of(rgb: Rgb) -> _Source:
    h, s, lightness = color_to_okhsl(rgb)
    return _Source(h, s, lightness, color_to_oklch(rgb).c)


def _anchored(source: _Source, family: _Family, lightness: float, saturation: float) -> Rgb:
    """The source's hue at another lightness; its saturation falls off toward black and white
    along the family's curve and its chroma never grows past the source's."""
    anchor = _saturation_curve(family, source.l)
    falloff = min(1, _saturation_curve(family, lightness) / anchor) if anchor > 0 else 1
    color = okhsl_color(source.h, source.s * falloff * saturation, lightness)
    cap = source.chroma * falloff * saturation
    oklch = color_to_oklch(color)
    return color if oklch.c <= cap else color_to_rgb(oklch_color(oklch.l, cap, source.h))


def _with_text_contrast(color: Rgb, surfaces: list[Rgb], lighter: bool) -> Rgb:
    """Move text toward white (or black) until it reaches the minimum on every surface."""

    def meets(candidate: Rgb) -> bool:
        return all(wcag_contrast(candidate, surface) >= _TEXT_MINIMUM_CONTRAST for surface in surfaces)

    if meets(color):
        return color
    h, s, lightness = color_to_okhsl(color)
    extreme = 1.0 if lighter else 0.0
    if not meets(okhsl_color(h, s, extreme)):
        return okhsl_color(h, s, extreme)
    low, high = lightness, extreme
    for _ in range(20):
        middle = (low + high) / 2
        if meets(okhsl_color(h, s, middle)):
            high = middle
        else:
            low = middle
    return okhsl_color(h, s, high)


def _indexed_colors(saturation: float, appearance: str | None) -> SystemColors:
    colors: dict[str, str | int] = {}
    dim: list[str] = []
    for token, family in _TOKEN_FAMILY.items():
        if token in _PANELS:
            colors[token] = ""
            continue
        neutral = family == "neutral"
        colors[token] = (
            _TOKEN_SLOT.get(token, _FAMILIES[family].slot) if not neutral and saturation > 0 else ""
        )
        if neutral and token not in _FOREGROUND_TOKENS:
            dim.append(token)
    return SystemColors(colors, tuple(dim), appearance)


class _Solver:
    """Lightness targets for every token on a known background (see the module's docstring)."""

    def __init__(
        self, background: Rgb, foreground: Rgb | None, palette: list[_Source] | None, saturation: float
    ) -> None:
        self.background, self.foreground, self.palette, self.saturation = (
            background,
            foreground,
            palette,
            saturation,
        )
        self.appearance = _appearance(background, foreground)
        self.lighter = self.appearance == "dark"
        self.extreme = 1.0 if self.lighter else 0.0
        self.background_l = _oklab_lightness(background)
        self.extreme_text = _WHITE if self.lighter else _BLACK

    def paint(self, token: str, oklab_l: float) -> Rgb:
        lightness = oklab_to_okhsl_lightness(oklab_l)
        family = _FAMILIES[_TOKEN_FAMILY[token]]
        if self.palette is None:
            saturation = (family.low + (family.high - family.low) * _bell(lightness)) * self.saturation
            return okhsl_color(family.hue, saturation, lightness)
        return _anchored(
            self.palette[_TOKEN_SLOT.get(token, family.slot)], family, lightness, self.saturation
        )

    def target(self, level: str, surface_l: float, t: float) -> float | None:
        """The lightness a level needs on a surface, relaxed by ``t`` (0: none; to 1 the strong
        levels move toward the readable floor; to 2 every level moves toward the surface)."""
        reached = _level_target(level, self.appearance, surface_l)
        if reached is None and t == 0:
            return None
        distance = (self.extreme if reached is None else reached) - surface_l
        floor_target = _level_target(_READABLE_FLOOR[self.appearance], self.appearance, surface_l)
        floor = (self.extreme if floor_target is None else floor_target) - surface_l
        compressed = distance - (distance - floor) * min(t, 1) if abs(distance) > abs(floor) else distance
        return surface_l + compressed * (1 - max(0, t - 1))

    def _readable(self, color: Rgb) -> bool:
        return wcag_contrast(self.extreme_text, color) >= _TEXT_MINIMUM_CONTRAST

    def limit_panel(self, token: str, lightness: float) -> Rgb:
        """A panel no lighter (darker) than white (black) text still reads on."""
        color = self.paint(token, lightness)
        if self._readable(color):
            return color
        low, high = self.background_l, lightness
        for _ in range(20):
            middle = (low + high) / 2
            if self._readable(self.paint(token, middle)):
                low = middle
            else:
                high = middle
        return self.paint(token, low)

    def solve(self, t: float) -> dict[str, Rgb] | None:
        colors: dict[str, Rgb] = {_BG: self.background}
        for token in _SOLVE_ORDER:
            targets: list[float] = []
            for rule in _RULES:
                if rule.token != token:
                    continue
                for surface in rule.on:
                    value = self.target(rule.level, _oklab_lightness(colors.get(surface, self.background)), t)
                    if value is None or value < 0 or value > 1:
                        return None
                    targets.append(value)
            lightness = max(targets) if self.lighter else min(targets)
            colors[token] = (
                self.limit_panel(token, lightness) if token in _PANELS else self.paint(token, lightness)
            )
        return colors

    def solve_relaxed(self) -> tuple[dict[str, Rgb], float]:
        """The least relaxation that fits (mid-grey backgrounds cannot fit every level)."""
        colors = self.solve(0)
        if colors is not None:
            return colors, 0.0
        low, high = 0.0, 2.0
        best = self.solve(high) or {}
        for _ in range(20):
            middle = (low + high) / 2
            attempt = self.solve(middle)
            if attempt is not None:
                high, best = middle, attempt
            else:
                low = middle
        return best, high

    def body_text(self, token: str, solved: dict[str, Rgb], relaxation: float) -> str | None:
        """The terminal's own foreground (``""``) where it is clearly stronger than muted text,
        else its hue at just enough lightness; never under the minimum contrast."""
        surfaces = [
            solved.get(surface, self.background)
            for rule in _RULES
            if rule.token == token
            for surface in rule.on
        ]
        text = solved.get(token)
        if self.foreground is not None:
            targets = [
                self.target(_FOREGROUND_LEVEL, _oklab_lightness(surface), relaxation) for surface in surfaces
            ]
            usable = [value for value in targets if value is not None and 0 <= value <= 1]
            if len(usable) == len(targets):
                needed = max(usable) if self.lighter else min(usable)
                foreground_l = _oklab_lightness(self.foreground)
                if (foreground_l >= needed) if self.lighter else (foreground_l <= needed):
                    return ""
                neutral = _FAMILIES["neutral"]
                text = _anchored(
                    _source_of(self.foreground), neutral, oklab_to_okhsl_lightness(needed), self.saturation
                )
        return None if text is None else color_to_hex(_with_text_contrast(text, surfaces, self.lighter))


def generate_system_colors(
    background: RgbTriple | None = None,
    foreground: RgbTriple | None = None,
    palette: Sequence[RgbTriple] | None = None,
    saturation: float = 1.0,
    appearance_hint: str | None = None,
) -> SystemColors:
    """The ``system`` theme for what the terminal reported (``saturation`` 0: greys only,
    while its answer is awaited); ``appearance_hint`` is used when it reported nothing."""
    saturation = min(1.0, max(0.0, saturation))
    if background is None:
        return _indexed_colors(saturation, appearance_hint)
    sources = (
        [_source_of(Rgb(*color)) for color in palette] if palette is not None and len(palette) == 16 else None
    )
    solver = _Solver(Rgb(*background), None if foreground is None else Rgb(*foreground), sources, saturation)
    solved, relaxation = solver.solve_relaxed()
    colors: dict[str, str | int] = {
        token: color_to_hex(solved[token]) if token in solved else "" for token in _TOKEN_FAMILY
    }
    for token in _FOREGROUND_TOKENS:
        text = solver.body_text(token, solved, relaxation)
        if text is not None:
            colors[token] = text
    return SystemColors(colors, (), solver.appearance)
