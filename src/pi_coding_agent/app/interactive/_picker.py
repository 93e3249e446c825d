"""``pi -r``: the session picker before any session is opened (Pi's startup picker)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path

from pi_coding_agent.app.interactive._keys import load_keybindings
from pi_coding_agent.app.interactive.selectors import SelectorContext, SessionLike, SessionPicker
from pi_coding_agent.core.settings import Settings
from pi_coding_agent.customize.themes import builtin_theme
from pi_tui import TUI, ProcessTerminal


async def run_picker(
    load_current: Callable[[], Sequence[SessionLike]],
    load_all: Callable[[], Sequence[SessionLike]],
    agent_dir: Path,
) -> str | None:
    keys, _ = load_keybindings(agent_dir)
    setting = Settings.load(agent_dir, agent_dir, project_trusted=False).get("theme")
    theme = builtin_theme("light" if isinstance(setting, str) and setting == "light" else "dark")
    tui = TUI(ProcessTerminal(), keybindings=keys)
    chosen: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()

    def finish(value: str | None) -> None:
        if not chosen.done():
            chosen.set_result(value)

    picker = SessionPicker(SelectorContext(theme, keys, tui.request_render), load_current, load_all, finish,
                           lambda: finish(None))  # fmt: skip
    tui.add_child(picker)
    tui.start()
    tui.set_focus(picker)
    try:
        return await chosen
    finally:
        tui.stop()
