"""A terminal UI library in the manner of Pi's ``pi-tui``.

Components render themselves to lines of a given width; ``TUI`` stacks them, routes keys
to the focused one, lays overlays on top and draws each frame with a differential
renderer on the terminal's main screen, so the transcript stays in the terminal's own
scrollback. Extensions use the same API (see ``docs/tui``).
"""

from pi_coding_agent.tui._component import (
    CURSOR_MARKER,
    Component,
    Container,
    Focusable,
    InputHandler,
    StaticLines,
)
from pi_coding_agent.tui._input import InputSplitter, Paste
from pi_coding_agent.tui._keybindings import TUI_DEFAULTS, Keybindings, read_keybindings_file
from pi_coding_agent.tui._keys import is_printable, matches_key, normalize_key, parse_key
from pi_coding_agent.tui._renderer import RenderStats, ScreenRenderer
from pi_coding_agent.tui._terminal import ProcessTerminal, Terminal
from pi_coding_agent.tui._text import (
    slice_columns,
    strip_ansi,
    truncate_to_width,
    visible_width,
    wrap_text_with_ansi,
)
from pi_coding_agent.tui._tui import TUI, OverlayHandle, OverlayOptions
from pi_coding_agent.tui.components import (
    Box,
    DynamicBorder,
    Lines,
    Loader,
    Markdown,
    MarkdownTheme,
    SelectItem,
    SelectList,
    Spacer,
    Text,
    TruncatedText,
)
from pi_coding_agent.tui.editor import Completer, Editor, Suggestion

__all__ = [
    "CURSOR_MARKER",
    "TUI",
    "TUI_DEFAULTS",
    "Box",
    "Completer",
    "Component",
    "Container",
    "DynamicBorder",
    "Editor",
    "Focusable",
    "InputHandler",
    "InputSplitter",
    "Keybindings",
    "Lines",
    "Loader",
    "Markdown",
    "MarkdownTheme",
    "OverlayHandle",
    "OverlayOptions",
    "Paste",
    "ProcessTerminal",
    "RenderStats",
    "ScreenRenderer",
    "SelectItem",
    "SelectList",
    "Spacer",
    "StaticLines",
    "Suggestion",
    "Terminal",
    "Text",
    "TruncatedText",
    "is_printable",
    "matches_key",
    "normalize_key",
    "parse_key",
    "read_keybindings_file",
    "slice_columns",
    "strip_ansi",
    "truncate_to_width",
    "visible_width",
    "wrap_text_with_ansi",
]
