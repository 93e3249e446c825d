"""Lines a mouse-wheel event scrolls (Pi 1.6's ``fullscreenWheelScrollLines``).

A number is used as it is. ``"auto"`` follows the speed of the wheel where the terminal
does not already accelerate it (anywhere but a local macOS terminal): a lone notch moves one
line, notches arriving faster move more, up to six a notch (100 ms apart: 1 line each, 50 ms:
2, 20 ms: 5). Events closer than 5 ms are one physical notch (or a high-resolution
trackpad) and move one line; a pause of more than 200 ms, or a change of direction, starts
a new gesture. Alt held moves five times as far.
"""

from __future__ import annotations

import os
import sys
from typing import Literal

WheelLines = int | Literal["auto"]
BURST_GAP = 0.005
GESTURE_GAP = 0.2
REFERENCE_GAP = 0.1
MAX_AUTO_LINES = 6
ALT_MULTIPLIER = 5


def terminal_accelerates_wheel() -> bool:
    remote = any(name in os.environ for name in ("SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY"))
    return sys.platform == "darwin" and not remote


class WheelScroll:
    def __init__(self, lines: WheelLines = "auto", accelerate: bool | None = None) -> None:
        self.lines: WheelLines = lines
        self.accelerate = not terminal_accelerates_wheel() if accelerate is None else accelerate
        self._last_time = float("-inf")
        self._last_direction = 0
        self._average_gap: float | None = None
        self._carry = 0.0

    def next(self, direction: int, now: float, alt: bool = False) -> int:
        """Lines to move for an event in ``direction`` (-1 up, 1 down) at ``now`` (seconds)."""
        lines = self._lines(direction, now)
        return lines * ALT_MULTIPLIER if alt else lines

    def _lines(self, direction: int, now: float) -> int:
        if self.lines != "auto":
            return max(1, self.lines)
        if not self.accelerate:
            return 1
        gap = now - self._last_time
        same_gesture = direction == self._last_direction and gap <= GESTURE_GAP
        self._last_time, self._last_direction = now, direction
        if not same_gesture:
            self._average_gap, self._carry = None, 0.0
            return 1
        if gap < BURST_GAP:
            return 1
        self._average_gap = gap if self._average_gap is None else (self._average_gap + gap) / 2
        lines = min(MAX_AUTO_LINES, max(1.0, REFERENCE_GAP / self._average_gap)) + self._carry
        whole = int(lines)
        self._carry = lines - whole
        return whole
