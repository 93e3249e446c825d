"""A ``light/dark`` theme pair following the terminal's colour scheme, in the real ``pi``
(ours and Pi's own): the program asks for the scheme (``CSI ? 996 n``) and the background
(``OSC 11``), takes the scheme's answer (``CSI ? 997 ; 1 n`` dark, ``2`` light) over the
background's, asks for change reports (``CSI ? 2031 h``) and switches theme on each report
until it quits (``CSI ? 2031 l``). A single theme name asks nothing and ignores reports.
tmux answers neither query nor reports changes, so this runs on a pseudo-terminal of its own
that answers as a terminal in a dark scheme with a light background would."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from pi_coding_agent.customize.themes import builtin_theme
from tests.pi_coding_agent.app.interactive._scenario import SETTINGS, pi_command
from tests.pi_coding_agent.e2e._harness import Sandbox
from tests.support.pty_terminal import Pty
from tests.support.scripted_provider import ScriptedProvider

pytestmark = pytest.mark.timeout(600)

SCHEME_QUERY, NOTIFY_ON, NOTIFY_OFF = b"\x1b[?996n", b"\x1b[?2031h", b"\x1b[?2031l"
DARK, LIGHT = "\x1b[?997;1n", "\x1b[?997;2n"
# Both answers come when the background is asked (just after the scheme), the background's
# first: the program waits for the scheme's answer, and it wins.
ANSWERS = {b"\x1b]11;?": b"\x1b]11;rgb:ffff/ffff/ffff\x1b\\" + DARK.encode()}


@pytest.fixture(params=["ours", "pi"])
def which(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@contextmanager
def _started(tmp_path: Path, which: str, theme: str) -> Iterator[tuple[Pty, Sandbox]]:
    with ScriptedProvider([{"text": "unused"}]) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url, {**SETTINGS, "theme": theme})
        program = Pty(pi_command(which), sandbox.work, sandbox.env(TERM="xterm-256color"), answers=ANSWERS)
        try:
            program.wait_for("scripted-model")
            yield program, sandbox
        finally:
            program.close()


def _dim(theme: str) -> str:
    """The SGR of the theme's ``dim`` colour (256 colours: no COLORTERM here), which the footer
    is drawn with: Pi draws the footer anew with each frame, its startup header it does not."""
    return builtin_theme(theme, truecolor=False).fg("dim", "x").split("x")[0]


def _last(program: Pty, mark: int) -> str | None:
    """Which theme's ``dim`` colour was written last after ``mark`` (``None``: neither)."""
    written = program.raw_since(mark)
    light, dark = (written.rfind(_dim(name).encode()) for name in ("light", "dark"))
    return None if light == dark == -1 else "light" if light > dark else "dark"


def _next_frame(program: Pty) -> None:
    """A key typed and taken back: Pi draws a theme it switched to with its next frame (ours
    at once), so this makes one."""
    mark = program.mark()
    program.write("x")
    program.wait_for("x", mark)
    program.write("\x7f")


def _drawn_in(program: Pty, theme: str, mark: int) -> None:
    """Until the screen is drawn again after ``mark``, in ``theme``'s colours."""
    program.wait_for(_dim(theme), mark, raw=True)
    assert _last(program, mark) == theme


def test_a_pair_follows_the_colour_scheme_and_its_changes(tmp_path: Path, which: str) -> None:
    with _started(tmp_path, which, "light/dark") as (program, sandbox):
        program.wait_for(SCHEME_QUERY.decode(), raw=True)
        program.wait_for(NOTIFY_ON.decode(), raw=True)  # asked once the theme is chosen
        _next_frame(program)
        # The scheme said dark, the background white: the scheme wins (light would be drawn now).
        assert _last(program, 0) == "dark" and _dim("light").encode() not in program.raw_since(0)
        for report, theme in ((LIGHT, "light"), (DARK, "dark")):
            mark = program.mark()
            program.write(report)  # the terminal switched its scheme
            _next_frame(program)
            _drawn_in(program, theme, mark)
        mark = program.mark()
        program.write("\x04")  # Ctrl+D on the empty editor quits
        program.wait_for(NOTIFY_OFF.decode(), mark, raw=True)
    settings = json.loads((sandbox.agent_dir / "settings.json").read_text(encoding="utf-8"))
    assert settings["theme"] == "light/dark"  # followed, not replaced


def test_a_single_theme_ignores_the_colour_scheme(tmp_path: Path, which: str) -> None:
    with _started(tmp_path, which, "dark") as (program, _):
        program.wait_for(_dim("dark"), raw=True)
        mark = program.mark()
        program.write(LIGHT)  # a report the program did not ask for
        program.write("typed")
        program.wait_for("typed", mark)
        written = program.raw_since(0)
        assert SCHEME_QUERY not in written and NOTIFY_ON not in written
        assert _last(program, 0) == "dark"
        assert "997" not in program.text_since(mark)[0]  # the report is not typed into the editor
