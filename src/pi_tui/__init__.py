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
from pi_tui._color_query import TerminalColors, parse_osc_color
from pi_tui._colors import (
    Color,
    ColorError,
    Indexed,
    Oklch,
    Rgb,
    color_sgr,
    color_to_hex,
    color_to_okhsl,
    color_to_oklch,
    color_to_rgb,
    mix_colors,
    okhsl_color,
    oklch_color,
    parse_color,
    rgb_color,
    rgb_to_256,
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
from pi_tui._oklab import oklab_to_okhsl_lightness
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
from pi_tui.editor import Completer, Completion, CompletionSource, Editor, Suggestion

__all__ = [
    "CURSOR_MARKER",
    "TUI",
    "TUI_DEFAULTS",
    "Box",
    "Color",
    "ColorError",
    "ColorScheme",
    "Completer",
    "Completion",
    "CompletionSource",
    "Component",
    "Container",
    "DynamicBorder",
    "Editor",
    "Focusable",
    "FullscreenRenderer",
    "Indexed",
    "Input",
    "InputHandler",
    "InputSplitter",
    "Keybindings",
    "Lines",
    "Loader",
    "Markdown",
    "MarkdownTheme",
    "Oklch",
    "OverlayHandle",
    "OverlayOptions",
    "Paste",
    "ProcessTerminal",
    "RenderStats",
    "Rgb",
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
    "TerminalColors",
    "Text",
    "TruncatedText",
    "TuiMode",
    "capitalize_keys",
    "color_sgr",
    "color_to_hex",
    "color_to_okhsl",
    "color_to_oklch",
    "color_to_rgb",
    "detect_capabilities",
    "fuzzy_filter",
    "fuzzy_match",
    "hyperlink",
    "is_printable",
    "matches_key",
    "mix_colors",
    "normalize_key",
    "okhsl_color",
    "oklab_to_okhsl_lightness",
    "oklch_color",
    "parse_color",
    "parse_key",
    "parse_osc_color",
    "read_keybindings_file",
    "rgb_color",
    "rgb_to_256",
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
