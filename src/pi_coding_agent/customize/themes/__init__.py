"""Themes for the interactive mode (Pi's theme files and colour tokens)."""

from pi_coding_agent.customize.themes._theme import (
    BUILTIN_THEMES,
    TOKENS,
    Theme,
    ThemeError,
    builtin_theme,
    discover_themes,
    load_theme_file,
    parse_theme,
    rgb_to_256,
    truecolor_supported,
)

__all__ = [
    "BUILTIN_THEMES",
    "TOKENS",
    "Theme",
    "ThemeError",
    "builtin_theme",
    "discover_themes",
    "load_theme_file",
    "parse_theme",
    "rgb_to_256",
    "truecolor_supported",
]
