"""Which theme to draw with: ``--use-theme``, the ``theme`` setting, or the terminal's background.

As in Pi: a setting ``"light/dark"`` (two theme names) follows the terminal, choosing the
first on a light background and the second on a dark one. Without a setting the terminal
decides: its answer to ``OSC 11`` (asked at start-up, at most 100 ms), else ``COLORFGBG``,
else dark; an answer the terminal gave (or ``COLORFGBG``) is saved as the ``theme``
setting, as Pi saves it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pi_coding_agent.customize.resources import Collision
from pi_coding_agent.customize.themes import (
    BUILTIN_THEMES,
    Theme,
    ThemeError,
    appearance_from_env,
    builtin_theme,
    discover_themes,
    luminance,
)
from pi_tui import RgbColor


def appearance_for(rgb: RgbColor) -> str:
    return "light" if luminance(rgb) >= 0.5 else "dark"


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

    def names(self) -> list[str]:
        return sorted({*BUILTIN_THEMES, *self.themes})

    def resolve(self) -> str:
        requested = self.requested
        if requested is None:
            return self.appearance
        pair = split_auto(requested)
        if pair is not None:
            return pair[0] if self.appearance == "light" else pair[1]
        return requested

    def theme(self, name: str | None = None) -> Theme:
        name = name or self.resolve()
        if name in BUILTIN_THEMES:
            return builtin_theme(name)
        if name in self.themes:
            return self.themes[name]
        self.problems.append(f"theme '{name}' not found; using dark")
        return builtin_theme("dark")


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
