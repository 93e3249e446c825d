"""``Editor``: the multi-line prompt, as Pi's editor behaves.

Enter submits, Shift+Enter (or Ctrl+J) starts a new line; Up/Down move between lines and,
on the first/last line, through the prompt history; Emacs-style kill and yank; undo.
A paste bigger than 10 lines or 1,000 characters is kept aside and shown as a marker
(``[paste #1 +120 lines]``); ``text`` gives the prompt with the markers expanded.
``/`` at the start offers slash commands, ``@`` offers project files, Tab completes paths.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import ClassVar

from pi_tui._component import CURSOR_MARKER
from pi_tui._input import PASTE_END, PASTE_START
from pi_tui._keybindings import TUI_DEFAULTS, Keybindings
from pi_tui._keys import decode_printable_key, is_printable
from pi_tui._select_row import label_column, select_row
from pi_tui._text import char_width, visible_width
from pi_tui.editor._buffer import TextBuffer
from pi_tui.editor._complete import Completer, Completion

StyleFn = Callable[[str], str]
PASTE_MARKER = re.compile(r"\[paste #(\d+)( (\+\d+ lines|\d+ chars))?\]")
HISTORY_LIMIT = 100
_EDITOR_ACTIONS = (
    "tui.input.submit", "tui.input.newLine", "tui.input.tab",
    "tui.editor.historyPrevious", "tui.editor.historyNext",
    "tui.editor.cursorUp", "tui.editor.cursorDown", "tui.editor.cursorLeft", "tui.editor.cursorRight",
    "tui.editor.cursorWordLeft", "tui.editor.cursorWordRight", "tui.editor.cursorLineStart",
    "tui.editor.cursorLineEnd", "tui.editor.deleteCharBackward", "tui.editor.deleteCharForward",
    "tui.editor.deleteWordBackward", "tui.editor.deleteWordForward", "tui.editor.deleteToLineStart",
    "tui.editor.deleteToLineEnd", "tui.editor.yank", "tui.editor.yankPop", "tui.editor.undo",
    "tui.editor.jumpForward", "tui.editor.jumpBackward",
)  # fmt: skip


def _plain(text: str) -> str:
    return text


class Editor:
    def __init__(
        self,
        keybindings: Keybindings | None = None,
        completer: Completer | None = None,
        *,
        border: StyleFn = _plain,
        selected: StyleFn = _plain,
        muted: StyleFn = _plain,
        padding_x: int = 0,
        max_visible_items: int = 5,
    ) -> None:
        self.keybindings = keybindings or Keybindings(TUI_DEFAULTS)
        self.completer = completer
        self.border = border
        self.selected_style = selected
        self.muted_style = muted
        self.padding_x = padding_x
        self.max_visible_items = max_visible_items
        self.buffer = TextBuffer()
        self.focused = False
        self.disable_submit = False
        self.history: list[str] = []
        self._history_index = -1
        self._draft = ""
        self.pastes: dict[int, str] = {}
        self._paste_counter = 0
        self._completion: Completion | None = None
        self._selected = 0
        self._jump: bool | None = None
        self.max_height = 12
        self.on_submit: Callable[[str], None] | None = None
        self.on_change: Callable[[str], None] | None = None
        self.border_status: Callable[[int], str] | None = None
        """Text shown in the top border (Pi puts the working indicator there), given the room."""

    # ------------------------------------------------------------------ text

    @property
    def text(self) -> str:
        """The prompt with paste markers replaced by what was pasted."""
        raw = self.buffer.text
        if not self.pastes:
            return raw

        def expand(match: re.Match[str]) -> str:
            return self.pastes.get(int(match.group(1)), match.group(0))

        return PASTE_MARKER.sub(expand, raw)

    def get_raw_text(self) -> str:
        return self.buffer.text

    def get_text(self) -> str:
        """What a submission would send: the text with pastes expanded."""
        return self.text

    def set_text(self, text: str) -> None:
        self.buffer.set_text(text)
        self._completion = None
        self._changed()

    def clear(self) -> None:
        self.buffer.set_text("")
        self.pastes.clear()
        self._paste_counter = 0
        self._completion = None
        self._history_index = -1
        self._changed()

    def insert_text(self, text: str) -> None:
        self.buffer.snapshot()
        self.buffer.insert(text)
        self._changed()

    def add_to_history(self, text: str) -> None:
        text = text.strip()
        if text and (not self.history or self.history[-1] != text):
            self.history.append(text)
            del self.history[:-HISTORY_LIMIT]
        self._history_index = -1

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change(self.buffer.text)

    # ------------------------------------------------------------------ input

    def handle_input(self, data: str) -> None:
        if data.startswith(PASTE_START):
            self._paste(data[len(PASTE_START) : len(data) - len(PASTE_END)])
            return
        if self._jump is not None:
            forward, self._jump = self._jump, None
            if is_printable(data):
                self.buffer.jump_to_char(data[0], forward)
            return
        if self._completion is not None and self._completion_key(data):
            return
        action = self.keybindings.action_for(data, _EDITOR_ACTIONS)
        if action is not None:
            self._run(action)
            return
        text = data if is_printable(data) else decode_printable_key(data)
        if text:
            line = self.buffer.lines[self.buffer.line]
            if self.buffer.col == 0 or line[self.buffer.col - 1].isspace() or len(text) > 1:
                self.buffer.snapshot()  # undo goes back a word at a time
            self.buffer.insert(text)
            self._changed()
            self._update_completion(force=False)

    def _run(self, action: str) -> None:
        buffer = self.buffer
        name = action.rsplit(".", 1)[1]
        if name == "submit":
            self._submit()
        elif name == "newLine":
            buffer.snapshot()
            buffer.insert("\n")
            self._changed()
        elif name == "tab":
            self._update_completion(force=True)
            if self._completion is not None and len(self._completion.items) == 1:
                self._accept_completion()
        elif name in ("historyPrevious", "historyNext"):
            self._history(-1 if name == "historyPrevious" else 1)
        elif name in ("cursorUp", "cursorDown"):
            self._up_down(-1 if name == "cursorUp" else 1)
        elif name in ("jumpForward", "jumpBackward"):
            self._jump = name == "jumpForward"
        elif name == "undo":
            if buffer.undo():
                self._changed()
        else:
            self._edit(name)

    _MOVES: ClassVar[dict[str, str]] = {
        "cursorLeft": "move_left", "cursorRight": "move_right", "cursorWordLeft": "move_word_left",
        "cursorWordRight": "move_word_right", "cursorLineStart": "move_line_start", "cursorLineEnd": "move_line_end",
    }  # fmt: skip
    _EDITS: ClassVar[dict[str, str]] = {
        "deleteCharBackward": "delete_backward", "deleteCharForward": "delete_forward",
        "deleteWordBackward": "kill_word_backward", "deleteWordForward": "kill_word_forward",
        "deleteToLineStart": "kill_to_line_start", "deleteToLineEnd": "kill_to_line_end",
        "yank": "yank", "yankPop": "yank_pop",
    }  # fmt: skip

    def _edit(self, name: str) -> None:
        if name in self._MOVES:
            getattr(self.buffer, self._MOVES[name])()
            self._completion = None
            return
        if name in self._EDITS:
            self.buffer.snapshot()
            getattr(self.buffer, self._EDITS[name])()
            self._forget_deleted_pastes()
            self._changed()
            self._update_completion(force=False)

    def _submit(self) -> None:
        if self.disable_submit:
            return
        raw = self.buffer.text
        if raw.endswith("\\") and self.buffer.col == len(self.buffer.lines[self.buffer.line]):
            self.buffer.delete_backward()  # a trailing backslash turns Enter into a new line
            self.buffer.insert("\n")
            self._changed()
            return
        text = self.text
        self._completion = None
        if self.on_submit is not None:
            self.on_submit(text)

    def _up_down(self, direction: int) -> None:
        """Pi's rule: on the first line Up browses history when the editor is empty, already
        browsing or the cursor is at the line's start, else it goes to the start; on the last
        line Down goes on through history while browsing, else to the line's end."""
        buffer = self.buffer
        if buffer.move_vertical(direction):
            return
        browsing = self._history_index != -1
        if direction < 0 and (browsing or buffer.is_empty() or buffer.col == 0):
            self._history(-1)
        elif direction > 0 and browsing:
            self._history(1)
        else:
            buffer.col = 0 if direction < 0 else len(buffer.lines[buffer.line])
            self._changed()

    def _history(self, direction: int) -> None:
        if not self.history:
            return
        if self._history_index == -1:
            if direction > 0:
                return
            self._draft = self.buffer.text
            self._history_index = len(self.history) - 1
        else:
            self._history_index += direction
        if self._history_index >= len(self.history):
            self._history_index = -1
            self.buffer.set_text(self._draft, keep_undo=False)
        else:
            self._history_index = max(0, self._history_index)
            self.buffer.set_text(self.history[self._history_index], keep_undo=False)
            if direction < 0:  # going back in history puts the cursor at the start (Pi), so Up goes on
                self.buffer.line = self.buffer.col = 0
        self._changed()

    def _paste(self, pasted: str) -> None:
        pasted = pasted.replace("\r\n", "\n").replace("\r", "\n").replace("\t", "    ")
        self.buffer.snapshot()
        lines = pasted.split("\n")
        if len(lines) > 10 or len(pasted) > 1000:
            self._paste_counter += 1
            self.pastes[self._paste_counter] = pasted
            label = f"+{len(lines)} lines" if len(lines) > 10 else f"{len(pasted)} chars"
            self.buffer.insert(f"[paste #{self._paste_counter} {label}]")
        else:
            self.buffer.insert(pasted)
        self._changed()

    def _forget_deleted_pastes(self) -> None:
        if not self.pastes:
            return
        present = {int(m.group(1)) for m in PASTE_MARKER.finditer(self.buffer.text)}
        for paste_id in list(self.pastes):
            if paste_id not in present:
                del self.pastes[paste_id]

    # ------------------------------------------------------------------ completion

    def refresh_completion(self) -> None:
        """Ask the completer again for what the cursor has (its answer for an argument came
        later, from an extension whose ``getArgumentCompletions`` is asynchronous)."""
        self._update_completion(force=False)

    def _update_completion(self, force: bool) -> None:
        if self.completer is None:
            return
        buffer = self.buffer
        previous = self._completion
        self._completion = self.completer.complete(buffer.lines, buffer.line, buffer.col, force)
        if self._completion is None or previous is None or previous.items != self._completion.items:
            self._selected = self._completion.selected if self._completion is not None else 0

    def _completion_key(self, data: str) -> bool:
        completion = self._completion
        assert completion is not None
        keys = self.keybindings
        if keys.matches(data, "tui.select.up"):
            self._selected = (self._selected - 1) % len(completion.items)
            return True
        if keys.matches(data, "tui.select.down"):
            self._selected = (self._selected + 1) % len(completion.items)
            return True
        if keys.matches(data, "tui.input.tab") or keys.matches(data, "tui.select.confirm"):
            command = completion.start == 0 and completion.items[self._selected].value.startswith("/")
            self._accept_completion()
            # Enter on a slash command runs it right away, as in Pi.
            return not (command and keys.matches(data, "tui.input.submit"))
        if keys.matches(data, "tui.select.cancel") and data == "\x1b":
            self._completion = None
            return True
        return False

    def _accept_completion(self) -> None:
        completion = self._completion
        if completion is None:
            return
        item = completion.items[self._selected]
        buffer = self.buffer
        before = (list(buffer.lines), buffer.line, buffer.col)
        buffer.snapshot()
        line = buffer.lines[buffer.line]
        buffer.lines[buffer.line] = line[: completion.start] + item.value + line[buffer.col :]
        buffer.col = completion.start + len(item.value)
        self._completion = None  # closed even after a directory, as in Pi (Tab again lists it)
        self._changed()
        if completion.on_accept is not None:
            completion.on_accept(item, *before)

    def replace_lines(self, lines: list[str], line: int, col: int) -> None:
        """The whole text as ``lines`` with the cursor at ``line``/``col``; no undo step of its
        own (it corrects the completion just put in: undo goes back to before it)."""
        buffer = self.buffer
        buffer.lines = list(lines) or [""]
        buffer.line = max(0, min(line, len(buffer.lines) - 1))
        buffer.col = max(0, min(col, len(buffer.lines[buffer.line])))
        self._completion = None
        self._changed()

    @property
    def completion_open(self) -> bool:
        return self._completion is not None

    # ------------------------------------------------------------------ rendering

    def render(self, width: int) -> list[str]:
        inner = max(1, width - 2 * self.padding_x)
        margin = " " * self.padding_x
        rows: list[str] = []
        cursor_row = 0
        buffer = self.buffer
        for index, line in enumerate(buffer.lines):
            cursor = buffer.col if index == buffer.line else None
            wrapped, at = _wrap_editor_line(line, inner, cursor)
            if at is not None:
                cursor_row = len(rows) + at[0]
                wrapped[at[0]] = self._with_cursor(wrapped[at[0]], at[1])
            rows.extend(wrapped)
        if len(rows) > self.max_height:
            start = min(max(0, cursor_row - self.max_height + 1), len(rows) - self.max_height)
            rows = rows[start : start + self.max_height]
        rule = self.border("─" * width)
        lines = [self._top_border(width) or rule, *(margin + row for row in rows), rule]
        lines.extend(self._render_completion(width))
        return lines

    def _top_border(self, width: int) -> str | None:
        status = self.border_status(max(1, width - 5)) if self.border_status is not None else ""
        status_width = visible_width(status)
        if not status or width < status_width + 5:
            return None
        return self.border("── ") + status + self.border(" " + "─" * (width - status_width - 4))

    def _with_cursor(self, row: str, column: int) -> str:
        if not self.focused:
            return row
        before, rest = _split_at_column(row, column)
        under = rest[:1] if rest else " "
        after = rest[1:] if rest else ""
        return f"{before}{CURSOR_MARKER}\x1b[7m{under}\x1b[27m{after}"

    def _render_completion(self, width: int) -> list[str]:
        """The suggestions as Pi's select list: a 12..32-cell label column for commands,
        a fixed 32-cell one for paths, the description beside the label."""
        completion = self._completion
        if completion is None:
            return []
        items = completion.items
        command = completion.start == 0 and items[0].value.startswith("/")
        column = label_column([item.label for item in items], 12 if command else 32, 32)
        count = min(self.max_visible_items, len(items))
        start = min(max(0, self._selected - count // 2), len(items) - count)
        lines = [
            select_row(
                item.label,
                item.description,
                index == self._selected,
                width,
                column,
                selected_style=self.selected_style,
                description_style=self.muted_style,
            )
            for index, item in enumerate(items)
            if start <= index < start + count
        ]
        if len(items) > count:
            lines.append(self.muted_style(f"  ({self._selected + 1}/{len(items)})"))
        return lines

    def invalidate(self) -> None:
        return


def _split_at_column(text: str, column: int) -> tuple[str, str]:
    used = 0
    for index, char in enumerate(text):
        if used >= column:
            return text[:index], text[index:]
        used += char_width(char)
    return text, ""


def _wrap_editor_line(line: str, width: int, cursor: int | None) -> tuple[list[str], tuple[int, int] | None]:
    """``line`` cut into rows of ``width`` columns; where the cursor (a character index) lands."""
    if line.isascii() and len(line) < width:
        return [line], (None if cursor is None else (0, cursor))
    rows: list[str] = []
    row: list[str] = []
    used = 0
    at: tuple[int, int] | None = None
    for index, char in enumerate(line):
        if cursor == index:
            at = (len(rows), used) if used < width else (len(rows) + 1, 0)
        w = char_width(char)
        if used + w > width:
            rows.append("".join(row))
            row, used = [], 0
            if cursor == index:
                at = (len(rows), 0)
        row.append(char)
        used += w
    if cursor is not None and cursor >= len(line):
        if used >= width:
            rows.append("".join(row))
            row, used = [], 0
        at = (len(rows), used)
    rows.append("".join(row))
    return rows, at
