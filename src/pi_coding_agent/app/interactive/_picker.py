"""Dialogs before any session is open, each in a short-lived TUI of its own (Pi's startup UI):
``pi -r``'s session picker and a one-of-a-list question (the project trust prompt)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path

from pi_coding_agent.app.interactive._keys import load_keybindings
from pi_coding_agent.app.interactive.selectors import (
    SelectDialog,
    SelectorContext,
    SessionLike,
    SessionPicker,
)
from pi_coding_agent.core.settings import Settings
from pi_coding_agent.customize.themes import builtin_theme
from pi_tui import TUI, Component, ProcessTerminal, Terminal


async def run_picker(
    load_current: Callable[[], Sequence[SessionLike]],
    load_all: Callable[[], Sequence[SessionLike]],
    agent_dir: Path,
) -> str | None:
    def picker(ctx: SelectorContext, finish: Callable[[str | None], None]) -> Component:
        return SessionPicker(ctx, load_current, load_all, finish, lambda: finish(None))

    return await _run_dialog(picker, agent_dir, None, clear=False)


async def run_startup_select(
    title: str, options: Sequence[str], agent_dir: Path, terminal: Terminal | None = None
) -> str | None:
    """``title`` and ``options`` as Pi's selector shows them; the option chosen, ``None`` when
    dismissed. The dialog is wiped off the screen when answered, as Pi does."""

    def dialog(ctx: SelectorContext, finish: Callable[[str | None], None]) -> Component:
        return SelectDialog(ctx, title, options, finish, lambda: finish(None))

    return await _run_dialog(dialog, agent_dir, terminal, clear=True)


async def _run_dialog(
    build: Callable[[SelectorContext, Callable[[str | None], None]], Component],
    agent_dir: Path,
    terminal: Terminal | None,
    *,
    clear: bool,
) -> str | None:
    keys, _ = load_keybindings(agent_dir)
    setting = Settings.load(agent_dir, agent_dir, project_trusted=False).get("theme")
    theme = builtin_theme("light" if isinstance(setting, str) and setting == "light" else "dark")
    tui = TUI(terminal or ProcessTerminal(), keybindings=keys)
    chosen: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()

    def finish(value: str | None) -> None:
        if not chosen.done():
            chosen.set_result(value)

    component = build(SelectorContext(theme, keys, tui.request_render), finish)
    tui.add_child(component)
    tui.start()
    tui.set_focus(component)
    try:
        return await chosen
    finally:
        if clear:
            tui.children = []
        tui.stop()
