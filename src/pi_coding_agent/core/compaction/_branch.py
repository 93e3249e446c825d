"""Summaries of a branch the user navigates away from (Pi 0.85's branch summarization).

Moving the leaf from one branch of the session tree to another leaves the old branch out
of the context. When asked, the entries from the old leaf back to the deepest entry both
branches share are summarized into a ``branch_summary`` entry placed at the target, so the
model still knows what was tried there.

The newest entries win when the branch is longer than the model's context minus
``branchSummary.reserveTokens``; a compaction or an older branch summary that no longer fits
is still taken while less than 90% of the budget is used. Each entry counts as the model saw
it: under the latest ``context_edit`` of it among the entries left behind (hidden ones drop
out, replaced ones read as their replacement), as in Pi 1.6. Files read and modified are
tracked as for compaction: from tool calls, and cumulatively from the ``details`` of the
branch summaries being summarized. The prompt and the preamble are ours; the request
(system prompt, ``<conversation>`` transcript, no output cap, the session's reasoning level,
no prompt cache) and the entry follow Pi 1.6. The preamble is prose the model reads, kept verbatim
in the entry by both Pis and never parsed, so our wording leaves files interchangeable
(docs/pi-1.6/tools-and-compaction.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pi_agent import AgentMessage
from pi_ai import Usage, content_text
from pi_coding_agent.core.compaction._prepare import FileOperations, format_file_operations
from pi_coding_agent.core.compaction._summarize import (
    SummaryRequest,
    request_summary,
    serialize_conversation,
    summary_failure,
)
from pi_coding_agent.core.compaction._tokens import estimate_tokens
from pi_coding_agent.core.session import (
    BranchSummaryEntry,
    CompactionEntry,
    SessionEntry,
    SessionManager,
    context_edits_of,
    project_context_entry,
)

DEFAULT_CONTEXT_WINDOW = 128000

BRANCH_SUMMARY_PREAMBLE = (
    "Before coming back to this point, the user followed another branch of the conversation. "
    "What happened there:\n\n"
)

BRANCH_SUMMARY_PROMPT = """Summarize the conversation branch above, so that the work can be picked up from here later. Use exactly this format:

## Goal
[What the user wanted to achieve on this branch.]

## Constraints & Preferences
- [Requirements, limits or preferences the user stated, or "(none)"]

## Progress
### Done
- [x] [Finished work and changes]

### In Progress
- [ ] [Work started but not finished]

### Blocked
- [What stopped progress, if anything]

## Key Decisions
- **[Decision]**: [Why]

## Next Steps
1. [What should happen next to carry this work on]

Be brief in every section. Keep file paths, function names and error messages exactly as written."""


@dataclass(frozen=True)
class BranchEntries:
    entries: list[SessionEntry]
    """From the old leaf back to (not including) the common ancestor, oldest first."""
    common_ancestor_id: str | None


def collect_entries_for_branch_summary(
    manager: SessionManager, old_leaf_id: str | None, target_id: str
) -> BranchEntries:
    """The entries a move from ``old_leaf_id`` to ``target_id`` leaves behind."""
    if not old_leaf_id:
        return BranchEntries([], None)
    old_path = {entry.id for entry in manager.get_branch(old_leaf_id)}
    common: str | None = None
    for entry in reversed(manager.get_branch(target_id)):
        if entry.id in old_path:
            common = entry.id
            break
    collected: list[SessionEntry] = []
    current: str | None = old_leaf_id
    while current and current != common:
        found = manager.get_entry(current)
        if found is None:
            break
        collected.append(found)
        current = found.parent_id
    collected.reverse()
    return BranchEntries(collected, common)


@dataclass
class PreparedBranch:
    messages: list[AgentMessage]
    file_ops: FileOperations
    total_tokens: int


def _summary_message(entry: SessionEntry, edit: dict[str, Any] | None) -> AgentMessage | None:
    """What an entry shows the summarizer, under its latest ``context_edit`` as in Pi 1.6 (a
    hidden entry shows nothing). Tool results are left out (the calls say enough); summaries
    are never edited, and a compaction shows its summary, not the prompt it replays."""
    summary_entry = entry.type in ("compaction", "branch_summary")
    messages = project_context_entry(entry, None if summary_entry else edit)
    if not messages:
        return None
    message = messages[-1] if entry.type == "compaction" else messages[0]
    return None if message.role == "toolResult" else message


def _tracked_files(entries: Sequence[SessionEntry], file_ops: FileOperations) -> None:
    """Files named in the ``details`` of earlier branch summaries we wrote (not extensions')."""
    for entry in entries:
        if not isinstance(entry, BranchSummaryEntry) or entry.from_hook is True:
            continue
        details = entry.details
        if not isinstance(details, dict):
            continue
        for key, target in (("readFiles", file_ops.read), ("modifiedFiles", file_ops.edited)):
            files = details.get(key)
            if isinstance(files, list):
                target.update(name for name in files if isinstance(name, str))


def prepare_branch_entries(entries: Sequence[SessionEntry], token_budget: int = 0) -> PreparedBranch:
    """The newest messages that fit ``token_budget`` (0: no limit), and the files touched."""
    file_ops = FileOperations()
    _tracked_files(entries, file_ops)
    kept: list[AgentMessage] = []
    total = 0
    edits = context_edits_of(entries)
    for entry in reversed(entries):
        message = _summary_message(entry, edits.get(entry.id) if edits else None)
        if message is None:
            continue
        file_ops.add_from(message)
        tokens = estimate_tokens(message)
        if token_budget > 0 and total + tokens > token_budget:
            is_summary = isinstance(entry, CompactionEntry | BranchSummaryEntry)
            if is_summary and total < token_budget * 0.9:
                kept.append(message)
                total += tokens
            break
        kept.append(message)
        total += tokens
    kept.reverse()
    return PreparedBranch(kept, file_ops, total)


@dataclass
class BranchSummary:
    """The outcome of one summary call: a summary, or ``aborted``, or an ``error``."""

    summary: str = ""
    usage: Usage | None = None
    read_files: list[str] = field(default_factory=list)
    modified_files: list[str] = field(default_factory=list)
    aborted: bool = False
    error: str | None = None


def branch_summary_prompt(
    conversation: str, custom_instructions: str | None, replace_instructions: bool
) -> str:
    if replace_instructions and custom_instructions:
        instructions = custom_instructions
    elif custom_instructions:
        instructions = f"{BRANCH_SUMMARY_PROMPT}\n\nAdditional focus: {custom_instructions}"
    else:
        instructions = BRANCH_SUMMARY_PROMPT
    return f"<conversation>\n{conversation}\n</conversation>\n\n{instructions}"


async def generate_branch_summary(
    entries: Sequence[SessionEntry],
    request: SummaryRequest,
    *,
    reserve_tokens: int,
    replace_instructions: bool = False,
) -> BranchSummary:
    """Summarize ``entries`` (oldest first) with the model and retry policy of ``request``."""
    model = request.model
    budget = (model.context_window or DEFAULT_CONTEXT_WINDOW) - reserve_tokens
    prepared = prepare_branch_entries(entries, budget)
    if not prepared.messages:
        return BranchSummary(summary="No content to summarize")
    prompt = branch_summary_prompt(
        serialize_conversation(prepared.messages), request.custom_instructions, replace_instructions
    )
    response = await request_summary(request, prompt, None)  # no output cap, as Pi 1.6
    if response.stop_reason == "aborted":
        return BranchSummary(aborted=True)
    failure = summary_failure(response, "Branch summarization")
    if failure is not None:
        return BranchSummary(error=failure)
    read_files, modified_files = prepared.file_ops.lists()
    summary = (
        BRANCH_SUMMARY_PREAMBLE + content_text(response.content) + format_file_operations(read_files, modified_files)
    )
    return BranchSummary(summary, response.usage, read_files, modified_files)
