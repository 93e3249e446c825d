"""Moving around the session tree in place: the leaf, branch summaries, labels, the name.

``navigate_tree`` moves the leaf to another entry of the same file (``fork`` on the runtime
makes a new file instead). The next message then continues from there:

* a user (or extension) message as target: the leaf goes to its parent and its text is
  returned as ``editor_text``, so it can be edited and sent again;
* any other entry: the leaf goes to that entry.

With ``summarize``, the entries of the branch left behind (back to the deepest entry it
shares with the target) are summarized into a ``branch_summary`` entry at the new leaf;
``label`` then labels that entry (else the target). While the summary is written the
session counts as compacting, and ``abort`` (or ``abort_branch_summary``) cancels it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from pi_agent import Agent
from pi_ai import AbortController, Model, Usage, UserMessage, content_text
from pi_coding_agent.core.session import (
    BranchSummaryEntry,
    CustomMessageEntry,
    SessionEntry,
    SessionManager,
    SessionMessageEntry,
)
from pi_coding_agent.core.settings import Settings
from pi_coding_agent.runtime.agent_session._events import (
    AgentSessionEvent,
    SessionInfoChangedEvent,
    SummarizationRetryEvent,
)
from pi_coding_agent.runtime.agent_session._parts import SessionError

NAVIGATE_WHILE_STREAMING = "Wait for the current response to finish before navigating the session tree."


class TreeError(SessionError):
    """A tree operation that cannot be done (unknown entry, busy, no model)."""


@dataclass(frozen=True)
class NavigationResult:
    cancelled: bool
    editor_text: str | None = None
    """The text of the user message that was the target (to edit and send again)."""
    aborted: bool = False
    """The branch summary was cancelled; the leaf did not move."""
    summary_entry: BranchSummaryEntry | None = None


@dataclass
class BranchSummaryOutcome:
    summary: str = ""
    details: dict[str, list[str]] | None = None
    usage: Usage | None = None
    aborted: bool = False


def _target_leaf(target: SessionEntry) -> tuple[str | None, str | None]:
    """(new leaf id, editor text) for a navigation to ``target``."""
    if isinstance(target, SessionMessageEntry) and isinstance(target.message, UserMessage):
        return target.parent_id, content_text(target.message.content, "")
    if isinstance(target, CustomMessageEntry):
        content = target.content if isinstance(target.content, str | list) else []
        return target.parent_id, content_text(content, "")
    return target.id, None


class TreeListener(Protocol):
    """Extensions' part in a navigation (``session_before_tree``, ``session_tree``)."""

    async def before_tree(self, target_id: str, old_leaf: str | None, summarize: bool) -> BranchSummaryOutcome | bool | None:
        """``False`` to cancel, a branch summary an extension wrote, or ``None``."""

    async def after_tree(
        self, new_leaf: str | None, old_leaf: str | None, summary_entry: BranchSummaryEntry | None, from_extension: bool
    ) -> None: ...


@dataclass(frozen=True)
class TreeContext:
    """What moving around a session's tree needs of it."""

    agent: Agent
    session_manager: SessionManager
    settings: Settings
    model: Callable[[], Model | None]
    is_running: Callable[[], bool]
    emit: Callable[[AgentSessionEvent], None]
    idle_changed: Callable[[], None]
    """Called when a navigation ends (the session may have become idle)."""
    extensions: TreeListener
    restore_loadout: Callable[[], None]
    """Activates the tools the new branch declares (Pi 1.6 system messages)."""


class TreeNavigation:
    def __init__(self, context: TreeContext) -> None:
        self.context = context
        self._branch_summary: AbortController | None = None

    @property
    def summarizing(self) -> bool:
        """A branch summary is being written."""
        return self._branch_summary is not None

    def abort_branch_summary(self) -> None:
        if self._branch_summary is not None:
            self._branch_summary.abort()

    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool = False,
        custom_instructions: str | None = None,
        replace_instructions: bool = False,
        label: str | None = None,
    ) -> NavigationResult:
        """Move the leaf to ``target_id`` (see the module docstring)."""
        context = self.context
        manager = context.session_manager
        if context.is_running():
            raise TreeError(NAVIGATE_WHILE_STREAMING)
        old_leaf = manager.get_leaf_id()
        if target_id == old_leaf:
            return NavigationResult(cancelled=False)
        if summarize and context.model() is None:
            raise TreeError("No model available for summarization")
        target = manager.get_entry(target_id)
        if target is None:
            raise TreeError(f"Entry {target_id} not found")
        decision = await context.extensions.before_tree(target_id, old_leaf, summarize)
        if decision is False:
            return NavigationResult(cancelled=True)
        controller = AbortController()
        self._branch_summary = controller
        try:
            summary = decision if isinstance(decision, BranchSummaryOutcome) else (
                await self._summarize_branch(
                    old_leaf, target_id, controller, custom_instructions, replace_instructions
                )
                if summarize
                else None
            )
            if summary is not None and summary.aborted:
                return NavigationResult(cancelled=True, aborted=True)
            new_leaf, editor_text = _target_leaf(target)
            summary_entry = self._move_leaf(new_leaf, target_id, summary, label)
            context.agent.state.messages = manager.build_session_context().messages
            context.restore_loadout()
            from_extension = isinstance(decision, BranchSummaryOutcome)
            await context.extensions.after_tree(manager.get_leaf_id(), old_leaf, summary_entry, from_extension)
            return NavigationResult(cancelled=False, editor_text=editor_text, summary_entry=summary_entry)
        finally:
            self._branch_summary = None
            context.idle_changed()

    async def _summarize_branch(
        self,
        old_leaf: str | None,
        target_id: str,
        controller: AbortController,
        custom_instructions: str | None,
        replace_instructions: bool,
    ) -> BranchSummaryOutcome | None:
        from pi_coding_agent.core.compaction import (
            SummaryRequest,
            collect_entries_for_branch_summary,
            generate_branch_summary,
        )

        context = self.context
        model = context.model()
        collected = collect_entries_for_branch_summary(context.session_manager, old_leaf, target_id)
        if not collected.entries or model is None:
            return None
        request = SummaryRequest(
            model=model,
            stream_fn=context.agent.stream_fn,
            thinking_level=context.agent.state.thinking_level,  # Pi 1.6 passes the session's level
            retry=context.settings.retry,
            signal=controller.signal,
            on_retry_event=lambda kind, fields: context.emit(SummarizationRetryEvent(kind, fields)),
            custom_instructions=custom_instructions,
            source="branchSummary",
        )
        result = await generate_branch_summary(
            collected.entries,
            request,
            reserve_tokens=context.settings.branch_summary_reserve_tokens,
            replace_instructions=replace_instructions,
        )
        if result.aborted or controller.signal.aborted:
            return BranchSummaryOutcome(aborted=True)
        if result.error is not None:
            raise TreeError(result.error)
        return BranchSummaryOutcome(
            summary=result.summary,
            details={"readFiles": result.read_files, "modifiedFiles": result.modified_files},
            usage=result.usage,
        )

    def _move_leaf(
        self, new_leaf: str | None, target_id: str, summary: BranchSummaryOutcome | None, label: str | None
    ) -> BranchSummaryEntry | None:
        from msgspec import UNSET

        manager = self.context.session_manager
        if summary is not None and summary.summary:
            summary_id = manager.branch_with_summary(
                new_leaf,
                summary.summary,
                details=summary.details,
                from_hook=False,
                usage=summary.usage if summary.usage is not None else UNSET,
            )
            if label:
                manager.append_label_change(summary_id, label)
            entry = manager.get_entry(summary_id)
            return entry if isinstance(entry, BranchSummaryEntry) else None
        if new_leaf is None:
            manager.reset_leaf()
        else:
            manager.branch(new_leaf)
        if label:
            manager.append_label_change(target_id, label)
        return None

    def set_label(self, entry_id: str, label: str | None) -> None:
        """Label an entry of the tree (``None`` or ``""`` removes its label)."""
        manager = self.context.session_manager
        if manager.get_entry(entry_id) is None:
            raise TreeError(f"Entry {entry_id} not found")
        manager.append_label_change(entry_id, label)

    def set_session_name(self, name: str) -> None:
        """Set the display name (recorded as a ``session_info`` entry; announced)."""
        manager = self.context.session_manager
        manager.append_session_info(name)
        self.context.emit(SessionInfoChangedEvent(manager.get_session_name()))
