"""Themes for the interactive mode (Pi 1.6's theme files, colour tokens and ``system`` theme)."""

from pi_coding_agent.customize.themes._builtin import builtin_theme
from pi_coding_agent.customize.themes._system import SystemColors, generate_system_colors, terminal_appearance
from pi_coding_agent.customize.themes._theme import (
    BUILTIN_THEMES,
    SYSTEM_THEME,
    THEME_TOKENS,
    TOKENS,
    Theme,
    ThemeError,
    discover_themes,
    load_theme_file,
    parse_theme,
    truecolor_supported,
)

__all__ = [
    "BUILTIN_THEMES",
    "SYSTEM_THEME",
    "THEME_TOKENS",
    "TOKENS",
    "SystemColors",
    "Theme",
    "ThemeError",
    "builtin_theme",
    "discover_themes",
    "generate_system_colors",
    "load_theme_file",
    "parse_theme",
    "terminal_appearance",
    "truecolor_supported",
]
