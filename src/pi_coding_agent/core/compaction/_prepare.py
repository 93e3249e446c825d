"""Where to cut a branch, and what goes into the summary (Pi 0.85's ``prepareCompaction``).

The newest ``keepRecentTokens`` (estimated) stay verbatim. The cut is always at a message
that may start the kept part (never at a tool result, so a kept tool call keeps its
results); when it falls inside a turn, the turn's beginning is summarized separately
("split turn"). Everything from the previous compaction's kept part up to the cut is
summarized, on top of the previous summary.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pi_agent import AgentMessage
from pi_ai import AssistantMessage, ToolCall
from pi_ai.js_json import utf16_sort_key
from pi_coding_agent.core.compaction._tokens import estimate_context_tokens, estimate_tokens
from pi_coding_agent.core.session import (
    CompactionEntry,
    SessionEntry,
    build_session_context,
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


def _roles(entry: SessionEntry) -> list[str]:
    return [message.role for message in session_entry_to_context_messages(entry)]


def _is_turn_start(entry: SessionEntry) -> bool:
    return not isinstance(entry, CompactionEntry) and any(role in _TURN_START_ROLES for role in _roles(entry))


@dataclass(frozen=True)
class CutPointResult:
    first_kept_entry_index: int
    turn_start_index: int
    is_split_turn: bool


def find_cut_point(entries: Sequence[SessionEntry], start: int, end: int, keep_recent_tokens: int) -> CutPointResult:
    cut_points = [
        i
        for i in range(start, end)
        if not isinstance(entries[i], CompactionEntry) and any(r in _CUT_ROLES for r in _roles(entries[i]))
    ]
    if not cut_points:
        return CutPointResult(start, -1, False)
    accumulated = 0
    cut = cut_points[0]
    for i in range(end - 1, start - 1, -1):
        if isinstance(entries[i], CompactionEntry):
            continue  # an older compaction in the kept range adds nothing to the context (Pi 1.6)
        tokens = sum(estimate_tokens(m) for m in session_entry_to_context_messages(entries[i]))
        if tokens == 0:
            continue
        accumulated += tokens
        if accumulated >= keep_recent_tokens:
            cut = next((c for c in cut_points if c >= i), cut)
            break
    while cut > start:
        previous = entries[cut - 1]
        if isinstance(previous, CompactionEntry) or session_entry_to_context_messages(previous):
            break
        cut -= 1
    if _is_turn_start(entries[cut]):
        return CutPointResult(cut, -1, False)
    turn_start = next((i for i in range(cut, start - 1, -1) if _is_turn_start(entries[i])), -1)
    return CutPointResult(cut, turn_start, turn_start != -1)


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


def _summary_message(entry: SessionEntry) -> AgentMessage | None:
    """The conversation ``entry`` adds: none for a compaction, nor for a system message (the
    prompt and tools are no conversation; the compaction entry carries their replay, Pi 1.6)."""
    if isinstance(entry, CompactionEntry):
        return None
    messages = session_entry_to_context_messages(entry)
    return messages[0] if messages and messages[0].role != "system" else None


def prepare_compaction(path: Sequence[SessionEntry], settings: CompactionSettings) -> CompactionPreparation | None:
    """What to summarize for the branch ``path`` (root first); ``None`` if nothing to do."""
    if path and isinstance(path[-1], CompactionEntry):
        return None
    previous_index = next((i for i in range(len(path) - 1, -1, -1) if isinstance(path[i], CompactionEntry)), -1)
    previous_summary: str | None = None
    start = 0
    if previous_index >= 0:
        previous = path[previous_index]
        assert isinstance(previous, CompactionEntry)
        previous_summary = previous.summary
        kept = next((i for i, e in enumerate(path) if getattr(e, "id", None) == previous.first_kept_entry_id), -1)
        start = kept if kept >= 0 else previous_index + 1
    tokens_before = estimate_context_tokens(build_session_context(list(path)).messages).tokens
    if 0 <= start < previous_index:
        # The context puts the previous compaction's summary before the entries it keeps, so
        # the entries kept from before it and those after it are one run (Pi 1.6's projection):
        # a cut walks back over message-less entries such as a model change across it.
        window = [*path[:previous_index], *path[previous_index + 1 :]]
    else:
        window = list(path)
    cut = find_cut_point(window, start, len(window), settings.keep_recent_tokens)
    first_kept = window[cut.first_kept_entry_index] if cut.first_kept_entry_index < len(window) else None
    first_kept_id = getattr(first_kept, "id", None)
    if not isinstance(first_kept_id, str) or not first_kept_id:
        return None
    history_end = cut.turn_start_index if cut.is_split_turn else cut.first_kept_entry_index
    to_summarize = [m for m in (_summary_message(window[i]) for i in range(start, history_end)) if m is not None]
    prefix: list[AgentMessage] = []
    if cut.is_split_turn:
        prefix = [
            m
            for m in (_summary_message(window[i]) for i in range(cut.turn_start_index, cut.first_kept_entry_index))
            if m is not None
        ]
    if not to_summarize and not prefix:
        return None
    file_ops = FileOperations()
    if previous_index >= 0:
        previous = path[previous_index]
        assert isinstance(previous, CompactionEntry)
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
        previous_summary=previous_summary,
        file_ops=file_ops,
        settings=settings,
    )
