"""What the real ``pi`` shows as it starts, in tmux (ours and Pi's own): ``quietStartup``
hides the header (``--verbose`` brings it back); the theme follows the terminal's background when none is set (tmux
answering ``OSC 11``, or ``COLORFGBG``) and the choice is saved; ``/changelog`` lists the
changelog's entries oldest first, and after an update the new entries are shown once."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pi_coding_agent.customize.themes import builtin_theme
from tests.pi_coding_agent.app.interactive._scenario import Run, launch
from tests.support import oracle

pytestmark = pytest.mark.timeout(600)

TURNS = [{"text": "hello there"}]
HEADER_HINT = "escape interrupt"


@pytest.fixture(params=["ours", "pi"])
def which(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_quiet_startup_hides_the_header(tmp_path: Path, which: str) -> None:
    with launch(tmp_path, which, TURNS, settings={"quietStartup": True}) as run:
        screen = run.pane.screen()
        assert HEADER_HINT not in screen and "Press ctrl+o" not in screen
        run.submit("hi")
        screen = run.pane.wait_for("hello there")
        assert HEADER_HINT not in run.pane.history()
        run.quit()
    with launch(tmp_path / "loud", which, TURNS) as run:
        assert HEADER_HINT in run.pane.screen()  # the same start without the setting has it
        run.quit()
    with launch(tmp_path / "verbose", which, TURNS, settings={"quietStartup": True}, args=("--verbose",)) as run:
        # --verbose shows it in spite of the setting, with the full startup help
        assert "escape to interrupt" in run.pane.screen()
        run.quit()


def _accent(name: str) -> str:
    """The SGR the theme's accent colour is drawn with (256 colours: no COLORTERM here)."""
    return builtin_theme(name, truecolor=False).fg("accent", "x").split("x")[0]


def _theme_shown(run: Run, name: str) -> None:
    other = "dark" if name == "light" else "light"
    run.pane.wait_until(lambda _: run.settings_file().get("theme") == name, f"the {name} theme was not saved")
    styled = run.pane.styled_screen()
    assert _accent(name) in styled and _accent(other) not in styled, styled


@pytest.mark.parametrize("hint", ["osc11", "colorfgbg"])
def test_the_theme_follows_the_terminal_background(tmp_path: Path, which: str, hint: str) -> None:
    # tmux answers OSC 11 once its panes have a background colour; without one it stays silent
    # and COLORFGBG (foreground;background, 15 = white) is what is left to go by.
    kwargs = {"background": "#f0f0f0"} if hint == "osc11" else {"env": {"COLORFGBG": "0;15"}}
    with launch(tmp_path, which, TURNS, **kwargs) as run:  # type: ignore[arg-type]
        _theme_shown(run, "light")
        run.quit()


def test_a_dark_background_keeps_the_dark_theme(tmp_path: Path, which: str) -> None:
    with launch(tmp_path, which, TURNS, background="#101010") as run:
        _theme_shown(run, "dark")
        run.quit()


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
    with launch(tmp_path, which, TURNS, height=40) as run:
        assert "What's New" not in run.pane.history()  # a first start only records the version
        assert run.settings_file().get("lastChangelogVersion") == versions[0]
        run.command("/changelog")
        history = run.pane.wait_until(lambda h: _shown_versions(h)[-1:] == versions[:1],
                                      "the newest entry is not shown last", everywhere=True)  # fmt: skip
        # Oldest first, so the newest is next to the editor (Pi's own changelog is longer than
        # the scrollback kept here, so its oldest entries may have scrolled away).
        shown = _shown_versions(history)
        assert shown == list(reversed(versions))[-len(shown):] and len(shown) >= min(3, len(versions))
        if len(shown) == len(versions):  # all of it fits: the card's title is above it
            assert "What's New" in history
        run.quit()
    older = versions[2] if len(versions) > 2 else "0.0.1"
    newer = [v for v in versions if tuple(map(int, v.split("."))) > tuple(map(int, older.split(".")))]
    with launch(tmp_path / "updated", which, TURNS, settings={"lastChangelogVersion": older}, height=40) as run:
        history = run.pane.wait_for("What's New", everywhere=True)
        card = history.split("What's New")[-1]
        assert _shown_versions(card) == newer  # only what is new, newest first
        run.pane.wait_until(lambda _: run.settings_file().get("lastChangelogVersion") == versions[0],
                            "the version seen was not recorded")  # fmt: skip
        run.quit()


def test_a_light_dark_pair_follows_the_background_and_stays_set(tmp_path: Path, which: str) -> None:
    with launch(tmp_path, which, TURNS, settings={"theme": "light/dark"}, background="#f0f0f0") as run:
        run.pane.wait_until(lambda s: _accent("light") in run.pane.styled_screen(), "the light theme is not shown")
        assert _accent("dark") not in run.pane.styled_screen()
        run.quit()
    assert run.settings_file()["theme"] == "light/dark"  # the choice is made anew at each start
