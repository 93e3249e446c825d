"""The page: header, the session tree beside the active branch, and the data the script needs.

Every entry is rendered once; the ones off the active branch start hidden, so the page
shows the active branch even with scripting off. The tree is a flat list indented only
where a branch splits (a long linear session stays a readable column, however deep).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape
from typing import Any

from pi_ai.js_json import stringify, well_formed
from pi_coding_agent.core.export._assets import SCRIPT, STYLE
from pi_coding_agent.core.export._entries import entry_title, render_entry
from pi_coding_agent.core.session import SessionManager, SessionTreeNode


@dataclass
class TreeRow:
    entry_id: str
    depth: int
    title: str
    label: str | None


@dataclass
class SessionPage:
    """What the page shows, independent of where it came from."""

    header: dict[str, Any]
    entries: list[dict[str, Any]]
    leaf_id: str | None
    active_path: list[str]
    tree: list[TreeRow]
    name: str | None = None
    system_prompt: str | None = None
    parents: dict[str, str | None] = field(default_factory=dict)

    @classmethod
    def from_manager(cls, manager: SessionManager, *, system_prompt: str | None = None) -> SessionPage:
        entries = manager.get_entries_data()
        by_id = {str(data.get("id")): data for data in entries}
        rows = _tree_rows(manager.get_tree(), by_id, manager)
        return cls(
            header=manager.get_header_data(),
            entries=entries,
            leaf_id=manager.get_leaf_id(),
            active_path=[entry.id for entry in manager.get_branch() if entry.id is not None],
            tree=rows,
            name=manager.get_session_name(),
            system_prompt=system_prompt,
            parents={str(data.get("id")): data.get("parentId") for data in entries},
        )


def _tree_rows(
    roots: list[SessionTreeNode], by_id: dict[str, dict[str, Any]], manager: SessionManager
) -> list[TreeRow]:
    rows: list[TreeRow] = []
    pending = [(root, 0) for root in reversed(roots)]
    while pending:
        node, depth = pending.pop()
        entry_id = node.entry.id or ""  # an unreadable line may have no id; it still has a place
        label = manager.get_label(entry_id) if entry_id else None
        rows.append(TreeRow(entry_id, depth, entry_title(by_id.get(entry_id, {})), label))
        child_depth = depth + 1 if len(node.children) > 1 else depth
        pending.extend((child, child_depth) for child in reversed(node.children))
    return rows


def _tree_html(page: SessionPage) -> str:
    on_path = set(page.active_path)
    items = []
    for row in page.tree:
        classes = " ".join(
            c
            for c in (
                "on-path" if row.entry_id in on_path else "",
                "selected" if row.entry_id == page.leaf_id else "",
            )
            if c
        )
        label = f'<span class="tree-label">[{escape(row.label)}]</span>' if row.label else ""
        items.append(
            f'<li style="--depth:{row.depth}" class="{classes}" data-id="{escape(row.entry_id)}">'
            f'<a href="#entry-{escape(row.entry_id)}" title="{escape(row.title)}">{label}{escape(row.title)}</a></li>'
        )
    return "<ol>" + "".join(items) + "</ol>"


def _entries_html(page: SessionPage) -> str:
    on_path = set(page.active_path)
    sections = []
    for data in page.entries:
        rendered = render_entry(data)
        if rendered is None:
            continue
        css, heading, body = rendered
        entry_id = escape(str(data.get("id")))
        hidden = "" if data.get("id") in on_path else " hidden"
        sections.append(
            f'<section class="entry {css}" id="entry-{entry_id}" data-id="{entry_id}"{hidden}>'
            f"<h3>{heading}</h3>{body}</section>"
        )
    return "".join(sections)


def _script_json(value: Any) -> str:
    """JSON safe inside ``<script>``: no ``</script>`` or ``<!--`` can end it early. Written as
    ``JSON.stringify`` writes it, so a lone surrogate in an id stays a ``\\udXXX`` escape."""
    return (
        stringify(value)
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
    )


def render_page(page: SessionPage) -> str:
    """The page's text. Lone surrogates in the session's text (valid JSON, which Node writes)
    are shown as U+FFFD, as a browser shows them on Pi's page."""
    return well_formed(_html(page))


def _html(page: SessionPage) -> str:
    header = page.header
    title = page.name or f"Session {header.get('id', '')}"
    facts = " · ".join(
        escape(str(value))
        for value in (header.get("id"), header.get("cwd"), header.get("timestamp"))
        if value
    )
    prompt = (
        f'<details class="system-prompt"><summary>System prompt</summary><pre>{escape(page.system_prompt)}</pre></details>'
        if page.system_prompt
        else ""
    )
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>pi session: {escape(title)}</title><style>{STYLE}</style></head>"
        f'<body data-leaf="{escape(page.leaf_id or "")}">'
        f'<header><h1>{escape(title)}</h1><div class="facts">{facts}</div></header>'
        f'<div class="layout"><nav><h2>Session tree</h2>{_tree_html(page)}</nav>'
        f"<main><h2>Conversation</h2>{prompt}{_entries_html(page)}</main></div>"
        f'<script type="application/json" id="session-parents">{_script_json(page.parents)}</script>'
        f"<script>{SCRIPT}</script></body></html>\n"
    )
