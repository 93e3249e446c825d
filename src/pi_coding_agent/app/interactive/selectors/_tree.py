"""``/tree``: the session's entries as a tree, to jump to any point (Pi's tree selector).

The branch that holds the current leaf is listed first at every fork. A chain of single
children stays in one column; a fork indents its children and draws ``├─``/``└─`` with
``│`` gutters. ``•`` marks the entries on the current path, ``[label]`` their labels.
Filters (Ctrl+D default, Ctrl+T no tool results, Ctrl+U user messages, Ctrl+L labeled,
Ctrl+A all, Ctrl+O/Shift+Ctrl+O cycle) and typing to search narrow the list; Ctrl+Left/Right
fold a branch or jump between branch starts; Shift+L edits a label, Shift+T shows label
times, Ctrl+X copies the entry's text; Enter picks, Escape clears the search or closes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pi_ai import content_text
from pi_ai.js_json import stringify
from pi_coding_agent.app.interactive.selectors._base import SelectorContext
from pi_coding_agent.core.session import SessionTreeNode
from pi_tui import (
    Container,
    Input,
    Spacer,
    Text,
    slice_columns,
    terminal_safe,
    truncate_to_width,
    visible_width,
)

FILTERS = ("default", "no-tools", "user-only", "labeled-only", "all")
_FILTER_LABELS = {
    "no-tools": " [no-tools]",
    "user-only": " [user]",
    "labeled-only": " [labeled]",
    "all": " [all]",
}
_FILTER_KEYS = {
    "app.tree.filter.default": "default", "app.tree.filter.noTools": "no-tools",
    "app.tree.filter.userOnly": "user-only", "app.tree.filter.labeledOnly": "labeled-only",
    "app.tree.filter.all": "all",
}  # fmt: skip
_BOOKKEEPING = {"label", "custom", "model_change", "thinking_level_change", "session_info"}
GUTTER_WIDTH = 2


@dataclass
class Row:
    node: SessionTreeNode
    indent: int = 0
    connector: bool = False
    last: bool = True
    gutters: list[tuple[int, bool]] = field(default_factory=list)
    virtual_root_child: bool = False

    @property
    def id(self) -> str:
        return str(self.node.entry.id)

    @property
    def parent_id(self) -> str | None:
        return getattr(self.node.entry, "parent_id", None)


def _text_of(content: Any) -> str:
    """The text of an entry's content; nothing where an entry has none (``None``, unset, no field)."""
    return content_text(content, "") if isinstance(content, (str, list)) else ""


def _one_line(text: str, limit: int = 200) -> str:
    """A session entry's text on one line, through the terminal-output policy (no colours)."""
    return " ".join(terminal_safe(text[:limit], keep_sgr=False).replace("\t", " ").split("\n")).strip()


class TreeList:
    def __init__(
        self,
        ctx: SelectorContext,
        roots: list[SessionTreeNode],
        leaf_id: str | None,
        max_visible: int,
        *,
        selected_id: str | None = None,
        filter_mode: str = "default",
    ) -> None:
        self.ctx = ctx
        self.leaf_id = leaf_id
        self.max_visible = max_visible
        self.filter_mode = filter_mode if filter_mode in FILTERS else "default"
        self.query = ""
        self.show_label_times = False
        self.folded: set[str] = set()
        self.tool_calls: dict[str, tuple[str, dict[str, Any]]] = {}
        self.rows = self._flatten(roots)
        self.by_id = {row.id: row for row in self.rows}
        self.active = self._active_path()
        self.visible: list[Row] = []
        self.selected = 0
        self.multiple_roots = False
        self._parent: dict[str, str | None] = {}
        self._children: dict[str | None, list[str]] = {}
        self.on_select: Callable[[str], None] | None = None
        self.on_cancel: Callable[[], None] | None = None
        self.on_copy: Callable[[str | None], None] | None = None
        self.on_label_edit: Callable[[str, str | None], None] | None = None
        self._apply_filter(selected_id or leaf_id)

    # ------------------------------------------------------------------ structure

    def _flatten(self, roots: list[SessionTreeNode]) -> list[Row]:
        holds_leaf: dict[int, bool] = {}

        def mark(node: SessionTreeNode) -> bool:
            stack: list[tuple[SessionTreeNode, bool]] = [(node, False)]
            while stack:
                current, done = stack.pop()
                if done:
                    holds_leaf[id(current)] = current.entry.id == self.leaf_id or any(
                        holds_leaf[id(child)] for child in current.children
                    )
                else:
                    stack.append((current, True))
                    stack.extend((child, False) for child in current.children)
            return holds_leaf[id(node)]

        for root in roots:
            mark(root)
        rows: list[Row] = []
        stack = sorted(roots, key=lambda n: not holds_leaf[id(n)])[::-1]
        while stack:
            node = stack.pop()
            self._note_tool_calls(node)
            rows.append(Row(node))
            children = sorted(node.children, key=lambda n: not holds_leaf[id(n)])
            stack.extend(reversed(children))
        return rows

    def _note_tool_calls(self, node: SessionTreeNode) -> None:
        message = getattr(node.entry, "message", None)
        if getattr(message, "role", "") != "assistant":
            return
        for block in getattr(message, "content", []) or []:
            if getattr(block, "type", "") == "toolCall":
                self.tool_calls[block.id] = (
                    block.name,
                    block.arguments if isinstance(block.arguments, dict) else {},
                )

    def _active_path(self) -> set[str]:
        path: set[str] = set()
        current = self.leaf_id
        while current is not None and current in self.by_id and current not in path:
            path.add(current)
            current = self.by_id[current].parent_id
        return path

    def _passes(self, row: Row) -> bool:
        entry = row.node.entry
        message = getattr(entry, "message", None)
        role = getattr(message, "role", None) if entry.type == "message" else None
        if role == "assistant" and row.id != self.leaf_id:
            stop = getattr(message, "stop_reason", "stop")
            has_text = bool(_text_of(getattr(message, "content", "")).strip())
            if not has_text and stop in ("stop", "toolUse"):
                return False
        mode = self.filter_mode
        if mode == "user-only":
            passes = role == "user"
        elif mode == "no-tools":
            passes = entry.type not in _BOOKKEEPING and role != "toolResult"
        elif mode == "labeled-only":
            passes = row.node.label is not None
        else:
            passes = mode == "all" or entry.type not in _BOOKKEEPING
        if not passes:
            return False
        words = self.query.lower().split()
        return all(word in self._searchable(row).lower() for word in words)

    def _searchable(self, row: Row) -> str:
        entry = row.node.entry
        parts = [row.node.label or ""]
        if entry.type == "message":
            message = entry.message  # type: ignore[union-attr]
            parts += [getattr(message, "role", ""), _text_of(getattr(message, "content", "")),
                      str(getattr(message, "command", "") or "")]  # fmt: skip
        elif entry.type == "custom_message":
            parts += [entry.custom_type, _text_of(entry.content)]  # type: ignore[union-attr]
        elif entry.type == "branch_summary":
            parts += ["branch summary", entry.summary]  # type: ignore[union-attr]
        elif entry.type in (
            "compaction",
            "model_change",
            "thinking_level_change",
            "custom",
            "label",
            "session_info",
        ):
            parts.append(entry.type)
            parts.append(str(getattr(entry, "model_id", "") or getattr(entry, "thinking_level", "") or ""))
            parts.append(str(getattr(entry, "name", "") or getattr(entry, "label", "") or ""))
        return " ".join(part for part in parts if isinstance(part, str))

    def _apply_filter(self, keep_id: str | None = None) -> None:
        keep = keep_id or (self.visible[self.selected].id if self.visible else None)
        visible = [row for row in self.rows if self._passes(row)]
        if self.folded:
            hidden: set[str] = set()
            for row in self.rows:
                parent = row.parent_id
                if parent is not None and (parent in self.folded or parent in hidden):
                    hidden.add(row.id)
            visible = [row for row in visible if row.id not in hidden]
        self.visible = visible
        self._lay_out()
        self.selected = self._nearest_visible(keep)

    def _nearest_visible(self, entry_id: str | None) -> int:
        if not self.visible:
            return 0
        index = {row.id: i for i, row in enumerate(self.visible)}
        current = entry_id
        while current is not None:
            if current in index:
                return index[current]
            row = self.by_id.get(current)
            current = row.parent_id if row is not None else None
        return len(self.visible) - 1

    def _lay_out(self) -> None:
        """Indentation, connectors and gutters of the visible entries (attached to their nearest
        visible ancestor), by Pi's rules: a fork indents its children, the first generation after
        a fork is indented once more, a chain of single children stays in its column."""
        shown = {row.id for row in self.visible}
        parent: dict[str, str | None] = {}
        children: dict[str | None, list[str]] = {None: []}
        for row in self.visible:
            ancestor = row.parent_id
            while ancestor is not None and ancestor not in shown:
                ancestor = self.by_id[ancestor].parent_id if ancestor in self.by_id else None
            parent[row.id] = ancestor
            children.setdefault(ancestor, []).append(row.id)
        self._parent, self._children = parent, children
        roots = children[None]
        multiple = len(roots) > 1
        self.multiple_roots = multiple
        no_gutters: list[tuple[int, bool]] = []
        stack = [
            (root, 1 if multiple else 0, multiple, multiple, i == len(roots) - 1, no_gutters, multiple)
            for i, root in enumerate(roots)
        ][::-1]
        while stack:
            node_id, indent, just_branched, connector, last, gutters, virtual = stack.pop()
            row = self.by_id[node_id]
            row.indent, row.connector, row.last, row.gutters, row.virtual_root_child = (
                indent,
                connector,
                last,
                gutters,
                virtual,
            )
            kids = children.get(node_id, [])
            branches = len(kids) > 1
            child_indent = indent + 1 if branches or (just_branched and indent > 0) else indent
            display = max(0, indent - 1) if multiple else indent
            child_gutters = (
                [*gutters, (max(0, display - 1), not last)] if connector and not virtual else gutters
            )
            for i in range(len(kids) - 1, -1, -1):
                stack.append(
                    (kids[i], child_indent, branches, branches, i == len(kids) - 1, child_gutters, False)
                )

    def _foldable(self, entry_id: str) -> bool:
        if not self._children.get(entry_id):
            return False
        parent = self._parent.get(entry_id)
        return parent is None or len(self._children.get(parent, [])) > 1

    def _segment_start(self, direction: str) -> int:
        if not self.visible:
            return 0
        index = {row.id: i for i, row in enumerate(self.visible)}
        current = self.visible[self.selected].id
        if direction == "down":
            while True:
                kids = self._children.get(current, [])
                if not kids:
                    return index[current]
                if len(kids) > 1:
                    return index[kids[0]]
                current = kids[0]
        while True:
            parent = self._parent.get(current)
            if parent is None:
                return index[current]
            if len(self._children.get(parent, [])) > 1 and index[current] < self.selected:
                return index[current]
            current = parent

    # ------------------------------------------------------------------ input

    def handle_input(self, data: str) -> None:
        keys = self.ctx.keys
        count = len(self.visible)
        current = self.visible[self.selected].id if self.visible else None
        filter_action = keys.action_for(data, tuple(_FILTER_KEYS))
        if keys.matches(data, "tui.select.up") and count:
            self.selected = count - 1 if self.selected == 0 else self.selected - 1
        elif keys.matches(data, "tui.select.down") and count:
            self.selected = 0 if self.selected == count - 1 else self.selected + 1
        elif keys.matches(data, "app.tree.foldOrUp") and current is not None:
            if self._foldable(current) and current not in self.folded:
                self.folded.add(current)
                self._apply_filter(current)
            else:
                self.selected = self._segment_start("up")
        elif keys.matches(data, "app.tree.unfoldOrDown") and current is not None:
            if current in self.folded:
                self.folded.discard(current)
                self._apply_filter(current)
            else:
                self.selected = self._segment_start("down")
        elif keys.matches(data, "tui.editor.cursorLeft") or keys.matches(data, "tui.select.pageUp"):
            self.selected = max(0, self.selected - self.max_visible)
        elif keys.matches(data, "tui.editor.cursorRight") or keys.matches(data, "tui.select.pageDown"):
            self.selected = max(0, min(count - 1, self.selected + self.max_visible))
        elif keys.matches(data, "tui.select.confirm"):
            if current is not None and self.on_select is not None:
                self.on_select(current)
        elif keys.matches(data, "app.message.copy"):
            if self.on_copy is not None:
                self.on_copy(self._copy_text(self.visible[self.selected]) if self.visible else None)
        elif keys.matches(data, "tui.select.cancel"):
            if self.query:
                self._set_query("")
            elif self.on_cancel is not None:
                self.on_cancel()
        elif filter_action is not None:
            mode = _FILTER_KEYS[filter_action]
            self._set_filter("default" if mode == self.filter_mode and mode != "default" else mode)
        elif keys.matches(data, "app.tree.filter.cycleForward") or keys.matches(
            data, "app.tree.filter.cycleBackward"
        ):
            step = 1 if keys.matches(data, "app.tree.filter.cycleForward") else -1
            self._set_filter(FILTERS[(FILTERS.index(self.filter_mode) + step) % len(FILTERS)])
        elif keys.matches(data, "tui.editor.deleteCharBackward"):
            self._set_query(self.query[:-1])
        elif keys.matches(data, "app.tree.editLabel"):
            if current is not None and self.on_label_edit is not None:
                self.on_label_edit(current, self.by_id[current].node.label)
        elif keys.matches(data, "app.tree.toggleLabelTimestamp"):
            self.show_label_times = not self.show_label_times
        elif data and all(ord(c) >= 32 and c != "\x7f" and not 0x80 <= ord(c) <= 0x9F for c in data):
            self._set_query(self.query + data)

    def _set_query(self, query: str) -> None:
        self.query = query
        self.folded.clear()
        self._apply_filter()

    def _set_filter(self, mode: str) -> None:
        self.filter_mode = mode
        self.folded.clear()
        self._apply_filter()

    def set_label(self, entry_id: str, label: str | None) -> None:
        row = self.by_id.get(entry_id)
        if row is not None:
            row.node.label = label
            row.node.label_timestamp = datetime.now().astimezone().isoformat() if label else None

    # ------------------------------------------------------------------ rendering

    def status_labels(self) -> str:
        return _FILTER_LABELS.get(self.filter_mode, "") + (" [+label time]" if self.show_label_times else "")

    def render(self, width: int) -> list[str]:
        theme = self.ctx.theme
        if not self.visible:
            return [truncate_to_width(theme.fg("muted", "  No entries found"), width),
                    truncate_to_width(theme.fg("muted", f"  (0/0){self.status_labels()}"), width)]  # fmt: skip
        count = len(self.visible)
        start = max(0, min(self.selected - self.max_visible // 2, count - self.max_visible))
        rows = [self._render_row(i) for i in range(start, min(start + self.max_visible, count))]
        lines = _viewport(rows, width)
        lines.append(
            truncate_to_width(
                theme.fg("muted", f"  ({self.selected + 1}/{count}){self.status_labels()}"), width
            )
        )
        return lines

    def _render_row(self, index: int) -> tuple[str, str, int, bool]:
        theme = self.ctx.theme
        row = self.visible[index]
        selected = index == self.selected
        display = max(0, row.indent - 1) if self.multiple_roots else row.indent
        connector = row.connector and not row.virtual_root_child
        folded = row.id in self.folded
        chars: list[str] = []
        for i in range(display * 3):
            level, at = divmod(i, 3)
            shown = next((show for position, show in row.gutters if position == level), None)
            if shown is not None:
                chars.append(("│" if shown else " ") if at == 0 else " ")
            elif connector and level == display - 1:
                marker = "⊞" if folded else "⊟" if self._foldable(row.id) else "─"
                chars.append(("└" if row.last else "├", marker, " ")[at])
            else:
                chars.append(" ")
        fold = theme.fg("accent", "⊞ ") if folded and not connector else ""
        path = theme.fg("accent", "• ") if row.id in self.active else ""
        prefix = theme.fg("dim", "".join(chars)) + fold + path
        label = theme.fg("warning", f"[{row.node.label}] ") if row.node.label else ""
        stamp = ""
        if self.show_label_times and row.node.label and row.node.label_timestamp:
            stamp = theme.fg("muted", _label_time(row.node.label_timestamp) + " ")
        content = self._display_text(row)
        body = prefix + label + stamp + (theme.bold(content) if selected else content)
        gutter = theme.fg("accent", "› ") if selected else "  "
        if selected:
            gutter, body = theme.bg("selectedBg", gutter), theme.bg("selectedBg", body)
        return gutter, body, visible_width(prefix), selected

    def _display_text(self, row: Row) -> str:
        theme = self.ctx.theme
        entry = row.node.entry
        kind = entry.type
        if kind == "message":
            return self._message_text(entry.message)  # type: ignore[union-attr]
        if kind == "custom_message":
            content = _one_line(_text_of(entry.content))  # type: ignore[union-attr]
            return theme.fg("customMessageLabel", f"[{entry.custom_type}]: ") + content  # type: ignore[union-attr]
        if kind == "compaction":
            return theme.fg("borderAccent", f"[compaction: {round(entry.tokens_before / 1000)}k tokens]")  # type: ignore[union-attr]
        if kind == "branch_summary":
            return theme.fg("warning", "[branch summary]: ") + _one_line(entry.summary)  # type: ignore[union-attr]
        if kind == "model_change":
            return theme.fg("dim", f"[model: {entry.model_id}]")  # type: ignore[union-attr]
        if kind == "thinking_level_change":
            return theme.fg("dim", f"[thinking: {entry.thinking_level}]")  # type: ignore[union-attr]
        if kind == "custom":
            return theme.fg("dim", f"[custom: {entry.custom_type}]")  # type: ignore[union-attr]
        if kind == "label":
            label = getattr(entry, "label", None)
            return theme.fg("dim", f"[label: {label if isinstance(label, str) and label else '(cleared)'}]")
        if kind == "session_info":
            name = getattr(entry, "name", None)
            inner = (
                theme.fg("dim", name)
                if isinstance(name, str) and name
                else theme.italic(theme.fg("dim", "empty"))
            )
            return theme.fg("dim", "[title: ") + inner + theme.fg("dim", "]")
        return ""

    def _message_text(self, message: Any) -> str:
        theme = self.ctx.theme
        role = getattr(message, "role", "")
        if role == "user":
            return theme.fg("accent", "user: ") + _one_line(_text_of(message.content))
        if role == "assistant":
            text = _one_line(_text_of(message.content))
            head = theme.fg("success", "assistant: ")
            if text:
                return head + text
            if message.stop_reason == "aborted":
                return head + theme.fg("muted", "(aborted)")
            if message.error_message:
                return head + theme.fg("error", _one_line(message.error_message)[:80])
            return head + theme.fg("muted", "(no content)")
        if role == "toolResult":
            call = self.tool_calls.get(message.tool_call_id)
            shown = format_tool_call(*call) if call else f"[{getattr(message, 'tool_name', None) or 'tool'}]"
            return theme.fg("muted", shown)
        if role == "bashExecution":
            return theme.fg("dim", f"[bash]: {_one_line(str(message.command or ''))}")
        return theme.fg("dim", f"[{role}]")

    def _copy_text(self, row: Row) -> str | None:
        entry = row.node.entry
        text: str | None = None
        if entry.type == "message":
            message = entry.message  # type: ignore[union-attr]
            if getattr(message, "role", "") == "bashExecution":
                text = message.command
            else:
                text = _text_of(getattr(message, "content", ""))
                if not text and getattr(message, "role", "") == "assistant":
                    text = message.error_message
        elif entry.type == "custom_message":
            text = _text_of(entry.content)  # type: ignore[union-attr]
        elif entry.type in ("compaction", "branch_summary"):
            text = entry.summary  # type: ignore[union-attr]
        return text if text and text.strip() else None

    def invalidate(self) -> None:
        return


def format_tool_call(name: str, args: dict[str, Any]) -> str:
    """``[read: path:1-20]``, ``[bash: command]``, ... as the tree names a tool result."""
    home = os.path.expanduser("~")

    def short(value: object) -> str:
        text = str(value or "")
        return "~" + text[len(home) :] if home and text.startswith(home) else text

    path = short(args.get("path") or args.get("file_path"))
    if name == "read":
        offset, limit = args.get("offset"), args.get("limit")
        if offset is not None or limit is not None:
            first = offset if offset is not None else 1
            end = f"-{first + limit - 1}" if isinstance(limit, int) and isinstance(first, int) else ""
            path += f":{first}{end}"
        return f"[read: {path}]"
    if name in ("write", "edit"):
        return f"[{name}: {path}]"
    if name == "bash":
        command = str(args.get("command") or "")
        shown = " ".join(command.replace("\t", " ").split("\n")).strip()[:50]
        return f"[bash: {shown}{'...' if len(command) > 50 else ''}]"
    if name in ("grep", "find"):
        where = short(args.get("path") or ".")
        pattern = str(args.get("pattern") or "")
        return f"[grep: /{pattern}/ in {where}]" if name == "grep" else f"[find: {pattern} in {where}]"
    if name == "ls":
        return f"[ls: {short(args.get('path') or '.')}]"
    encoded = stringify(args)  # JSON.stringify, as Pi: 3, not 3.0
    return f"[{name}: {encoded[:40]}{'...' if len(encoded) > 40 else ''}]"


def _label_time(stamp: str) -> str:
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone()
    except ValueError:
        return stamp
    now = datetime.now().astimezone()
    clock = moment.strftime("%H:%M")
    if moment.date() == now.date():
        return clock
    if moment.year == now.year:
        return f"{moment.month}/{moment.day} {clock}"
    return f"{moment.strftime('%y')}/{moment.month}/{moment.day} {clock}"


def _viewport(rows: list[tuple[str, str, int, bool]], width: int) -> list[str]:
    """Rows cut to the width; shifted left when the selected row's text would start too far right."""
    room = max(0, width - GUTTER_WIDTH)
    widest = max((visible_width(body) for _, body, _, _ in rows), default=0)
    shift = 0
    selected = next((row for row in rows if row[3]), None)
    if selected is not None and widest > room:
        keep = min(20, max(4, room // 3))
        if selected[2] > room - keep:
            shift = min(widest - room, selected[2] - min(12, max(2, room // 4)))
    lines = []
    for gutter, body, _, _ in rows:
        line = gutter + (slice_columns(body, shift, room) + "\x1b[0m" if shift > 0 else body)
        lines.append(truncate_to_width(line, width, ""))
    return lines


class TreeSelector(Container):
    """The tree list framed with a title, the keys and the search line; Shift+L opens a label input."""

    def __init__(
        self,
        ctx: SelectorContext,
        roots: list[SessionTreeNode],
        leaf_id: str | None,
        *,
        on_select: Callable[[str], None],
        on_cancel: Callable[[], None],
        on_label: Callable[[str, str | None], None],
        terminal_rows: int = 24,
        selected_id: str | None = None,
        filter_mode: str = "default",
    ) -> None:
        super().__init__()
        self.ctx = ctx
        self.tree = TreeList(ctx, roots, leaf_id, max(5, terminal_rows // 2), selected_id=selected_id,
                             filter_mode=filter_mode)  # fmt: skip
        self.tree.on_select = on_select
        self.tree.on_cancel = on_cancel
        self.tree.on_label_edit = self._edit_label
        self.on_label = on_label
        self._label: Input | None = None
        self._label_target = ""
        self.body = Container()
        self.body.add_child(self.tree)
        theme = ctx.theme
        for child in (Spacer(1), ctx.border(), Text(theme.bold("  Session Tree"), 1, 0), _Help(ctx),
                      _SearchLine(ctx, self.tree), ctx.border(), Spacer(1), self.body, Spacer(1), ctx.border()):  # fmt: skip
            self.add_child(child)
        self._focused = False

    @property
    def focused(self) -> bool:
        return self._focused

    @focused.setter
    def focused(self, value: bool) -> None:
        self._focused = value
        if self._label is not None:
            self._label.focused = value

    def _edit_label(self, entry_id: str, current: str | None) -> None:
        self._label = Input(current or "", keybindings=self.ctx.keys)
        self._label.buffer.move_line_start()  # Pi's label input starts with the cursor at the beginning
        self._label.focused = self._focused
        self._label_target = entry_id
        ctx = self.ctx
        hints = f"  {ctx.hint('tui.select.confirm', 'save')}  {ctx.hint('tui.select.cancel', 'cancel')}"
        self.body.children = [Text(ctx.theme.fg("muted", "Label (empty to remove):"), 2, 0), _Indented(self._label),
                              Text(hints, 0, 0)]  # fmt: skip

    def _close_label(self) -> None:
        self._label = None
        self.body.children = [self.tree]

    def handle_input(self, data: str) -> None:
        label = self._label
        if label is None:
            self.tree.handle_input(data)
            return
        keys = self.ctx.keys
        if keys.matches(data, "tui.select.confirm"):
            value = label.value.strip() or None
            self.tree.set_label(self._label_target, value)
            self.on_label(self._label_target, value)
            self._close_label()
        elif keys.matches(data, "tui.select.cancel"):
            self._close_label()
        else:
            label.handle_input(data)


class _Indented:
    def __init__(self, inner: Input) -> None:
        self.inner = inner

    def render(self, width: int) -> list[str]:
        return ["  " + line for line in self.inner.render(max(1, width - 2))]

    def invalidate(self) -> None:
        return


class _SearchLine:
    def __init__(self, ctx: SelectorContext, tree: TreeList) -> None:
        self.ctx, self.tree = ctx, tree

    def render(self, width: int) -> list[str]:
        theme = self.ctx.theme
        query = f" {theme.fg('accent', self.tree.query)}" if self.tree.query else ""
        return [truncate_to_width(f"  {theme.fg('muted', 'Type to search:')}{query}", width)]

    def invalidate(self) -> None:
        return


_HELP = (
    (("tui.select.up", "tui.select.down"), "move", False),
    (("tui.editor.cursorLeft", "tui.editor.cursorRight"), "page", False),
    (("app.tree.foldOrUp", "app.tree.unfoldOrDown"), "branch", False),
    (("app.message.copy",), "copy", False),
    (("app.tree.editLabel",), "label", False),
    (("app.tree.toggleLabelTimestamp",), "label time", False),
    (tuple(_FILTER_KEYS), "filters", True),
    (("app.tree.filter.cycleForward", "app.tree.filter.cycleBackward"), "cycle", True),
)
_ARROWS = {"pageUp": "pgup", "pageDown": "pgdn", "up": "↑", "down": "↓", "left": "←", "right": "→"}


class _Help:
    """The tree's key help, one item per key group, wrapped at item boundaries."""

    def __init__(self, ctx: SelectorContext) -> None:
        self.ctx = ctx

    def _keys(self, actions: tuple[str, ...]) -> str:
        firsts = [self.ctx.keys.keys(action)[0] for action in actions if self.ctx.keys.keys(action)]
        if not firsts:
            return ""
        parts = [key.rpartition("+") for key in firsts]
        prefix = parts[0][0] + parts[0][1]
        if prefix and all(p[0] + p[1] == prefix for p in parts) and len(firsts) > 1:
            text = prefix + "/".join(p[2] for p in parts)
        else:
            text = "/".join(firsts)
        return re.sub(r"\b(pageUp|pageDown|up|down|left|right)\b", lambda m: _ARROWS[m.group(1)], text)

    def render(self, width: int) -> list[str]:
        items = []
        for actions, label, label_first in _HELP:
            keys = self._keys(actions)
            items.append(label if not keys else f"{label} {keys}" if label_first else f"{keys} {label}")
        lines: list[str] = []
        line = ""
        for item in items:
            candidate = f"{line} · {item}" if line else f"  {item}"
            if line and visible_width(candidate) > width:
                lines.append(line)
                candidate = f"  {item}"
            line = candidate
        if line:
            lines.append(line)
        return [self.ctx.theme.fg("muted", truncate_to_width(text, width, "")) for text in lines]

    def invalidate(self) -> None:
        return
