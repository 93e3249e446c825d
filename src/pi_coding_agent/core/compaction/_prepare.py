"""Where to cut a branch, and what goes into the summary (Pi 1.6's ``prepareCompaction``).

The newest ``keepRecentTokens`` (estimated) stay verbatim. The cut is always at a message
that may start the kept part (never at a tool result, so a kept tool call keeps its
results); when it falls inside a turn, the turn's beginning is summarized separately
("split turn"). Everything from the previous compaction's kept part up to the cut is
summarized, on top of the previous summary. All of it is measured and summarized as the model
sees it (Pi 1.6): an entry a ``context_edit`` hides is left out, a replaced one summarized with
its replacement (docs/pi-1.6/tools-and-compaction.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pi_agent import AgentMessage
from pi_ai import AssistantMessage, ToolCall
from pi_ai.js_json import utf16_sort_key
from pi_coding_agent.core.compaction._tokens import estimate_projected_context_tokens, estimate_tokens
from pi_coding_agent.core.session import (
    CompactionEntry,
    ProjectedEntry,
    SessionEntry,
    SessionMessageEntry,
    build_session_projection,
    entry_to_dict,
    session_entry_to_context_messages,
)
from pi_coding_agent.core.settings import CompactionSettings

_CUT_ROLES = frozenset({"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"})
_TURN_START_ROLES = frozenset({"user", "bashExecution", "custom", "branchSummary", "compactionSummary"})


@dataclass
class FileOperations:
    read: set[str] = field(default_factory=set)
    written: set[str] = field(default_factory=set)
    edited: set[str] = field(default_factory=set)

    def add_from(self, message: AgentMessage) -> None:
        """Paths the ``read``/``write``/``edit`` tool calls of an assistant message touched."""
        if not isinstance(message, AssistantMessage):
            return
        for block in message.content:
            if not isinstance(block, ToolCall):
                continue
            path = block.arguments.get("path") if isinstance(block.arguments, dict) else None
            if not isinstance(path, str) or not path:
                continue
            target = {"read": self.read, "write": self.written, "edit": self.edited}.get(block.name)
            if target is not None:
                target.add(path)

    def lists(self) -> tuple[list[str], list[str]]:
        """(files only read, files modified), each sorted like JavaScript's default sort."""
        modified = self.edited | self.written
        key = utf16_sort_key
        return sorted(self.read - modified, key=key), sorted(modified, key=key)


def format_file_operations(read_files: Sequence[str], modified_files: Sequence[str]) -> str:
    sections = []
    if read_files:
        sections.append("<read-files>\n" + "\n".join(read_files) + "\n</read-files>")
    if modified_files:
        sections.append("<modified-files>\n" + "\n".join(modified_files) + "\n</modified-files>")
    return "\n\n" + "\n\n".join(sections) if sections else ""


def _is_cut_point(entry: ProjectedEntry) -> bool:
    return not isinstance(entry.source, CompactionEntry) and any(m.role in _CUT_ROLES for m in entry.messages)


def _is_turn_start(entry: ProjectedEntry) -> bool:
    return not isinstance(entry.source, CompactionEntry) and any(m.role in _TURN_START_ROLES for m in entry.messages)


@dataclass(frozen=True)
class CutPointResult:
    first_kept_entry_index: int
    turn_start_index: int
    is_split_turn: bool


def find_cut_point(entries: Sequence[ProjectedEntry], start: int, end: int, keep_recent_tokens: int) -> CutPointResult:
    """Where to cut the projected entries ``[start, end)`` so that about ``keep_recent_tokens``
    of edited context stay: an entry a context edit hides is no cut point and weighs nothing."""
    cut_points = [i for i in range(start, end) if _is_cut_point(entries[i])]
    if not cut_points:
        return CutPointResult(start, -1, False)
    accumulated = 0
    cut = cut_points[0]
    exceeded = False
    for i in range(end - 1, start - 1, -1):
        tokens = sum(estimate_tokens(m) for m in entries[i].messages)
        if tokens == 0:
            continue
        accumulated += tokens
        if accumulated >= keep_recent_tokens:
            exceeded = True
            cut = next((c for c in cut_points if c >= i), cut_points[-1])
            break
    if exceeded and _only_hidden_answer_follows(entries[cut + 1 : end]):
        cut += 1
    while cut > start:
        previous = entries[cut - 1]
        if isinstance(previous.source, CompactionEntry) or previous.messages:
            break
        cut -= 1
    if _is_turn_start(entries[cut]):
        return CutPointResult(cut, -1, False)
    turn_start = next((i for i in range(cut, start - 1, -1) if _is_turn_start(entries[i])), -1)
    return CutPointResult(cut, turn_start, turn_start != -1)


def _visible(entry: ProjectedEntry) -> bool:
    """Whether the entry shows the model something before any edit."""
    return entry.source.type != "context_edit" and bool(session_entry_to_context_messages(entry.source))


def _hidden(entry: ProjectedEntry) -> bool:
    return _visible(entry) and not entry.messages


def _only_hidden_answer_follows(suffix: Sequence[ProjectedEntry]) -> bool:
    """Pi 1.6: a cut followed only by hidden entries, one of them an assistant answer (a
    retried answer whose failure was hidden) and no replacement of anything still shown, moves
    one entry on, so the hidden failure is not what the kept part starts after."""
    hidden_ids = {entry.source.id for entry in suffix if _hidden(entry)}
    for entry in suffix:
        if entry.source.type == "context_edit":
            data = entry_to_dict(entry.source)
            replaced = "replacement" not in data or data["replacement"] is not None
            if replaced and data.get("targetId") not in hidden_ids:
                return False
    return any(
        isinstance(entry.source, SessionMessageEntry) and entry.source.message.role == "assistant" and _hidden(entry)
        for entry in suffix
    ) and all(not isinstance(entry.source, CompactionEntry) and (not _visible(entry) or _hidden(entry)) for entry in suffix)


@dataclass
class CompactionPreparation:
    first_kept_entry_id: str
    messages_to_summarize: list[AgentMessage]
    turn_prefix_messages: list[AgentMessage]
    is_split_turn: bool
    tokens_before: int
    previous_summary: str | None
    file_ops: FileOperations
    settings: CompactionSettings


def _conversation(entries: Sequence[ProjectedEntry]) -> list[AgentMessage]:
    """The edited conversation of ``entries``: no compaction, and no system message (the prompt
    and tools are no conversation; the compaction entry carries their replay, Pi 1.6)."""
    return [
        message
        for entry in entries
        if not isinstance(entry.source, CompactionEntry)
        for message in entry.messages
        if message.role != "system"
    ]


def prepare_compaction(path: Sequence[SessionEntry], settings: CompactionSettings) -> CompactionPreparation | None:
    """What to summarize for the branch ``path`` (root first); ``None`` if nothing to do.

    Works over Pi 1.6's projection: the latest compaction, the entries it kept, the later ones,
    each entry's messages as the latest ``context_edit`` of it leaves them.
    """
    if path and isinstance(path[-1], CompactionEntry):
        return None
    projected = build_session_projection(list(path))
    previous: CompactionEntry | None = None
    start = 0
    if projected and isinstance(projected[0].source, CompactionEntry) and projected[0].messages:
        previous = projected[0].source
        start = 1
    tokens_before = estimate_projected_context_tokens(projected, path).tokens
    cut = find_cut_point(projected, start, len(projected), settings.keep_recent_tokens)
    first_kept = projected[cut.first_kept_entry_index].source if cut.first_kept_entry_index < len(projected) else None
    first_kept_id = getattr(first_kept, "id", None)
    if not isinstance(first_kept_id, str) or not first_kept_id:
        return None
    history_end = cut.turn_start_index if cut.is_split_turn else cut.first_kept_entry_index
    to_summarize = _conversation(projected[start:history_end])
    prefix = _conversation(projected[cut.turn_start_index : cut.first_kept_entry_index]) if cut.is_split_turn else []
    if not to_summarize and not prefix:
        return None
    file_ops = FileOperations()
    if previous is not None:
        details: Any = previous.details
        if previous.from_hook is not True and isinstance(details, dict):
            for key, target in (("readFiles", file_ops.read), ("modifiedFiles", file_ops.edited)):
                files = details.get(key)
                if isinstance(files, list):
                    target.update(f for f in files if isinstance(f, str))
    for message in [*to_summarize, *prefix]:
        file_ops.add_from(message)
    return CompactionPreparation(
        first_kept_entry_id=first_kept_id,
        messages_to_summarize=to_summarize,
        turn_prefix_messages=prefix,
        is_split_turn=cut.is_split_turn,
        tokens_before=tokens_before,
        previous_summary=previous.summary if previous is not None else None,
        file_ops=file_ops,
        settings=settings,
    )
