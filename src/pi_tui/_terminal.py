"""The terminal the UI draws on: size, raw input, output.

``ProcessTerminal`` is the real one (the process's own tty): raw mode without signals
(Ctrl+C and Ctrl+Z arrive as keys), bracketed paste on, the Kitty keyboard protocol when
the terminal answers for it (else xterm's ``modifyOtherKeys``, which tmux with
``extended-keys`` forwards), and everything restored on ``stop``. Output goes through one
``os.write`` per frame.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Callable
from typing import Any, Protocol

from pi_tui._input import InputSplitter, Paste

InputCallback = Callable[[str | Paste], None]

ESCAPE_TIMEOUT = 0.03
"""Seconds a lone ESC waits for the rest of a sequence before it counts as the Escape key."""


class Terminal(Protocol):
    @property
    def columns(self) -> int: ...

    @property
    def rows(self) -> int: ...

    def write(self, data: str) -> None: ...

    def start(self, on_input: InputCallback, on_resize: Callable[[], None]) -> None: ...

    def stop(self) -> None: ...


class ProcessTerminal:
    def __init__(self, input_fd: int | None = None, output_fd: int | None = None) -> None:
        self.input_fd = sys.stdin.fileno() if input_fd is None else input_fd
        self.output_fd = sys.stdout.fileno() if output_fd is None else output_fd
        self._saved_mode: list[Any] | None = None
        self._splitter = InputSplitter()
        self._escape_timer: asyncio.TimerHandle | None = None
        self._on_input: InputCallback | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._size = (80, 24)
        self.kitty_keyboard = False
        self.modify_other_keys = False
        self._owed_device_attributes = 0
        """Device-attributes replies still owed to the keyboard question; later ones (the
        colour query's) go on to the input like any other reply."""
        self._read_size()

    @property
    def columns(self) -> int:
        return self._size[0]

    @property
    def rows(self) -> int:
        return self._size[1]

    def _read_size(self) -> None:
        try:
            size = os.get_terminal_size(self.output_fd)
            self._size = (max(1, size.columns), max(1, size.lines))
        except OSError:
            pass

    def write(self, data: str) -> None:
        payload = data.encode("utf-8", "replace")
        view = memoryview(payload)
        while view:
            try:
                written = os.write(self.output_fd, view)
            except BlockingIOError:
                continue
            except OSError:
                return
            view = view[written:]

    def start(self, on_input: InputCallback, on_resize: Callable[[], None]) -> None:
        import termios
        import tty

        self._loop = asyncio.get_running_loop()
        self._on_input = on_input
        if os.isatty(self.input_fd):
            self._saved_mode = termios.tcgetattr(self.input_fd)
            tty.setraw(self.input_fd, termios.TCSANOW)
            mode = termios.tcgetattr(self.input_fd)
            mode[1] |= termios.OPOST | termios.ONLCR  # keep "\n" -> "\r\n" for stray prints
            termios.tcsetattr(self.input_fd, termios.TCSANOW, mode)
        # Bracketed paste; ask whether the Kitty keyboard protocol is there (CSI ? u answers),
        # then for the device attributes: an answer to those without a Kitty answer before it
        # means no Kitty protocol, and modifyOtherKeys is asked for instead (as Pi does).
        self._owed_device_attributes += 1
        self.write("\x1b[?2004h\x1b[?u\x1b[c")
        self._loop.add_reader(self.input_fd, self._readable)

        def resized() -> None:
            self._read_size()
            on_resize()

        self._loop.add_signal_handler(signal.SIGWINCH, resized)

    def _readable(self) -> None:
        try:
            data = os.read(self.input_fd, 65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._dispatch(["\x04"])  # the terminal went away: treat as Ctrl+D
            if self._loop is not None:
                self._loop.remove_reader(self.input_fd)
            return
        if self._escape_timer is not None:
            self._escape_timer.cancel()
            self._escape_timer = None
        self._dispatch(self._splitter.feed(data))
        if self._splitter.pending_escape and self._loop is not None:
            self._escape_timer = self._loop.call_later(ESCAPE_TIMEOUT, self._flush_escape)

    def _flush_escape(self) -> None:
        self._escape_timer = None
        self._dispatch(self._splitter.flush())

    def _dispatch(self, events: list[str | Paste]) -> None:
        for event in events:
            if isinstance(event, str) and event.startswith("\x1b[?") and self._negotiation_reply(event):
                self._negotiated(event)
                continue
            if self._on_input is not None:
                self._on_input(event)

    def _negotiation_reply(self, event: str) -> bool:
        if event.endswith("u"):
            return True
        if event.endswith("c") and self._owed_device_attributes > 0:
            self._owed_device_attributes -= 1
            return True
        return False

    def _negotiated(self, answer: str) -> None:
        """A Kitty flags answer (``CSI ? flags u``) or the device attributes (``CSI ? ... c``)."""
        if answer.endswith("u") and answer[3:-1] not in ("", "0"):
            self._set_modify_other_keys(False)
            if not self.kitty_keyboard:
                self.kitty_keyboard = True
                self.write("\x1b[>1u")  # disambiguate escape codes
        elif not self.kitty_keyboard:
            self._set_modify_other_keys(True)

    def _set_modify_other_keys(self, on: bool) -> None:
        """xterm's modifyOtherKeys (level 2): Shift+Enter and the like arrive as ``CSI 27;m;k ~``."""
        if on != self.modify_other_keys:
            self.modify_other_keys = on
            self.write("\x1b[>4;2m" if on else "\x1b[>4;0m")

    def _keyboard_off(self) -> str:
        return ("\x1b[<u" if self.kitty_keyboard else "") + ("\x1b[>4;0m" if self.modify_other_keys else "")

    def stop(self) -> None:
        import termios

        if self._loop is not None:
            self._loop.remove_reader(self.input_fd)
            self._loop.remove_signal_handler(signal.SIGWINCH)
        if self._escape_timer is not None:
            self._escape_timer.cancel()
        self.write(self._keyboard_off() + "\x1b[?2004l\x1b[?25h")
        if self._saved_mode is not None:
            termios.tcsetattr(self.input_fd, termios.TCSADRAIN, self._saved_mode)
            self._saved_mode = None

    def suspend(self) -> None:
        """Give the terminal back (Ctrl+Z, an external editor); ``resume`` takes it again."""
        import termios

        self.write(self._keyboard_off() + "\x1b[?2004l\x1b[?25h")
        if self._saved_mode is not None:
            termios.tcsetattr(self.input_fd, termios.TCSADRAIN, self._saved_mode)

    def resume(self) -> None:
        import termios
        import tty

        if self._saved_mode is not None:
            tty.setraw(self.input_fd, termios.TCSANOW)
            mode = termios.tcgetattr(self.input_fd)
            mode[1] |= termios.OPOST | termios.ONLCR
            termios.tcsetattr(self.input_fd, termios.TCSANOW, mode)
        self.write(
            "\x1b[?2004h"
            + ("\x1b[>1u" if self.kitty_keyboard else "")
            + ("\x1b[>4;2m" if self.modify_other_keys else "")
        )
        self._read_size()
