"""Progress of the one-time setup, shown on stderr: one line per stage, redrawn in place on a terminal.

On a terminal the redrawn line starts with the numbers (percentage, amounts, seconds) and the title
follows, cut to the terminal's width. Off a terminal (CI logs, pipes) a stage prints its start, then at most one line per tenth of the work,
so a log stays readable.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Protocol, TextIO


class Progress(Protocol):
    """What a setup step reports to. ``total`` is ``None`` when the amount of work is unknown."""

    def stage(self, title: str) -> None: ...

    def advance(self, done: float, total: float | None, unit: str = "") -> None: ...

    def note(self, text: str) -> None: ...

    def finish(self, summary: str) -> None: ...


def _amount(value: float, unit: str) -> str:
    if unit == "B":
        for size, label in ((1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "kB")):
            if value >= size:
                return f"{value / size:.1f} {label}"
        return f"{int(value)} B"
    return f"{int(value)}{(' ' + unit) if unit else ''}"


class StderrProgress:
    """The setup's progress display; quiet ones (``--mode json``) pass ``stream=None``."""

    def __init__(self, stream: TextIO | None = sys.stderr) -> None:
        self._stream = stream
        self._title = ""
        self._started = time.monotonic()
        self._last_tenth = -1
        self._live = bool(stream is not None and stream.isatty())

    def _write(self, text: str, *, redraw: bool) -> None:
        if self._stream is None:
            return
        if self._live and redraw:
            # A line wider than the terminal wraps, and each redraw would leave a row behind.
            width = self._width() - 1
            self._stream.write("\r\x1b[2K" + (text if len(text) <= width else text[: width - 1] + "…"))
        else:
            self._stream.write(("\n" if self._live and not redraw else "") + text + "\n")
        self._stream.flush()

    def _width(self) -> int:
        try:
            return os.get_terminal_size(self._stream.fileno()).columns if self._stream is not None else 80
        except (OSError, ValueError):
            return 80

    def stage(self, title: str) -> None:
        self._title = title
        self._started = time.monotonic()
        self._last_tenth = -1
        self._write(f"pi: {title}", redraw=False)

    def advance(self, done: float, total: float | None, unit: str = "") -> None:
        elapsed = int(time.monotonic() - self._started)
        if total:
            fraction = min(done / total, 1.0)
            numbers = f"{fraction:4.0%} ({_amount(done, unit)} of {_amount(total, unit)}, {elapsed}s)"
            tenth = int(fraction * 10)
        else:
            numbers = f"{_amount(done, unit)} ({elapsed}s)"
            tenth = self._last_tenth + 1 if elapsed // 30 > self._last_tenth else self._last_tenth
        if self._live:
            # The numbers first: a narrow terminal cuts the title, never the progress.
            self._write(f"pi: {numbers.strip()} · {self._title}", redraw=True)
        elif tenth > self._last_tenth:
            self._last_tenth = tenth
            self._write(f"pi: {self._title}: {numbers}", redraw=False)

    def note(self, text: str) -> None:
        self._write(f"pi: {text}", redraw=False)

    def finish(self, summary: str) -> None:
        if self._live:
            self._write(f"pi: {self._title}: {summary}", redraw=True)
            if self._stream is not None:
                self._stream.write("\n")
                self._stream.flush()
        else:
            self._write(f"pi: {self._title}: {summary}", redraw=False)
