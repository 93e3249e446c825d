"""Asking the terminal for its colours, as Pi 1.6 does: foreground (``OSC 10``), background
(``OSC 11``) and the 16 palette entries (``OSC 4``), then a device-attributes request
(``CSI c``). Terminals answer in order, so the DA1 reply closes the question even when
some colours went unanswered; a terminal that answers nothing is given up on after a
timeout."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

RgbColor = tuple[int, int, int]
PALETTE_SIZE = 16
COLOR_QUERY = (
    "\x1b]10;?\x07\x1b]11;?\x07"
    + "".join(f"\x1b]4;{index};?\x07" for index in range(PALETTE_SIZE))
    + "\x1b[c"
)
_REPLY = re.compile(r"\x1b\](?:(1[01])|4;(\d{1,3}));([^\x07\x1b]*)(?:\x07|\x1b\\)\Z", re.IGNORECASE)
DEVICE_ATTRIBUTES_REPLY = re.compile(r"\x1b\[\?[0-9;]*c\Z")


@dataclass(frozen=True)
class TerminalColors:
    foreground: RgbColor | None = None
    background: RgbColor | None = None
    palette: tuple[RgbColor, ...] | None = None
    """All 16 entries, or ``None`` unless the terminal reported every one."""


def _channel(text: str) -> int | None:
    if not text or any(c not in "0123456789abcdefABCDEF" for c in text):
        return None
    return int(int(text, 16) / (16 ** len(text) - 1) * 255 + 0.5)


def parse_osc_color(reply: str) -> RgbColor | None:
    """The colour of an ``OSC 10/11/4`` reply: ``rgb:R/G/B`` (1-4 hex digits a channel),
    ``rgba:``, ``#rrggbb`` or ``#rrrrggggbbbb``; ``None`` when unreadable."""
    match = _REPLY.match(reply)
    value = (match[3] if match else reply.rstrip("\x07").removesuffix("\x1b\\").partition(";")[2]).strip()
    if value.startswith("#"):
        digits = value[1:]
        size = {6: 2, 12: 4}.get(len(digits))
        if size is None:
            return None
        parts = [digits[i : i + size] for i in range(0, len(digits), size)]
    else:
        parts = re.sub(r"^rgba?:", "", value, flags=re.IGNORECASE).split("/")
    channels = [_channel(part) for part in parts[:3]]
    if len(channels) < 3 or None in channels:
        return None
    return (channels[0] or 0, channels[1] or 0, channels[2] or 0)


class ColorQuery:
    """One question in flight: the replies so far, and who gets them when it closes."""

    def __init__(self, deliver: Callable[[TerminalColors], None]) -> None:
        self.deliver: Callable[[TerminalColors], None] | None = deliver
        self.replies: dict[str, RgbColor | None] = {}

    def take(self, reply: str) -> bool:
        """Record an ``OSC`` colour reply; ``True`` once all 18 answered."""
        match = _REPLY.match(reply)
        if match is None:
            return False
        key = {"10": "foreground", "11": "background"}.get(match[1] or "", match[2] or "")
        self.replies.setdefault(key, parse_osc_color(reply))
        return len(self.replies) == 2 + PALETTE_SIZE

    def result(self) -> TerminalColors:
        palette = [self.replies.get(str(index)) for index in range(PALETTE_SIZE)]
        complete = tuple(color for color in palette if color is not None)
        return TerminalColors(
            self.replies.get("foreground"),
            self.replies.get("background"),
            complete if len(complete) == PALETTE_SIZE else None,
        )

    def close(self) -> None:
        deliver, self.deliver = self.deliver, None
        if deliver is not None:
            deliver(self.result())
