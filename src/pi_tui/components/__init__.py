"""Built-in components (Pi's ``Text``, ``Box``, ``Spacer``, ``Markdown``, ``SelectList``, ...)."""

from pi_tui.components._basic import Box, DynamicBorder, Lines, Spacer, Text, TruncatedText
from pi_tui.components._input import Input
from pi_tui.components._loader import Loader
from pi_tui.components._markdown import Markdown, MarkdownTheme
from pi_tui.components._select import SelectItem, SelectList
from pi_tui.components._settings_list import SettingItem, SettingsList, SettingsStyle

__all__ = [
    "Box",
    "DynamicBorder",
    "Input",
    "Lines",
    "Loader",
    "Markdown",
    "MarkdownTheme",
    "SelectItem",
    "SelectList",
    "SettingItem",
    "SettingsList",
    "SettingsStyle",
    "Spacer",
    "Text",
    "TruncatedText",
]
