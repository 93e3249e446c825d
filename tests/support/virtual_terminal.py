"""A terminal in memory for driving a ``pi_tui`` program in-process: keys in, screen out.

``VirtualTerminal`` is a ``pi_tui.Terminal`` whose output feeds a VT100 screen emulator
(pyte, docs/decisions/0007-in-process-terminal-tests.md) and whose input comes from the test:
``send`` takes tmux's key names (``Enter``, ``C-c``, ``M-t``, ``S-Enter``...) and writes the
bytes tmux would, ``type`` writes text literally, ``paste`` brackets it as a terminal does
for a program that asked for bracketed paste (``ProcessTerminal`` always asks). What the
screen shows reads as tmux's ``capture-pane`` does: ``screen``, ``history`` (scrollback and
screen), ``styled_screen`` with one SGR sequence per attribute change. Queries the program
writes are answered from ``answers`` (the background colour, the cell size...), as a
terminal would; ``OSC 52`` clipboard writes are kept in ``clipboard``, the window title the
program sets (``OSC 0``/``OSC 2``) in ``title``.
"""

from __future__ import annotations

import asyncio
import base64
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyte

from pi_tui import InputSplitter, Paste

InputCallback = Callable[[str | Paste], None]

_CSI_KEYS = {"Up": "A", "Down": "B", "Right": "C", "Left": "D"}
_TILDE_KEYS = {"Home": 1, "IC": 2, "DC": 3, "End": 4, "PageUp": 5, "PPage": 5, "PageDown": 6, "NPage": 6}
_PLAIN_KEYS = {"Enter": "\r", "Escape": "\x1b", "Tab": "\t", "BTab": "\x1b[Z", "BSpace": "\x7f", "Space": " "}
_MODIFIERS = {"S": 1, "M": 2, "C": 4}
# Sequences the emulator would otherwise print as text: APC (Kitty graphics), DCS, PM, SOS.
_STRING_SEQUENCES = re.compile(r"\x1b[_P^X].*?(?:\x1b\\|\x07)", re.DOTALL)
_OSC52 = re.compile(r"\x1b\]52;[^;]*;([^\x07\x1b]*)(?:\x07|\x1b\\)")


def key_bytes(name: str, *, extended_keys: bool = False) -> str:
    """What tmux's ``send-keys NAME`` writes to the program (``extended_keys``: tmux's
    ``extended-keys on``, which sends Shift+Enter and the like as ``CSI 27;m;k ~``)."""
    if name in _PLAIN_KEYS:
        return _PLAIN_KEYS[name]
    if name in _CSI_KEYS:
        return f"\x1b[{_CSI_KEYS[name]}"
    if name in _TILDE_KEYS:
        return f"\x1b[{_TILDE_KEYS[name]}~"
    prefix, _, base = name.partition("-")
    if not base or prefix not in _MODIFIERS:
        return name  # a character: sent as it is
    if base in _CSI_KEYS:
        return f"\x1b[1;{1 + _MODIFIERS[prefix]}{_CSI_KEYS[base]}"
    if prefix == "M":
        return "\x1b" + key_bytes(base, extended_keys=extended_keys)
    if prefix == "C":
        return _control(base)
    if base == "Enter":  # Shift+Enter
        return "\x1b[27;2;13~" if extended_keys else "\r"
    return base.upper() if len(base) == 1 else key_bytes(base)


def _control(base: str) -> str:
    if base == "Space" or base == "@":
        return "\x00"
    if base in ("_", "-"):
        return "\x1f"
    if len(base) == 1:
        return chr(ord(base.lower()) & 0x1F) if base.isalpha() else chr(ord(base) & 0x1F)
    return key_bytes(base)


class _SgrScreen(pyte.HistoryScreen):
    """A screen that keeps colours as the SGR parameters they were set with (``38;5;39``,
    ``38;2;18;164;230``, ``31``), so the styled screen shows them as the program wrote them."""

    def report_device_status(self, mode: int, **flags: Any) -> None:
        """Private status reports (``CSI ? 996 n``...) are queries ``answers`` may answer."""
        if not flags.get("private"):
            super().report_device_status(mode)

    def select_graphic_rendition(self, *attrs: int, **_: Any) -> None:
        if not attrs or attrs == (0,):
            self.cursor.attrs = self.default_char
            return
        replace: dict[str, Any] = {}
        params = list(attrs)
        while params:
            code = params.pop(0)
            if code == 0:
                replace.update(self.default_char._asdict())
                replace.pop("data")
            elif code in (38, 48) and params:
                size = 2 if params[0] == 5 else 4 if params[0] == 2 else 1
                colour = ";".join(str(p) for p in [code, *params[:size]])
                del params[:size]
                replace["fg" if code == 38 else "bg"] = colour
            elif 30 <= code <= 37 or 90 <= code <= 97:
                replace["fg"] = str(code)
            elif 40 <= code <= 47 or 100 <= code <= 107:
                replace["bg"] = str(code)
            elif code in (39, 49):
                replace["fg" if code == 39 else "bg"] = "default"
            elif code in _FLAGS:
                replace[_FLAGS[code][0]] = _FLAGS[code][1]
        self.cursor.attrs = self.cursor.attrs._replace(**replace)


_FLAGS = {1: ("bold", True), 22: ("bold", False), 3: ("italics", True), 23: ("italics", False),
          4: ("underscore", True), 24: ("underscore", False), 7: ("reverse", True), 27: ("reverse", False),
          9: ("strikethrough", True), 29: ("strikethrough", False)}  # fmt: skip
_FLAG_CODES = {"bold": 1, "italics": 3, "underscore": 4, "reverse": 7, "strikethrough": 9}


class VirtualTerminal:
    """A ``pi_tui.Terminal`` on an emulated screen of ``columns`` x ``rows``."""

    def __init__(
        self,
        columns: int = 100,
        rows: int = 30,
        *,
        answers: dict[str, str] | None = None,
        extended_keys: bool = False,
    ) -> None:
        self._columns, self._rows = columns, rows
        self.answers = dict(answers or {})
        self.extended_keys = extended_keys
        self.clipboard = ""
        self.changed = asyncio.Event()
        self._screen = _SgrScreen(columns, rows, history=20000, ratio=0.5)
        self._stream = pyte.Stream(self._screen)
        self._splitter = InputSplitter()
        self._on_input: InputCallback | None = None
        self._pending = ""
        self._recording: Path | None = None

    @property
    def columns(self) -> int:
        return self._columns

    @property
    def rows(self) -> int:
        return self._rows

    # ------------------------------------------------------------------ the program's side

    def start(self, on_input: InputCallback, on_resize: Callable[[], None]) -> None:
        self._on_input = on_input

    def stop(self) -> None:
        self._on_input = None

    def record_output(self, path: Path) -> None:
        """From now on, append everything the program writes (escape sequences too) to ``path``."""
        self._recording = path

    def write(self, data: str) -> None:
        if self._recording is not None:
            with self._recording.open("a", encoding="utf-8") as file:
                file.write(data)
        text = self._pending + data
        self._pending = ""
        for query, answer in self.answers.items():
            if query in text:
                asyncio.get_running_loop().call_soon(self._input, answer)
        for encoded in _OSC52.findall(text):
            self.clipboard = base64.b64decode(encoded).decode("utf-8", "replace")
        text = _STRING_SEQUENCES.sub("", text)
        start = max(text.rfind(f"\x1b{kind}") for kind in "_P^X")
        if start >= 0:  # a string sequence whose end is still to come
            text, self._pending = text[:start], text[start:]
        self._stream.feed(text)
        self.changed.set()

    # ------------------------------------------------------------------ the user's side

    def send(self, *keys: str) -> None:
        """Press each key (tmux's names) in turn."""
        for key in keys:
            self._input(key_bytes(key, extended_keys=self.extended_keys))

    def type(self, text: str) -> None:
        self._input(text)

    def paste(self, text: str) -> None:
        self._input(f"\x1b[200~{text}\x1b[201~")

    def _input(self, data: str) -> None:
        events = self._splitter.feed(data.encode("utf-8"))
        if self._splitter.pending_escape:  # the whole key arrived: a lone ESC is the Escape key
            events += self._splitter.flush()
        for event in events:
            if self._on_input is not None:
                self._on_input(event)

    # ------------------------------------------------------------------ what it shows

    def screen(self) -> str:
        return "".join(line.rstrip() + "\n" for line in self._screen.display)

    @property
    def title(self) -> str:
        """The window title the program set last (``""`` until it sets one)."""
        return str(self._screen.title)

    def history(self) -> str:
        """Scrollback and screen, as ``capture-pane -S -`` shows them."""
        scrolled = [self._plain(line) for line in self._screen.history.top]
        return "".join(line.rstrip() + "\n" for line in scrolled) + self.screen()

    def styled_screen(self) -> str:
        lines = [self._screen.buffer[y] for y in range(self._rows)]
        return "".join(self._styled(line) + "\n" for line in lines)

    def _plain(self, line: Any) -> str:
        return "".join(line[x].data for x in range(self._columns))

    def _styled(self, line: Any) -> str:
        out: list[str] = []
        style: tuple[Any, ...] = ("default", "default")
        for x in range(self._columns):
            char = line[x]
            now = (char.fg, char.bg, *(getattr(char, flag) for flag in _FLAG_CODES))
            if now != style:
                out.append(_sgr(now))
                style = now
            out.append(char.data)
        return "".join(out).rstrip()


def _sgr(style: tuple[Any, ...]) -> str:
    """One SGR sequence per attribute of ``style`` (after a reset), as tmux's ``capture-pane -e``."""
    fg, bg, *flags = style
    codes = ["0"]
    codes += [str(code) for code, on in zip(_FLAG_CODES.values(), flags, strict=True) if on]
    codes += [colour for colour in (fg, bg) if colour != "default"]
    return "".join(f"\x1b[{code}m" for code in codes)


__all__ = ["VirtualTerminal", "key_bytes"]
