"""The page: the session tree in a sidebar beside the conversation, a header with the session's
figures, and the data the script needs to switch branches.

Every entry is rendered once, in Python; the ones off the shown branch are hidden, so the page
shows the active branch even with scripting off. The script only moves ``hidden`` and a few
classes around; it never turns session text into markup.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from html import escape
from typing import Any

from pi_ai.js_json import stringify, well_formed
from pi_coding_agent.core.export._assets import SCRIPT, STYLE
from pi_coding_agent.core.export._entries import (
    render_entry,
    tool_calls,
    tool_results,
    tree_filter_flags,
    tree_title,
)
from pi_coding_agent.core.export._header import header_html
from pi_coding_agent.core.export._tree import tree_rows
from pi_coding_agent.core.session import SessionManager, SessionTreeNode


@dataclass
class SessionPage:
    """What the page shows, independent of where it came from."""

    header: dict[str, Any]
    entries: list[dict[str, Any]]
    leaf_id: str | None
    active_path: list[str]
    roots: list[SessionTreeNode]
    palette: Mapping[str, str]
    name: str | None = None
    system_prompt: str | None = None
    tools: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def from_manager(
        cls,
        manager: SessionManager,
        palette: Mapping[str, str],
        *,
        system_prompt: str | None = None,
        tools: list[dict[str, Any]] | None = None,
    ) -> SessionPage:
        return cls(
            header=manager.get_header_data(),
            entries=manager.get_entries_data(),
            leaf_id=manager.get_leaf_id(),
            active_path=[entry.id for entry in manager.get_branch() if entry.id is not None],
            roots=manager.get_tree(),
            palette=palette,
            name=manager.get_session_name(),
            system_prompt=system_prompt,
            tools=tools or [],
        )


def _tree_html(page: SessionPage, by_id: dict[str, dict[str, Any]], calls: dict[str, dict[str, Any]]) -> str:
    on_path = set(page.active_path)
    rows = []
    for row in tree_rows(page.roots, on_path):
        entry_id = str(row.node.entry.id or "")
        role, title = tree_title(by_id.get(entry_id, {}), calls)
        classes = (
            "tree-node"
            + (" in-path" if entry_id in on_path else "")
            + (" active" if entry_id == page.leaf_id else "")
        )
        label = f'<span class="tree-label">[{escape(row.node.label)}]</span> ' if row.node.label else ""
        flags = tree_filter_flags(by_id.get(entry_id, {})) + ("l" if row.node.label else "")
        rows.append(
            f'<div class="{classes}" data-id="{escape(entry_id)}" data-leaf="{escape(row.newest_leaf)}" data-f="{flags}">'
            f'<span class="tree-prefix">{row.prefix}</span><span class="tree-marker">{"•" if entry_id in on_path else " "}</span>'
            f'<span class="tree-content">{label}<span class="tree-role-{role}">{escape(title)}</span></span></div>'
        )
    return "".join(rows)


def _entries_html(page: SessionPage, calls: dict[str, dict[str, Any]]) -> str:
    on_path = set(page.active_path)
    results = tool_results(page.entries)
    sections = []
    for data in page.entries:
        body = render_entry(data, results, calls)
        if not body:
            continue
        entry_id = escape(str(data.get("id")))
        hidden = "" if data.get("id") in on_path else " hidden"
        sections.append(
            f'<section class="entry" id="entry-{entry_id}" data-id="{entry_id}"{hidden}>{body}</section>'
        )
    return "".join(sections)


def _script_json(value: Any) -> str:
    """JSON safe inside ``<script>``: no ``</script>`` or ``<!--`` can end it early. Written as
    ``JSON.stringify`` writes it, so a lone surrogate in an id stays a ``\\udXXX`` escape."""
    return stringify(value).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _theme_css(palette: Mapping[str, str]) -> str:
    """The theme's colours as CSS variables; a value that is not a plain colour is left out."""
    variables = "".join(
        f"--{name}: {value};"
        for name, value in palette.items()
        if name.isalnum() and value.startswith("#") and value[1:].isalnum()
    )
    return f":root {{ {variables} }}"


def render_page(page: SessionPage) -> str:
    """The page's text. Lone surrogates in the session's text (valid JSON, which Node writes)
    are shown as U+FFFD, as a browser shows them on Pi's page."""
    return well_formed(_html(page))


def _html(page: SessionPage) -> str:
    by_id = {str(data.get("id")): data for data in page.entries}
    calls = tool_calls(page.entries)
    parents = {str(data.get("id")): data.get("parentId") for data in page.entries}
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<title>Session Export</title>"
        f"<style>{_theme_css(page.palette)}{STYLE}</style></head>"
        f'<body data-leaf="{escape(page.leaf_id or "")}">'
        '<div id="app"><aside id="sidebar"><div class="sidebar-header">'
        '<input type="text" class="sidebar-search" id="tree-search" placeholder="Search..." aria-label="Search the tree">'
        '<div class="sidebar-filters">'
        '<button class="filter-btn active" data-filter="default" title="Hide settings entries">Default</button>'
        '<button class="filter-btn" data-filter="no-tools" title="Default minus tool results">No-tools</button>'
        '<button class="filter-btn" data-filter="user-only" title="Only user messages">User</button>'
        '<button class="filter-btn" data-filter="labeled-only" title="Only labeled entries">Labeled</button>'
        '<button class="filter-btn" data-filter="all" title="Show everything">All</button></div></div>'
        f'<div class="tree-container" id="tree-container">{_tree_html(page, by_id, calls)}</div>'
        '<div class="tree-status" id="tree-status"></div></aside>'
        f'<main id="content">{header_html(page.header, page.entries, page.name, page.system_prompt, page.tools)}'
        f'<div id="messages">{_entries_html(page, calls)}</div></main></div>'
        '<div id="image-modal" class="image-modal" hidden><img id="modal-image" alt=""></div>'
        f'<script type="application/json" id="session-parents">{_script_json(parents)}</script>'
        f"<script>{SCRIPT}</script></body></html>\n"
    )
