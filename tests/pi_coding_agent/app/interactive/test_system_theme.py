"""Pi 1.6's ``system`` theme as a ``theme`` setting, and falling back to it as Pi 1.6 does."""

from __future__ import annotations

import json
from pathlib import Path

from pi_coding_agent.app.interactive._themes import load_theme_choice
from pi_tui import TerminalColors


def test_system_before_the_terminal_answers_uses_its_palette_and_faint_neutrals(tmp_path: Path) -> None:
    choice = load_theme_choice("system", None, [tmp_path])
    theme = choice.theme()
    assert choice.names()[0] == "system" and theme.name == "system"
    assert (
        theme.fg("accent", "x") == "\x1b[38;5;5mx\x1b[39m"
    )  # violet family: ANSI magenta, drawn by the terminal
    assert theme.fg("muted", "x") == "\x1b[39m\x1b[2mx\x1b[22;39m"  # faint default colour, not bright black
    assert (
        theme.fg("text", "x") == "\x1b[39mx\x1b[39m" and theme.bg("userMessageBg", "x") == "\x1b[49mx\x1b[49m"
    )


def test_system_follows_the_colours_the_terminal_reported(tmp_path: Path) -> None:
    choice = load_theme_choice("system", None, [tmp_path])
    choice.terminal_colors = TerminalColors(foreground=(250, 250, 250), background=(30, 30, 30))
    dark = choice.theme()
    choice.terminal_colors = TerminalColors(foreground=(20, 20, 20), background=(255, 255, 250))
    light = choice.theme()
    assert (dark.appearance, light.appearance) == ("dark", "light")
    assert dark.sgr("userMessageBg") != "\x1b[49m" and dark.sgr("userMessageBg") != light.sgr("userMessageBg")


def test_a_theme_that_is_missing_or_broken_falls_back_to_system_with_a_one_line_reason(
    tmp_path: Path,
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text(
        json.dumps({"name": "broken", "colors": {"accent": "okhsl(1 2"}}, indent=1), encoding="utf-8"
    )
    choice = load_theme_choice("broken", None, [tmp_path])
    assert choice.theme().name == "system"
    assert choice.problems[0].startswith(
        f"{broken}:3: "
    )  # the line of "colors" and "missing required color tokens" in choice.problems[0]
    assert choice.problems[1] == "theme 'broken' not found; using the system theme"
    assert all("\n" not in problem for problem in choice.problems)
