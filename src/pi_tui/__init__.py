"""A terminal UI library in the manner of Pi's ``pi-tui``.

Components render themselves to lines of a given width; ``TUI`` stacks them, routes keys
to the focused one, lays overlays on top and draws each frame with a differential
renderer on the terminal's main screen, so the transcript stays in the terminal's own
scrollback. Extensions use the same API (see ``docs/tui``).
"""

from pi_tui._capabilities import (
    detect_capabilities,
    hyperlink,
    set_capability_overrides,
    supports_hyperlinks,
    supports_true_color,
)
from pi_tui._component import (
    CURSOR_MARKER,
    Component,
    Container,
    Focusable,
    InputHandler,
    StaticLines,
)
from pi_tui._fullscreen import FullscreenRenderer
from pi_tui._fuzzy import fuzzy_filter, fuzzy_match
from pi_tui._input import InputSplitter, Paste
from pi_tui._keybindings import TUI_DEFAULTS, Keybindings, capitalize_keys, read_keybindings_file
from pi_tui._keys import is_printable, matches_key, normalize_key, parse_key
from pi_tui._overlay import OverlayOptions
from pi_tui._renderer import RenderStats, ScreenRenderer
from pi_tui._safe_text import terminal_safe
from pi_tui._terminal import ProcessTerminal, Terminal
from pi_tui._text import (
    slice_columns,
    strip_ansi,
    truncate_to_width,
    visible_width,
    wrap_text_with_ansi,
)
from pi_tui._tui import (
    TUI,
    ColorScheme,
    OverlayHandle,
    RgbColor,
    TuiMode,
    parse_osc_color,
)
from pi_tui.components import (
    Box,
    DynamicBorder,
    Input,
    Lines,
    Loader,
    Markdown,
    MarkdownTheme,
    SelectItem,
    SelectList,
    SettingItem,
    SettingsList,
    SettingsStyle,
    Spacer,
    Text,
    TruncatedText,
)
from pi_tui.editor import Completer, Editor, Suggestion

__all__ = [
    "CURSOR_MARKER",
    "TUI",
    "TUI_DEFAULTS",
    "Box",
    "ColorScheme",
    "Completer",
    "Component",
    "Container",
    "DynamicBorder",
    "Editor",
    "Focusable",
    "FullscreenRenderer",
    "Input",
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
    "RgbColor",
    "ScreenRenderer",
    "SelectItem",
    "SelectList",
    "SettingItem",
    "SettingsList",
    "SettingsStyle",
    "Spacer",
    "StaticLines",
    "Suggestion",
    "Terminal",
    "Text",
    "TruncatedText",
    "TuiMode",
    "capitalize_keys",
    "detect_capabilities",
    "fuzzy_filter",
    "fuzzy_match",
    "hyperlink",
    "is_printable",
    "matches_key",
    "normalize_key",
    "parse_key",
    "parse_osc_color",
    "read_keybindings_file",
    "set_capability_overrides",
    "slice_columns",
    "strip_ansi",
    "supports_hyperlinks",
    "supports_true_color",
    "terminal_safe",
    "truncate_to_width",
    "visible_width",
    "wrap_text_with_ansi",
]
