"""Tree and branching: the leaf, labels, branches, the whole tree, and branch copies.

``SessionTree`` works on an ``EntryStore`` and keeps what Pi's ``SessionManager`` keeps
beside its entries: the leaf (the last entry in file order after loading; moved by
``branch``, reset by ``reset_leaf``, advanced by every append) and the labels (the latest
``label`` entry per target wins; an empty one clears it).

An entry without an id (Pi's ``undefined``) can be the leaf: Pi's leaf is then
``undefined``, which builds the context from the last entry in file order and gives an
empty branch. ``leaf_without_id`` records that state; ``leaf_id`` is ``None`` in it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cmp_to_key
from typing import Any

from msgspec import UNSET

from pi_coding_agent.core.messages import iso_to_ms
from pi_coding_agent.core.session import _context
from pi_coding_agent.core.session._context import LAST, LeafArg, SessionContext
from pi_coding_agent.core.session._entries import LabelEntry, SessionEntry
from pi_coding_agent.core.session._files import SessionError
from pi_coding_agent.core.session._ids import generate_entry_id
from pi_coding_agent.core.session._store import EntryStore


class EntryNotFoundError(SessionError, LookupError):
    def __init__(self, entry_id: str | None) -> None:
        super().__init__(f"Entry {entry_id} not found")
        self.entry_id = entry_id


@dataclass(eq=False, slots=True)
class SessionTreeNode:
    entry: SessionEntry
    children: list[SessionTreeNode] = field(default_factory=list)
    label: str | None = None
    label_timestamp: str | None = None


class SessionTree:
    """Leaf and labels over an ``EntryStore``; see the module docstring."""

    def __init__(self, store: EntryStore) -> None:
        self.store = store
        self.leaf_id: str | None = None
        self.leaf_without_id = False
        self.labels: dict[str, str] = {}
        self._label_times: dict[str, str] = {}
        self._label_entry: dict[str, int] = {}
        """Where each current label was set (its time is read from that entry when asked)."""

    @classmethod
    def loaded(cls, store: EntryStore, labels: list[tuple[int, str, Any]]) -> SessionTree:
        """The tree of a file just indexed: labels from their lines, the leaf at the last entry."""
        tree = cls(store)
        for position, target, label in labels:
            tree._apply_label(target, label, position)
        tree.leaf_id = store.last_id()
        tree.leaf_without_id = store.count() > 0 and tree.leaf_id is None
        return tree

    # ------------------------------------------------------------------ changes

    def added(self, entry: SessionEntry, position: int) -> None:
        """Follow an entry appended to the store: it is the new leaf; labels take effect."""
        self.leaf_id = entry.id
        self.leaf_without_id = entry.id is None
        if isinstance(entry, LabelEntry):
            self._apply_label(entry.target_id, entry.label if entry.label is not UNSET else None, position)
            if entry.label:
                self._label_times[entry.target_id] = entry.timestamp

    def branch(self, entry_id: str) -> None:
        if self.store.position(entry_id) is None:
            raise EntryNotFoundError(entry_id)
        self.leaf_id, self.leaf_without_id = entry_id, False

    def reset_leaf(self) -> None:
        self.leaf_id, self.leaf_without_id = None, False

    def _apply_label(self, target: str, label: Any, position: int) -> None:
        if label:
            self.labels[target] = label if isinstance(label, str) else str(label)
            self._label_entry[target] = position
            self._label_times.pop(target, None)
        else:
            self.labels.pop(target, None)
            self._label_entry.pop(target, None)
            self._label_times.pop(target, None)

    def label_time(self, target: str) -> str | None:
        if target in self._label_times:
            return self._label_times[target]
        position = self._label_entry.get(target)
        if position is None:
            return None
        stamp = self.store.entries([position])[0].timestamp
        self._label_times[target] = stamp
        return stamp

    # ------------------------------------------------------------------ reading

    def _leaf(self) -> LeafArg:
        return LAST if self.leaf_without_id else self.leaf_id

    def branch_entries(self, from_id: str | None = None) -> list[SessionEntry]:
        """Entries from the root to ``from_id`` (default: the leaf); ``[]`` if unknown."""
        start_id = from_id if from_id is not None else self.leaf_id
        start = self.store.position(start_id) if start_id else None
        if start is None:
            return []
        return self.store.entries(_context.walk_up(self.store, start))

    def context_entries(self) -> list[SessionEntry]:
        store = self.store
        return store.entries(_context.context_positions(store, _context.path_positions(store, self._leaf())))

    def context(self) -> SessionContext:
        return _context.build_context(self.store, self._leaf())

    def children(self, parent_id: str) -> list[SessionEntry]:
        """Direct children (one per id: the last entry with that id), in first-seen id order."""
        parents = self.store.parents
        positions = [position for position in self.store.by_id.values() if parents[position] == parent_id]
        return self.store.entries(positions)

    def nodes(self) -> list[SessionTreeNode]:
        """Roots (entries without a known parent) with their children, oldest first.

        As in Pi, entries sharing an id share one node (the last one's), found wherever any
        of them would be placed.
        """
        entries = self.store.all()
        nodes: dict[str | None, SessionTreeNode] = {}
        for entry in entries:
            label = self.labels.get(entry.id) if entry.id is not None else None
            stamp = self.label_time(entry.id) if label is not None and entry.id is not None else None
            nodes[entry.id] = SessionTreeNode(entry, [], label, stamp)
        roots: list[SessionTreeNode] = []
        for entry in entries:
            node = nodes[entry.id]
            parent_id = entry.parent_id
            parent = nodes.get(parent_id) if parent_id is not None and parent_id != entry.id else None
            (parent.children if parent is not None else roots).append(node)
        _sort_children(roots)
        return roots

    def branch_copy(self, leaf_id: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The branch ending at ``leaf_id`` as a new file's lines: (entries, label entries).

        Pi's ``createBranchedSession``: label entries are taken out and the rest re-chained
        (a later entry whose parent was a label gets the label's parent), then the labels
        still in force on the kept entries are re-applied at the end.
        """
        start = self.store.position(leaf_id)
        if start is None:
            raise EntryNotFoundError(leaf_id)
        kept: list[dict[str, Any]] = []
        replacement: dict[str, str] = {}
        pending: list[str] = []
        parent: str | None = None
        for data in self.store.raw(_context.walk_up(self.store, start)):
            if data.get("type") == "label":
                pending.append(data["id"])
                continue
            for label_id in pending:
                replacement[label_id] = data["id"]
            pending.clear()
            copy = {**data, "parentId": parent}
            if data.get("type") == "compaction":
                first = data.get("firstKeptEntryId")
                copy["firstKeptEntryId"] = replacement.get(first, first) if isinstance(first, str) else first
                if "firstKeptEntryId" not in data and first is None:
                    del copy["firstKeptEntryId"]
            kept.append(copy)
            parent = data["id"]
        taken = {data["id"] for data in kept}
        labels: list[dict[str, Any]] = []
        label_parent = kept[-1]["id"] if kept else None
        for target, label in self.labels.items():
            if target in taken:
                label_entry = {
                    "type": "label",
                    "id": generate_entry_id(taken),
                    "parentId": label_parent,
                    "timestamp": self.label_time(target),
                    "targetId": target,
                    "label": label,
                }
                taken.add(label_entry["id"])
                labels.append(label_entry)
                label_parent = label_entry["id"]
        return kept, labels


def _sort_children(roots: list[SessionTreeNode]) -> None:
    """Children oldest first by entry time (stable; unparsable times compare equal, as in JS)."""

    def compare(a: SessionTreeNode, b: SessionTreeNode) -> int:
        first, second = iso_to_ms(a.entry.timestamp), iso_to_ms(b.entry.timestamp)
        if first is None or second is None:
            return 0
        return (first > second) - (first < second)

    key = cmp_to_key(compare)
    stack = list(roots)
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        node.children.sort(key=key)
        stack.extend(node.children)
