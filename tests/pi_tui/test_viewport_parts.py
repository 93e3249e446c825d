"""The parts of the fullscreen viewport that need no screen: the wheel's acceleration (Pi
1.6's figures), transcript search across wrapped lines, word selection, and which mouse
reports are asked for inside a multiplexer."""

from __future__ import annotations

from pi_tui._fullscreen import MOUSE_ALL_MOTION, MOUSE_BUTTON_MOTION, mouse_sequence
from pi_tui._selection import Point, word_at
from pi_tui._transcript_search import find_matches
from pi_tui._wheel import WheelScroll


def test_wheel_lines_follow_the_speed_of_the_wheel_in_auto() -> None:
    wheel = WheelScroll("auto", accelerate=True)
    assert wheel.next(1, 0.0) == 1  # a lone notch
    assert [wheel.next(1, 0.1 * n) for n in range(1, 4)] == [1, 1, 1]  # 100 ms apart
    fast = WheelScroll("auto", accelerate=True)
    fast.next(1, 0.0)
    assert [fast.next(1, 0.02 * n) for n in range(1, 4)] == [5, 5, 5]  # 20 ms apart
    assert fast.next(-1, 0.07) == 1  # a change of direction starts over
    assert fast.next(-1, 0.0701) == 1  # a burst (under 5 ms) is one notch
    assert WheelScroll(3).next(1, 0.0, alt=True) == 15
    assert WheelScroll("auto", accelerate=False).next(1, 0.0) == 1


def test_search_matches_across_lines_and_styles() -> None:
    lines = ["\x1b[1m first\x1b[22m word", "  Second   line", "first"]
    assert find_matches(lines, "word second") == [[(0, 7, 11), (1, 2, 8)]]
    assert find_matches(lines, "FIRST") == [[(0, 1, 6)], [(2, 0, 5)]]
    assert find_matches(lines, "   ") == []


def test_a_word_joins_paths_and_flags() -> None:
    line = "see src/pi_tui/_viewport.py --tui-mode now"
    found = word_at(line, Point(3, 10))
    assert found is not None and (found.start.col, found.end.col) == (4, 27)
    assert word_at(line, Point(3, 3)) is None


def test_mouse_reports_inside_tmux_are_button_motion_only() -> None:
    assert mouse_sequence({"TMUX": "/tmp/x", "TERM": "xterm"}) == MOUSE_BUTTON_MOTION
    assert mouse_sequence({"TERM": "screen-256color"}) == MOUSE_BUTTON_MOTION
    assert mouse_sequence({"TERM": "xterm-256color"}) == MOUSE_ALL_MOTION
