"""The page: the session tree in a sidebar beside the conversation, a header with the session's
figures, and the data the script needs to draw the rest.

Every entry is rendered once, in Python. The first entries of the shown branch are written as
HTML, so they appear as soon as the page is parsed (and with scripting off); every entry's
HTML also travels packed (``_data``), and the script inserts more of the branch as it scrolls
into view, so a page of a huge session loads as fast as a small one. The tree is drawn by the
script from plain data (ids, parents, titles, labels) with ``textContent``: the script never
turns session text into markup, and inserts no markup but the fragments rendered here.
"""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from html import escape
from typing import Any

from pi_ai.js_json import stringify, well_formed
from pi_coding_agent.core.export._assets import SCRIPT, STYLE
from pi_coding_agent.core.export._data import chunks, pack, pack_text, script_json
from pi_coding_agent.core.export._entries import (
    render_entry,
    tool_calls,
    tool_results,
    tree_filter_flags,
    tree_title,
)
from pi_coding_agent.core.export._header import header_html
from pi_coding_agent.core.export._highlight import HIGHLIGHT_SCRIPT
from pi_coding_agent.core.export._system import system_state_above
from pi_coding_agent.core.session import SessionManager

FIRST_WINDOW_CHARS = 1024 * 1024
"""The shown branch is written as HTML up to this size (the whole branch of most sessions); the
script adds the rest as it comes into view."""


def _first_window(fragments: list[str]) -> list[str]:
    size = 0
    for count, fragment in enumerate(fragments):
        size += len(fragment)
        if size > FIRST_WINDOW_CHARS:
            return fragments[: max(1, count)]
    return fragments


@dataclass
class SessionPage:
    """What the page shows, independent of where it came from."""

    header: dict[str, Any]
    entries: list[dict[str, Any]]
    leaf_id: str | None
    active_path: list[str]
    labels: dict[str, str]
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
        entries = manager.get_entries_data()
        labels = {}
        for data in entries:
            label = manager.get_label(str(data.get("id")))
            if label:
                labels[str(data.get("id"))] = label
        return cls(
            header=manager.get_header_data(),
            entries=entries,
            leaf_id=manager.get_leaf_id(),
            active_path=[entry.id for entry in manager.get_branch() if entry.id is not None],
            labels=labels,
            palette=palette,
            name=manager.get_session_name(),
            system_prompt=system_prompt,
            tools=tools or [],
        )


def _fragments(page: SessionPage, calls: dict[str, dict[str, Any]], system_above: set[str]) -> list[str]:
    """Each entry's section, ``""`` for an entry that shows nothing in the conversation."""
    results = tool_results(page.entries)
    fragments = []
    for data in page.entries:
        body = render_entry(data, results, calls, system_above)
        entry_id = escape(str(data.get("id")))
        fragments.append(
            f'<section class="entry" id="entry-{entry_id}" data-id="{entry_id}">{body}</section>'
            if body
            else ""
        )
    return fragments


def _tree_data(
    page: SessionPage, calls: dict[str, dict[str, Any]], system_above: set[str], fragments: list[str]
) -> dict[str, Any]:
    """The tree as parallel arrays by entry (file order): ids, parent positions (-1: a root),
    role classes and titles (plain text), filter flags, labels, whether the entry shows in the
    conversation; and the leaf's position."""
    position = {str(data.get("id")): index for index, data in enumerate(page.entries)}
    titles = [tree_title(data, calls, system_above) for data in page.entries]
    return {
        "ids": [str(data.get("id")) for data in page.entries],
        "parents": [position.get(str(data.get("parentId")), -1) for data in page.entries],
        "roles": [role for role, _ in titles],
        "titles": [title for _, title in titles],
        "flags": [tree_filter_flags(data) for data in page.entries],
        # [position, label] pairs: an object keyed by positions would be written in JavaScript's
        # order for such keys, which only the slow JSON writer follows.
        "labels": [[position[key], label] for key, label in page.labels.items() if key in position],
        "shown": "".join("1" if fragment else "0" for fragment in fragments),
        "leaf": position.get(page.leaf_id or "", -1),
    }


def _session_jsonl(page: SessionPage) -> str:
    """The session as a file again (header, then entries), for the ``↓ JSONL`` button."""
    return "\n".join(stringify(value) for value in (page.header, *page.entries))


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
    # gzip runs without Python's lock: the session file and each chunk of fragments are packed
    # on other threads while this one renders the next entries.
    with ThreadPoolExecutor(max_workers=2) as pool:
        session = pool.submit(lambda: pack_text(well_formed(_session_jsonl(page))))
        calls = tool_calls(page.entries)
        system_above = system_state_above(page.entries)
        fragments = _fragments(page, calls, system_above)
        on_path = set(page.active_path)
        first = _first_window(
            [
                fragment
                for data, fragment in zip(page.entries, fragments, strict=True)
                if fragment and data.get("id") in on_path
            ]
        )
        starts, packed = chunks(fragments, pool)
        data = {
            "tree": pack(_tree_data(page, calls, system_above, fragments)),
            "starts": starts,
            "chunks": [future.result() for future in packed],
            "session": session.result(),
            "file": f"{page.header.get('id') or 'session'}.jsonl",
            "window": len(first),
        }
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<title>Session Export</title>"
        f"<style>{_theme_css(page.palette)}{STYLE}</style></head>"
        "<body>"
        '<div id="app"><aside id="sidebar"><div class="sidebar-header">'
        '<input type="text" class="sidebar-search" id="tree-search" placeholder="Search..." aria-label="Search the tree">'
        '<div class="sidebar-filters">'
        '<button class="filter-btn active" data-filter="default" title="Hide settings entries">Default</button>'
        '<button class="filter-btn" data-filter="no-tools" title="Default minus tool results">No-tools</button>'
        '<button class="filter-btn" data-filter="user-only" title="Only user messages">User</button>'
        '<button class="filter-btn" data-filter="labeled-only" title="Only labeled entries">Labeled</button>'
        '<button class="filter-btn" data-filter="all" title="Show everything">All</button></div></div>'
        '<div class="tree-container" id="tree-container"><div id="tree-rows"></div></div>'
        '<div class="tree-status" id="tree-status"></div></aside>'
        f'<main id="content">{header_html(page.header, page.entries, page.name, page.system_prompt, page.tools)}'
        f'<div id="messages"><div id="window-top"></div>{"".join(first)}<div id="window-end"></div></div></main></div>'
        '<div id="image-modal" class="image-modal" hidden><img id="modal-image" alt=""></div>'
        f'<script type="application/json" id="page-data">{script_json(data)}</script>'
        f"<script>{HIGHLIGHT_SCRIPT}{SCRIPT}</script></body></html>\n"
    )
