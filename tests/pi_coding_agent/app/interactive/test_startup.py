"""What ``pi`` shows as it starts (ours in-process, Pi's own TUI in tmux): ``quietStartup``
hides the header (``--verbose`` brings it back); the theme follows the terminal's background when none is set (the
terminal answering ``OSC 11``, or ``COLORFGBG``) and the choice is saved; ``/changelog`` lists the
changelog's entries oldest first, and after an update the new entries are shown once."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pi_coding_agent.customize.themes import builtin_theme
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
        # --verbose shows it in spite of the setting, with the full startup help
        assert "escape to interrupt" in app.screen()
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


def _accent(name: str) -> str:
    """The SGR the theme's accent colour is drawn with (256 colours: no COLORTERM here)."""
    return builtin_theme(name, truecolor=False).fg("accent", "x").split("x")[0]


async def _theme_shown(app: Driven, name: str) -> None:
    other = "dark" if name == "light" else "light"
    await app.wait_until(lambda _: app.settings_file().get("theme") == name, f"the {name} theme was not saved")
    styled = app.styled_screen()
    assert _accent(name) in styled and _accent(other) not in styled, styled


@pytest.mark.parametrize("hint", ["osc11", "colorfgbg"])
def test_the_theme_follows_the_terminal_background(tmp_path: Path, which: str, hint: str) -> None:
    # A terminal answers OSC 11 with its background colour (tmux once its panes have one);
    # without an answer COLORFGBG (foreground;background, 15 = white) is what is left to go by.
    kwargs = {"background": "#f0f0f0"} if hint == "osc11" else {"env": {"COLORFGBG": "0;15"}}

    async def scenario(app: Driven) -> None:
        await _theme_shown(app, "light")
        await app.quit()

    play(tmp_path, which, TURNS, scenario, **kwargs)  # type: ignore[arg-type]


def test_a_dark_background_keeps_the_dark_theme(tmp_path: Path, which: str) -> None:
    async def scenario(app: Driven) -> None:
        await _theme_shown(app, "dark")
        await app.quit()

    play(tmp_path, which, TURNS, scenario, background="#101010")


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


def test_a_light_dark_pair_follows_the_background_and_stays_set(tmp_path: Path, which: str) -> None:
    async def scenario(app: Driven) -> None:
        await app.wait_until(lambda s: _accent("light") in app.styled_screen(), "the light theme is not shown")
        assert _accent("dark") not in app.styled_screen()
        await app.quit()

    app = play(tmp_path, which, TURNS, scenario, settings={"theme": "light/dark"}, background="#f0f0f0")
    assert app.settings_file()["theme"] == "light/dark"  # the choice is made anew at each start
