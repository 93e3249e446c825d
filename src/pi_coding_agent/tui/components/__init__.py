"""Built-in components (Pi's ``Text``, ``Box``, ``Spacer``, ``Markdown``, ``SelectList``, ...)."""

from pi_coding_agent.tui.components._basic import Box, DynamicBorder, Lines, Spacer, Text, TruncatedText
from pi_coding_agent.tui.components._loader import Loader
from pi_coding_agent.tui.components._markdown import Markdown, MarkdownTheme
from pi_coding_agent.tui.components._select import SelectItem, SelectList

__all__ = [
    "Box",
    "DynamicBorder",
    "Lines",
    "Loader",
    "Markdown",
    "MarkdownTheme",
    "SelectItem",
    "SelectList",
    "Spacer",
    "Text",
    "TruncatedText",
]
