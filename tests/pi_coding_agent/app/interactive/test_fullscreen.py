"""Fullscreen mode (``--tui-mode fullscreen``) as Pi's: the mouse wheel, the scrollbar and its
settings, the "Jump to latest message" label, previous/next prompt jumps, transcript search,
and selecting text with the mouse, copied through ``OSC 52`` (``fullscreenCopyOnSelect``, or
Ctrl+X when it is off). Mouse input is fed as the SGR reports a terminal sends."""

from __future__ import annotations

import json
from pathlib import Path

from tests.pi_coding_agent.app.interactive._inprocess import App, run_app

LINES = [f"line {n:02d} of the answer" for n in range(1, 41)]
TURNS = [{"text": "\n\n".join(LINES)}, {"text": "second answer ends here"}]


def wheel(up: bool, x: int = 10, y: int = 5) -> str:
    return f"\x1b[<{64 if up else 65};{x + 1};{y + 1}M"


def mouse(button: int, x: int, y: int, release: bool = False) -> str:
    return f"\x1b[<{button};{x + 1};{y + 1}{'m' if release else 'M'}"


def row_of(screen: str, text: str) -> int:
    return next(i for i, line in enumerate(screen.splitlines()) if text in line)


async def _ask_twice(app: App) -> None:
    await app.submit("first question")
    await app.wait_for("line 40 of the answer")
    await app.submit("second question")
    await app.wait_for("second answer ends here")


def test_wheel_scrollbar_jump_label_and_prompt_jumps(tmp_path: Path) -> None:
    async def scenario(app: App) -> None:
        await _ask_twice(app)
        screen = app.screen()
        assert "line 01 of the answer" not in screen and "Jump to latest" not in screen
        bottom = screen.splitlines()[row_of(screen, "second answer ends here")]
        for _ in range(3):  # two lines a notch (fullscreenWheelScrollLines)
            await app.type(wheel(up=True))
        screen = await app.wait_for("Jump to latest message · Ctrl+End")
        assert "second answer ends here" not in screen and bottom.strip() not in screen
        # the auto scrollbar shows after a scroll: a track and a thumb in the last column
        assert {line[-1:] for line in screen.splitlines()[:5]} & {"│", "┃"}, screen
        await app.type(wheel(up=False))
        await app.type(wheel(up=False))
        await app.type(wheel(up=False))
        await app.wait_until_gone("Jump to latest message")
        # ctrl+shift+up: the nearest marked message (a prompt or a final answer) above the
        # view's top comes to the top; ctrl+shift+down the next one below it
        await app.type("\x1b[1;6A")
        await app.wait_until(lambda s: s.splitlines()[1].strip() == "line 01 of the answer", "no jump up")
        await app.type("\x1b[1;6A")
        await app.wait_until(lambda s: s.splitlines()[1].strip() == "first question", "no second jump up")
        await app.type("\x1b[1;6B")
        screen = await app.wait_until(
            lambda s: s.splitlines()[1].strip() == "line 01 of the answer", "no jump down"
        )
        # clicking the label jumps to the end
        label_row = row_of(screen, "Jump to latest")
        column = screen.splitlines()[label_row].index("Jump")
        await app.type(mouse(0, column, label_row) + mouse(0, column, label_row, release=True))
        await app.wait_until_gone("Jump to latest message")

    run_app(
        tmp_path,
        TURNS,
        scenario,
        args=("--tui-mode", "fullscreen"),
        settings={"fullscreenWheelScrollLines": 2},
    )


def test_search_finds_and_scrolls_to_matches(tmp_path: Path) -> None:
    async def scenario(app: App) -> None:
        await _ask_twice(app)
        await app.type("\x1b[102;6u")  # ctrl+shift+f
        await app.wait_for("Find in transcript")
        await app.type("line 03")
        screen = await app.wait_for("1/1")
        assert "line 03 of the answer" in screen and "↑ Shift+Enter · ↓ Enter" in screen
        styled = app.styled_screen()
        assert "\x1b[0m\x1b[1m\x1b[7m" in styled  # the current match: bold and reverse
        await app.send("C-u")
        await app.type("of the answer")
        await app.wait_for("3/40")  # the first match from the one selected before (line 03)
        await app.send("Enter")
        await app.wait_for("4/40")
        await app.type("\x1b[13;2u")  # shift+enter: back
        await app.wait_for("3/40")
        await app.send("Escape")
        await app.wait_until_gone("Find in transcript")
        await app.type("zzz")  # the editor has the keys again
        await app.wait_for("zzz", region="editor")

    run_app(tmp_path, TURNS, scenario, args=("--tui-mode", "fullscreen"))


def test_selecting_text_copies_it(tmp_path: Path) -> None:
    async def scenario(app: App) -> None:
        await _ask_twice(app)
        screen = app.screen()
        row = row_of(screen, "line 38 of the answer")
        start = screen.splitlines()[row].index("line 38")
        await app.type(mouse(0, start, row))
        await app.type(mouse(32, start + 10, row + 2))
        await app.type(mouse(0, start + 10, row + 2, release=True))
        await app.wait_for("Copied!")
        assert app.clipboard() == "line 38 of the answer\n\n line 39 of"  # whole lines after the first
        assert "\x1b[7mline 38" in app.styled_screen().replace("\x1b[0m", "")
        # a double click takes a word
        word_row = row_of(app.screen(), "line 40")
        column = app.screen().splitlines()[word_row].index("answer") + 2
        for _ in range(2):
            await app.type(mouse(0, column, word_row) + mouse(0, column, word_row, release=True))
        await app.wait_until(lambda _: app.clipboard() == "answer", "the word was not copied")

    run_app(tmp_path, TURNS, scenario, args=("--tui-mode", "fullscreen"),
            env={"DISPLAY": "", "WAYLAND_DISPLAY": ""})  # fmt: skip


def test_copy_on_select_off_copies_with_ctrl_x_and_scrollbar_always(tmp_path: Path) -> None:
    async def scenario(app: App) -> None:
        await _ask_twice(app)
        screen = app.screen()
        # "always": the last column is the scrollbar's, next to the text, without scrolling
        assert {line[-1:] for line in screen.splitlines()[:3]} <= {"│", "┃"}, screen
        row = row_of(screen, "line 39 of the answer")
        start = screen.splitlines()[row].index("line 39")
        await app.type(
            mouse(0, start, row) + mouse(32, start + 6, row) + mouse(0, start + 6, row, release=True)
        )
        await app.wait_until(
            lambda _: "\x1b[7mline 39" in app.styled_screen().replace("\x1b[0m", ""), "no highlight"
        )
        assert app.clipboard() == ""
        await app.send("C-x")
        await app.wait_for("Copied!")
        assert app.clipboard() == "line 39"

    settings = {"tuiMode": "fullscreen", "fullscreenCopyOnSelect": False, "fullscreenScrollbar": "always"}
    run_app(tmp_path, TURNS, scenario, settings=settings, env={"DISPLAY": "", "WAYLAND_DISPLAY": ""})


def test_model_text_cannot_write_to_the_clipboard(tmp_path: Path) -> None:
    """Only the copy action writes OSC 52: an answer carrying one shows as text, copies nothing."""
    turns = [{"text": "before \x1b]52;c;aGFja2Vk\x07 after"}]

    async def scenario(app: App) -> None:
        await app.submit("hi")
        await app.wait_for("after")
        assert app.clipboard() == ""

    run_app(tmp_path, turns, scenario, args=("--tui-mode", "fullscreen"))
    assert json.dumps(turns)  # the answer really held the sequence
