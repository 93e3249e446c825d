"""The dialogs extensions (and the tree's branch-summary question) ask with: pick one of a
list, type a line, write several lines. Each sits in the editor's place; a timeout counts
down in the title and dismisses the dialog, as Pi's do."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from pi_coding_agent.app.interactive.selectors._base import SelectorContext
from pi_tui import Container, Editor, Input, Loader, Spacer, Text


class _Countdown:
    """Calls ``on_tick(seconds left)`` every second and ``on_done`` when the time is up."""

    def __init__(
        self, milliseconds: int, on_tick: Callable[[int], None], on_done: Callable[[], None]
    ) -> None:
        self._left = max(1, (milliseconds + 999) // 1000)
        self._on_tick = on_tick
        self._on_done = on_done
        self._timer: asyncio.TimerHandle | None = asyncio.get_running_loop().call_later(1, self._tick)
        on_tick(self._left)

    def _tick(self) -> None:
        self._left -= 1
        if self._left <= 0:
            self._timer = None
            self._on_done()
            return
        self._on_tick(self._left)
        self._timer = asyncio.get_running_loop().call_later(1, self._tick)

    def dispose(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


class _Dialog(Container):
    def __init__(
        self, ctx: SelectorContext, title: str, timeout_ms: int | None, on_cancel: Callable[[], None]
    ):
        super().__init__()
        self.ctx = ctx
        self.title = title
        self.title_text = Text(self._title(title), 1, 0)
        self.on_cancel = on_cancel
        self.countdown: _Countdown | None = None
        if timeout_ms:
            self.countdown = _Countdown(timeout_ms, self._show_seconds, on_cancel)

    def _title(self, text: str) -> str:
        return self.ctx.theme.fg("accent", self.ctx.theme.bold(text))

    def _show_seconds(self, seconds: int) -> None:
        self.title_text.set_text(self._title(f"{self.title} ({seconds}s)"))
        self.ctx.request_render()

    def dispose(self) -> None:
        if self.countdown is not None:
            self.countdown.dispose()


class SelectDialog(_Dialog):
    """``→ option`` list: Up/Down (or k/j) to move, Enter to choose, Escape to dismiss."""

    def __init__(
        self,
        ctx: SelectorContext,
        title: str,
        options: Sequence[str],
        on_select: Callable[[str], None],
        on_cancel: Callable[[], None],
        *,
        timeout_ms: int | None = None,
    ) -> None:
        super().__init__(ctx, title, timeout_ms, on_cancel)
        self.options = list(options)
        self.selected = 0
        self.on_select = on_select
        self.list = Container()
        for child in (ctx.border(), Spacer(1), self.title_text, Spacer(1), self.list, Spacer(1)):
            self.add_child(child)
        hints = "  ".join(
            (ctx.raw_hint("↑↓", "navigate"), ctx.hint("tui.select.confirm", "select"),
             ctx.hint("tui.select.cancel", "cancel"))
        )  # fmt: skip
        for child in (Text(hints, 1, 0), Spacer(1), ctx.border()):
            self.add_child(child)
        self._refresh()

    def _refresh(self) -> None:
        theme = self.ctx.theme
        self.list.children = [
            Text(
                theme.fg("accent", f"→ {option}") if i == self.selected else "  " + theme.fg("text", option),
                1,
                0,
            )
            for i, option in enumerate(self.options)
        ]

    def handle_input(self, data: str) -> None:
        keys = self.ctx.keys
        if keys.matches(data, "tui.select.up") or data == "k":
            self.selected = max(0, self.selected - 1)
        elif keys.matches(data, "tui.select.down") or data == "j":
            self.selected = min(len(self.options) - 1, self.selected + 1)
        elif keys.matches(data, "tui.select.confirm") or data == "\n":
            if self.options:
                self.on_select(self.options[self.selected])
            return
        elif keys.matches(data, "tui.select.cancel"):
            self.on_cancel()
            return
        self._refresh()


class InputDialog(_Dialog):
    """One line of text: Enter submits it, Escape dismisses."""

    def __init__(
        self,
        ctx: SelectorContext,
        title: str,
        on_submit: Callable[[str], None],
        on_cancel: Callable[[], None],
        *,
        placeholder: str = "",
        prefill: str = "",
        timeout_ms: int | None = None,
    ) -> None:
        super().__init__(ctx, title, timeout_ms, on_cancel)
        self.title_text.set_text(ctx.theme.fg("accent", title))
        self.input = Input(prefill, keybindings=ctx.keys, placeholder=placeholder,
                           placeholder_style=lambda s: ctx.theme.fg("dim", s))  # fmt: skip
        self.on_submit = on_submit
        hints = f"{ctx.hint('tui.select.confirm', 'submit')}  {ctx.hint('tui.select.cancel', 'cancel')}"
        for child in (ctx.border(), Spacer(1), self.title_text, Spacer(1), self.input, Spacer(1),
                      Text(hints, 1, 0), Spacer(1), ctx.border()):  # fmt: skip
            self.add_child(child)

    def _title(self, text: str) -> str:
        return self.ctx.theme.fg("accent", text)

    @property
    def focused(self) -> bool:
        return self.input.focused

    @focused.setter
    def focused(self, value: bool) -> None:
        self.input.focused = value

    def handle_input(self, data: str) -> None:
        keys = self.ctx.keys
        if keys.matches(data, "tui.select.confirm") or data == "\n":
            self.on_submit(self.input.value)
        elif keys.matches(data, "tui.select.cancel"):
            self.on_cancel()
        else:
            self.input.handle_input(data)


class EditorDialog(Container):
    """Several lines: Enter submits, Shift+Enter starts a new line, Escape dismisses."""

    def __init__(
        self,
        ctx: SelectorContext,
        title: str,
        on_submit: Callable[[str], None],
        on_cancel: Callable[[], None],
        prefill: str = "",
    ) -> None:
        super().__init__()
        self.ctx = ctx
        self.on_cancel = on_cancel
        self.editor = Editor(ctx.keys)
        self.editor.set_text(prefill)
        self.editor.on_submit = on_submit
        hints = "  ".join(
            (ctx.hint("tui.select.confirm", "submit"), ctx.hint("tui.input.newLine", "newline"),
             ctx.hint("tui.select.cancel", "cancel"))
        )  # fmt: skip
        for child in (ctx.border(), Spacer(1), Text(ctx.theme.fg("accent", title), 1, 0), Spacer(1),
                      self.editor, Spacer(1), Text(hints, 1, 0), Spacer(1), ctx.border()):  # fmt: skip
            self.add_child(child)

    @property
    def focused(self) -> bool:
        return self.editor.focused

    @focused.setter
    def focused(self, value: bool) -> None:
        self.editor.focused = value

    def handle_input(self, data: str) -> None:
        if self.ctx.keys.matches(data, "tui.select.cancel") and not self.editor.completion_open:
            self.on_cancel()
            return
        self.editor.handle_input(data)


class LoaderDialog(Container):
    """A spinner with a message between two borders, in the editor's place, while something
    runs (``/share``'s upload): Escape calls ``on_cancel`` (Pi's bordered loader)."""

    def __init__(self, ctx: SelectorContext, message: str, on_cancel: Callable[[], None]) -> None:
        super().__init__()
        self.ctx = ctx
        self.on_cancel = on_cancel
        theme = ctx.theme
        self.loader = Loader(
            message,
            ctx.request_render,
            spinner_style=lambda s: theme.fg("accent", s),
            message_style=lambda s: theme.fg("muted", s),
        )
        self.loader.start()
        hint = Text(ctx.hint("tui.select.cancel", "cancel"), 1, 0)
        for child in (ctx.border(), Spacer(1), self.loader, Spacer(1), hint, Spacer(1), ctx.border()):
            self.add_child(child)

    def handle_input(self, data: str) -> None:
        if self.ctx.keys.matches(data, "tui.select.cancel"):
            self.on_cancel()

    def dispose(self) -> None:
        self.loader.stop()
