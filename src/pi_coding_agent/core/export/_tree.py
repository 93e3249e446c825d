"""The session tree as the page's sidebar draws it: one row per entry, in the order and with the
connectors of Pi's ``/tree`` (the branch holding the active leaf first, indentation only where
a branch splits, ``├─``/``└─`` and ``│`` gutters), and for each row the newest leaf below it,
which a click shows.
"""

from __future__ import annotations

from dataclasses import dataclass

from pi_coding_agent.core.session import SessionTreeNode


@dataclass
class TreeRow:
    node: SessionTreeNode
    prefix: str
    newest_leaf: str


@dataclass
class _Pending:
    node: SessionTreeNode
    indent: int
    just_branched: bool
    connector: bool
    last: bool
    gutters: tuple[tuple[int, bool], ...]
    """(level, draw a ``│``) for each open branch to the left."""
    root_child: bool


def _newest_leaves(roots: list[SessionTreeNode]) -> dict[int, str]:
    """For each node (by ``id()``), the id of the leaf reached by always taking the newest child."""
    order: list[SessionTreeNode] = []
    stack = list(roots)
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(node.children)
    leaves: dict[int, str] = {}
    for node in reversed(order):
        leaves[id(node)] = leaves[id(node.children[-1])] if node.children else str(node.entry.id or "")
    return leaves


def _holding(roots: list[SessionTreeNode], active: set[str]) -> set[int]:
    """The nodes (by ``id()``) whose subtree holds an entry of the active path."""
    order: list[SessionTreeNode] = []
    stack = list(roots)
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(node.children)
    holding: set[int] = set()
    for node in reversed(order):
        if node.entry.id in active or any(id(child) in holding for child in node.children):
            holding.add(id(node))
    return holding


def _prefix(row: _Pending, several_roots: bool) -> str:
    indent = max(0, row.indent - 1) if several_roots else row.indent
    connector = row.connector and not row.root_child
    at = indent - 1 if connector else -1
    cells: list[str] = []
    gutters: dict[int, bool] = {}
    for level, draw in row.gutters:
        gutters.setdefault(level, draw)
    for level in range(indent):
        if level in gutters:
            cells.append("│  " if gutters[level] else "   ")
        elif level == at:
            cells.append("└─ " if row.last else "├─ ")
        else:
            cells.append("   ")
    return "".join(cells)


def tree_rows(roots: list[SessionTreeNode], active_path: set[str]) -> list[TreeRow]:
    """Every node, depth first, the subtree holding the active path first among siblings."""
    holding = _holding(roots, active_path)
    leaves = _newest_leaves(roots)
    several = len(roots) > 1

    def active_first(nodes: list[SessionTreeNode]) -> list[SessionTreeNode]:
        return sorted(nodes, key=lambda node: id(node) not in holding)

    ordered = active_first(roots)
    stack = [
        _Pending(node, 1 if several else 0, several, several, index == len(ordered) - 1, (), several)
        for index, node in reversed(list(enumerate(ordered)))
    ]
    rows: list[TreeRow] = []
    while stack:
        row = stack.pop()
        rows.append(TreeRow(row.node, _prefix(row, several), leaves[id(row.node)]))
        children = active_first(row.node.children)
        branching = len(children) > 1
        indent = row.indent + 1 if branching or (row.just_branched and row.indent > 0) else row.indent
        gutters = row.gutters
        if row.connector and not row.root_child:
            shown = max(0, row.indent - 1) if several else row.indent
            gutters = (*gutters, (max(0, shown - 1), not row.last))
        stack.extend(
            _Pending(child, indent, branching, branching, index == len(children) - 1, gutters, False)
            for index, child in reversed(list(enumerate(children)))
        )
    return rows
