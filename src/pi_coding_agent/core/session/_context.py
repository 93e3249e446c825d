"""What a session branch means to the model: Pi's ``buildSessionContext`` and friends.

The walk works on positions in file order through a small ``EntryTree`` interface, so the
same code serves a ``SessionManager`` that decodes entries lazily from disk and a plain
list of entries (``build_session_context(entries, ...)``, as Pi exports it).

Pi's behaviour is kept, quirks included: an unknown leaf id falls back to the last entry
in file order; settings (model, thinking level) come from the whole root-to-leaf path,
compacted part included. Pi 1.6's additions are followed (docs/pi-1.6/sessions.md): only the
latest compaction contributes (its ``systemMessage`` checkpoint, then its summary; an older
compaction inside the kept range adds nothing, where 0.85 repeated its summary), ``system``
messages inside the kept range are dropped in favour of that checkpoint, and the latest
``context_edit`` of each target among the context entries hides it (``replacement: null``) or
replaces its content. ``usage`` entries add nothing. One deliberate difference: a
``parentId`` cycle (only a hand-edited file can have one) ends the walk where it closes, where
Pi loops forever.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress, islice
from operator import ne
from typing import Any, Protocol

import msgspec
from msgspec import UNSET

from pi_agent import AgentMessage, OpaqueMessage, agent_message_from_dict
from pi_ai import AssistantMessage, DecodeError, absent_keys, to_builtins
from pi_coding_agent.core.messages import (
    SystemMessage,
    create_branch_summary_message,
    create_compaction_summary_message,
    create_custom_message,
    iso_to_ms,
)
from pi_coding_agent.core.session._entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomMessageEntry,
    ModelChangeEntry,
    OpaqueEntry,
    SessionEntry,
    SessionMessageEntry,
    ThinkingLevelChangeEntry,
    entry_to_dict,
    message_from_value,
)


class SessionModel(msgspec.Struct, kw_only=True, rename="camel", omit_defaults=True):
    """The model a branch last used: ``{"provider", "modelId"}``.

    A field is ``None`` (and left out of the JSON) when the entry that last set the model
    did not have it as a string: Pi takes the last ``model_change`` or assistant message on
    the path whatever it holds, so such an entry still decides (see ``docs/sessions``).
    """

    provider: str | None = None
    model_id: str | None = None


@dataclass(slots=True)
class SessionContext:
    """What ``build_session_context`` returns."""

    messages: list[AgentMessage] = field(default_factory=list)
    thinking_level: str | None = "off"
    """``"off"`` without a ``thinking_level_change`` on the path; ``None`` when the last one
    has no level (Pi's ``undefined``: whoever resumes falls back to its default)."""
    model: SessionModel | None = None


class EntryTree(Protocol):
    """Entries at positions 0..n-1 in file order, whose ids, parents and types are known
    without decoding them; ``by_id`` maps an id to the position that wins for it."""

    @property
    def ids(self) -> Sequence[str | None]: ...
    @property
    def parents(self) -> Sequence[str | None]: ...
    @property
    def types(self) -> Sequence[str]: ...
    @property
    def by_id(self) -> Mapping[str | None, int]: ...
    def entries(self, indices: Sequence[int]) -> list[SessionEntry]: ...
    def parent_links(self) -> ParentLinks:
        """How parents link up (``ParentLinks``), for the tree as it is now."""
        ...


class _Last:
    """Sentinel: no leaf given, use the last entry in file order."""


LAST = _Last()
LeafArg = str | None | _Last


def path_positions(tree: EntryTree, leaf: LeafArg) -> list[int]:
    """Root-first positions from the root to ``leaf``.

    ``None`` (the leaf reset to before the first entry) gives ``[]``; an unknown id, or
    ``LAST``, starts from the last entry. The walk stops at a missing or empty parent.
    """
    if leaf is None:
        return []
    start = tree.by_id.get(leaf) if isinstance(leaf, str) else None
    if start is None:
        start = len(tree.ids) - 1
        if start < 0:
            return []
    return walk_up(tree, start)


def resolve_parents(parents: Sequence[str | None], by_id: Mapping[str | None, int]) -> list[int | None]:
    """The position each ``parentId`` resolves to; ``None`` for a root or a missing parent."""
    positions: list[int | None] = list(map(by_id.get, parents))
    if "" in by_id or None in by_id:
        # A null or empty parentId is a root, as in Pi, even if some entry has the id ""
        # or none at all.
        positions = [None if not parent else found for parent, found in zip(parents, positions, strict=True)]
    return positions


class ParentLinks:
    """Where each entry's ``parentId`` leads, in a form a walk up a long branch follows fast.

    When every id is unique (and none is ``""``), an entry's parent is the entry before it
    exactly when its ``parentId`` is that entry's id, which is true for almost every line
    of a real file. Then only the *breaks* (entries whose parent is not the previous entry)
    are kept, found at C speed, and a walk takes whole runs of entries at a time, looking
    up parents only at breaks. Otherwise (duplicate ids: the last one wins) every parent is
    resolved to a position up front.
    """

    def __init__(
        self, ids: Sequence[str | None], parents: Sequence[str | None], by_id: Mapping[str | None, int]
    ) -> None:
        self.unique = len(by_id) == len(ids) and "" not in by_id and None not in by_id
        self.breaks: list[int] = []
        """Positions whose parent is not the previous position (always 0 first)."""
        self.up: list[int | None] = []
        """Without unique ids: the position of each entry's parent."""
        if not self.unique:
            self.up = resolve_parents(parents, by_id)
        elif ids:
            self.breaks = [0, *compress(range(1, len(ids)), map(ne, islice(parents, 1, None), ids))]

    def appended(
        self,
        position: int,
        entry_id: str | None,
        parent_id: str | None,
        *,
        previous_id: str | None,
        known: bool,
    ) -> bool:
        """Take in an entry appended at ``position`` (the end); ``False`` if the links must be rebuilt.

        ``previous_id`` is the id of the entry before it, ``known`` whether its id was
        already taken (the new entry then wins it, which may move other entries' parent).
        """
        if not self.unique or known or not entry_id:
            return False
        if parent_id is None or parent_id != previous_id:
            self.breaks.append(position)
        return True


def walk_up(tree: EntryTree, start: int | None) -> list[int]:
    """Positions from ``start`` up to its root, root first (a ``parentId`` cycle is cut)."""
    if start is None:
        return []
    links = tree.parent_links()
    if not links.unique:
        return _walk_positions(links.up, start)
    path: list[int] = []
    breaks, parents, lookup = links.breaks, tree.parents, tree.by_id.get
    current = start
    while True:
        first = breaks[bisect_right(breaks, current) - 1]
        path += range(current, first - 1, -1)
        if len(path) > len(parents):
            return _cut_cycle(path)  # more steps than entries: the parents loop
        parent = parents[first]
        found = lookup(parent) if parent else None
        if found is None:
            break
        current = found
    path.reverse()
    return path


def _walk_positions(up: Sequence[int | None], start: int) -> list[int]:
    path: list[int] = []
    record = path.append
    current = start
    for _ in range(len(up)):
        record(current)
        parent = up[current]
        if parent is None:
            break
        current = parent
    else:
        return _cut_cycle(path)  # more steps than entries: the parents loop
    path.reverse()
    return path


def _cut_cycle(path: list[int]) -> list[int]:
    seen: set[int] = set()
    kept: list[int] = []
    for index in path:
        if index in seen:
            break
        seen.add(index)
        kept.append(index)
    kept.reverse()
    return kept


def context_positions(tree: EntryTree, path: list[int]) -> list[int]:
    """The path as the model sees it: the latest compaction, the kept entries, then the rest."""
    types, ids = tree.types, tree.ids
    compaction_at = -1
    for offset in range(len(path) - 1, -1, -1):
        if types[path[offset]] == "compaction":
            compaction_at = offset
            break
    if compaction_at < 0:
        return path
    compaction = tree.entries([path[compaction_at]])[0]
    first_kept = _first_kept_id(compaction)
    kept_at: int | None = None
    if tree.parent_links().unique:
        # Each id names one entry, so an id's first place on the path is that entry's place.
        kept = tree.by_id.get(first_kept) if isinstance(first_kept, str) else None
        if kept is not None:
            try:
                kept_at = path.index(kept, 0, compaction_at)
            except ValueError:
                kept_at = None
    else:
        path_ids = list(map(ids.__getitem__, path))
        # Pi looks the compaction up again by id: with a duplicated id the first one wins.
        compaction_at = path_ids.index(ids[path[compaction_at]])
        if first_kept in path_ids[:compaction_at]:
            kept_at = path_ids.index(first_kept)
    result = [path[compaction_at]]
    if kept_at is not None:
        result += _without_system_messages(tree, path[kept_at:compaction_at])
    result += path[compaction_at + 1 :]
    return result


def _without_system_messages(tree: EntryTree, positions: list[int]) -> list[int]:
    """The kept range without its ``system`` messages (the compaction's checkpoint replaces them)."""
    types = tree.types
    candidates = [index for index in positions if types[index] == "message"]
    if not candidates:
        return positions
    system = {
        index
        for index, entry in zip(candidates, tree.entries(candidates), strict=True)
        if _message_role(entry) == "system"
    }
    return [index for index in positions if index not in system] if system else positions


def _message_role(entry: SessionEntry) -> Any:
    if isinstance(entry, SessionMessageEntry):
        return getattr(entry.message, "role", None)
    message = entry.data.get("message") if isinstance(entry, OpaqueEntry) else None
    return message.get("role") if isinstance(message, dict) else None


def _first_kept_id(entry: SessionEntry) -> Any:
    if isinstance(entry, CompactionEntry):
        return entry.first_kept_entry_id if entry.first_kept_entry_id is not UNSET else None
    if isinstance(entry, OpaqueEntry):
        return entry.data.get("firstKeptEntryId")
    return None


def settings_of(tree: EntryTree, path: list[int]) -> tuple[str | None, SessionModel | None]:
    """(thinking level, model) in force at the end of ``path``: the last writer of each wins.

    As in Pi, the last ``thinking_level_change`` decides even without a level, and the last
    ``model_change`` or assistant message decides even when its model fields are missing.
    """
    thinking: str | None = "off"
    model: SessionModel | None = None
    thinking_found = model_found = False
    types = tree.types
    for offset in range(len(path) - 1, -1, -1):
        if thinking_found and model_found:
            break
        index = path[offset]
        kind = types[index]
        if kind == "thinking_level_change" and not thinking_found:
            thinking_found, thinking = True, _thinking_level(tree.entries([index])[0])
        elif kind == "model_change" and not model_found:
            model_found, model = True, _model_change(tree.entries([index])[0])
        elif kind == "message" and not model_found:
            found = _assistant_model(tree.entries([index])[0])
            if found is not None:
                model_found, model = True, found
    return thinking, model


def _thinking_level(entry: SessionEntry) -> str | None:
    if isinstance(entry, ThinkingLevelChangeEntry):
        return entry.thinking_level
    value = entry.data.get("thinkingLevel") if isinstance(entry, OpaqueEntry) else None
    return value if isinstance(value, str) else None


def _model_change(entry: SessionEntry) -> SessionModel:
    if isinstance(entry, ModelChangeEntry):
        return SessionModel(provider=entry.provider, model_id=entry.model_id)
    data = entry.data if isinstance(entry, OpaqueEntry) else {}
    return _model_from(data.get("provider"), data.get("modelId"))


def _assistant_model(entry: SessionEntry) -> SessionModel | None:
    """The model of an assistant message entry; ``None`` if the entry is no such message."""
    if isinstance(entry, SessionMessageEntry):
        message = entry.message
        if isinstance(message, AssistantMessage):
            absent = absent_keys(message)  # a stand-in "" is not a model name
            return _model_from(
                None if "provider" in absent else message.provider,
                None if "model" in absent else message.model,
            )
        data = message.data if isinstance(message, OpaqueMessage) else {}
    elif isinstance(entry, OpaqueEntry) and isinstance(entry.data.get("message"), dict):
        data = entry.data["message"]
    else:
        return None
    if data.get("role") != "assistant":
        return None
    return _model_from(data.get("provider"), data.get("model"))


def _model_from(provider: Any, model_id: Any) -> SessionModel:
    return SessionModel(
        provider=provider if isinstance(provider, str) else None,
        model_id=model_id if isinstance(model_id, str) else None,
    )


def session_entry_to_context_messages(entry: SessionEntry) -> list[AgentMessage]:
    """The messages one context entry contributes (Pi's ``sessionEntryToContextMessages``)."""
    if isinstance(entry, SessionMessageEntry):
        return [entry.message]
    if isinstance(entry, CustomMessageEntry):
        content = entry.content if entry.content is not UNSET and entry.content is not None else []
        return [
            create_custom_message(entry.custom_type, content, entry.display, entry.details, entry.timestamp)
        ]
    if isinstance(entry, BranchSummaryEntry):
        if not entry.summary:
            return []
        return [create_branch_summary_message(entry.summary, entry.from_id, entry.timestamp)]
    if isinstance(entry, CompactionEntry):
        summary = create_compaction_summary_message(entry.summary, entry.tokens_before, entry.timestamp)
        if isinstance(entry.system_message, dict):
            return [message_from_value(entry.system_message), summary]
        return [summary]
    if isinstance(entry, OpaqueEntry):
        return _opaque_entry_messages(entry.data)
    return []


def _opaque_entry_messages(data: dict[str, Any]) -> list[AgentMessage]:
    """Pi's projection for an entry whose fields did not validate, built from the raw data."""
    kind = data.get("type")
    if kind == "message":
        # An entry Pi reads though its envelope is odd (no id, say): its message counts.
        message = data.get("message")
        return [message_from_value(message)] if isinstance(message, dict) else []
    timestamp = data.get("timestamp")
    ms = iso_to_ms(timestamp) if isinstance(timestamp, str) else None
    if kind == "custom_message":
        content = data.get("content")
        built = _without_absent(
            {
                "role": "custom",
                "customType": data.get("customType", UNSET),
                "content": [] if content is None else content,
                "display": data.get("display", UNSET),
                "details": data.get("details", UNSET),
                "timestamp": ms,
            }
        )
    elif kind == "branch_summary":
        if not data.get("summary"):
            return []
        built = _without_absent(
            {
                "role": "branchSummary",
                "summary": data["summary"],
                "fromId": data.get("fromId", UNSET),
                "timestamp": ms,
            }
        )
    elif kind == "compaction":
        checkpoint = data.get("systemMessage")
        head: list[AgentMessage] = [message_from_value(checkpoint)] if isinstance(checkpoint, dict) else []
        built = _without_absent(
            {
                "role": "compactionSummary",
                "summary": data.get("summary", UNSET),
                "tokensBefore": data.get("tokensBefore", UNSET),
                "timestamp": ms,
            }
        )
    else:
        return []
    try:
        projected: AgentMessage = agent_message_from_dict(built)
    except DecodeError:
        projected = OpaqueMessage(built)
    return [*head, projected] if kind == "compaction" else [projected]


def _without_absent(data: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if value is not UNSET}


@dataclass(frozen=True)
class ProjectedEntry:
    """One context entry and the messages it gives the model once edits apply (Pi 1.6's
    projected entry): none for an entry a ``context_edit`` hides or an older compaction."""

    source: SessionEntry
    messages: list[AgentMessage]


def project_context(tree: EntryTree, leaf: LeafArg) -> list[ProjectedEntry]:
    """The context entries of the branch ending at ``leaf`` (the latest compaction first),
    each with its messages under the latest ``context_edit`` of it."""
    return _project(tree, path_positions(tree, leaf))


def _project(tree: EntryTree, path: list[int]) -> list[ProjectedEntry]:
    positions = context_positions(tree, path)
    edits = _latest_edits(tree, positions)
    return [
        ProjectedEntry(entry, _entry_messages(offset, entry, edits.get(entry.id) if edits else None))
        for offset, entry in enumerate(tree.entries(positions))
    ]


def _entry_messages(offset: int, entry: SessionEntry, edit: dict[str, Any] | None) -> list[AgentMessage]:
    if edit is not None:
        return _edited(session_entry_to_context_messages(entry), edit)
    if isinstance(entry, SessionMessageEntry):
        message = entry.message
        if isinstance(message, SystemMessage) and "content" in absent_keys(message):
            message = SystemMessage(**{**msgspec.structs.asdict(message), "content": ""})
        return [message]
    if offset == 0 or entry.type != "compaction":
        return session_entry_to_context_messages(entry)
    return []


def context_edits_of(entries: Sequence[SessionEntry]) -> dict[str | None, dict[str, Any]]:
    """``targetId`` -> the last ``context_edit`` among ``entries`` (in their order)."""
    edits: dict[str | None, dict[str, Any]] = {}
    for entry in entries:
        if entry.type == "context_edit":
            data = entry_to_dict(entry)
            target = data.get("targetId")
            edits[target if isinstance(target, str) else None] = data
    return edits


def project_context_entry(entry: SessionEntry, edit: dict[str, Any] | None) -> list[AgentMessage]:
    """The messages ``entry`` gives the model under ``edit`` (Pi 1.6's ``projectContextEntry``):
    unchanged without one, none when it hides the entry, else the replacement content."""
    messages = session_entry_to_context_messages(entry)
    return messages if edit is None else _edited(messages, edit)


def build_context(tree: EntryTree, leaf: LeafArg) -> SessionContext:
    path = path_positions(tree, leaf)
    thinking, model = settings_of(tree, path)
    messages = [message for projected in _project(tree, path) for message in projected.messages]
    return SessionContext(messages=messages, thinking_level=thinking, model=model)


_EDITABLE_ROLES = frozenset({"user", "assistant", "toolResult", "custom"})


def _latest_edits(tree: EntryTree, positions: list[int]) -> dict[str | None, dict[str, Any]]:
    """``targetId`` -> the latest ``context_edit`` among the context entries (Pi 1.6)."""
    types = tree.types
    found = [index for index in positions if types[index] == "context_edit"]
    edits: dict[str | None, dict[str, Any]] = {}
    for entry in tree.entries(found) if found else ():
        data = entry_to_dict(entry)
        target = data.get("targetId")
        edits[target if isinstance(target, str) else None] = data
    return edits


def _edited(messages: list[AgentMessage], edit: dict[str, Any]) -> list[AgentMessage]:
    """``messages`` of one entry under its edit: none for ``replacement: null``, else each
    editable message with the replacement content (a string becomes one text block for
    assistant and tool-result messages, whose content is a list)."""
    replacement = edit.get("replacement")
    if replacement is None:
        return []
    content = replacement.get("content") if isinstance(replacement, dict) else None
    result: list[AgentMessage] = []
    for message in messages:
        role = getattr(message, "role", None)
        if role not in _EDITABLE_ROLES:
            result.append(message)
            continue
        data = dict(to_builtins(message))
        if role in ("assistant", "toolResult") and isinstance(content, str):
            data["content"] = [{"type": "text", "text": content}]
        else:
            data["content"] = content
        result.append(message_from_value(data))
    return result


# --------------------------------------------------------------------------- plain lists


class ListTree:
    """``EntryTree`` over entries held in memory (Pi's ``byId`` map: the last id wins)."""

    def __init__(self, entries: Sequence[SessionEntry], by_id: dict[str, SessionEntry] | None = None) -> None:
        self._entries = list(entries)
        self.ids: list[str | None] = [entry.id for entry in self._entries]
        self.parents = [entry.parent_id for entry in self._entries]
        self.types = [entry.type for entry in self._entries]
        self.by_id: dict[str | None, int] = dict(zip(self.ids, range(len(self.ids)), strict=True))
        if by_id is not None:
            # A caller-supplied map decides which entry an id resolves to.
            where = {id(entry): index for index, entry in enumerate(self._entries)}
            self.by_id = {key: where[id(value)] for key, value in by_id.items() if id(value) in where}

        self._links: ParentLinks | None = None

    def entries(self, indices: Sequence[int]) -> list[SessionEntry]:
        return list(map(self._entries.__getitem__, indices))

    def parent_links(self) -> ParentLinks:
        if self._links is None:
            self._links = ParentLinks(self.ids, self.parents, self.by_id)
        return self._links


def build_session_context(
    entries: Sequence[SessionEntry],
    leaf_id: LeafArg = LAST,
    by_id: dict[str, SessionEntry] | None = None,
) -> SessionContext:
    """Pi's exported ``buildSessionContext(entries, leafId?, byId?)`` over entries in file order.

    ``leaf_id`` omitted: the last entry; ``None``: nothing (the leaf was reset).
    """
    return build_context(ListTree(entries, by_id), leaf_id)


def build_session_projection(
    entries: Sequence[SessionEntry],
    leaf_id: LeafArg = LAST,
    by_id: dict[str, SessionEntry] | None = None,
) -> list[ProjectedEntry]:
    """Pi 1.6's ``buildSessionProjection(entries, leafId?, byId?)`` entries: what compaction
    cuts and summarizes, the context edits applied."""
    return project_context(ListTree(entries, by_id), leaf_id)


def build_context_entries(
    entries: Sequence[SessionEntry],
    leaf_id: LeafArg = LAST,
    by_id: dict[str, SessionEntry] | None = None,
) -> list[SessionEntry]:
    """The entries a context is built from (Pi's ``buildContextEntries``), compaction first."""
    tree = ListTree(entries, by_id)
    return tree.entries(context_positions(tree, path_positions(tree, leaf_id)))
