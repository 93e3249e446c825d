"""A spinner with a message (``Working...``), animated by its own timer."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from pi_tui._text import truncate_to_width

FRAMES = ("⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏")


class Loader:
    def __init__(
        self,
        message: str,
        request_render: Callable[[], None],
        *,
        spinner_style: Callable[[str], str] = lambda s: s,
        message_style: Callable[[str], str] = lambda s: s,
        interval: float = 0.08,
        frames: tuple[str, ...] = FRAMES,
    ) -> None:
        self.message = message
        self._request_render = request_render
        self._spinner_style = spinner_style
        self._message_style = message_style
        self.interval = interval
        self.frames = frames
        self._frame = 0
        self._timer: asyncio.TimerHandle | None = None

    def start(self) -> None:
        if self._timer is None and len(self.frames) > 1:
            self._timer = asyncio.get_running_loop().call_later(self.interval, self._tick)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _tick(self) -> None:
        self._frame = (self._frame + 1) % len(self.frames)
        self._timer = asyncio.get_running_loop().call_later(self.interval, self._tick)
        self._request_render()

    def render(self, width: int) -> list[str]:
        return [truncate_to_width(" " + self.inline(width), width)]

    def inline(self, width: int) -> str:
        """Spinner and message on one line without padding (for a border or a footer)."""
        spinner = self._spinner_style(self.frames[self._frame]) + " " if self.frames else ""
        return truncate_to_width(spinner + self._message_style(self.message), width, "")

    def invalidate(self) -> None:
        return
