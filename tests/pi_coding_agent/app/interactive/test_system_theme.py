"""Pi 1.6's ``system`` theme as the default and as a ``theme`` setting, falling back to it as Pi 1.6
does, and ``COLORFGBG`` read as Pi 1.6 reads it."""

from __future__ import annotations

import json
from pathlib import Path

from pi_coding_agent.app.interactive._themes import load_theme_choice
from pi_coding_agent.customize.themes import appearance_from_env
from pi_tui import TerminalColors


def test_system_is_grey_until_the_terminal_answers_then_a_silent_one_gets_its_palette(tmp_path: Path) -> None:
    choice = load_theme_choice(None, None, [tmp_path])  # no setting: system, as in Pi 1.6
    pending = choice.theme()
    assert choice.names()[0] == "system" and pending.name == "system"
    assert pending.fg("accent", "x") == "\x1b[39mx\x1b[39m"  # no hue until the terminal has answered
    choice.colors_pending = False  # it answered, with nothing
    theme = choice.theme()
    # the violet family: ANSI magenta, drawn in the terminal's own colour
    assert theme.fg("accent", "x") == "\x1b[38;5;5mx\x1b[39m"
    assert theme.fg("muted", "x") == "\x1b[39m\x1b[2mx\x1b[22;39m"  # faint default colour, not bright black
    assert theme.fg("text", "x") == "\x1b[39mx\x1b[39m"
    assert theme.bg("userMessageBg", "x") == "\x1b[49mx\x1b[49m"


def test_system_follows_the_colours_the_terminal_reported(tmp_path: Path) -> None:
    choice = load_theme_choice("system", None, [tmp_path])
    choice.colors_pending = False
    choice.terminal_colors = TerminalColors(foreground=(250, 250, 250), background=(30, 30, 30))
    dark = choice.theme()
    choice.terminal_colors = TerminalColors(foreground=(20, 20, 20), background=(255, 255, 250))
    light = choice.theme()
    assert (dark.appearance, light.appearance) == ("dark", "light")
    assert dark.sgr("userMessageBg") != "\x1b[49m" and dark.sgr("userMessageBg") != light.sgr("userMessageBg")


def test_colorfgbg_is_read_as_pi_16_reads_it() -> None:
    """The background index's colour is the terminal's own: 0-6 and 8 are dark, 7 and 9-15
    light, anything else says nothing."""
    read = [appearance_from_env({"COLORFGBG": f"15;{index}"}) for index in range(17)]
    assert read == ["dark"] * 7 + ["light", "dark"] + ["light"] * 7 + [None]
    assert appearance_from_env({"COLORFGBG": "0;default;7"}) == "light"  # rxvt's fg;xpm;bg
    assert appearance_from_env({"COLORFGBG": "0;default"}) is None and appearance_from_env({}) is None


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
