"""``/resume`` and ``pi -r``: pick a stored session, of this folder or of every project.

Sessions are threaded under the session they were forked from (newest activity first);
``Tab`` switches between this folder and all projects, ``Ctrl+S`` cycles the order
(threaded, recent, fuzzy relevance), ``Ctrl+N`` shows named sessions only, ``Ctrl+P``
shows file paths, ``Ctrl+D`` deletes (after a confirmation), ``Ctrl+R`` renames. Typing
searches ids, names, cwd and every message: words match fuzzily, ``"a phrase"`` exactly,
``re:pattern`` as a regular expression.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol

from pi_coding_agent.app.interactive.selectors._base import SelectorContext
from pi_tui import (
    Container,
    Input,
    Spacer,
    Text,
    fuzzy_match,
    terminal_safe,
    truncate_to_width,
    visible_width,
)


class SessionLike(Protocol):
    """What the picker reads of a listed session (``pi_coding_agent.core.session.SessionInfo``)."""

    @property
    def path(self) -> str: ...
    @property
    def id(self) -> str: ...
    @property
    def cwd(self) -> str: ...
    @property
    def parent_session_path(self) -> str | None: ...
    @property
    def modified(self) -> datetime: ...
    @property
    def name(self) -> str | None: ...
    @property
    def message_count(self) -> int: ...
    @property
    def first_message(self) -> str: ...
    @property
    def all_messages_text(self) -> str: ...


Loader = Callable[[], Sequence[SessionLike]]
SORTS = ("threaded", "recent", "relevance")


@dataclass
class _Row:
    session: SessionLike
    depth: int = 0
    last: bool = True
    continues: list[bool] = field(default_factory=list)


def _canonical(path: str | None) -> str | None:
    return os.path.realpath(path) if path else None


def _thread(sessions: Sequence[SessionLike]) -> list[_Row]:
    """Sessions as a forest under their parent session (forks), newest activity first."""
    by_path = {_canonical(s.path): s for s in sessions}
    children: dict[str | None, list[SessionLike]] = {}
    for session in sessions:
        parent = _canonical(session.parent_session_path)
        children.setdefault(parent if parent in by_path else None, []).append(session)
    latest: dict[str, float] = {}

    def activity(session: SessionLike) -> float:
        key = session.path
        if key not in latest:
            latest[key] = session.modified.timestamp()
            for child in children.get(_canonical(session.path), []):
                latest[key] = max(latest[key], activity(child))
        return latest[key]

    rows: list[_Row] = []

    def walk(session: SessionLike, depth: int, continues: list[bool], last: bool) -> None:
        rows.append(_Row(session, depth, last, continues))
        kids = sorted(children.get(_canonical(session.path), []), key=activity, reverse=True)
        for i, kid in enumerate(kids):
            walk(kid, depth + 1, [*continues, (not last) if depth > 0 else False], i == len(kids) - 1)

    roots = sorted(children.get(None, []), key=activity, reverse=True)
    for i, root in enumerate(roots):
        walk(root, 0, [], i == len(roots) - 1)
    return rows


def _search_text(session: SessionLike) -> str:
    return f"{session.id} {session.name or ''} {session.all_messages_text} {session.cwd}"


def _tokens(query: str) -> list[tuple[str, str]] | None:
    """``(kind, text)`` parts of a query: ``phrase`` for quoted text, ``fuzzy`` for words;
    unbalanced quotes fall back to plain words."""
    if query.count('"') % 2:
        return [("fuzzy", word) for word in query.split()]
    parts: list[tuple[str, str]] = []
    for index, chunk in enumerate(query.split('"')):
        if index % 2:
            if chunk.strip():
                parts.append(("phrase", chunk.strip()))
        else:
            parts.extend(("fuzzy", word) for word in chunk.split())
    return parts


def match_session(session: SessionLike, query: str) -> float | None:
    """Lower is better; ``None`` when the session does not match ``query``."""
    text = _search_text(session)
    query = query.strip()
    if query.startswith("re:"):
        try:
            found = re.search(query[3:].strip(), text, re.IGNORECASE) if query[3:].strip() else None
        except re.error:
            return None
        return None if found is None else found.start() * 0.1
    total = 0.0
    normal = " ".join(text.lower().split())
    for kind, value in _tokens(query) or []:
        if kind == "phrase":
            at = normal.find(" ".join(value.lower().split()))
            if at < 0:
                return None
            total += at * 0.1
            continue
        score = fuzzy_match(value, text)
        if score is None:
            return None
        total += score
    return total


def age(moment: datetime, now: datetime | None = None) -> str:
    """``now``, ``5m``, ``3h``, ``2d``, ``1w``, ``4mo``, ``1y``: how long ago, as Pi writes it."""
    now = now or datetime.now(UTC)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    minutes = int((now - moment).total_seconds() // 60)
    days = minutes // 1440
    if minutes < 1:
        return "now"
    if minutes < 60:
        return f"{minutes}m"
    if minutes < 1440:
        return f"{minutes // 60}h"
    if days < 7:
        return f"{days}d"
    if days < 30:
        return f"{days // 7}w"
    return f"{days // 30}mo" if days < 365 else f"{days // 365}y"


def _home_short(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if path and home and path.startswith(home) else path


def delete_session_file(path: str) -> tuple[bool, str]:
    """Move the file to the trash (``trash`` command) when there is one, else delete it."""
    if shutil.which("trash"):
        done = subprocess.run(["trash", "--", path], capture_output=True, text=True, check=False)
        if done.returncode == 0 or not os.path.exists(path):
            return True, "Session moved to trash"
    try:
        os.unlink(path)
    except OSError as error:
        return False, f"Failed to delete: {error.strerror or error}"
    return True, "Session deleted"


class SessionPicker(Container):
    def __init__(
        self,
        ctx: SelectorContext,
        load_current: Loader,
        load_all: Loader,
        on_select: Callable[[str], None],
        on_cancel: Callable[[], None],
        *,
        current_file: str | None = None,
        rename: Callable[[str, str], None] | None = None,
    ) -> None:
        super().__init__()
        self.ctx = ctx
        self._loaders = {"current": load_current, "all": load_all}
        self._loaded: dict[str, list[SessionLike]] = {}
        self.scope = "current"
        self.sort = "threaded"
        self.named_only = False
        self.show_path = False
        self.search = Input(keybindings=ctx.keys)
        self.selected = 0
        self.rows: list[_Row] = []
        self.on_select = on_select
        self.on_cancel = on_cancel
        self.rename = rename
        self.current = _canonical(current_file)
        self.confirm_delete: str | None = None
        self.message: tuple[str, str] | None = None
        self._renaming: tuple[str, Input] | None = None
        self.max_visible = 10
        self._focused = False
        self._reload()

    @property
    def focused(self) -> bool:
        return self._focused

    @focused.setter
    def focused(self, value: bool) -> None:
        self._focused = value
        self.search.focused = value
        if self._renaming is not None:
            self._renaming[1].focused = value

    # ------------------------------------------------------------------ data

    def _sessions(self) -> list[SessionLike]:
        if self.scope not in self._loaded:
            try:
                self._loaded[self.scope] = list(self._loaders[self.scope]())
            except OSError as error:
                self._loaded[self.scope] = []
                self.message = ("error", f"Failed to load sessions: {error}")
        return self._loaded[self.scope]

    def _reload(self) -> None:
        sessions = self._sessions()
        if self.named_only:
            sessions = [s for s in sessions if (s.name or "").strip()]
        query = self.search.value.strip()
        if self.sort == "threaded" and not query:
            self.rows = _thread(sessions)
        elif not query:
            self.rows = [_Row(s) for s in sessions]
        else:
            scored = [(match_session(s, query), i, s) for i, s in enumerate(sessions)]
            kept = [(score, i, s) for score, i, s in scored if score is not None]
            if self.sort == "relevance":
                kept.sort(key=lambda item: (item[0], -item[2].modified.timestamp()))
            self.rows = [_Row(s) for _, _, s in kept]
        self.selected = min(self.selected, max(0, len(self.rows) - 1))

    def _selected_path(self) -> str | None:
        return self.rows[self.selected].session.path if self.rows else None

    # ------------------------------------------------------------------ input

    def handle_input(self, data: str) -> None:
        keys = self.ctx.keys
        if self._renaming is not None:
            self._rename_input(data)
            return
        if self.confirm_delete is not None:
            if keys.matches(data, "tui.select.confirm"):
                path, self.confirm_delete = self.confirm_delete, None
                self._delete(path)
            elif keys.matches(data, "tui.select.cancel"):
                self.confirm_delete = None
            return
        if keys.matches(data, "tui.input.tab"):
            self.scope = "all" if self.scope == "current" else "current"
            self._reload()
        elif keys.matches(data, "app.session.toggleSort"):
            self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]
            self._reload()
        elif keys.matches(data, "app.session.toggleNamedFilter"):
            self.named_only = not self.named_only
            self._reload()
        elif keys.matches(data, "app.session.togglePath"):
            self.show_path = not self.show_path
        elif keys.matches(data, "app.session.delete") or (
            keys.matches(data, "app.session.deleteNoninvasive") and not self.search.value
        ):
            self._ask_delete()
        elif keys.matches(data, "app.session.rename") and self.rename is not None and self.rows:
            session = self.rows[self.selected].session
            field_input = Input(session.name or "", keybindings=keys)
            field_input.focused = self._focused
            self._renaming = (session.path, field_input)
        elif keys.matches(data, "tui.select.up"):
            self.selected = max(0, self.selected - 1)
        elif keys.matches(data, "tui.select.down"):
            self.selected = max(0, min(len(self.rows) - 1, self.selected + 1))
        elif keys.matches(data, "tui.select.pageUp"):
            self.selected = max(0, self.selected - self.max_visible)
        elif keys.matches(data, "tui.select.pageDown"):
            self.selected = max(0, min(len(self.rows) - 1, self.selected + self.max_visible))
        elif keys.matches(data, "tui.select.confirm"):
            chosen = self._selected_path()
            if chosen is not None:
                self.on_select(chosen)
        elif keys.matches(data, "tui.select.cancel"):
            self.on_cancel()
        else:
            self.search.handle_input(data)
            self._reload()

    def _ask_delete(self) -> None:
        path = self._selected_path()
        if path is None:
            return
        if _canonical(path) == self.current:
            self.message = ("error", "Cannot delete the currently active session")
            return
        self.confirm_delete = path

    def _delete(self, path: str) -> None:
        ok, text = delete_session_file(path)
        self.message = ("info" if ok else "error", text)
        if ok:
            self._loaded.clear()
            self._reload()

    def _rename_input(self, data: str) -> None:
        assert self._renaming is not None
        path, field_input = self._renaming
        keys = self.ctx.keys
        if keys.matches(data, "tui.select.cancel"):
            self._renaming = None
        elif keys.matches(data, "tui.select.confirm"):
            name = field_input.value.strip()
            if name and self.rename is not None:
                self.rename(path, name)
                self._loaded.clear()
                self._reload()
            self._renaming = None
        else:
            field_input.handle_input(data)

    # ------------------------------------------------------------------ rendering

    def render(self, width: int) -> list[str]:
        ctx = self.ctx
        border = ctx.border("accent").render(width)
        if self._renaming is not None:
            hint = ctx.theme.fg("muted", f"{ctx.keys.text('tui.select.confirm')} to save · "
                                         f"{ctx.keys.text('tui.select.cancel')} to cancel")  # fmt: skip
            body = [" " + ctx.theme.bold("Rename Session"), "", *(" " + line for line in
                    self._renaming[1].render(width - 2)), "", " " + hint]  # fmt: skip
            return ["", *border, "", *body, "", *border]
        return ["", *border, "", *self._header(width), "", *self._list(width), "", *border]

    def _header(self, width: int) -> list[str]:
        theme, ctx = self.ctx.theme, self.ctx
        title = theme.bold(
            "Resume Session (Current Folder)" if self.scope == "current" else "Resume Session (All)"
        )
        if self.scope == "current":
            scope = theme.fg("accent", "◉ Current Folder") + theme.fg("muted", " | ○ All")
        else:
            scope = theme.fg("muted", "○ Current Folder | ") + theme.fg("accent", "◉ All")
        sort = {"threaded": "Threaded", "recent": "Recent", "relevance": "Fuzzy"}[self.sort]
        right = truncate_to_width(
            f"{scope}  {theme.fg('muted', 'Name: ')}{theme.fg('accent', 'Named' if self.named_only else 'All')}"
            f"  {theme.fg('muted', 'Sort: ')}{theme.fg('accent', sort)}",
            width, "",
        )  # fmt: skip
        left = truncate_to_width(title, max(0, width - visible_width(right) - 1), "")
        first = left + " " * max(0, width - visible_width(left) - visible_width(right)) + right
        if self.confirm_delete is not None:
            text = f"Delete session? {ctx.hint('tui.select.confirm', 'confirm')} · {ctx.hint('tui.select.cancel', 'cancel')}"
            return [first, theme.fg("error", truncate_to_width(text, width, "…")), ""]
        if self.message is not None:
            kind, text = self.message
            return [
                first,
                theme.fg("error" if kind == "error" else "accent", truncate_to_width(text, width, "…")),
                "",
            ]
        sep = theme.fg("muted", " · ")
        hint1 = (
            ctx.hint("tui.input.tab", "scope")
            + sep
            + theme.fg("muted", 're:<pattern> regex · "phrase" exact')
        )
        parts = [ctx.hint("app.session.toggleSort", "sort"), ctx.hint("app.session.toggleNamedFilter", "named"),
                 ctx.hint("app.session.delete", "delete"),
                 ctx.hint("app.session.togglePath", f"path {'(on)' if self.show_path else '(off)'}")]  # fmt: skip
        if self.rename is not None:
            parts.append(ctx.hint("app.session.rename", "rename"))
        return [first, truncate_to_width(hint1, width, "…"), truncate_to_width(sep.join(parts), width, "…")]

    def _list(self, width: int) -> list[str]:
        theme = self.ctx.theme
        lines = [*self.search.render(width), ""]
        if not self.rows:
            toggle = self.ctx.keys.text("app.session.toggleNamedFilter")
            if self.named_only:
                empty = (f"  No named sessions found. Press {toggle} to show all." if self.scope == "all"
                         else f"  No named sessions in current folder. Press {toggle} to show all, or Tab to view all.")  # fmt: skip
            else:
                empty = (
                    "  No sessions found"
                    if self.scope == "all"
                    else "  No sessions in current folder. Press Tab to view all."
                )
            return [*lines, theme.fg("muted", truncate_to_width(empty, width, "…"))]
        count = len(self.rows)
        start = max(0, min(self.selected - self.max_visible // 2, count - self.max_visible))
        end = min(start + self.max_visible, count)
        lines.extend(self._row(self.rows[i], i == self.selected, width) for i in range(start, end))
        if start > 0 or end < count:
            lines.append(theme.fg("muted", truncate_to_width(f"  ({self.selected + 1}/{count})", width, "")))
        return lines

    def _row(self, row: _Row, selected: bool, width: int) -> str:
        theme = self.ctx.theme
        session = row.session
        prefix = (
            ""
            if row.depth == 0
            else "".join("│  " if c else "   " for c in row.continues) + ("└─ " if row.last else "├─ ")
        )
        text = " ".join(terminal_safe(session.name or session.first_message, keep_sgr=False).split())
        right = f"{session.message_count} {age(session.modified)}"
        if self.scope == "all" and session.cwd:
            right = f"{_home_short(session.cwd)} {right}"
        if self.show_path:
            right = f"{_home_short(session.path)} {right}"
        deleting = session.path == self.confirm_delete
        room = width - 2 - visible_width(prefix) - visible_width(right) - 2
        text = truncate_to_width(text, max(10, room), "…")
        colour = (
            "error"
            if deleting
            else "accent"
            if _canonical(session.path) == self.current
            else ("warning" if session.name else None)
        )
        styled = theme.fg(colour, text) if colour else text
        if selected:
            styled = theme.bold(styled)
        left = (theme.fg("accent", "› ") if selected else "  ") + theme.fg("dim", prefix) + styled
        gap = max(1, width - visible_width(left) - visible_width(right))
        line = left + " " * gap + theme.fg("error" if deleting else "dim", right)
        return truncate_to_width(theme.bg("selectedBg", line) if selected else line, width)

    def invalidate(self) -> None:
        return


__all__ = ["SessionPicker", "Spacer", "Text", "age", "match_session"]
