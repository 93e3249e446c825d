"""Our theme reaches TypeScript components, and follows when it changes (real Node host).

``fixtures/panels.ts`` runs in the real host; the UI it talks to is a small recording one
holding our ``Theme`` (the terminal is not the subject here: the tmux tests beside Pi 1.6 in
``test_typescript_components.py`` are). ``/colour`` reports ``ctx.ui.theme``'s accent escape;
``/panel`` mounts a widget component drawn with the theme's ``success`` colour. Switching our
theme in place (as ``/settings`` does) and invalidating the component, as our TUI does on a
theme change, must redraw it in the new colours.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from pi_coding_agent.customize.extensions import ExtensionRunner
from pi_coding_agent.customize.extensions.ui import NoExtensionUI
from pi_coding_agent.customize.themes import builtin_theme
from pi_coding_agent.customize.ts_extensions import load_typescript_extensions
from tests.support.npm_packages import node_cache

PANELS = Path(__file__).resolve().parent / "fixtures" / "panels.ts"


class _Terminal:
    columns = 60
    rows = 20
    kitty_keyboard = False


class _Tui:
    terminal = _Terminal()

    def __init__(self) -> None:
        self.renders = 0

    def request_render(self) -> None:
        self.renders += 1


class _RecordingUI(NoExtensionUI):
    def __init__(self) -> None:
        self.theme = builtin_theme("dark", truecolor=False)
        self.tui = _Tui()
        self.notices: list[str] = []
        self.widgets: dict[str, Any] = {}

    def notify(self, message: str, kind: Any = None) -> None:
        self.notices.append(message)

    def set_widget(self, key: str, lines: Any, placement: Any = None) -> None:
        self.widgets[key] = lines(self.tui, self.theme) if callable(lines) else lines


def _reports_theme(notice: str, theme: Any) -> None:
    """``/colour``'s notice: ``ctx.ui.theme``'s accent and ``getMarkdownTheme()``'s heading in ours."""
    accent, heading = notice.removeprefix("accent ").split(" heading ")
    assert json.loads(accent) == theme.sgr("accent")
    assert theme.sgr("mdHeading") in json.loads(heading)


async def _until(check: Any, what: str) -> None:
    deadline = time.monotonic() + 60
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(what)
        await asyncio.sleep(0.02)


async def _scenario(tmp_path: Path) -> None:
    runner = ExtensionRunner([], str(tmp_path))
    loaded = await load_typescript_extensions([str(PANELS)], runner)
    assert loaded.host is not None, loaded.warnings or loaded.errors
    runner.extensions.extend(loaded.extensions)
    runner.refresh_handlers()
    ui = _RecordingUI()
    runner.bind_ui(ui, "tui", has_ui=True)
    try:
        colour = runner.get_command("colour")
        assert colour is not None
        await colour.handler("", runner.context())
        await _until(lambda: ui.notices, "no notice from /colour")
        _reports_theme(ui.notices[-1], ui.theme)

        panel = runner.get_command("panel")
        assert panel is not None
        await panel.handler("", runner.context())
        await _until(lambda: "panel" in ui.widgets, "the widget never came")
        widget = ui.widgets["panel"]
        dark_success = ui.theme.sgr("success")
        await _until(
            lambda: any("PANEL WIDGET dark" in line for line in widget.render(60)), "no widget lines"
        )
        assert dark_success in widget.render(60)[0]

        ui.theme.replace_with(builtin_theme("light", truecolor=False))
        light_success = ui.theme.sgr("success")
        assert light_success != dark_success
        widget.invalidate()
        await _until(lambda: light_success in widget.render(60)[0], "the widget kept the old colours")
        await colour.handler("", runner.context())
        await _until(lambda: len(ui.notices) == 2, "no second notice")
        _reports_theme(ui.notices[-1], ui.theme)
    finally:
        await loaded.host.close()


def test_typescript_components_draw_in_our_theme_and_follow_its_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pi_coding_agent.core.node_runtime import ensure_node_runtime

    monkeypatch.setenv("PI_NODE_CACHE", node_cache())
    ensure_node_runtime()
    asyncio.run(_scenario(tmp_path))
