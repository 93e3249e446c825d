"""``/settings``: Pi's preferences list, each change applied at once and saved to the global
``settings.json`` (Pi's labels, order and values, for the settings this implementation has)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pi_coding_agent.app.interactive.selectors._base import SelectorContext
from pi_tui import (
    Component,
    Container,
    SelectItem,
    SelectList,
    SettingItem,
    SettingsList,
    SettingsStyle,
    Spacer,
    Text,
)

TRUST_LABELS = {"ask": "Ask", "always": "Always trust", "never": "Never trust"}
HTTP_IDLE_TIMEOUTS = {"30 sec": 30_000, "1 min": 60_000, "2 min": 120_000, "5 min": 300_000, "disabled": 0}
IMAGE_ROWS = ("show-images", "image-width-cells")
"""Shown only where the terminal can draw images, as in Pi."""
BOOLEAN = ("true", "false")
SubmenuFactory = Callable[[str, Callable[[str | None], None]], Component]


@dataclass(frozen=True)
class SettingSpec:
    id: str
    label: str
    description: str
    values: tuple[str, ...] = BOOLEAN


SPECS = (
    SettingSpec("autocompact", "Auto-compact", "Automatically compact context when it gets too large"),
    SettingSpec("steering-mode", "Steering mode", "Enter while streaming queues steering messages. "
                "'one-at-a-time': deliver one, wait for response. 'all': deliver all at once.", ("one-at-a-time", "all")),
    SettingSpec("follow-up-mode", "Follow-up mode", "{follow_up} queues follow-up messages until agent stops. "
                "'one-at-a-time': deliver one, wait for response. 'all': deliver all at once.", ("one-at-a-time", "all")),
    SettingSpec("transport", "Transport", "Preferred transport for providers that support multiple transports",
                ("sse", "websocket", "websocket-cached", "auto")),
    SettingSpec("hide-thinking", "Hide thinking", "Hide thinking blocks in assistant responses"),
    SettingSpec("mermaid-rendering", "Mermaid diagrams", "Render Mermaid code blocks as Unicode diagrams",
                ("off", "final", "streaming")),
    SettingSpec("cache-miss-notices", "Cache miss notices",
                "Show transcript notices for cache costs and provider recovery diagnostics"),
    SettingSpec("warnings", "Warnings", "Enable or disable individual warnings", ()),
    SettingSpec("model-thinking", "Default thinking level per model",
                "Override the default thinking level for specific models. {cycle} cycles in-session.", ()),
    SettingSpec("http-idle-timeout", "HTTP idle timeout", "Maximum idle gap while waiting for HTTP headers or body "
                "chunks. Disable for local models that pause longer than five minutes.", tuple(HTTP_IDLE_TIMEOUTS)),
    SettingSpec("collapse-changelog", "Collapse changelog", "Show condensed changelog after updates"),
    SettingSpec("quiet-startup", "Quiet startup", "Disable verbose printing at startup (header: keep only the "
                "startup header)", ("true", "header", "false")),
    SettingSpec("install-telemetry", "Install telemetry",
                "Send an anonymous version/update ping after changelog-detected updates"),
    SettingSpec("default-project-trust", "Default project trust",
                "Fallback behavior when no extension or saved trust decision decides project trust",
                tuple(TRUST_LABELS.values())),
    SettingSpec("double-escape-action", "Double-escape action", "Action when pressing Escape twice with empty editor",
                ("tree", "fork", "none")),
    SettingSpec("tree-filter-mode", "Tree filter mode", "Default filter when opening /tree",
                ("default", "no-tools", "user-only", "labeled-only", "all")),
    SettingSpec("tui-mode", "TUI mode", "Interface layout; fullscreen mode is experimental", ("regular", "fullscreen")),
    SettingSpec("fullscreen-exit-output", "Fullscreen exit output",
                "Print the transcript or only a session resume hint when exiting fullscreen mode",
                ("transcript", "resume-hint")),
    SettingSpec("fullscreen-scrollbar", "Fullscreen scrollbar",
                "Scrollbar behavior in fullscreen mode; has no effect in regular mode", ("auto", "always", "hidden")),
    SettingSpec("fullscreen-copy-on-select", "Fullscreen copy on select", "Automatically copy selected text in "
                "fullscreen mode; disable to copy selections with {copy}"),
    SettingSpec("fullscreen-wheel-scroll-lines", "Fullscreen wheel scrolling", "Lines per mouse-wheel event in "
                "fullscreen mode; 'auto' speeds up fast wheel spins where the terminal does not",
                ("auto", "1", "2", "3", "5", "10")),
    SettingSpec("theme", "Theme", "Color theme for the interface", ()),
    SettingSpec("show-images", "Show images", "Render images inline in terminal"),
    SettingSpec("image-width-cells", "Image width", "Preferred inline image width in terminal cells",
                ("60", "80", "120")),
    SettingSpec("auto-resize-images", "Auto-resize images", "Resize large images to 2000x2000 max for better model compatibility"),
    SettingSpec("block-images", "Block images", "Prevent images from being sent to LLM providers"),
    SettingSpec("skill-commands", "Skill commands", "Register skills as /skill:name commands"),
    SettingSpec("show-hardware-cursor", "Show hardware cursor", "Show the terminal cursor while still positioning it for IME support"),
    SettingSpec("editor-padding", "Editor padding", "Horizontal padding for input editor (0-3)", ("0", "1", "2", "3")),
    SettingSpec("output-padding", "Output padding", "Horizontal padding for user messages, assistant messages, and thinking", ("0", "1")),
    SettingSpec("autocomplete-max-visible", "Autocomplete max items", "Max visible items in autocomplete dropdown (3-20)",
                ("3", "5", "7", "10", "15", "20")),
    SettingSpec("clear-on-shrink", "Clear on shrink", "Clear empty rows when content shrinks (may cause flicker)"),
    SettingSpec("terminal-progress", "Terminal progress", "Show OSC 9;4 progress indicators in the terminal tab bar"),
)  # fmt: skip

WARNING_SPECS = (
    SettingSpec("anthropic-extra-usage", "Anthropic extra usage",
                "Warn when Anthropic subscription auth may use paid extra usage"),
)  # fmt: skip
"""The rows of Pi's Warnings submenu (each saved under ``warnings`` in settings.json)."""

# The order Pi's /settings shows its items in (ids of settings this implementation lacks
# included, so the list reads as Pi's with those rows left out); Pi 1.6's wheel row included.
PI_ORDER = (
    "autocompact", "show-images", "image-width-cells", "auto-resize-images", "block-images", "skill-commands",
    "show-hardware-cursor", "editor-padding", "output-padding", "autocomplete-max-visible", "clear-on-shrink",
    "terminal-progress", "steering-mode", "follow-up-mode", "transport", "http-idle-timeout", "hide-thinking",
    "mermaid-rendering", "cache-miss-notices", "collapse-changelog", "quiet-startup", "install-telemetry",
    "default-project-trust", "double-escape-action", "tree-filter-mode", "warnings", "model-thinking", "tui-mode",
    "fullscreen-exit-output", "fullscreen-scrollbar", "fullscreen-copy-on-select", "fullscreen-wheel-scroll-lines",
    "theme",
)  # fmt: skip


class ThemeMenu(Container):
    """The theme list (``✓`` the current one), with Pi's automatic light/dark choice first."""

    def __init__(
        self, ctx: SelectorContext, current: str, themes: Sequence[str], done: Callable[[str | None], None]
    ):
        super().__init__()
        items = [
            SelectItem(
                "light/dark", "  Automatic", "Use separate themes for light and dark terminal appearance"
            )
        ]
        items += [SelectItem(name, ("✓ " if name == current else "  ") + name) for name in themes]
        theme = ctx.theme
        self.list = SelectList(items, 10, keybindings=ctx.keys, selected_style=lambda s: theme.fg("accent", s),
                               description_style=lambda s: theme.fg("muted", s))  # fmt: skip
        self.list.selected = next((i for i, item in enumerate(items) if item.value == current), 0)
        self.list.on_select = lambda item: done(item.value)
        self.list.on_cancel = lambda: done(None)
        for child in (Text(theme.bold("Theme"), 1, 0), Spacer(1), self.list):
            self.add_child(child)

    def handle_input(self, data: str) -> None:
        self.list.handle_input(data)


def warnings_menu(
    ctx: SelectorContext,
    values: dict[str, str],
    on_change: Callable[[str, str], None],
    done: Callable[[str | None], None],
) -> SettingsList:
    """Pi's Warnings submenu: one row per warning, changed in place; Escape goes back."""

    def change(key: str, value: str) -> None:
        values[key] = value
        on_change(key, value)

    items = [SettingItem(spec.id, spec.label, values.get(spec.id, "true"), spec.values, spec.description)
             for spec in WARNING_SPECS]  # fmt: skip
    return SettingsList(items, change, lambda: done(None), max_visible=min(len(items), 10), keybindings=ctx.keys,
                        style=settings_style(ctx))  # fmt: skip


def settings_style(ctx: SelectorContext) -> SettingsStyle:
    theme = ctx.theme
    return SettingsStyle(
        cursor=theme.fg("accent", "→ "),
        label=lambda text, selected: theme.fg("accent", text) if selected else text,
        value=lambda text, selected: theme.fg("accent" if selected else "muted", text),
        description=lambda text: theme.fg("dim", text),
        hint=lambda text: theme.fg("dim", text),
    )


class SettingsSelector(Container):
    def __init__(
        self,
        ctx: SelectorContext,
        values: dict[str, str],
        themes: Sequence[str],
        on_change: Callable[[str, str], None],
        on_cancel: Callable[[], None],
        *,
        images: bool = True,
        model_thinking: SubmenuFactory | None = None,
    ) -> None:
        """``model_thinking`` opens the per-model thinking levels (without it the row is left out)."""
        super().__init__()
        items = []
        for spec in sorted(SPECS, key=lambda spec: PI_ORDER.index(spec.id)):
            if (spec.id in IMAGE_ROWS and not images) or (spec.id == "model-thinking" and model_thinking is None):
                continue
            description = spec.description.replace("{follow_up}", ctx.display("app.message.followUp"))
            description = description.replace("{copy}", ctx.display("app.message.copy"))
            description = description.replace("{cycle}", ctx.display("app.thinking.cycle"))
            submenu: SubmenuFactory | None = None
            if spec.id == "theme":
                submenu = lambda current, done: ThemeMenu(ctx, current, themes, done)  # noqa: E731
            elif spec.id == "warnings":
                submenu = lambda _current, done: warnings_menu(ctx, values, on_change, done)  # noqa: E731
            elif spec.id == "model-thinking":
                submenu = model_thinking
            value = "configure" if spec.id == "warnings" else values.get(spec.id, "")
            items.append(SettingItem(spec.id, spec.label, value, spec.values, description, submenu))
        self.list = SettingsList(items, on_change, on_cancel, keybindings=ctx.keys, style=settings_style(ctx))
        for child in (ctx.border(), Spacer(1), self.list, ctx.border()):
            self.add_child(child)

    @property
    def focused(self) -> bool:
        return self.list.focused

    @focused.setter
    def focused(self, value: bool) -> None:
        self.list.focused = value

    def handle_input(self, data: str) -> None:
        self.list.handle_input(data)
