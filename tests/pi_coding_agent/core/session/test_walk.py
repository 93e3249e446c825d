"""Walking up the tree: the fast walk (runs of entries whose parent is the line before)
gives exactly the path a plain parent-by-parent walk gives, whatever the ids look like,
and stays right while entries are appended."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pi_coding_agent.core.session import OpaqueEntry
from pi_coding_agent.core.session._context import ListTree, context_positions, walk_up
from pi_coding_agent.core.session._index import FileIndex
from pi_coding_agent.core.session._store import EntryStore as _Entries


def _reference_walk(ids: list[str], parents: list[str | None], start: int) -> list[int]:
    """Pi's walk (the last entry with an id wins; a falsy parentId ends it), cut where a cycle closes."""
    by_id: dict[str, int] = {}
    for position, entry_id in enumerate(ids):
        by_id[entry_id] = position
    path: list[int] = []
    seen: set[int] = set()
    current: int | None = start
    while current is not None and current not in seen:
        seen.add(current)
        path.append(current)
        parent = parents[current]
        current = by_id.get(parent) if parent else None
    return path[::-1]


def _entry(entry_id: str, parent: str | None, kind: str = "custom") -> OpaqueEntry:
    return OpaqueEntry({"type": kind, "id": entry_id, "parentId": parent})


# Mostly "parent is the line before", with the ways a file can differ from that.
PARENT_KINDS = ["previous"] * 6 + ["earlier", "later", "missing", "none", "empty", "self"]
ID_KINDS = ["fresh"] * 8 + ["duplicate", "empty"]


@st.composite
def trees(draw: st.DrawFn) -> list[OpaqueEntry]:
    count = draw(st.integers(min_value=1, max_value=40))
    ids: list[str] = []
    for number in range(count):
        kind = draw(st.sampled_from(ID_KINDS))
        if kind == "duplicate" and ids:
            ids.append(draw(st.sampled_from(ids)))
        elif kind == "empty":
            ids.append("")
        else:
            ids.append(f"e{number}")
    entries = []
    for number, entry_id in enumerate(ids):
        kind = draw(st.sampled_from(PARENT_KINDS))
        parent: str | None
        if kind == "previous":
            parent = ids[number - 1] if number else None
        elif kind in ("earlier", "later"):
            parent = draw(st.sampled_from(ids[: number + 1] if kind == "earlier" else ids[number:]))
        elif kind == "missing":
            parent = "nowhere"
        elif kind == "empty":
            parent = ""
        elif kind == "self":
            parent = entry_id
        else:
            parent = None
        entries.append(_entry(entry_id, parent))
    return entries


@settings(max_examples=300, deadline=None)
@given(entries=trees())
def test_walk_matches_a_plain_walk(entries: list[OpaqueEntry]) -> None:
    tree = ListTree(entries)
    for start in range(len(entries)):
        assert walk_up(tree, start) == _reference_walk(tree.ids, tree.parents, start)


@settings(max_examples=200, deadline=None)
@given(entries=trees())
def test_walk_stays_right_while_entries_are_appended(entries: list[OpaqueEntry]) -> None:
    tree = _Entries(FileIndex(""))
    for entry in entries:
        tree.add(entry)
        last = len(tree.ids) - 1
        assert walk_up(tree, last) == _reference_walk(tree.ids, tree.parents, last)
        assert walk_up(tree, last // 2) == _reference_walk(tree.ids, tree.parents, last // 2)


def test_compaction_kept_range_with_unique_and_duplicate_ids() -> None:
    """The kept range starts at the first entry on the path with firstKeptEntryId."""

    def compaction(entry_id: str, parent: str, first_kept: str) -> OpaqueEntry:
        return OpaqueEntry(
            {"type": "compaction", "id": entry_id, "parentId": parent, "firstKeptEntryId": first_kept}
        )

    unique = [
        _entry("a", None),
        _entry("b", "a"),
        _entry("c", "b"),
        compaction("k", "c", "b"),
        _entry("d", "k"),
    ]
    tree = ListTree(unique)
    assert tree.parent_links().unique
    assert context_positions(tree, walk_up(tree, 4)) == [3, 1, 2, 4]
    unknown = [*unique[:3], compaction("k", "c", "zz"), unique[4]]
    assert context_positions(ListTree(unknown), [0, 1, 2, 3, 4]) == [3, 4]
    # "b" twice: by_id resolves the parent of "c" to the later "b" (position 3).
    duplicated = [_entry("a", None), _entry("b", "a"), _entry("x", "b"), _entry("b", "a"), _entry("c", "b")]
    duplicated += [compaction("k", "c", "b"), _entry("d", "k")]
    tree = ListTree(duplicated)
    assert not tree.parent_links().unique
    path = walk_up(tree, 6)
    assert path == [0, 3, 4, 5, 6]
    assert context_positions(tree, path) == [5, 3, 4, 6]
