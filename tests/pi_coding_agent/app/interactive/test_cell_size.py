"""Images sized with the terminal's own cells: where images can be shown, the real ``pi``
(ours and Pi's own) asks for the cell size in pixels (``CSI 16 t``) and sizes a picture with
the answer. tmux does not answer that query, so this runs on a pseudo-terminal of its own
that answers as a terminal with 10x30-pixel cells would."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.pi_coding_agent.app.interactive._scenario import SETTINGS, pi_command
from tests.pi_coding_agent.app.interactive.test_images import _png
from tests.pi_coding_agent.e2e._harness import OUR_PI, Sandbox
from tests.support.pty_terminal import Pty
from tests.support.scripted_provider import ScriptedProvider

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(params=["ours", "pi"])
def which(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_a_picture_is_sized_with_the_cells_the_terminal_reports(tmp_path: Path, which: str) -> None:
    picture = tmp_path / "picture.png"
    picture.write_bytes(_png(3, 2))
    turns = [
        {"tool_calls": [{"id": "call_1", "name": "read", "arguments": {"path": str(picture)}}]},
        {"text": "a small red rectangle"},
    ]
    with ScriptedProvider(turns) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url, SETTINGS)
        env = sandbox.env(TERM="xterm-256color", PI_IMAGE_PROTOCOL="kitty")
        command = pi_command(which) if which == "pi" else [str(OUR_PI)]
        program = Pty(command, sandbox.work, env, answers={b"\x1b[16t": b"\x1b[6;30;10t"})
        try:
            program.wait_for("scripted-model")
            program.wait_for("\x1b[16t", raw=True)  # the program asked
            mark = program.mark()
            _submit(program, "show me", "a small red rectangle")
            written = program.raw_since(mark)
        finally:
            program.close()
    start = written.rfind(b"\x1b_G")
    assert start >= 0, "no Kitty graphics command was written"
    head = written[start + 3 : written.find(b";", start)]
    keys = dict(part.split(b"=", 1) for part in head.split(b","))
    # 60 columns of 10 pixels make the 3x2 picture 600x400; cells 30 pixels high: 14 rows
    # (Pi's default 9x18 cells would give 20).
    assert (keys[b"c"], keys[b"r"]) == (b"60", b"14")


def _submit(program: Pty, text: str, answer: str) -> None:
    """Type ``text``, press Enter until ``answer`` comes: Pi keeps a prompt submitted before its
    startup is done in the editor ("Startup is still in progress"), to be sent again; Enter
    on the empty editor afterwards does nothing in either."""
    mark = program.mark()
    program.write(text)
    deadline = time.monotonic() + 90
    while answer not in program.text_since(mark)[0]:
        if time.monotonic() > deadline:
            raise AssertionError(f"no answer to the prompt; the program wrote: {program.text_since(mark)[0][-2000:]}")
        program.write("\r")
        time.sleep(1.0)
