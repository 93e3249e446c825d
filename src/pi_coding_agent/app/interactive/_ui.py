"""``InteractiveUI``: how extensions (and pi's own commands) reach the terminal UI.

It is the interactive mode's ``ExtensionUI`` (dialogs, notices, status, widgets, title,
editor text) plus Pi's component hooks, in Python terms (``docs/tui/README.md``):

* ``custom(factory, overlay=...)``: a component that takes the editor's place (or floats
  above everything as an overlay) until it calls ``done(result)``; ``custom`` returns that;
* ``set_widget(key, lines or factory, placement)``: lines or a component above/below the editor;
* ``set_footer(factory)`` / ``set_header(factory)``: replace the built-in footer or header;
* ``set_editor_component(factory)``: a replacement editor (it gets the text, the submit
  handler and the app keys of the built-in one);
* ``set_status(key, text)``: a status in the footer; ``set_working_message``/``set_working_visible``.

Every dialog resolves to its default when its ``timeout_ms`` passes or its ``signal`` aborts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, TypeVar

from pi_ai import AbortSignal
from pi_coding_agent.app.interactive._layout import widget_lines
from pi_coding_agent.app.interactive._parts import EditorComponent
from pi_coding_agent.app.interactive.selectors import (
    EditorDialog,
    InputDialog,
    SelectDialog,
    SelectorContext,
)
from pi_coding_agent.customize.extensions.ui import ExtensionUI, NotifyKind, WidgetPlacement
from pi_coding_agent.customize.themes import Theme
from pi_tui import (
    TUI,
    CompletionSource,
    Component,
    Editor,
    Keybindings,
    OverlayHandle,
    OverlayOptions,
    terminal_safe,
)

if TYPE_CHECKING:
    from pi_coding_agent.app.interactive._indicators import StatusIndicators
    from pi_coding_agent.app.interactive._layout import Layout
    from pi_coding_agent.app.interactive._themes import ThemeChoice
    from pi_coding_agent.app.interactive._transcript import Transcript
    from pi_coding_agent.app.interactive.components import Footer

T = TypeVar("T")


Done: TypeAlias = Callable[[Any], None]
CustomFactory: TypeAlias = Callable[[TUI, Theme, Keybindings, Done], "Component | Awaitable[Component]"]
WidgetFactory: TypeAlias = Callable[[TUI, Theme], Component]
HeaderFactory: TypeAlias = Callable[[TUI, Theme], Component]
FooterFactory: TypeAlias = Callable[[TUI, Theme, "FooterData"], Component]
EditorFactory: TypeAlias = Callable[[TUI, Theme, Keybindings], EditorComponent]


class FooterData(Protocol):
    """What a custom footer may show: what the built-in one shows."""

    @property
    def statuses(self) -> dict[str, str]: ...
    @property
    def git_branch(self) -> str | None: ...


def _dispose(component: object) -> None:
    dispose = getattr(component, "dispose", None)
    if callable(dispose):
        dispose()


class UIHost(Protocol):
    """What extensions' UI calls reach: the screen's parts and the editor in use, which a
    dialog or an extension's editor takes the place of."""

    @property
    def tui(self) -> TUI: ...
    @property
    def theme(self) -> Theme: ...
    @property
    def keys(self) -> Keybindings: ...
    @property
    def layout(self) -> Layout: ...
    @property
    def editor(self) -> EditorComponent: ...
    @property
    def transcript(self) -> Transcript: ...
    @property
    def footer(self) -> Footer: ...
    @property
    def indicators(self) -> StatusIndicators: ...
    def restore_editor(self) -> None: ...
    def replace_editor(self, editor: EditorComponent | None) -> None: ...
    def set_tools_expanded(self, expanded: bool) -> None: ...
    def build_header(self) -> None: ...
    @property
    def default_editor(self) -> Editor: ...
    @property
    def themes(self) -> ThemeChoice: ...
    def choose_theme(self, name: str, *, save: bool) -> str | None: ...
    def apply_theme(self, name: str | Theme | None = None) -> None: ...


class InteractiveUI(ExtensionUI):
    def __init__(self, host: UIHost) -> None:
        self.host = host
        self._close_active: Callable[[], None] | None = None
        self.custom_footer: Component | None = None
        self.custom_header: Component | None = None
        self.editor_factory: EditorFactory | None = None
        self._input_unsubscribes: list[Callable[[], None]] = []
        self.resets = 0
        """How often ``reset`` ran: the TypeScript host drops its listeners and autocomplete
        providers when it sees a new count (``ts_extensions``)."""

    @property
    def theme(self) -> Theme:
        return self.host.theme

    @property
    def tui(self) -> TUI:
        return self.host.tui

    def context(self) -> SelectorContext:
        return SelectorContext(self.host.theme, self.host.keys, self.host.tui.request_render)

    # ------------------------------------------------------------------ the editor's place

    def show_selector(self, component: Component, focus: Component | None = None,
                      dispose: Callable[[], None] | None = None) -> Callable[[], None]:  # fmt: skip
        """Put ``component`` where the editor is; the returned ``done()`` puts the editor back."""
        self.close_selector()
        closed = False

        def done() -> None:
            nonlocal closed
            if closed:
                return
            closed = True
            if dispose is not None:
                dispose()
            _dispose(component)
            if self._close_active is done:
                self._close_active = None
                self.host.restore_editor()

        self._close_active = done
        self.host.layout.show_in_editor_area(component)
        self.tui.set_focus(focus or component)
        return done

    def open(self, build: Callable[[Callable[[], None]], Component], focus: Component | None = None) -> None:
        """``show_selector`` for a component that needs its own ``done`` (Pi's ``showSelector``)."""
        close: list[Callable[[], None]] = []

        def done() -> None:
            if close:
                close[0]()

        close.append(self.show_selector(build(done), focus))

    def close_selector(self) -> None:
        if self._close_active is not None:
            self._close_active()

    @property
    def selector_open(self) -> bool:
        return self._close_active is not None

    # ------------------------------------------------------------------ dialogs

    async def _dialog(self, build: Callable[[Callable[[Any], None]], Component], default: Any,
                      signal: AbortSignal | None) -> Any:  # fmt: skip
        if signal is not None and signal.aborted:
            return default
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

        def finish(value: Any) -> None:
            if not future.done():
                future.set_result(value)

        done = self.show_selector(build(finish))
        if signal is not None:
            signal.add_listener(lambda: finish(default))
        try:
            return await future
        finally:
            done()

    async def select(self, title: str, options: Sequence[str], *, timeout_ms: int | None = None,
                     signal: AbortSignal | None = None) -> str | None:  # fmt: skip
        ctx = self.context()
        chosen = await self._dialog(
            lambda finish: SelectDialog(ctx, title, options, finish, lambda: finish(None), timeout_ms=timeout_ms),
            None,
            signal,
        )
        return chosen if isinstance(chosen, str) else None

    async def confirm(self, title: str, message: str, *, timeout_ms: int | None = None,
                      signal: AbortSignal | None = None) -> bool:  # fmt: skip
        return (
            await self.select(f"{title}\n{message}", ["Yes", "No"], timeout_ms=timeout_ms, signal=signal)
            == "Yes"
        )

    async def input(self, title: str, placeholder: str | None = None, *, timeout_ms: int | None = None,
                    signal: AbortSignal | None = None) -> str | None:  # fmt: skip
        ctx = self.context()
        text = await self._dialog(
            lambda finish: InputDialog(
                ctx, title, finish, lambda: finish(None), placeholder=placeholder or "", timeout_ms=timeout_ms
            ),
            None,
            signal,
        )
        return text if isinstance(text, str) else None

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        ctx = self.context()
        text = await self._dialog(
            lambda finish: EditorDialog(ctx, title, finish, lambda: finish(None), prefill or ""), None, None
        )
        return text if isinstance(text, str) else None

    async def custom(self, factory: CustomFactory, *, overlay: bool = False,
                     overlay_options: OverlayOptions | Callable[[], OverlayOptions] | None = None,
                     on_handle: Callable[[OverlayHandle], None] | None = None) -> Any:  # fmt: skip
        """Show the factory's component until it calls ``done(result)``; returns the result."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        saved_text = self.host.editor.get_text()
        built = factory(
            self.tui,
            self.theme,
            self.host.keys,
            lambda value: None if future.done() else future.set_result(value),
        )
        component = await built if isinstance(built, Awaitable) else built
        if future.done():
            _dispose(component)
            return future.result()
        if overlay:
            options = overlay_options() if callable(overlay_options) else overlay_options
            handle = self.tui.show_overlay(component, options)
            if on_handle is not None:
                on_handle(handle)
            try:
                return await future
            finally:
                handle.hide()
                _dispose(component)
        done = self.show_selector(component)
        try:
            return await future
        finally:
            done()
            self.host.editor.set_text(saved_text)

    # ------------------------------------------------------------------ fire and forget

    def notify(self, message: str, kind: NotifyKind | None = None) -> None:
        transcript = self.host.transcript  # its lines pass the terminal-output policy
        if kind == "error":
            transcript.error(message)
        elif kind == "warning":
            transcript.warning(message)
        else:
            transcript.status(message)

    def set_status(self, key: str, text: str | None) -> None:
        footer = self.host.footer
        if text is None:
            footer.statuses.pop(key, None)
        else:
            footer.statuses[key] = terminal_safe(text)
        footer.invalidate()
        self.tui.request_render()

    def set_widget(self, key: str, lines: Sequence[str] | WidgetFactory | None,
                   placement: WidgetPlacement | None = None) -> None:  # fmt: skip
        layout = self.host.layout
        if lines is None:
            layout.set_widget(key, None)
            return
        component = (
            widget_lines(list(lines), lambda s: self.theme.fg("muted", s))
            if not callable(lines)
            else lines(self.tui, self.theme)
        )
        layout.set_widget(key, component, placement or "aboveEditor")

    def set_title(self, title: str) -> None:
        self.tui.terminal.write(f"\x1b]0;{terminal_safe(title, keep_sgr=False)}\x07")

    def set_editor_text(self, text: str) -> None:
        self.host.editor.set_text(text)

    def get_editor_text(self) -> str:
        return self.host.editor.get_text()

    def paste_to_editor(self, text: str) -> None:
        self.host.editor.handle_input(f"\x1b[200~{text}\x1b[201~")

    def set_working_message(self, message: str | None) -> None:
        self.host.indicators.set_working_message(None if message is None else terminal_safe(message))

    def set_working_visible(self, visible: bool) -> None:
        self.host.indicators.set_working_visible(visible)

    def get_tools_expanded(self) -> bool:
        return self.host.transcript.style.tools_expanded

    def set_tools_expanded(self, expanded: bool) -> None:
        self.host.set_tools_expanded(expanded)

    def on_terminal_input(self, handler: Callable[[str], bool]) -> Callable[[], None]:
        """See every key before the focused component; returning True consumes it. A new
        session or ``/reload`` (``reset``) unsubscribes it, as Pi does."""
        unsubscribe = self.tui.add_input_listener(handler)
        self._input_unsubscribes.append(unsubscribe)
        return unsubscribe

    # ------------------------------------------------------------------ themes

    def get_all_themes(self) -> list[dict[str, str | None]]:
        """Every theme by name (``system`` first) with its file; built-in ones have none."""
        choice = self.host.themes
        return [
            {"name": name, "path": choice.themes[name].source if name in choice.themes else None}
            for name in choice.names()
        ]

    def get_theme(self, name: str) -> Theme | None:
        """The theme of that name without switching to it; ``None`` when there is none."""
        choice = self.host.themes
        return choice.theme(name) if name in choice.names() else None

    def set_theme(self, theme: str | Theme) -> dict[str, Any]:
        """Switch to a theme: by name it also becomes the ``theme`` setting; a ``Theme`` (from
        ``get_theme`` or made by the extension) is only drawn with, as Pi 1.6 does with a theme
        object."""
        if not isinstance(theme, str):
            self.host.apply_theme(theme)  # any theme object, even one not in the list (Pi 1.6)
            return {"success": True}
        problem = self.host.choose_theme(theme, save=True)
        return {"success": True} if problem is None else {"success": False, "error": problem}

    def set_completion_source(self, source: CompletionSource | None) -> Callable[[], None]:
        """Have the editor's completions asked of ``source`` first (TypeScript extensions'
        autocomplete providers); gives what makes the editor ask again (an answer came later)."""
        editor = self.host.default_editor
        if editor.completer is not None:
            editor.completer.override = source

        def ask_again() -> None:
            editor.refresh_completion()
            self.tui.request_render()

        return ask_again

    # ------------------------------------------------------------------ replacing parts

    def set_footer(self, factory: FooterFactory | None) -> None:
        if self.custom_footer is not None:
            _dispose(self.custom_footer)
        self.custom_footer = factory(self.tui, self.theme, self.host.footer) if factory is not None else None
        self.host.layout.set_footer(self.custom_footer or self.host.footer)

    def set_header(self, factory: HeaderFactory | None) -> None:
        if self.custom_header is not None:
            _dispose(self.custom_header)
        self.custom_header = factory(self.tui, self.theme) if factory is not None else None
        self.host.build_header()

    def set_editor_component(self, factory: EditorFactory | None) -> None:
        self.editor_factory = factory
        self.host.replace_editor(
            factory(self.tui, self.theme, self.host.keys) if factory is not None else None
        )

    def reset(self) -> None:
        """Back to the built-in parts (a new session starts without an extension's UI): no
        extension's key listener or autocomplete provider stays either."""
        self.resets += 1
        for unsubscribe in self._input_unsubscribes:
            unsubscribe()
        self._input_unsubscribes.clear()
        self.set_completion_source(None)
        self.close_selector()
        self.tui.hide_overlay()
        self.host.layout.clear_widgets()
        self.set_footer(None)
        if self.custom_header is not None:
            self.set_header(None)
        if self.editor_factory is not None:
            self.set_editor_component(None)
        self.host.footer.statuses.clear()
