"""Themes: Pi's JSON theme files (same format, same colour tokens) turned into ANSI styles.

A theme file has ``name``, optional ``vars`` (named colours) and ``colors`` (every token of
``TOKENS``; ``thinkingMax``, ``searchMatchBg`` and ``searchMatchText`` may be left out and
fall back as in Pi). A colour is ``"#rrggbb"``, a 256-colour index, the name of a var,
or ``""`` for the terminal's default. Terminals without 24-bit colour (``pi_tui``'s
``supports_true_color``: ``terminal.trueColor``, ``PI_TRUE_COLOR``, the terminal) get the nearest 256-colour entry,
chosen the way Pi chooses it, so both draw the same palette. The built-in ``dark`` and
``light`` themes carry Pi's colours.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pi_coding_agent.customize.resources import Collision
from pi_tui import supports_true_color

FOREGROUND_TOKENS = (
    "accent", "border", "borderAccent", "borderMuted", "success", "error", "warning", "muted", "dim",
    "text", "thinkingText", "scrollbarTrack", "scrollbarThumb", "userMessageText", "customMessageText",
    "customMessageLabel", "toolTitle", "toolOutput", "mdHeading", "mdLink", "mdLinkUrl", "mdCode",
    "mdCodeBlock", "mdCodeBlockBorder", "mdQuote", "mdQuoteBorder", "mdHr", "mdListBullet",
    "toolDiffAdded", "toolDiffRemoved", "toolDiffContext", "syntaxComment", "syntaxKeyword",
    "syntaxFunction", "syntaxVariable", "syntaxString", "syntaxNumber", "syntaxType", "syntaxOperator",
    "syntaxPunctuation", "thinkingOff", "thinkingMinimal", "thinkingLow", "thinkingMedium", "thinkingHigh",
    "thinkingXhigh", "bashMode",
)  # fmt: skip
BACKGROUND_TOKENS = (
    "selectedBg",
    "userMessageBg",
    "customMessageBg",
    "toolPendingBg",
    "toolSuccessBg",
    "toolErrorBg",
)
REQUIRED_TOKENS = FOREGROUND_TOKENS + BACKGROUND_TOKENS
OPTIONAL_FALLBACKS = {
    "thinkingMax": "thinkingXhigh",
    "searchMatchBg": "selectedBg",
    "searchMatchText": "text",
}
TOKENS = REQUIRED_TOKENS + tuple(OPTIONAL_FALLBACKS)
_BACKGROUNDS = {*BACKGROUND_TOKENS, "searchMatchBg"}
BUILTIN_THEMES = ("dark", "light")

_CUBE = (0, 95, 135, 175, 215, 255)
_GRAYS = tuple(8 + 10 * i for i in range(24))


class ThemeError(Exception):
    """A theme file that cannot be used; the message names the file and the problem."""


def _closest(values: tuple[int, ...], value: int) -> int:
    return min(range(len(values)), key=lambda i: abs(values[i] - value))


def _distance(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    return (a[0] - b[0]) ** 2 * 0.299 + (a[1] - b[1]) ** 2 * 0.587 + (a[2] - b[2]) ** 2 * 0.114


def rgb_to_256(r: int, g: int, b: int) -> int:
    """Nearest xterm-256 index: the colour cube, or the grey ramp for nearly neutral colours."""
    ri, gi, bi = _closest(_CUBE, r), _closest(_CUBE, g), _closest(_CUBE, b)
    cube = (_CUBE[ri], _CUBE[gi], _CUBE[bi])
    grey_level = round(0.299 * r + 0.587 * g + 0.114 * b)
    grey_index = _closest(_GRAYS, grey_level)
    grey = (_GRAYS[grey_index],) * 3
    if max(r, g, b) - min(r, g, b) < 10 and _distance((r, g, b), grey) < _distance((r, g, b), cube):
        return 232 + grey_index
    return 16 + 36 * ri + 6 * gi + bi


def _sgr(value: str | int, background: bool, truecolor: bool) -> str:
    if value == "":
        return "\x1b[49m" if background else "\x1b[39m"
    base = 48 if background else 38
    if isinstance(value, int):
        return f"\x1b[{base};5;{value}m"
    r, g, b = int(value[1:3], 16), int(value[3:5], 16), int(value[5:7], 16)
    if truecolor:
        return f"\x1b[{base};2;{r};{g};{b}m"
    return f"\x1b[{base};5;{rgb_to_256(r, g, b)}m"


@dataclass
class Theme:
    name: str
    colors: dict[str, str | int]
    """Every token resolved to ``"#rrggbb"``, an index or ``""``."""
    truecolor: bool
    source: str | None = None
    export: dict[str, str | int] = field(default_factory=dict)
    """The theme file's ``export`` colours (``pageBg``, ``cardBg``, ``infoBg``) that it gives."""

    def __post_init__(self) -> None:
        self._codes = {
            token: _sgr(value, token in _BACKGROUNDS, self.truecolor) for token, value in self.colors.items()
        }

    def replace_with(self, other: Theme) -> None:
        """Take ``other``'s colours in place, so every component holding this theme follows."""
        self.name, self.colors, self.truecolor, self.source = (
            other.name,
            other.colors,
            other.truecolor,
            other.source,
        )
        self.__post_init__()

    def fg(self, token: str, text: str) -> str:
        return f"{self._codes[token]}{text}\x1b[39m" if text else text

    def bg(self, token: str, text: str) -> str:
        return f"{self._codes[token]}{text}\x1b[49m"

    def fg_code(self, token: str) -> str:
        return self._codes[token]

    @staticmethod
    def bold(text: str) -> str:
        return f"\x1b[1m{text}\x1b[22m"

    @staticmethod
    def italic(text: str) -> str:
        return f"\x1b[3m{text}\x1b[23m"

    @staticmethod
    def underline(text: str) -> str:
        return f"\x1b[4m{text}\x1b[24m"

    @staticmethod
    def strikethrough(text: str) -> str:
        return f"\x1b[9m{text}\x1b[29m"

    @staticmethod
    def inverse(text: str) -> str:
        return f"\x1b[7m{text}\x1b[27m"

    def thinking_border(self, level: str) -> str:
        token = {"xhigh": "thinkingXhigh", "max": "thinkingMax"}.get(level, "thinking" + level.capitalize())
        return token if token in self._codes else "thinkingOff"


def parse_theme(data: Any, source: str, truecolor: bool | None = None) -> Theme:
    """A ``Theme`` from the decoded JSON of a theme file; ``ThemeError`` names what is wrong."""
    if not isinstance(data, dict):
        raise ThemeError(f"{source}: a theme must be a JSON object")
    name = data.get("name")
    if not isinstance(name, str) or not name or "/" in name:
        raise ThemeError(f"{source}: 'name' must be a non-empty string without '/'")
    variables = data.get("vars") or {}
    colors = data.get("colors")
    if not isinstance(colors, dict) or not isinstance(variables, dict):
        raise ThemeError(f"{source}: 'colors' (and 'vars' when given) must be objects")
    missing = [token for token in REQUIRED_TOKENS if token not in colors]
    if missing:
        raise ThemeError(f"{source}: missing color tokens: {', '.join(missing)}")
    resolved: dict[str, str | int] = {}
    for token in REQUIRED_TOKENS:
        resolved[token] = _resolve(colors[token], variables, source, token)
    for token, fallback in OPTIONAL_FALLBACKS.items():
        resolved[token] = (
            _resolve(colors[token], variables, source, token) if token in colors else resolved[fallback]
        )
    truecolor = supports_true_color() if truecolor is None else truecolor
    return Theme(name, resolved, truecolor, source, _export_colors(data, variables, source))


def _export_colors(data: dict[str, Any], variables: dict[str, Any], source: str) -> dict[str, str | int]:
    """The ``export`` section's colours; an unusable section or colour is left out (Pi's are
    optional and fall back to shades of ``userMessageBg``)."""
    section = data.get("export")
    if not isinstance(section, dict):
        return {}
    colors: dict[str, str | int] = {}
    for key in ("pageBg", "cardBg", "infoBg"):
        if key in section:
            try:
                colors[key] = _resolve(section[key], variables, source, f"export.{key}")
            except ThemeError:
                continue
    return colors


def _resolve(value: Any, variables: dict[str, Any], source: str, token: str, depth: int = 0) -> str | int:
    if isinstance(value, bool):
        raise ThemeError(f"{source}: color '{token}' must be a string or a number")
    if isinstance(value, int):
        if not 0 <= value <= 255:
            raise ThemeError(f"{source}: color '{token}' = {value} is not a 256-color index (0-255)")
        return value
    if not isinstance(value, str):
        raise ThemeError(f"{source}: color '{token}' must be a string or a number")
    if value == "":
        return ""
    if value.startswith("#"):
        if len(value) != 7 or any(c not in "0123456789abcdefABCDEF" for c in value[1:]):
            raise ThemeError(f"{source}: color '{token}' = {value!r} is not a #rrggbb color")
        return value.lower()
    if value in variables and depth < 10:
        return _resolve(variables[value], variables, source, token, depth + 1)
    raise ThemeError(f"{source}: color '{token}' refers to unknown variable {value!r}")


def builtin_theme(name: str, truecolor: bool | None = None) -> Theme:
    path = Path(__file__).with_name(f"{name}.json")
    return parse_theme(json.loads(path.read_text("utf-8")), name, truecolor)


def load_theme_file(path: Path, truecolor: bool | None = None) -> Theme:
    try:
        text = path.read_text("utf-8").lstrip("\ufeff")
    except OSError as error:
        raise ThemeError(f"{path}: cannot read ({error.strerror})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ThemeError(f"{path}:{error.lineno}: invalid JSON ({error.msg})") from None
    return parse_theme(data, str(path), truecolor)


def discover_themes(
    directories: list[Path], files: list[Path] = (), collisions: list[Collision] | None = None  # type: ignore[assignment]
) -> tuple[dict[str, Theme], list[str]]:
    """Custom themes by name from ``*.json`` in ``directories`` and the given ``files``, with
    problems; a second custom theme of one name goes to ``collisions`` when given (the
    header's ``[Theme conflicts]``), else to the problems."""
    themes: dict[str, Theme] = {}
    problems: list[str] = []
    candidates: list[Path] = []
    for directory in directories:
        if directory.is_dir():
            candidates.extend(sorted(directory.glob("*.json")))
    candidates.extend(files)
    seen: set[Path] = set()
    for path in candidates:
        if path.resolve() in seen:  # a directory's file also named by the resources (the same theme)
            continue
        seen.add(path.resolve())
        try:
            theme = load_theme_file(path)
        except ThemeError as error:
            problems.append(str(error))
            continue
        if theme.name in themes and collisions is not None:
            collisions.append(Collision("theme", theme.name, themes[theme.name].source or "", str(path)))
            continue
        if theme.name in BUILTIN_THEMES or theme.name in themes:
            problems.append(f"{path}: theme name '{theme.name}' is already taken; file ignored")
            continue
        themes[theme.name] = theme
    return themes, problems
