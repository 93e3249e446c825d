"""``/llama``'s screens, in the editor's place as Pi draws them: the model list, a choice, a
Hugging Face search, a status line and a progress bar, each in an accent-bordered frame with
a bold title and key hints. ``LlamaView`` is one component whose content changes; each
``show_*``/``select`` call returns what the user did (a future)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pi_coding_agent.app.interactive.selectors._base import SelectorContext
from pi_tui import Container, Input, SelectItem, SelectList, Spacer, Text, fuzzy_filter, truncate_to_width

DOWNLOAD = "\0download"
SEARCH_ROWS = 10
BAR_CELLS = 40
SEARCH_DELAY = 0.5
EXACT_REPOSITORY = re.compile(r"^[^/\s]+/[^:\s]+(?::[^\s:]+)?$")


@dataclass(frozen=True)
class ModelRow:
    """One row of the model list: its value comes back when chosen."""

    value: str
    label: str
    description: str


@dataclass
class ProgressState:
    title: str
    model: str
    message: str
    ratio: float | None = None
    detail: str | None = None


def compact_count(value: int) -> str:
    """``12.3k``, ``1.5M``: a download count as Pi shortens it."""
    if value >= 1_000_000:
        return f"{value / 1_000_000:.{0 if value >= 10_000_000 else 1}f}M"
    if value >= 1_000:
        return f"{value / 1_000:.{0 if value >= 100_000 else 1}f}k"
    return str(value)


class _Search(Container):
    """Pi's Hugging Face search: type at least two characters, results ranked by downloads,
    fuzzy-filtered by what is typed; Enter takes an exact ``owner/repo[:quant]`` as typed."""

    def __init__(self, ctx: SelectorContext, search: Callable[[str], Awaitable[list[Any]]],
                 cache: dict[str, list[Any]], finish: Callable[[str | None], None]) -> None:  # fmt: skip
        super().__init__()
        self.ctx, self._search, self._cache, self._finish = ctx, search, cache, finish
        self.input = Input(keybindings=ctx.keys)
        self.results: list[Any] = []
        self.shown: list[Any] = []
        self.selected = 0
        self.touched = False
        self.query = ""
        self.status = "Type at least 2 characters"
        self._task: asyncio.Task[None] | None = None
        self.rows = Container()
        for child in (Text(ctx.theme.fg("dim", "Model name or owner/repository[:quant]"), 1, 0), self.input,
                      Spacer(1), self.rows):  # fmt: skip
            self.add_child(child)
        self._draw()

    @property
    def focused(self) -> bool:
        return self.input.focused

    @focused.setter
    def focused(self, value: bool) -> None:
        self.input.focused = value

    def _draw(self) -> None:
        theme, shown = self.ctx.theme, self.shown
        start = max(0, min(self.selected - SEARCH_ROWS // 2, len(shown) - SEARCH_ROWS))
        end = min(start + SEARCH_ROWS, len(shown))
        rows: list[Any] = []
        for index in range(start, end):
            model, chosen = shown[index], index == self.selected
            details = f"{compact_count(model.downloads)} downloads"
            rows.append(Text(theme.fg("accent", f"→ {model.id}  {details}") if chosen
                             else f"  {model.id}{theme.fg('muted', f'  {details}')}", 0, 0))  # fmt: skip
        if start > 0 or end < len(shown):
            rows.append(Text(theme.fg("dim", f"  ({self.selected + 1}/{len(shown)})"), 0, 0))
        if not shown or self.status == "Searching Hugging Face…":
            rows.append(Text(theme.fg("dim", f"  {self.status}"), 0, 0))
        self.rows.children = rows
        self.ctx.request_render()

    def _filter(self, keep: str | None = None) -> None:
        found = fuzzy_filter(self.results, self.query, lambda m: str(m.id)) if self.query else self.results
        ids = {model.id for model in found}
        self.shown = [model for model in self.results if model.id in ids]
        wanted = next((i for i, model in enumerate(self.shown) if model.id == keep), None)
        self.selected = wanted if wanted is not None else min(self.selected, max(0, len(self.shown) - 1))
        self._draw()

    def _schedule(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
        if len(self.query) < 2:
            self.status = "Type at least 2 characters"
        elif (cached := self._cache.get(self.query.lower())) is not None:
            self.results, self.status = cached, "" if cached else "No GGUF models found"
        else:
            self.status = "Searching Hugging Face…"
            self._task = asyncio.ensure_future(self._run(self.query))
        self._filter()

    async def _run(self, query: str) -> None:
        await asyncio.sleep(SEARCH_DELAY)
        try:
            results = await self._search(query)
        except Exception as error:  # any failure of the search is shown in its place
            if self.query == query:
                self.results, self.status = [], str(error)
                self._filter()
            return
        self._cache[query.lower()] = results
        if self.query != query:
            return
        keep = self.shown[self.selected].id if self.touched and self.shown else None
        self.results, self.selected = results, 0
        self.status = "" if results else "No GGUF models found"
        self._filter(keep)

    def dispose(self) -> None:
        if self._task is not None:
            self._task.cancel()

    def handle_input(self, data: str) -> None:
        keys, count = self.ctx.keys, len(self.shown)
        moves = {"tui.select.up": -1, "tui.select.down": 1, "tui.select.pageUp": -SEARCH_ROWS,
                 "tui.select.pageDown": SEARCH_ROWS}  # fmt: skip
        for action, step in moves.items():
            if keys.matches(data, action):
                if count:
                    wrap = abs(step) == 1
                    target = self.selected + step
                    self.selected = target % count if wrap else max(0, min(count - 1, target))
                    self.touched = True
                    self._draw()
                return
        if keys.matches(data, "tui.select.confirm"):
            exact = self.query if EXACT_REPOSITORY.match(self.query) else None
            chosen = exact or (self.shown[self.selected].id if self.shown else None)
            if chosen:
                self.dispose()
                self._finish(chosen)
            return
        if keys.matches(data, "tui.select.cancel"):
            self.dispose()
            self._finish(None)
            return
        self.input.handle_input(data)
        query = self.input.value.strip()
        if query != self.query:
            self.query, self.touched = query, False
            self._schedule()


class LlamaView:
    """The component ``/llama`` shows until it is done; its screens replace one another."""

    def __init__(self, ctx: SelectorContext) -> None:
        self.ctx = ctx
        self.search_cache: dict[str, list[Any]] = {}
        self.content: Any = self.ctx.frame("llama.cpp models", [Text(ctx.theme.fg("muted", "Loading…"), 1, 1)])
        self._input: Any = None
        self._focus: Any = None
        self._focused = False
        self._stop: asyncio.Future[None] | None = None

    @property
    def focused(self) -> bool:
        return self._focused

    @focused.setter
    def focused(self, value: bool) -> None:
        self._focused = value
        if self._focus is not None:
            self._focus.focused = value

    def _show(self, content: Any, handler: Any = None, focus: Any = None) -> None:
        if self._focus is not None:
            self._focus.focused = False
        self._stop = None
        self.content, self._input, self._focus = content, handler, focus
        if focus is not None:
            focus.focused = self._focused
        self.ctx.request_render()

    def _list(self, items: list[SelectItem], min_column: int = 12, max_column: int = 32) -> SelectList:
        theme = self.ctx.theme
        return SelectList(items, min(len(items), 12), keybindings=self.ctx.keys,
                          selected_style=lambda s: theme.fg("accent", s),
                          description_style=lambda s: theme.fg("muted", s),
                          min_column=min_column, max_column=max_column)  # fmt: skip

    def show_models(
        self, server_line: str, rows: list[ModelRow], downloads: bool
    ) -> asyncio.Future[str | None]:
        """The model list; the chosen row's value, ``DOWNLOAD``, or ``None`` (closed)."""
        chosen: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        items = [SelectItem(row.value, row.label, row.description) for row in rows]
        if downloads:
            items.append(SelectItem(DOWNLOAD, "Download model…", "Hugging Face owner/repository[:quant]"))
        listing = self._list(items, min_column=36, max_column=56)
        listing.on_select = lambda item: None if chosen.done() else chosen.set_result(item.value)
        listing.on_cancel = lambda: None if chosen.done() else chosen.set_result(None)
        hint = " • ".join((self.ctx.hint("tui.select.confirm", "load/unload/download" if downloads else "load/unload/set up"),
                           self.ctx.hint("tui.select.cancel", "close")))  # fmt: skip
        body = [Text(self.ctx.theme.fg("dim", server_line), 1, 0), Spacer(1), listing]
        self._show(self.ctx.frame("llama.cpp models", body, hint), listing)
        return chosen

    async def select(self, title: str, options: list[str]) -> str | None:
        chosen: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        listing = self._list([SelectItem(option, option) for option in options])
        listing.on_select = lambda item: None if chosen.done() else chosen.set_result(item.value)
        listing.on_cancel = lambda: None if chosen.done() else chosen.set_result(None)
        hint = " • ".join(
            (self.ctx.hint("tui.select.confirm", "select"), self.ctx.hint("tui.select.cancel", "cancel"))
        )
        self._show(self.ctx.frame(title, [Spacer(1), listing], hint), listing)
        return await chosen

    async def confirm(self, title: str, message: str) -> bool:
        return await self.select(f"{title}\n{message}", ["Yes", "No"]) == "Yes"

    async def connection_error(self, server_url: str, message: str) -> bool:
        """Pi's Retry/Close question; True to retry."""
        return (
            await self.select(f"llama.cpp unavailable\n{server_url}\n\n{message}", ["Retry", "Close"])
            == "Retry"
        )

    async def search_models(self, search: Callable[[str], Awaitable[list[Any]]]) -> str | None:
        chosen: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        component = _Search(self.ctx, search, self.search_cache,
                            lambda value: None if chosen.done() else chosen.set_result(value))  # fmt: skip
        hint = " • ".join(
            (self.ctx.hint("tui.select.confirm", "select"), self.ctx.hint("tui.select.cancel", "back"))
        )
        self._show(self.ctx.frame("Download model", [Spacer(1), component], hint), component, component)
        return await chosen

    def show_status(self, title: str, message: str) -> None:
        self._show(self.ctx.frame(title, [Spacer(1), Text(self.ctx.theme.fg("muted", message), 1, 0)]))

    def progress(self, state: ProgressState) -> asyncio.Future[None]:
        """Show ``state``; the future is done when the user presses Escape (to stop)."""
        if self._stop is None or self._stop.done():
            self._stop = asyncio.get_running_loop().create_future()
        stop = self._stop
        self._draw_progress(state)
        return stop

    def update_progress(self, state: ProgressState) -> None:
        if self._stop is not None:
            self._draw_progress(state)

    def _draw_progress(self, state: ProgressState) -> None:
        theme = self.ctx.theme
        body: list[Any] = [Text(theme.fg("text", state.model), 1, 0), Spacer(1),
                           Text(theme.fg("muted", state.message), 1, 0)]  # fmt: skip
        if state.ratio is not None:
            ratio = max(0.0, min(1.0, state.ratio))
            filled = round(ratio * BAR_CELLS)
            bar = f"{'█' * filled}{'─' * (BAR_CELLS - filled)} {round(ratio * 100)}%"
            body.append(Text(theme.fg("accent", bar), 1, 0))
        if state.detail:
            body.append(Text(theme.fg("dim", state.detail), 1, 0))
        self.content = self.ctx.frame(state.title, body, self.ctx.hint("tui.select.cancel", "stop"))
        self._input = None
        self.ctx.request_render()

    def handle_input(self, data: str) -> None:
        stop = self._stop
        if stop is not None and not stop.done() and self.ctx.keys.matches(data, "tui.select.cancel"):
            self._stop = None
            stop.set_result(None)
            return
        if self._input is not None:
            self._input.handle_input(data)
        self.ctx.request_render()

    def render(self, width: int) -> list[str]:
        return [truncate_to_width(line, width, "") for line in self.content.render(width)]

    def invalidate(self) -> None:
        self.content.invalidate()

    def dispose(self) -> None:
        if isinstance(self._input, _Search):
            self._input.dispose()
