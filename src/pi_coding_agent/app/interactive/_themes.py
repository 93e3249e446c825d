"""Which theme to draw with: ``--use-theme``, else the ``theme`` setting, else ``system``.

As in Pi 1.6: without a setting the theme is ``system`` (built from the terminal's colours) and
nothing is saved. A setting ``"light/dark"`` (two theme names) follows the terminal, choosing
the first when it is light and the second when it is dark. Whether it is light or dark: the
background it reported (judged against its foreground), else its last colour-scheme report,
else ``COLORFGBG``, else dark (``_terminal_theme`` asks the terminal).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pi_coding_agent.customize.resources import Collision
from pi_coding_agent.customize.themes import (
    BUILTIN_THEMES,
    SYSTEM_THEME,
    Theme,
    ThemeError,
    appearance_from_env,
    builtin_theme,
    discover_themes,
    export_palette,
    system_theme,
    terminal_appearance,
)
from pi_tui import TerminalColors


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
    """The CLI's ``--use-theme``, or the setting; ``None``: the ``system`` theme."""
    env_appearance: str | None = None
    """What ``COLORFGBG`` says about the terminal (read once, at the start)."""
    collisions: list[Collision] = field(default_factory=list)
    """Custom themes skipped for a name another one has (Pi's ``[Theme conflicts]``)."""
    terminal_colors: TerminalColors = field(default_factory=TerminalColors)
    """What the terminal reported about its colours (the ``system`` theme is built from them)."""
    colors_pending: bool = True
    """The terminal has not answered yet: the ``system`` theme is drawn in greys until then."""
    reported_scheme: str | None = None
    """The terminal's last colour-scheme report (``light``/``dark``)."""

    def names(self) -> list[str]:
        """``system`` first (Pi 1.6's default), then the others by name."""
        return [SYSTEM_THEME, *sorted({*BUILTIN_THEMES, *self.themes} - {SYSTEM_THEME})]

    @property
    def appearance(self) -> str:
        """Whether the terminal is light or dark, from everything it reported so far."""
        background = self.terminal_colors.background
        if background is not None:
            return terminal_appearance(background, self.terminal_colors.foreground)
        return self.reported_scheme or self.env_appearance or "dark"

    def resolve(self) -> str:
        requested = self.requested
        if requested is None:
            return SYSTEM_THEME
        pair = split_auto(requested)
        if pair is not None:
            return pair[0] if self.appearance == "light" else pair[1]
        return SYSTEM_THEME if "/" in requested else requested

    def follows_terminal(self) -> bool:
        """A pair, or the ``system`` theme: the terminal's colour-scheme reports matter."""
        return split_auto(self.requested or "") is not None or self.resolve() == SYSTEM_THEME

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
        problem = f"theme '{name}' not found; using the system theme"
        if problem not in self.problems:  # asked again each time the terminal's colours change
            self.problems.append(problem)
        return self.system_theme()

    def system_theme(self) -> Theme:
        return system_theme(
            self.terminal_colors, pending=self.colors_pending, appearance_hint=self.appearance
        )

    def export_palette(self, theme: Theme) -> dict[str, str]:
        """The HTML export's colours for ``theme`` on this terminal (its ``""`` tokens take
        the colours the terminal reported)."""
        return export_palette(theme, self.terminal_colors, self.appearance)


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
    return ThemeChoice(themes, problems, chosen, appearance_from_env(os.environ), collisions)
