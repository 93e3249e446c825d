"""The editor's text: lines, a cursor, undo and an Emacs-style kill ring."""

from __future__ import annotations

from dataclasses import dataclass, field

UNDO_LIMIT = 200


def _word_left(line: str, col: int) -> int:
    while col > 0 and not line[col - 1].isalnum():
        col -= 1
    while col > 0 and line[col - 1].isalnum():
        col -= 1
    return col


def _word_right(line: str, col: int) -> int:
    while col < len(line) and not line[col].isalnum():
        col += 1
    while col < len(line) and line[col].isalnum():
        col += 1
    return col


@dataclass
class KillRing:
    entries: list[str] = field(default_factory=list)
    index: int = 0
    last_yank: tuple[int, int, int] | None = None
    """(line, start column, length) of the text the last yank inserted, for yank-pop."""

    def push(self, text: str, append: bool = False, prepend: bool = False) -> None:
        if not text:
            return
        if (append or prepend) and self.entries:
            self.entries[-1] = self.entries[-1] + text if append else text + self.entries[-1]
        else:
            self.entries.append(text)
            del self.entries[:-60]
        self.index = len(self.entries) - 1


class TextBuffer:
    def __init__(self) -> None:
        self.lines: list[str] = [""]
        self.line = 0
        self.col = 0
        self.kill_ring = KillRing()
        self._undo: list[tuple[list[str], int, int]] = []
        self._last_kill = False

    # ------------------------------------------------------------------ state

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def set_text(self, text: str, keep_undo: bool = True) -> None:
        if keep_undo:
            self.snapshot()
        self.lines = text.split("\n") or [""]
        self.line = len(self.lines) - 1
        self.col = len(self.lines[-1])

    def snapshot(self) -> None:
        state = (list(self.lines), self.line, self.col)
        if not self._undo or self._undo[-1] != state:
            self._undo.append(state)
            del self._undo[:-UNDO_LIMIT]

    def undo(self) -> bool:
        if not self._undo:
            return False
        self.lines, self.line, self.col = self._undo.pop()
        self._last_kill = False  # the next kill starts a new kill-ring entry, as in Pi
        self.kill_ring.last_yank = None
        return True

    def is_empty(self) -> bool:
        return len(self.lines) == 1 and not self.lines[0]

    # ------------------------------------------------------------------ editing

    def insert(self, text: str) -> None:
        self._last_kill = False
        self.kill_ring.last_yank = None
        current = self.lines[self.line]
        before, after = current[: self.col], current[self.col :]
        pieces = text.split("\n")
        if len(pieces) == 1:
            self.lines[self.line] = before + text + after
            self.col += len(text)
            return
        new_lines = [before + pieces[0], *pieces[1:-1], pieces[-1] + after]
        self.lines[self.line : self.line + 1] = new_lines
        self.line += len(pieces) - 1
        self.col = len(pieces[-1])

    def delete_backward(self) -> None:
        self._last_kill = False
        if self.col > 0:
            current = self.lines[self.line]
            self.lines[self.line] = current[: self.col - 1] + current[self.col :]
            self.col -= 1
        elif self.line > 0:
            previous = self.lines[self.line - 1]
            self.col = len(previous)
            self.lines[self.line - 1] = previous + self.lines.pop(self.line)
            self.line -= 1

    def delete_forward(self) -> None:
        self._last_kill = False
        current = self.lines[self.line]
        if self.col < len(current):
            self.lines[self.line] = current[: self.col] + current[self.col + 1 :]
        elif self.line < len(self.lines) - 1:
            self.lines[self.line] = current + self.lines.pop(self.line + 1)

    def _kill(self, start: int, end: int, backward: bool) -> None:
        current = self.lines[self.line]
        killed = current[start:end]
        self.kill_ring.push(
            killed, append=self._last_kill and not backward, prepend=self._last_kill and backward
        )
        self.lines[self.line] = current[:start] + current[end:]
        self.col = start
        self._last_kill = True

    def kill_word_backward(self) -> None:
        if self.col == 0:
            self.delete_backward()
            return
        self._kill(_word_left(self.lines[self.line], self.col), self.col, backward=True)

    def kill_word_forward(self) -> None:
        current = self.lines[self.line]
        if self.col >= len(current):
            self.delete_forward()
            return
        self._kill(self.col, _word_right(current, self.col), backward=False)

    def kill_to_line_start(self) -> None:
        if self.col == 0:
            self.delete_backward()
            return
        self._kill(0, self.col, backward=True)

    def kill_to_line_end(self) -> None:
        current = self.lines[self.line]
        if self.col >= len(current):
            self.delete_forward()
            return
        self._kill(self.col, len(current), backward=False)

    def yank(self) -> bool:
        ring = self.kill_ring
        if not ring.entries:
            return False
        text = ring.entries[ring.index]
        line, col = self.line, self.col
        self.insert(text)
        ring.last_yank = (line, col, len(text)) if "\n" not in text else None
        return True

    def yank_pop(self) -> bool:
        ring = self.kill_ring
        if ring.last_yank is None or len(ring.entries) < 2:
            return False
        line, col, length = ring.last_yank
        current = self.lines[line]
        self.lines[line] = current[:col] + current[col + length :]
        self.line, self.col = line, col
        ring.index = (ring.index - 1) % len(ring.entries)
        text = ring.entries[ring.index]
        self.insert(text)
        ring.last_yank = (line, col, len(text)) if "\n" not in text else None
        return True

    # ------------------------------------------------------------------ movement

    def move_left(self) -> None:
        if self.col > 0:
            self.col -= 1
        elif self.line > 0:
            self.line -= 1
            self.col = len(self.lines[self.line])

    def move_right(self) -> None:
        if self.col < len(self.lines[self.line]):
            self.col += 1
        elif self.line < len(self.lines) - 1:
            self.line += 1
            self.col = 0

    def move_word_left(self) -> None:
        if self.col == 0:
            self.move_left()
        else:
            self.col = _word_left(self.lines[self.line], self.col)

    def move_word_right(self) -> None:
        if self.col >= len(self.lines[self.line]):
            self.move_right()
        else:
            self.col = _word_right(self.lines[self.line], self.col)

    def move_line_start(self) -> None:
        self.col = 0

    def move_line_end(self) -> None:
        self.col = len(self.lines[self.line])

    def move_vertical(self, delta: int) -> bool:
        """Move up (-1) or down (+1) a line; False at the first/last line."""
        target = self.line + delta
        if not 0 <= target < len(self.lines):
            return False
        self.line = target
        self.col = min(self.col, len(self.lines[target]))
        return True

    def jump_to_char(self, char: str, forward: bool) -> None:
        current = self.lines[self.line]
        index = current.find(char, self.col + 1) if forward else current.rfind(char, 0, self.col)
        if index >= 0:
            self.col = index
