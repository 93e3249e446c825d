"""Which theme to draw with: ``--use-theme``, the ``theme`` setting, or the terminal's background.

As in Pi: a setting ``"light/dark"`` (two theme names) follows the terminal, choosing the
first on a light background and the second on a dark one. Without a setting the terminal
decides: its answer to ``OSC 11`` (asked at start-up, at most 100 ms), else ``COLORFGBG``,
else dark; an answer the terminal gave (or ``COLORFGBG``) is saved as the ``theme``
setting, as Pi saves it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pi_coding_agent.customize.resources import Collision
from pi_coding_agent.customize.themes import (
    BUILTIN_THEMES,
    SYSTEM_THEME,
    Theme,
    ThemeError,
    builtin_theme,
    discover_themes,
    generate_system_colors,
    truecolor_supported,
)
from pi_tui import RgbColor, TerminalColors

_ANSI_16 = (
    (0, 0, 0), (128, 0, 0), (0, 128, 0), (128, 128, 0), (0, 0, 128), (128, 0, 128), (0, 128, 128), (192, 192, 192),
    (128, 128, 128), (255, 0, 0), (0, 255, 0), (255, 255, 0), (0, 0, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
)  # fmt: skip
_CUBE = (0, 95, 135, 175, 215, 255)


def _linear(channel: int) -> float:
    value = channel / 255
    return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4


def luminance(rgb: RgbColor) -> float:
    return 0.2126 * _linear(rgb[0]) + 0.7152 * _linear(rgb[1]) + 0.0722 * _linear(rgb[2])


def ansi_rgb(index: int) -> RgbColor:
    if index < 16:
        return _ANSI_16[index]
    if index < 232:
        index -= 16
        return (_CUBE[index // 36], _CUBE[index // 6 % 6], _CUBE[index % 6])
    grey = 8 + 10 * (index - 232)
    return (grey, grey, grey)


def appearance_for(rgb: RgbColor) -> str:
    return "light" if luminance(rgb) >= 0.5 else "dark"


def appearance_from_env(env: Mapping[str, str]) -> str | None:
    """``light``/``dark`` from ``COLORFGBG`` (``fg;bg``, the last number being the background)."""
    for raw in reversed(env.get("COLORFGBG", "").split(";")):
        part = raw.strip()
        if part.isdigit() and 0 <= int(part) <= 255:
            return appearance_for(ansi_rgb(int(part)))
    return None


def split_auto(setting: str) -> tuple[str, str] | None:
    """``(light, dark)`` of an automatic ``"light/dark"`` setting, else ``None``."""
    if setting.count("/") != 1:
        return None
    light, dark = (part.strip() for part in setting.split("/"))
    return (light, dark) if light and dark else None


@dataclass
class ThemeChoice:
    themes: dict[str, Theme]
    problems: list[str] = field(default_factory=list)
    requested: str | None = None
    """The CLI's ``--use-theme``, or the setting; ``None``: let the terminal decide."""
    appearance: str = "dark"
    collisions: list[Collision] = field(default_factory=list)
    """Custom themes skipped for a name another one has (Pi's ``[Theme conflicts]``)."""
    terminal_colors: TerminalColors = field(default_factory=TerminalColors)
    """What the terminal reported about its colours (the ``system`` theme is built from them)."""

    def names(self) -> list[str]:
        """``system`` first (Pi 1.6's default), then the others by name."""
        return [SYSTEM_THEME, *sorted({*BUILTIN_THEMES, *self.themes} - {SYSTEM_THEME})]

    def resolve(self) -> str:
        requested = self.requested
        if requested is None:
            return self.appearance
        pair = split_auto(requested)
        if pair is not None:
            return pair[0] if self.appearance == "light" else pair[1]
        return requested

    def theme(self, name: str | None = None) -> Theme:
        """The theme of that name; one that is missing (or failed to load) falls back to
        ``system``, as in Pi 1.6."""
        name = name or self.resolve()
        if name == SYSTEM_THEME:
            return self.system_theme()
        if name in BUILTIN_THEMES:
            return builtin_theme(name)
        if name in self.themes:
            return self.themes[name]
        self.problems.append(f"theme '{name}' not found; using the system theme")
        return self.system_theme()

    def system_theme(self) -> Theme:
        reported = self.terminal_colors
        generated = generate_system_colors(
            reported.background, reported.foreground, reported.palette, appearance_hint=self.appearance
        )
        return Theme(
            SYSTEM_THEME,
            dict(generated.colors),
            truecolor_supported(),
            None,
            generated.appearance,
            frozenset(generated.dim),
        )

    def uses_system(self) -> bool:
        return self.resolve() == SYSTEM_THEME


def load_theme_choice(
    setting: object, requested: str | None, directories: Sequence[Path], files: Sequence[Path] = ()
) -> ThemeChoice:
    """Custom themes from ``directories`` and ``files``, and what to pick among them."""
    collisions: list[Collision] = []
    try:
        themes, problems = discover_themes(list(directories), list(files), collisions)
    except ThemeError as error:
        themes, problems = {}, [str(error)]
    chosen = requested or (setting if isinstance(setting, str) and setting.strip() else None)
    choice = ThemeChoice(themes, problems, chosen, appearance_from_env(os.environ) or "dark", collisions)
    return choice
