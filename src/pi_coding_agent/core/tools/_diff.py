"""Line diffs for the ``edit`` tool's ``details``: a numbered display diff and a unified patch.

Pi computes both with the ``diff`` npm package (v8). Sessions store them, and UIs render
them, so the hunks must come out the same: when a change can be expressed by several
minimal scripts, the choice here is the one that package makes. The algorithm is Myers'
O(ND) greedy search over line tokens, exploring diagonals from -D to D, extending a path
by an insertion when that reaches further into the old text than a deletion would (ties
go to the deletion), and stopping exploration of diagonals that already touched an edge.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_LINE_SPLIT = re.compile(r"(\n|\r\n)")


@dataclass(slots=True)
class Change:
    value: str
    count: int
    added: bool
    removed: bool


class _Component:
    __slots__ = ("added", "count", "previous", "removed")

    def __init__(self, count: int, added: bool, removed: bool, previous: _Component | None) -> None:
        self.count = count
        self.added = added
        self.removed = removed
        self.previous = previous


class _Path:
    __slots__ = ("last", "old_pos")

    def __init__(self, old_pos: int, last: _Component | None) -> None:
        self.old_pos = old_pos
        self.last = last


def tokenize_lines(text: str) -> list[str]:
    """Lines with their line break attached; no empty trailing token."""
    parts = _LINE_SPLIT.split(text)
    if parts and not parts[-1]:
        parts.pop()
    tokens: list[str] = []
    for index, part in enumerate(parts):
        if index % 2:
            tokens[-1] += part
        else:
            tokens.append(part)
    return [token for token in tokens if token]


def _extend(path: _Path, new: list[str], old: list[str], diagonal: int) -> int:
    old_pos = path.old_pos
    new_pos = old_pos - diagonal
    common = 0
    while new_pos + 1 < len(new) and old_pos + 1 < len(old) and old[old_pos + 1] == new[new_pos + 1]:
        new_pos += 1
        old_pos += 1
        common += 1
    if common:
        path.last = _Component(common, False, False, path.last)
    path.old_pos = old_pos
    return new_pos


def _step(path: _Path, added: bool, removed: bool, old_inc: int) -> _Path:
    last = path.last
    if last is not None and last.added == added and last.removed == removed:
        return _Path(path.old_pos + old_inc, _Component(last.count + 1, added, removed, last.previous))
    return _Path(path.old_pos + old_inc, _Component(1, added, removed, last))


def _values(last: _Component | None, new: list[str], old: list[str]) -> list[Change]:
    components: list[_Component] = []
    while last is not None:
        components.append(last)
        last = last.previous
    components.reverse()
    changes: list[Change] = []
    new_pos = old_pos = 0
    for component in components:
        if component.removed:
            value = "".join(old[old_pos : old_pos + component.count])
            old_pos += component.count
        else:
            value = "".join(new[new_pos : new_pos + component.count])
            new_pos += component.count
            if not component.added:
                old_pos += component.count
        changes.append(Change(value, component.count, component.added, component.removed))
    return changes


def diff_lines(old_text: str, new_text: str) -> list[Change]:
    """The change list between two texts, line by line (``diffLines`` of the diff package)."""
    old = tokenize_lines(old_text)
    new = tokenize_lines(new_text)
    new_len, old_len = len(new), len(old)
    best: dict[int, _Path | None] = {0: _Path(-1, None)}
    start = best[0]
    assert start is not None
    new_pos = _extend(start, new, old, 0)
    if start.old_pos + 1 >= old_len and new_pos + 1 >= new_len:
        return _values(start.last, new, old)
    min_diagonal = -(1 << 62)
    max_diagonal = 1 << 62
    edit_length = 1
    while edit_length <= new_len + old_len:
        diagonal = max(min_diagonal, -edit_length)
        top = min(max_diagonal, edit_length)
        while diagonal <= top:
            remove_path = best.get(diagonal - 1)
            add_path = best.get(diagonal + 1)
            if remove_path is not None:
                best[diagonal - 1] = None
            can_add = False
            if add_path is not None:
                add_new_pos = add_path.old_pos - diagonal
                can_add = 0 <= add_new_pos < new_len
            can_remove = remove_path is not None and remove_path.old_pos + 1 < old_len
            if not can_add and not can_remove:
                best[diagonal] = None
                diagonal += 2
                continue
            if not can_remove or (can_add and remove_path.old_pos < add_path.old_pos):  # type: ignore[union-attr]
                assert add_path is not None
                path = _step(add_path, True, False, 0)
            else:
                assert remove_path is not None
                path = _step(remove_path, False, True, 1)
            new_pos = _extend(path, new, old, diagonal)
            if path.old_pos + 1 >= old_len and new_pos + 1 >= new_len:
                return _values(path.last, new, old)
            best[diagonal] = path
            if path.old_pos + 1 >= old_len:
                max_diagonal = min(max_diagonal, diagonal - 1)
            if new_pos + 1 >= new_len:
                min_diagonal = max(min_diagonal, diagonal + 1)
            diagonal += 2
        edit_length += 1
    raise AssertionError("unreachable: a diff always exists")


def _split_keeping_newlines(text: str) -> list[str]:
    has_trailing = text.endswith("\n")
    lines = [line + "\n" for line in text.split("\n")]
    if has_trailing:
        lines.pop()
    else:
        lines[-1] = lines[-1][:-1]
    return lines


def unified_patch(old_name: str, new_name: str, old_text: str, new_text: str, context: int = 4) -> str:
    """A unified diff with ``---``/``+++`` headers only (no ``Index:`` line), like Pi's ``patch``."""
    changes = diff_lines(old_text, new_text)
    entries = [(c, _split_keeping_newlines(c.value)) for c in changes]
    entries.append((Change("", 0, False, False), []))
    hunks: list[tuple[int, int, int, int, list[str]]] = []
    old_start = new_start = 0
    current: list[str] = []
    old_line = new_line = 1
    for index, (change, lines) in enumerate(entries):
        if change.added or change.removed:
            if not old_start:
                old_start, new_start = old_line, new_line
                if index > 0:
                    previous = entries[index - 1][1]
                    current = [" " + line for line in previous[-context:]] if context > 0 else []
                    old_start -= len(current)
                    new_start -= len(current)
            current.extend(("+" if change.added else "-") + line for line in lines)
            if change.added:
                new_line += len(lines)
            else:
                old_line += len(lines)
        else:
            if old_start:
                if len(lines) <= context * 2 and index < len(entries) - 2:
                    current.extend(" " + line for line in lines)
                else:
                    size = min(len(lines), context)
                    current.extend(" " + line for line in lines[:size])
                    hunks.append(
                        (
                            old_start,
                            old_line - old_start + size,
                            new_start,
                            new_line - new_start + size,
                            current,
                        )
                    )
                    old_start = new_start = 0
                    current = []
            old_line += len(lines)
            new_line += len(lines)
    out = [f"--- {old_name}", f"+++ {new_name}"]
    for o_start, o_count, n_start, n_count, lines in hunks:
        out.append(
            f"@@ -{o_start - 1 if o_count == 0 else o_start},{o_count} "
            f"+{n_start - 1 if n_count == 0 else n_start},{n_count} @@"
        )
        for line in lines:
            if line.endswith("\n"):
                out.append(line[:-1])
            else:
                out.append(line)
                out.append("\\ No newline at end of file")
    return "\n".join(out) + "\n"


def display_diff(old_text: str, new_text: str, context: int = 4) -> tuple[str, int | None]:
    """Numbered diff for UIs (``+ 12 text``, ``- 12 text``, ``  12 text``, `` ...``).

    Returns the text and the first changed line number in the new file.
    """
    changes = diff_lines(old_text, new_text)
    output: list[str] = []
    width = len(str(max(len(old_text.split("\n")), len(new_text.split("\n")))))
    pad = " " * width
    old_no = new_no = 1
    last_was_change = False
    first_changed: int | None = None

    def numbered(prefix: str, number: int, line: str) -> str:
        return f"{prefix}{str(number).rjust(width)} {line}"

    for index, change in enumerate(changes):
        raw = change.value.split("\n")
        if raw[-1] == "":
            raw.pop()
        if change.added or change.removed:
            if first_changed is None:
                first_changed = new_no
            for line in raw:
                if change.added:
                    output.append(numbered("+", new_no, line))
                    new_no += 1
                else:
                    output.append(numbered("-", old_no, line))
                    old_no += 1
            last_was_change = True
            continue
        next_is_change = index < len(changes) - 1 and (changes[index + 1].added or changes[index + 1].removed)
        if last_was_change and next_is_change:
            if len(raw) <= context * 2:
                shown_head, skipped, shown_tail = raw, 0, []
            else:
                shown_head, skipped, shown_tail = raw[:context], len(raw) - 2 * context, raw[-context:]
            for line in shown_head:
                output.append(numbered(" ", old_no, line))
                old_no += 1
                new_no += 1
            if skipped or shown_tail:
                output.append(f" {pad} ...")
                old_no += skipped
                new_no += skipped
                for line in shown_tail:
                    output.append(numbered(" ", old_no, line))
                    old_no += 1
                    new_no += 1
        elif last_was_change:
            shown = raw[:context]
            skipped = len(raw) - len(shown)
            for line in shown:
                output.append(numbered(" ", old_no, line))
                old_no += 1
                new_no += 1
            if skipped > 0:
                output.append(f" {pad} ...")
                old_no += skipped
                new_no += skipped
        elif next_is_change:
            skipped = max(0, len(raw) - context)
            if skipped > 0:
                output.append(f" {pad} ...")
                old_no += skipped
                new_no += skipped
            for line in raw[skipped:]:
                output.append(numbered(" ", old_no, line))
                old_no += 1
                new_no += 1
        else:
            old_no += len(raw)
            new_no += len(raw)
        last_was_change = False
    return "\n".join(output), first_changed
