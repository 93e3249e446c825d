"""Themes for the interactive mode (Pi 1.6's theme files, colour tokens and ``system`` theme)."""

from pi_coding_agent.customize.themes._builtin import builtin_theme, system_theme
from pi_coding_agent.customize.themes._css import export_palette, export_palette_for_setting
from pi_coding_agent.customize.themes._system import (
    SystemColors,
    appearance_from_env,
    generate_system_colors,
    terminal_appearance,
)
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
)

__all__ = [
    "BUILTIN_THEMES",
    "SYSTEM_THEME",
    "THEME_TOKENS",
    "TOKENS",
    "SystemColors",
    "Theme",
    "ThemeError",
    "appearance_from_env",
    "builtin_theme",
    "discover_themes",
    "export_palette",
    "export_palette_for_setting",
    "generate_system_colors",
    "load_theme_file",
    "parse_theme",
    "system_theme",
    "terminal_appearance",
]
