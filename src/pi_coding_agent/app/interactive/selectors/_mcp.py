"""``/mcp``'s screens, in the editor's place as Pi 1.6 draws them: a menu in an accent-bordered
frame (bold title, muted details, an error line, the list, key hints). ``McpView`` is one
component whose menu is rebuilt whenever a server's state changes, keeping the selected row."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pi_coding_agent.app.interactive.selectors._base import SelectorContext
from pi_tui import SelectItem, SelectList, Spacer, Text, truncate_to_width

MAX_ROWS = 12
LABEL_COLUMN = 32
"""Pi 1.6's ``/mcp`` lists start every description in the same column."""


@dataclass
class McpMenu:
    """One screen: ``items`` as ``(value, label, description)``; the chosen value comes back."""

    title: str
    items: list[tuple[str, str, str]] = field(default_factory=list)
    details: str | None = None
    error: str | None = None
    selected: str | None = None
    empty: str = "Nothing to show."
    confirm: str = "select"
    cancel: str = "back"


class McpView:
    """The component ``/mcp`` shows until it is closed; ``menu`` shows one screen at a time."""

    def __init__(self, ctx: SelectorContext) -> None:
        self.ctx = ctx
        self.content: Any = self.ctx.frame("MCP servers", [Text(ctx.theme.fg("muted", "Loading…"), 1, 1)])
        self._input: Any = None

    async def menu(
        self,
        build: Callable[[], McpMenu],
        subscribe: Callable[[Callable[[], None]], Callable[[], None]] | None = None,
    ) -> str | None:
        """Show ``build()``'s menu, rebuilt whenever ``subscribe``'s callback is called (from the
        UI's loop); the chosen value, or ``None`` when cancelled."""
        chosen: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        state: dict[str, str | None] = {"selected": None}

        def finish(value: str | None) -> None:
            if not chosen.done():
                chosen.set_result(value)

        def render() -> None:
            if not chosen.done():
                self._render(build(), state, finish)

        render()
        stop = subscribe(render) if subscribe is not None else None
        try:
            return await chosen
        finally:
            if stop is not None:
                stop()

    def _render(
        self, menu: McpMenu, state: dict[str, str | None], finish: Callable[[str | None], None]
    ) -> None:
        theme, ctx = self.ctx.theme, self.ctx
        body: list[Any] = []
        if menu.details:
            body.append(Text(theme.fg("muted", menu.details), 1, 0))
        if menu.error:
            body.append(Text(theme.fg("error", menu.error), 1, 0))
        body.append(Spacer(1))
        cancel = ctx.hint("tui.select.cancel", menu.cancel)
        if not menu.items:
            body.append(Text(theme.fg("muted", menu.empty), 1, 0))
            self._show(self.ctx.frame(menu.title, body, cancel), _CancelOnly(ctx, lambda: finish(None)))
            return
        items = [SelectItem(value, label, description) for value, label, description in menu.items]
        listing = SelectList(items, min(len(items), MAX_ROWS), keybindings=ctx.keys,
                             selected_style=lambda s: theme.fg("accent", s),
                             description_style=lambda s: theme.fg("muted", s),
                             min_column=LABEL_COLUMN, max_column=LABEL_COLUMN)  # fmt: skip
        values = [item.value for item in items]
        wanted = state["selected"] or menu.selected
        listing.selected = values.index(wanted) if wanted in values else 0
        state["selected"] = values[listing.selected]
        listing.on_select = lambda item: finish(item.value)
        listing.on_cancel = lambda: finish(None)
        body.append(listing)
        footer = f"{ctx.hint('tui.select.confirm', menu.confirm)} • {cancel}"
        self._show(self.ctx.frame(menu.title, body, footer), _Tracked(listing, state))

    def _show(self, content: Any, handler: Any) -> None:
        self.content, self._input = content, handler
        self.ctx.request_render()

    def handle_input(self, data: str) -> None:
        if self._input is not None:
            self._input.handle_input(data)
        self.ctx.request_render()

    def render(self, width: int) -> list[str]:
        return [truncate_to_width(line, width, "") for line in self.content.render(width)]

    def invalidate(self) -> None:
        self.content.invalidate()


class _Tracked:
    """A list whose selected value is remembered, so a rebuilt menu keeps it."""

    def __init__(self, listing: SelectList, state: dict[str, str | None]) -> None:
        self.listing, self.state = listing, state

    def handle_input(self, data: str) -> None:
        self.listing.handle_input(data)
        shown = self.listing.visible_items
        if shown:
            self.state["selected"] = shown[min(self.listing.selected, len(shown) - 1)].value


class _CancelOnly:
    def __init__(self, ctx: SelectorContext, cancel: Callable[[], None]) -> None:
        self.ctx, self.cancel = ctx, cancel

    def handle_input(self, data: str) -> None:
        if self.ctx.keys.matches(data, "tui.select.cancel"):
            self.cancel()
