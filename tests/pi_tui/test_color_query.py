"""Asking the terminal for its colours (``OSC 10``/``11``/``4`` then DA1), as Pi 1.6 does."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable

from pi_tui import TUI, ProcessTerminal, TerminalColors, parse_osc_color
from pi_tui._input import InputSplitter

InputCallback = Callable[[str], None]


class AnsweringTerminal:
    """A terminal that answers the colour query with ``replies`` (raw bytes, split as typed)."""

    columns, rows = 40, 10

    def __init__(self, replies: str | list[str], delay: float = 0) -> None:
        """``replies``: one answer to every question, or each question's own in turn."""
        self.replies, self.delay = replies, delay
        self.written: list[str] = []
        self.on_input: InputCallback | None = None

    def write(self, data: str) -> None:
        self.written.append(data)
        if "\x1b]4;15;?\x07" in data:
            asyncio.get_running_loop().call_later(self.delay, self._answer)

    def _answer(self) -> None:
        replies = self.replies if isinstance(self.replies, str) else self.replies.pop(0)
        for event in InputSplitter().feed(replies.encode()):
            if self.on_input is not None:
                self.on_input(event)  # type: ignore[arg-type]

    def start(self, on_input: InputCallback, on_resize: Callable[[], None]) -> None:
        self.on_input = on_input

    def stop(self) -> None:
        pass


PALETTE = "".join(f"\x1b]4;{index};rgb:{index:02x}{index:02x}/0000/ffff\x1b\\" for index in range(16))


def _ask(
    replies: str, delay: float = 0, late: list[TerminalColors] | None = None
) -> tuple[list[TerminalColors], AnsweringTerminal, list[str]]:
    """What the terminal answering ``replies`` (after ``delay`` seconds) gives ``on_reply``
    (``late``: collects what goes to ``on_late_reply``)."""

    async def run() -> tuple[list[TerminalColors], AnsweringTerminal, list[str]]:
        terminal = AnsweringTerminal(replies, delay)
        tui = TUI(terminal)  # type: ignore[arg-type]
        typed: list[str] = []
        tui.add_input_listener(lambda data: typed.append(data) or False)
        tui.start()
        answers: list[TerminalColors] = []
        tui.query_terminal_colors(
            answers.append, timeout=0.05, on_late_reply=None if late is None else late.append
        )
        await asyncio.sleep(0.1 + delay)
        tui.stop(print_transcript=False)
        return answers, terminal, typed

    return asyncio.run(run())


def test_a_terminal_reporting_everything_gives_all_its_colours_at_once() -> None:
    answers, terminal, _ = _ask(
        "\x1b]10;rgb:e5e5/e5e5/e5e5\x07\x1b]11;#1e1e2e\x07" + PALETTE + "\x1b[?62;22c"
    )
    query = "".join(terminal.written)
    assert "\x1b]10;?\x07\x1b]11;?\x07\x1b]4;0;?\x07" in query and query.count("\x1b]4;") == 16
    assert query.index("\x1b]4;15;?\x07") < query.index("\x1b[c")  # DA1 last: its reply closes the question
    assert answers == [
        TerminalColors(
            (229, 229, 229), (30, 30, 46), tuple((index * 257 * 255 // 65535, 0, 255) for index in range(16))
        )
    ]


def test_the_device_attributes_reply_closes_a_partial_answer_and_is_not_typed() -> None:
    answers, _, typed = _ask("\x1b]11;rgb:ffff/ffff/ffff\x07\x1b]4;1;rgb:cd/00/00\x07\x1b[?1;2cx")
    assert answers == [TerminalColors(None, (255, 255, 255), None)]  # a palette counts only when complete
    assert typed == ["x"]


def test_a_silent_terminal_is_given_up_on() -> None:
    answers, _, _ = _ask("")
    assert answers == [TerminalColors()]


def test_replies_after_the_timeout_go_to_the_late_reply_as_in_pi_16() -> None:
    late: list[TerminalColors] = []
    answers, _, typed = _ask(
        "\x1b]11;rgb:ffff/ffff/ffff\x07\x1b]10;#000000\x07\x1b[?1;2cx", delay=0.1, late=late
    )
    assert answers == [TerminalColors()]  # nothing within the wait: the theme goes on without colours
    assert late == [TerminalColors((0, 0, 0), (255, 255, 255), None)]  # then the whole answer, once
    assert typed == ["x"]


def test_a_complete_answer_leaves_the_question_open_for_its_own_device_attributes_reply() -> None:
    """All 18 colours end the question, but the DA1 reply that follows is still its own: it
    must not close the next question before that one's colours come."""

    async def run() -> list[TerminalColors]:
        complete = "\x1b]10;#ffffff\x07\x1b]11;#000000\x07" + PALETTE + "\x1b[?62;22c"
        terminal = AnsweringTerminal([complete, "\x1b]11;#102030\x07\x1b[?62;22c"])
        tui = TUI(terminal)
        tui.start()
        answers: list[TerminalColors] = []
        tui.query_terminal_colors(answers.append, timeout=0.05)
        tui.query_terminal_colors(answers.append, timeout=0.05)
        await asyncio.sleep(0.1)
        tui.stop(print_transcript=False)
        return answers

    first, second = asyncio.run(run())
    assert first.background == (0, 0, 0) and first.palette is not None
    assert second == TerminalColors(None, (16, 32, 48), None)


def test_a_process_terminal_passes_on_the_device_attributes_it_did_not_ask_for() -> None:
    """``ProcessTerminal`` keeps the DA1 reply to its keyboard question; the colour query's
    reaches the TUI and ends the question before its (long) timeout."""
    parent, child = os.openpty()

    async def run() -> list[TerminalColors]:
        terminal = ProcessTerminal(child, child)
        tui = TUI(terminal)
        tui.start()
        os.write(parent, b"\x1b[?62;22c")  # the answer to the keyboard question at the start
        answers: list[TerminalColors] = []
        tui.query_terminal_colors(answers.append, timeout=60)
        os.write(parent, b"\x1b]11;rgb:0000/8080/ffff\x1b\\\x1b[?62;22c")
        for _ in range(500):
            if answers:
                break
            await asyncio.sleep(0.01)
        tui.stop(print_transcript=False)
        return answers

    try:
        answers = asyncio.run(run())
    finally:
        os.close(parent)
        os.close(child)
    assert answers == [TerminalColors(None, (0, 128, 255), None)]


def test_osc_colour_replies_round_as_pi_rounds_them() -> None:
    assert parse_osc_color("\x1b]11;rgb:1234/5678/9abc\x07") == (18, 86, 154)
    assert parse_osc_color("\x1b]10;rgba:f/8/0/f\x1b\\") == (255, 136, 0)
    assert parse_osc_color("\x1b]4;3;#00000000ffff\x07") == (0, 0, 255)
    assert parse_osc_color("\x1b]11;rgb:zz/00/00\x07") is None
