"""The virtual terminal the in-process scenarios drive: tmux's key names become the bytes
tmux sends, the screen reads as ``capture-pane`` shows it (the scrollback too), colours keep
the SGR form they were written in, and queries are answered."""

from __future__ import annotations

import asyncio

import pytest

from pi_tui import Paste
from tests.support.virtual_terminal import VirtualTerminal, key_bytes


@pytest.mark.parametrize(
    ("name", "sent"),
    [("Enter", "\r"), ("Escape", "\x1b"), ("BTab", "\x1b[Z"), ("BSpace", "\x7f"), ("C-c", "\x03"),
     ("C-_", "\x1f"), ("M-t", "\x1bt"), ("M-Enter", "\x1b\r"), ("M-Up", "\x1b[1;3A"), ("Up", "\x1b[A"),
     ("PageDown", "\x1b[6~"), ("S-Enter", "\r"), ("x", "x")],
)  # fmt: skip
def test_key_names_are_sent_as_tmux_sends_them(name: str, sent: str) -> None:
    assert key_bytes(name) == sent


def test_shift_enter_with_extended_keys_is_a_modify_other_keys_sequence() -> None:
    assert key_bytes("S-Enter", extended_keys=True) == "\x1b[27;2;13~"


def test_keys_reach_the_program_one_at_a_time() -> None:
    terminal = VirtualTerminal(20, 3)
    received: list[str | Paste] = []
    terminal.start(received.append, lambda: None)
    terminal.send("Escape", "Escape", "C-c")
    terminal.paste("two\nlines")
    assert received[:3] == ["\x1b", "\x1b", "\x03"]  # two Escapes, not Alt+Escape
    assert isinstance(received[3], Paste) and received[3].text == "two\nlines"


def test_the_screen_the_scrollback_and_the_styles() -> None:
    terminal = VirtualTerminal(20, 3)
    terminal.write("one\r\ntwo\r\nthree\r\n\x1b[1m\x1b[38;5;39mfour\x1b[0m \x1b_Gf=100;AAAA\x1b\\five")
    assert terminal.screen() == "two\nthree\nfour five\n"  # three rows: "one" scrolled off
    assert terminal.history() == "one\ntwo\nthree\nfour five\n"
    assert "\x1b[1m\x1b[38;5;39mfour\x1b[0m five" in terminal.styled_screen()


def test_queries_are_answered_and_the_clipboard_kept() -> None:
    async def run() -> list[str | Paste]:
        terminal = VirtualTerminal(20, 3, answers={"\x1b]11;?\x07": "\x1b]11;rgb:ffff/ffff/ffff\x1b\\"})
        received: list[str | Paste] = []
        terminal.start(received.append, lambda: None)
        terminal.write("\x1b]11;?\x07\x1b]52;c;aGVsbG8=\x07")
        await asyncio.sleep(0)
        assert terminal.clipboard == "hello"
        return received

    assert asyncio.run(run()) == ["\x1b]11;rgb:ffff/ffff/ffff\x1b\\"]
