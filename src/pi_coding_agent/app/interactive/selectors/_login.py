"""What ``/login`` and ``/logout`` show in the editor's place, as Pi's TUI does.

``ProviderSelector`` lists the providers to sign in to (or out of) under a search line,
each with what is configured for it now (``✓ configured``, ``✓ env: OPENAI_API_KEY``,
``• unconfigured``). ``LoginDialog`` shows a sign-in flow's steps: the URL to open, the
device code to enter, progress, and asks for a key or a pasted code; Escape cancels.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pi_coding_agent.app.interactive.selectors._base import SelectorContext
from pi_tui import Container, Input, Spacer, Text, TruncatedText, fuzzy_filter

MAX_VISIBLE = 8
_ENV_NAMES = re.compile(r"^[A-Z][A-Z0-9_]*(?:, [A-Z][A-Z0-9_]*)*$")


@dataclass(frozen=True, slots=True)
class ProviderRow:
    provider: str
    name: str
    auth_type: str
    """``oauth`` or ``api_key``: the method this row signs in (or out) with."""
    method: str = ""
    status_type: str | None = None
    """What is configured now (``oauth``, ``api_key``), ``None`` when nothing is."""
    status_source: str | None = None
    """Where it comes from: ``stored credential``, or environment variable names."""


def auth_type_label(auth_type: str) -> str:
    return "subscription" if auth_type == "oauth" else "API key"


class ProviderSelector(Container):
    def __init__(
        self,
        ctx: SelectorContext,
        mode: str,
        rows: Sequence[ProviderRow],
        on_select: Callable[[ProviderRow], None],
        on_cancel: Callable[[], None],
        *,
        search: str = "",
    ) -> None:
        super().__init__()
        self.ctx = ctx
        self.mode = mode
        self.rows = list(rows)
        self.shown = self.rows
        self.selected = 0
        self.on_select = on_select
        self.on_cancel = on_cancel
        self.label_types = len({row.auth_type for row in self.rows}) > 1
        theme = ctx.theme
        title = "Select provider to configure:" if mode == "login" else "Select provider to logout:"
        self.search = Input(search, keybindings=ctx.keys)
        self.list = Container()
        for child in (ctx.border(), Spacer(1), TruncatedText(theme.fg("accent", theme.bold(title)), 1),
                      Spacer(1), self.search, Spacer(1), self.list, Spacer(1), ctx.border()):  # fmt: skip
            self.add_child(child)
        self._filter(search)

    @property
    def focused(self) -> bool:
        return self.search.focused

    @focused.setter
    def focused(self, value: bool) -> None:
        self.search.focused = value

    def _filter(self, query: str) -> None:
        self.shown = (
            fuzzy_filter(self.rows, query, lambda r: f"{r.name} {r.provider} {r.auth_type} {r.method}")
            if query
            else self.rows
        )
        self.selected = max(0, min(self.selected, len(self.shown) - 1))
        self._refresh()

    def _refresh(self) -> None:
        theme = self.ctx.theme
        start = max(0, min(self.selected - MAX_VISIBLE // 2, len(self.shown) - MAX_VISIBLE))
        end = min(start + MAX_VISIBLE, len(self.shown))
        lines: list[TruncatedText] = []
        for index in range(start, end):
            row = self.shown[index]
            kind = theme.fg("muted", f" [{auth_type_label(row.auth_type)}]") if self.label_types else ""
            if index == self.selected:
                name = theme.fg("accent", "→ ") + theme.fg("accent", row.name)
            else:
                name = "  " + theme.fg("text", row.name)
            lines.append(TruncatedText(name + kind + self._status(row), 1))
        if start > 0 or end < len(self.shown):
            lines.append(TruncatedText(theme.fg("muted", f"  ({self.selected + 1}/{len(self.shown)})"), 1))
        if not self.shown:
            lines.append(TruncatedText(theme.fg("muted", f"  {self._empty()}"), 1))
        self.list.children = list(lines)
        self.ctx.request_render()

    def _empty(self) -> str:
        if self.rows:
            return "No matching providers"
        return (
            "No providers available" if self.mode == "login" else "No providers logged in. Use /login first."
        )

    def _status(self, row: ProviderRow) -> str:
        theme = self.ctx.theme
        if row.status_type is None:
            return theme.fg("muted", " • unconfigured")
        if row.status_type != row.auth_type:
            label = "subscription configured" if row.status_type == "oauth" else "API key configured"
            return theme.fg("muted", " • ") + theme.fg("warning", label)
        source = row.status_source
        if not source or source in ("OAuth", "stored credential"):
            return theme.fg("success", " ✓ configured")
        return theme.fg("success", f" ✓ {'env: ' + source if _ENV_NAMES.match(source) else source}")

    def handle_input(self, data: str) -> None:
        keys = self.ctx.keys
        if keys.matches(data, "tui.select.up"):
            self.selected = max(0, self.selected - 1)
            self._refresh()
        elif keys.matches(data, "tui.select.down"):
            self.selected = max(0, min(len(self.shown) - 1, self.selected + 1))
            self._refresh()
        elif keys.matches(data, "tui.select.confirm") or data == "\n":
            if self.shown:
                self.on_select(self.shown[self.selected])
        elif keys.matches(data, "tui.select.cancel"):
            self.on_cancel()
        else:
            self.search.handle_input(data)
            self._filter(self.search.value)


def _link(url: str, text: str) -> str:
    """``text`` as an OSC 8 hyperlink to ``url`` (terminals without them show the text)."""
    return f"\x1b]8;;{url}\x07{text}\x1b]8;;\x07"


class LoginDialog(Container):
    """A sign-in in progress; ``cancelled`` is set when the user pressed Escape."""

    def __init__(self, ctx: SelectorContext, title: str, on_cancel: Callable[[], None]) -> None:
        super().__init__()
        self.ctx = ctx
        self.on_cancel = on_cancel
        self.cancelled = asyncio.Event()
        self.content = Container()
        self.input = Input(keybindings=ctx.keys)
        self._answer: asyncio.Future[str] | None = None
        theme = ctx.theme
        for child in (
            ctx.border(),
            Text(theme.fg("accent", theme.bold(title)), 1, 0),
            self.content,
            ctx.border(),
        ):
            self.add_child(child)

    @property
    def focused(self) -> bool:
        return self.input.focused

    @focused.setter
    def focused(self, value: bool) -> None:
        self.input.focused = value

    def _add(self, *children: Text | Spacer | Input) -> None:
        for child in children:
            self.content.add_child(child)
        self.ctx.request_render()

    def _line(self, token: str, text: str) -> Text:
        return Text(self.ctx.theme.fg(token, text), 1, 0)

    def show_details(self, lines: Sequence[tuple[str, str]]) -> None:
        """Lines of ``(colour token, text)`` shown before the flow's own steps."""
        self.content.clear()
        self._add(Spacer(1), *(self._line(token, text) for token, text in lines))

    def show_url(self, url: str, instructions: str | None = None) -> None:
        self.content.clear()
        self._add(
            Spacer(1),
            self._line("accent", _link(url, url)),
            self._line("dim", _link(url, "Ctrl+click to open")),
        )
        if instructions:
            self._add(Spacer(1), self._line("warning", instructions))

    def show_device_code(self, user_code: str, verification_uri: str) -> None:
        self.show_url(verification_uri)
        self._add(Spacer(1), self._line("warning", f"Enter code: {user_code}"))

    def show_info(self, message: str, links: Sequence[tuple[str, str | None]] = ()) -> None:
        self._add(Spacer(1), self._line("text", message))
        for url, label in links:
            self._add(self._line("accent", _link(url, f"{label}: {url}" if label else url)))

    def show_waiting(self, message: str) -> None:
        self._add(
            Spacer(1),
            self._line("dim", message),
            Text(f"({self.ctx.hint('tui.select.cancel', 'to cancel')})", 1, 0),
        )

    def show_progress(self, message: str) -> None:
        self._add(self._line("dim", message))

    def ask(self, message: str, placeholder: str | None = None, manual: bool = False) -> asyncio.Future[str]:
        """Show ``message`` and the input line; the future gets what the user submits."""
        self.input.set_value("")
        if manual:
            hint = self.ctx.hint("tui.select.cancel", "to cancel")
            self._add(Spacer(1), self._line("dim", message), self.input, Text(f"({hint})", 1, 0))
        else:
            self._add(Spacer(1), self._line("text", message))
            if placeholder:
                self._add(self._line("dim", f"e.g., {placeholder}"))
            hints = f"{self.ctx.hint('tui.select.cancel', 'to cancel,')} {self.ctx.hint('tui.select.confirm', 'to submit')}"
            self._add(self.input, Text(f"({hints})", 1, 0))
        self._answer = asyncio.get_running_loop().create_future()
        return self._answer

    def _submit(self) -> None:
        answer, self._answer = self._answer, None
        if answer is None or answer.done():
            return
        value = self.input.value
        self.content.children = [
            Text(f"> {value}", 0, 0) if c is self.input else c for c in self.content.children
        ]
        answer.set_result(value)
        self.ctx.request_render()

    def cancel(self) -> None:
        self.cancelled.set()
        if self._answer is not None and not self._answer.done():
            self._answer.cancel()
        self.on_cancel()

    def handle_input(self, data: str) -> None:
        keys = self.ctx.keys
        if keys.matches(data, "tui.select.cancel"):
            self.cancel()
        elif self._answer is not None and (keys.matches(data, "tui.select.confirm") or data == "\n"):
            self._submit()
        elif self._answer is not None:
            self.input.handle_input(data)
            self.ctx.request_render()
