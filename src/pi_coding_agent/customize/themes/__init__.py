"""Themes for the interactive mode (Pi's theme files and colour tokens)."""

from pi_coding_agent.customize.themes._css import ansi_rgb, appearance_from_env, export_palette, luminance
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
)

__all__ = [
    "BUILTIN_THEMES",
    "TOKENS",
    "Theme",
    "ThemeError",
    "ansi_rgb",
    "appearance_from_env",
    "builtin_theme",
    "discover_themes",
    "export_palette",
    "load_theme_file",
    "luminance",
    "parse_theme",
    "rgb_to_256",
]
