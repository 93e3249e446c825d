"""``Input``: one line of editable text (Pi's ``Input``), scrolled sideways when it is too long.

It edits like the editor (the same buffer, kill ring and undo, the editor's keys) but has
no history, no completion and no newlines: a paste is joined into one line. Enter calls
``on_submit``, Escape ``on_escape``. Selectors use it as their search line.
"""

from __future__ import annotations

from collections.abc import Callable

from pi_tui._component import CURSOR_MARKER
from pi_tui._input import PASTE_END, PASTE_START
from pi_tui._keybindings import TUI_DEFAULTS, Keybindings
from pi_tui._keys import decode_kitty_printable, is_printable
from pi_tui._text import slice_columns, visible_width
from pi_tui.editor import TextBuffer

_ACTIONS = (
    "tui.input.submit", "tui.editor.cursorLeft", "tui.editor.cursorRight", "tui.editor.cursorWordLeft",
    "tui.editor.cursorWordRight", "tui.editor.cursorLineStart", "tui.editor.cursorLineEnd",
    "tui.editor.deleteCharBackward", "tui.editor.deleteCharForward", "tui.editor.deleteWordBackward",
    "tui.editor.deleteWordForward", "tui.editor.deleteToLineStart", "tui.editor.deleteToLineEnd",
    "tui.editor.yank", "tui.editor.yankPop", "tui.editor.undo",
)  # fmt: skip
_BUFFER_METHODS = {
    "cursorLeft": "move_left", "cursorRight": "move_right", "cursorWordLeft": "move_word_left",
    "cursorWordRight": "move_word_right", "cursorLineStart": "move_line_start", "cursorLineEnd": "move_line_end",
    "deleteCharBackward": "delete_backward", "deleteCharForward": "delete_forward",
    "deleteWordBackward": "kill_word_backward", "deleteWordForward": "kill_word_forward",
    "deleteToLineStart": "kill_to_line_start", "deleteToLineEnd": "kill_to_line_end",
    "yank": "yank", "yankPop": "yank_pop",
}  # fmt: skip


class Input:
    def __init__(
        self,
        value: str = "",
        *,
        prompt: str = "> ",
        placeholder: str = "",
        keybindings: Keybindings | None = None,
        placeholder_style: Callable[[str], str] = lambda s: s,
    ) -> None:
        self.keybindings = keybindings or Keybindings(TUI_DEFAULTS)
        self.prompt = prompt
        self.placeholder = placeholder
        self.placeholder_style = placeholder_style
        self.focused = False
        self.buffer = TextBuffer()
        self.buffer.set_text(value, keep_undo=False)
        self.on_submit: Callable[[str], None] | None = None
        self.on_escape: Callable[[], None] | None = None
        self._scroll = 0

    @property
    def value(self) -> str:
        return self.buffer.lines[0]

    def set_value(self, value: str) -> None:
        self.buffer.set_text(" ".join(value.splitlines()))

    def handle_input(self, data: str) -> None:
        if data.startswith(PASTE_START):
            pasted = data[len(PASTE_START) : len(data) - len(PASTE_END)]
            self.buffer.snapshot()
            self.buffer.insert(" ".join(pasted.replace("\r", "\n").splitlines()))
            return
        keys = self.keybindings
        if keys.matches(data, "tui.select.cancel") and data == "\x1b":
            if self.on_escape is not None:
                self.on_escape()
            return
        action = keys.action_for(data, _ACTIONS)
        if action is not None:
            self._run(action.rsplit(".", 1)[1])
            return
        text = data if is_printable(data) else decode_kitty_printable(data)
        if text:
            self.buffer.snapshot()
            self.buffer.insert(text.replace("\n", " ").replace("\t", " "))

    def _run(self, name: str) -> None:
        if name == "submit":
            if self.on_submit is not None:
                self.on_submit(self.value)
        elif name == "undo":
            self.buffer.undo()
        else:
            if name not in ("cursorLeft", "cursorRight", "cursorWordLeft", "cursorWordRight"):
                self.buffer.snapshot()
            getattr(self.buffer, _BUFFER_METHODS[name])()

    def render(self, width: int) -> list[str]:
        prompt_width = visible_width(self.prompt)
        room = max(1, width - prompt_width - 1)
        value = self.value
        if not value and self.placeholder:  # as Pi: its first character under the cursor
            shown = slice_columns(self.placeholder, 0, room + 1)
            marker = CURSOR_MARKER if self.focused else ""
            style = self.placeholder_style
            return [f"{self.prompt}{marker}\x1b[7m{style(shown[:1])}\x1b[27m{style(shown[1:])}"]
        cursor_col = visible_width(value[: self.buffer.col])
        if cursor_col < self._scroll:
            self._scroll = cursor_col
        elif cursor_col >= self._scroll + room:
            self._scroll = cursor_col - room + 1
        shown = slice_columns(value, self._scroll, room)
        if not self.focused:
            return [self.prompt + shown]
        at = cursor_col - self._scroll
        before = slice_columns(shown, 0, at)
        under = slice_columns(shown, at, 1) or " "
        after = slice_columns(shown, at + 1, room)
        return [f"{self.prompt}{before}{CURSOR_MARKER}\x1b[7m{under}\x1b[27m{after}"]

    def invalidate(self) -> None:
        return
