"""Themes: Pi's JSON theme files (Pi 1.6's format, which reads every 0.85 file) as ANSI styles.

A theme file has ``name``, ``colors`` (a colour for every token of ``THEME_TOKENS``; the
five with a fallback may be left out) and optionally ``$schema``, ``appearance``
(``dark``/``light``), ``vars`` (named colours, which may name other vars) and ``export``
(HTML page colours). Nothing else is accepted, as in Pi 1.6. A colour is a 256-colour
index, ``#rgb``, ``#rrggbb``, ``oklch(...)``, ``okhsl(...)`` (``pi_tui.parse_color``), the
name of a var, or ``""`` for the terminal's default. Terminals without 24-bit colour get
the nearest 256-colour entry, chosen as Pi chooses it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pi_coding_agent.customize.resources import Collision
from pi_tui import Color, ColorError, Indexed, color_sgr, color_to_oklch, parse_color, supports_true_color


@dataclass(frozen=True)
class Token:
    background: bool = False
    fallback: str | None = None
    """The token an omitted optional token takes its colour from."""


_FG, _BG = Token(), Token(background=True)
THEME_TOKENS: dict[str, Token] = {
    "accent": _FG, "border": _FG, "borderAccent": _FG, "borderMuted": _FG, "success": _FG, "error": _FG,
    "warning": _FG, "muted": _FG, "dim": _FG, "text": _FG, "thinkingText": _FG,
    "scrollbarTrack": Token(fallback="muted"), "scrollbarThumb": Token(fallback="text"),
    "selectedBg": _BG, "searchMatchBg": Token(background=True, fallback="selectedBg"),
    "searchMatchText": Token(fallback="text"),
    "userMessageBg": _BG, "userMessageText": _FG, "customMessageBg": _BG, "customMessageText": _FG,
    "customMessageLabel": _FG, "toolPendingBg": _BG, "toolSuccessBg": _BG, "toolErrorBg": _BG, "toolTitle": _FG,
    "toolOutput": _FG, "mdHeading": _FG, "mdLink": _FG, "mdLinkUrl": _FG, "mdCode": _FG, "mdCodeBlock": _FG,
    "mdCodeBlockBorder": _FG, "mdQuote": _FG, "mdQuoteBorder": _FG, "mdHr": _FG, "mdListBullet": _FG,
    "toolDiffAdded": _FG, "toolDiffRemoved": _FG, "toolDiffContext": _FG, "syntaxComment": _FG,
    "syntaxKeyword": _FG, "syntaxFunction": _FG, "syntaxVariable": _FG, "syntaxString": _FG, "syntaxNumber": _FG,
    "syntaxType": _FG, "syntaxOperator": _FG, "syntaxPunctuation": _FG, "thinkingOff": _FG,
    "thinkingMinimal": _FG, "thinkingLow": _FG, "thinkingMedium": _FG, "thinkingHigh": _FG, "thinkingXhigh": _FG,
    "thinkingMax": Token(fallback="thinkingXhigh"), "bashMode": _FG,
}  # fmt: skip
"""Every colour token, in the order of Pi's theme files and schema."""
TOKENS = tuple(THEME_TOKENS)
SYSTEM_THEME = "system"
"""Pi 1.6's default theme, built from the terminal's own colours; no file may take the name."""
BUILTIN_THEMES = (SYSTEM_THEME, "dark", "light")
_TOP_LEVEL = ("$schema", "name", "appearance", "vars", "colors", "export")
_EXPORT_KEYS = ("pageBg", "cardBg", "infoBg")
_LITERAL = re.compile(r"ok(lch|hsl)\(", re.IGNORECASE)

ThemeValue = str | int
"""A resolved colour value of a theme: a colour's text, a palette index, or ``""``."""


class ThemeError(Exception):
    """A theme file that cannot be used; the one-line message names the file and the problem."""


@dataclass
class Theme:
    name: str
    colors: dict[str, ThemeValue]
    """Every token resolved (vars and fallbacks followed) to a colour value or ``""``."""
    truecolor: bool
    source: str | None = None
    appearance: str | None = None
    """The background the theme is for: declared, else judged from its colours."""
    dim: frozenset[str] = field(default_factory=frozenset)
    """Foreground tokens also drawn faint (SGR 2): the ``system`` theme on a silent terminal."""
    export: dict[str, ThemeValue] = field(default_factory=dict)
    """The HTML export's ``pageBg``, ``cardBg`` and ``infoBg`` the theme gives (vars followed)."""

    def __post_init__(self) -> None:
        self._codes: dict[str, str] = {}
        parsed: dict[str, Color] = {}
        for token, value in self.colors.items():
            background = THEME_TOKENS[token].background
            if value == "":
                self._codes[token] = "\x1b[49m" if background else "\x1b[39m"
                continue
            parsed[token] = parse_color(value)
            self._codes[token] = color_sgr(parsed[token], background, self.truecolor)
        if self.appearance is None:
            self.appearance = _judged_appearance(parsed)

    def replace_with(self, other: Theme) -> None:
        """Take ``other``'s colours in place, so every component holding this theme follows."""
        self.name, self.colors, self.truecolor, self.source = (
            other.name,
            other.colors,
            other.truecolor,
            other.source,
        )
        self.appearance, self.dim, self.export = other.appearance, other.dim, other.export
        self.__post_init__()

    def fg(self, token: str, text: str) -> str:
        if not text:
            return text
        if token in self.dim:
            return f"{self._codes[token]}\x1b[2m{text}\x1b[22;39m"
        return f"{self._codes[token]}{text}\x1b[39m"

    def bg(self, token: str, text: str) -> str:
        return f"{self._codes[token]}{text}\x1b[49m"

    def sgr(self, token: str) -> str:
        """The token's colour as the SGR of its slot (foreground or background), without faintness."""
        return self._codes[token]

    def fg_code(self, token: str) -> str:
        """The opening sequence of a foreground token (faint ones include SGR 2, closed by 22)."""
        return f"{self._codes[token]}\x1b[2m" if token in self.dim else self._codes[token]

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


def _average_lightness(colors: list[Color]) -> float | None:
    # Palette entries 0-15 follow the user's terminal, so they say nothing about the theme.
    fixed = [color for color in colors if not (isinstance(color, Indexed) and color.index < 16)]
    if not fixed:
        return None
    total = 0.0
    for color in fixed:
        total += color_to_oklch(color).l
    return total / len(fixed)


def _judged_appearance(parsed: dict[str, Color]) -> str | None:
    """``dark`` or ``light`` from the lightness of the theme's own colours, as Pi judges it."""
    fg = _average_lightness([color for token, color in parsed.items() if not THEME_TOKENS[token].background])
    bg = _average_lightness([color for token, color in parsed.items() if THEME_TOKENS[token].background])
    if fg is not None and bg is not None:
        return "dark" if bg < fg else "light"
    if bg is not None:
        return "dark" if bg < 0.5 else "light"
    if fg is not None:
        return "dark" if fg > 0.5 else "light"
    return None


class _Problem(Exception):
    """A problem in a theme document; ``where`` finds its line in the file's text."""

    def __init__(self, message: str, *where: str) -> None:
        super().__init__(message)
        self.where = where


def _is_color_value(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return isinstance(value, str) or (isinstance(value, int) and 0 <= value <= 255)


def _check_value(value: Any, what: str, *where: str) -> None:
    if not _is_color_value(value):
        raise _Problem(
            f"{what} must be a color string or a 256-color index (0-255), not {json.dumps(value)}", *where
        )


def _check_shape(data: Any) -> None:
    """What Pi 1.6's schema checks: the fields, their types, and every required token."""
    if not isinstance(data, dict):
        raise _Problem("a theme must be a JSON object")
    for key in data:
        if key not in _TOP_LEVEL:
            raise _Problem(f"unknown property '{key}' (custom colors belong in 'vars')", key)
    name = data.get("name")
    if not isinstance(name, str) or not name or "/" in name:
        raise _Problem("'name' must be a non-empty string without '/'", "name")
    if "$schema" in data and not isinstance(data["$schema"], str):
        raise _Problem("'$schema' must be a string", "$schema")
    if "appearance" in data and data["appearance"] not in ("dark", "light"):
        raise _Problem(
            f'\'appearance\' must be "dark" or "light", not {json.dumps(data["appearance"])}', "appearance"
        )
    variables = data.get("vars", {})
    if not isinstance(variables, dict):
        raise _Problem("'vars' must be an object", "vars")
    for key, value in variables.items():
        _check_value(value, f"var '{key}'", "vars", key)
    colors = data.get("colors")
    if not isinstance(colors, dict):
        raise _Problem("'colors' must be an object", "colors")
    for key, value in colors.items():
        if key not in THEME_TOKENS:
            raise _Problem(f"unknown color token '{key}' (custom colors belong in 'vars')", "colors", key)
        _check_value(value, f"color '{key}'", "colors", key)
    missing = [token for token, info in THEME_TOKENS.items() if info.fallback is None and token not in colors]
    if missing:
        raise _Problem(f"missing required color tokens: {', '.join(sorted(missing))}", "colors")
    exported = data.get("export", {})
    if not isinstance(exported, dict):
        raise _Problem("'export' must be an object", "export")
    for key, value in exported.items():
        if key not in _EXPORT_KEYS:
            raise _Problem(
                f"unknown export color '{key}' (pageBg, cardBg and infoBg are known)", "export", key
            )
        _check_value(value, f"export color '{key}'", "export", key)


def _resolve(value: ThemeValue, variables: dict[str, Any], token: str) -> ThemeValue:
    """Follow var names to a colour value; a missing or circular reference is a problem."""
    seen: list[str] = []
    while True:
        if isinstance(value, float):
            value = int(value)
        if isinstance(value, int) or value == "" or value.startswith("#") or _LITERAL.match(value):
            return value
        if value in seen:
            raise _Problem(
                f"color '{token}': circular variable reference {' -> '.join([*seen, value])}", "colors", token
            )
        if value not in variables:
            raise _Problem(f"color '{token}' refers to unknown variable '{value}'", "colors", token)
        seen.append(value)
        value = variables[value]


def _resolved_colors(data: dict[str, Any]) -> dict[str, ThemeValue]:
    variables = data.get("vars", {})
    resolved: dict[str, ThemeValue] = {}
    for token, value in data["colors"].items():
        resolved[token] = _resolve(value, variables, token)
        if resolved[token] != "":
            try:
                parse_color(resolved[token])
            except ColorError as error:
                raise _Problem(f"color '{token}': {error}", "colors", token) from None
    for token, info in THEME_TOKENS.items():
        if info.fallback is not None and token not in resolved:
            resolved[token] = resolved[info.fallback]
    return {token: resolved[token] for token in THEME_TOKENS}


def _export_colors(data: dict[str, Any]) -> dict[str, ThemeValue]:
    """The ``export`` section's colours with vars followed, ``""`` (none) left out.

    As in Pi 1.6 the section is all or nothing and never refuses the theme (its schema checks
    only the shape): a missing var or a colour that does not parse leaves every export colour
    to be derived from ``userMessageBg``.
    """
    variables = data.get("vars", {})
    colors: dict[str, ThemeValue] = {}
    try:
        for key, value in data.get("export", {}).items():
            resolved = _resolve(value, variables, f"export.{key}")
            if resolved != "":
                parse_color(resolved)
                colors[key] = resolved
    except (_Problem, ColorError):
        return {}
    return colors


def _line_of(text: str, where: tuple[str, ...]) -> int | None:
    """The line of the last key of ``where`` (each key searched for after the one before)."""
    position = 0
    for key in where:
        found = re.compile(rf"{re.escape(json.dumps(key))}\s*:").search(text, position)
        if found is None:
            return None
        position = found.start()
    return text.count("\n", 0, position) + 1 if where else None


def parse_theme(data: Any, source: str, truecolor: bool | None = None, text: str | None = None) -> Theme:
    """A ``Theme`` from the decoded JSON of a theme file (``text``: the file, to name lines)."""
    try:
        _check_shape(data)
        colors = _resolved_colors(data)
    except _Problem as problem:
        line = _line_of(text, problem.where) if text is not None else None
        raise ThemeError(f"{source}{f':{line}' if line else ''}: {problem}") from None
    mode = supports_true_color() if truecolor is None else truecolor
    return Theme(data["name"], colors, mode, source, data.get("appearance"), export=_export_colors(data))


def load_theme_file(path: Path, truecolor: bool | None = None) -> Theme:
    try:
        text = path.read_text("utf-8").lstrip("\ufeff")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
        raise ThemeError(f"{path}: cannot read ({reason})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ThemeError(f"{path}:{error.lineno}: invalid JSON ({error.msg})") from None
    return parse_theme(data, str(path), truecolor, text)


def discover_themes(
    directories: Sequence[Path],
    files: Sequence[Path] = (),
    collisions: list[Collision] | None = None,
) -> tuple[dict[str, Theme], list[str]]:
    """Custom themes by name from ``*.json`` in ``directories`` and the given ``files``, with
    problems; a second custom theme of one name goes to ``collisions`` when given (the
    header's ``[Theme conflicts]``), else to the problems. A file naming itself ``system``
    is ignored, as in Pi 1.6 (the name is reserved)."""
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
