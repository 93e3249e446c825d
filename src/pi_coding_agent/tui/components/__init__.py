"""Built-in components (Pi's ``Text``, ``Box``, ``Spacer``, ``Markdown``, ``SelectList``, ...)."""

from pi_coding_agent.tui.components._basic import Box, DynamicBorder, Lines, Spacer, Text, TruncatedText
from pi_coding_agent.tui.components._input import Input
from pi_coding_agent.tui.components._loader import Loader
from pi_coding_agent.tui.components._markdown import Markdown, MarkdownTheme
from pi_coding_agent.tui.components._select import SelectItem, SelectList
from pi_coding_agent.tui.components._settings_list import SettingItem, SettingsList, SettingsStyle

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
