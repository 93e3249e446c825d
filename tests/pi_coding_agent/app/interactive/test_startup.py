"""What ``pi`` shows as it starts (ours in-process, Pi's own TUI in tmux): ``quietStartup``
hides the header (``--verbose`` brings it back); without a theme setting the ``system`` theme,
built for the background the terminal reported, and nothing saved, and a ``light/dark`` pair
following the terminal (its ``OSC 11`` answer, or ``COLORFGBG``), both as Pi 1.6 does;
``/changelog`` lists the changelog's entries oldest first, and after an update the new entries
are shown once."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pi_coding_agent.customize.themes import Theme, builtin_theme, system_theme
from pi_tui import TerminalColors
from tests.pi_coding_agent.app.interactive._play import Driven, play
from tests.support import oracle

pytestmark = pytest.mark.timeout(600)

TURNS = [{"text": "hello there"}]
HEADER_HINT = "escape interrupt"


@pytest.fixture(params=["ours", "pi"])
def which(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_quiet_startup_hides_the_header(tmp_path: Path, which: str) -> None:
    async def quiet(app: Driven) -> None:
        screen = app.screen()
        assert HEADER_HINT not in screen and "Press ctrl+o" not in screen
        await app.submit("hi")
        await app.wait_for("hello there")
        assert HEADER_HINT not in app.history()
        await app.quit()

    async def loud(app: Driven) -> None:
        assert HEADER_HINT in app.screen()  # the same start without the setting has it
        await app.quit()

    async def verbose(app: Driven) -> None:
        # --verbose shows it in spite of the setting, with the full startup help (Pi's is
        # taller than the terminal, so its first lines may have scrolled off the screen)
        assert "escape to interrupt" in app.history()
        await app.quit()

    play(tmp_path, which, TURNS, quiet, settings={"quietStartup": True})
    play(tmp_path / "loud", which, TURNS, loud)
    play(tmp_path / "verbose", which, TURNS, verbose, settings={"quietStartup": True}, args=("--verbose",))


def test_quiet_startup_header_keeps_the_header_but_not_the_listing(tmp_path: Path) -> None:
    """Pi 1.6's ``"quietStartup": "header"`` (ours only: the TUI oracle here is Pi 0.85)."""

    async def header_only(app: Driven) -> None:
        screen = app.screen()
        assert HEADER_HINT in screen and "[Context]" not in screen
        await app.quit()

    async def listed(app: Driven) -> None:
        assert "[Context]" in app.screen()  # the same start without the setting lists AGENTS.md
        await app.quit()

    files = {"AGENTS.md": "Be brief."}
    play(tmp_path, "ours", TURNS, header_only, settings={"quietStartup": "header"}, files=files)
    play(tmp_path / "listed", "ours", TURNS, listed, files=files)


@pytest.fixture(params=["ours", "pi16"])
def which16(request: pytest.FixtureRequest) -> str:
    """Ours, or Pi 1.6 (the theme choice changed in 1.6 on purpose: see docs/pi-1.6/themes.md)."""
    return str(request.param)


def _muted(theme: Theme) -> str:
    """The SGR the theme's ``muted`` colour is drawn with (256 colours: no COLORTERM here),
    which the startup header's key hints have."""
    return theme.sgr("muted")


def _system_theme(background: str) -> Theme:
    """The ``system`` theme for a terminal that reports only its background (as tmux does)."""
    rgb = (int(background[1:3], 16), int(background[3:5], 16), int(background[5:7], 16))
    return system_theme(TerminalColors(background=rgb), truecolor=False)


@pytest.mark.parametrize("background", ["#f0f0f0", "#101010"])
def test_without_a_theme_the_system_theme_follows_the_background_and_nothing_is_saved(
    tmp_path: Path, which16: str, background: str
) -> None:
    shown = _system_theme(background)
    # what the screen shows tells the system theme from the built-ins and the other background's
    other = _system_theme("#101010" if background == "#f0f0f0" else "#f0f0f0")
    builtins = [builtin_theme(name, truecolor=False) for name in ("dark", "light")]
    assert _muted(shown) not in {_muted(other), *map(_muted, builtins)}

    async def scenario(app: Driven) -> None:
        await app.wait_until(lambda _: _muted(shown) in app.styled_screen(), "the system theme is not shown")
        await app.quit()

    app = play(tmp_path, which16, TURNS, scenario, background=background)
    assert "theme" not in app.settings_file()


def _changelog(which: str) -> Path:
    if which == "pi":
        return oracle.oracle_home() / "node_modules" / "@earendil-works" / "pi-coding-agent" / "CHANGELOG.md"
    from pi_coding_agent.app import interactive

    return Path(interactive.__file__).parent / "CHANGELOG.md"


def _versions(which: str) -> list[str]:
    """The changelog's version headings, newest first as written."""
    text = _changelog(which).read_text(encoding="utf-8")
    return re.findall(r"^## \[?(\d+\.\d+\.\d+)\]?", text, flags=re.MULTILINE)


HEADING = re.compile(r"^\s*(?:#+ )?\[?(\d+\.\d+\.\d+)\]?(?: - .*)?$", flags=re.MULTILINE)


def _shown_versions(text: str) -> list[str]:
    """The version headings drawn in ``text``, in screen order."""
    return HEADING.findall(text)


def test_changelog_command_and_the_notice_after_an_update(tmp_path: Path, which: str) -> None:
    versions = _versions(which)

    async def first_start(app: Driven) -> None:
        assert "What's New" not in app.history()  # a first start only records the version
        assert app.settings_file().get("lastChangelogVersion") == versions[0]
        await app.command("/changelog")
        history = await app.wait_until(lambda h: _shown_versions(h)[-1:] == versions[:1],
                                      "the newest entry is not shown last", everywhere=True)  # fmt: skip
        # Oldest first, so the newest is next to the editor (Pi's own changelog is longer than
        # the scrollback kept here, so its oldest entries may have scrolled away).
        shown = _shown_versions(history)
        assert shown == list(reversed(versions))[-len(shown):] and len(shown) >= min(3, len(versions))
        if len(shown) == len(versions):  # all of it fits: the card's title is above it
            assert "What's New" in history
        await app.quit()

    older = versions[2] if len(versions) > 2 else "0.0.1"
    newer = [v for v in versions if tuple(map(int, v.split("."))) > tuple(map(int, older.split(".")))]

    async def after_an_update(app: Driven) -> None:
        history = await app.wait_for("What's New", everywhere=True)
        card = history.split("What's New")[-1]
        assert _shown_versions(card) == newer  # only what is new, newest first
        await app.wait_until(lambda _: app.settings_file().get("lastChangelogVersion") == versions[0],
                            "the version seen was not recorded")  # fmt: skip
        await app.quit()

    play(tmp_path, which, TURNS, first_start, height=40)
    play(tmp_path / "updated", which, TURNS, after_an_update, settings={"lastChangelogVersion": older}, height=40)


@pytest.mark.parametrize("hint", ["osc11", "colorfgbg"])
def test_a_light_dark_pair_follows_the_terminal_and_stays_set(
    tmp_path: Path, which16: str, hint: str
) -> None:
    # A terminal answers OSC 11 with its background colour (tmux once its panes have one);
    # without an answer COLORFGBG (foreground;background) is what is left to go by: Pi 1.6
    # counts palette index 9 as light (it cannot know the colour; 0.85 judged xterm's red dark).
    kwargs = {"background": "#f0f0f0"} if hint == "osc11" else {"env": {"COLORFGBG": "0;9"}}
    light, dark = builtin_theme("light", truecolor=False), builtin_theme("dark", truecolor=False)

    async def scenario(app: Driven) -> None:
        await app.wait_until(lambda s: _muted(light) in app.styled_screen(), "the light theme is not shown")
        assert _muted(dark) not in app.styled_screen()
        await app.quit()

    app = play(tmp_path, which16, TURNS, scenario, settings={"theme": "light/dark"}, **kwargs)
    assert app.settings_file()["theme"] == "light/dark"  # the choice is made anew at each start
