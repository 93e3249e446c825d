"""What a task's session file says about the task: how far it got, what it answered, what it used.

A prompt counts as answered when the last message after it is an assistant message that
ended normally (``stop`` or ``length``): not an error, not aborted, not waiting for tool
results. The task is complete when all its prompts are answered; a complete session is
never run again, even if the runner died before writing its result line.

Inside an unanswered prompt, the conversation can go on from the prompt itself or from tool
results that answer every call of the assistant message before them; anything after the
last such point (an answer cut off, tool calls whose results never came, an error) is where
the interruption hit.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from pi_ai import AssistantMessage, TextContent, ToolCall, ToolResultMessage, content_text
from pi_coding_agent.app.batch._result import TokenUsage
from pi_coding_agent.core.session import SessionEntry, SessionManager, SessionMessageEntry

_ANSWERED = ("stop", "length")


@dataclass
class PromptProgress:
    answered: int
    """Prompts answered, counted from the first."""
    cut_off: bool = False
    """The branch ends inside an unanswered prompt."""
    resume_at: str | None = None
    """Then: the last entry of that prompt the conversation can go on from (``None`` for a
    file whose entries have no ids, which only a fresh start can use)."""


@dataclass
class SessionTotals:
    usage: TokenUsage = field(default_factory=TokenUsage)
    turns: int = 0
    tool_calls: Counter[str] = field(default_factory=Counter)


def _role(entry: SessionEntry) -> str | None:
    return getattr(entry.message, "role", None) if isinstance(entry, SessionMessageEntry) else None


def prompt_progress(manager: SessionManager) -> PromptProgress:
    """How many prompts of the current branch are answered, and where their answers end."""
    branch = manager.get_branch()
    starts = [index for index, entry in enumerate(branch) if _role(entry) == "user"]
    for number, start in enumerate(starts):
        stop = starts[number + 1] if number + 1 < len(starts) else len(branch)
        if not _answered(branch[start:stop]):
            return PromptProgress(number, cut_off=True, resume_at=_resume_point(branch[start:stop]))
    return PromptProgress(len(starts))


def _resume_point(segment: list[SessionEntry]) -> str | None:
    point = segment[0].id
    pending: set[str] = set()
    for entry in segment[1:]:
        message = entry.message if isinstance(entry, SessionMessageEntry) else None
        if isinstance(message, AssistantMessage):
            pending = {block.id for block in message.content if isinstance(block, ToolCall)}
            if message.stop_reason != "toolUse":
                pending = {"(not a tool turn)"}
        elif isinstance(message, ToolResultMessage) and message.tool_call_id in pending:
            pending.discard(message.tool_call_id)
            if not pending:
                point = entry.id
    return point


def _answered(segment: list[SessionEntry]) -> bool:
    messages = [entry.message for entry in segment if isinstance(entry, SessionMessageEntry)]
    last = next(
        (m for m in reversed(messages) if getattr(m, "role", None) in ("assistant", "toolResult")), None
    )
    return isinstance(last, AssistantMessage) and last.stop_reason in _ANSWERED


def last_assistant(manager: SessionManager) -> AssistantMessage | None:
    for entry in reversed(manager.get_branch()):
        if isinstance(entry, SessionMessageEntry) and isinstance(entry.message, AssistantMessage):
            return entry.message
    return None


def answer_text(message: AssistantMessage | None) -> str | None:
    if message is None or not any(isinstance(block, TextContent) for block in message.content):
        return None
    return content_text(message.content)


def session_totals(manager: SessionManager) -> SessionTotals:
    """Usage, model calls and tool calls over every entry of the file (every branch, retries too)."""
    totals = SessionTotals()
    for entry in manager.get_entries():
        if isinstance(entry, SessionMessageEntry) and isinstance(entry.message, AssistantMessage):
            add_message(totals, entry.message)
    return totals


def add_message(totals: SessionTotals, message: AssistantMessage) -> None:
    usage = message.usage
    totals.usage = totals.usage + TokenUsage(
        usage.input,
        usage.output,
        usage.cache_read,
        usage.cache_write,
        usage.total_tokens or usage.input + usage.output + usage.cache_read + usage.cache_write,
        float(usage.cost.total),
    )
    totals.turns += 1
    for block in message.content:
        if isinstance(block, ToolCall):
            totals.tool_calls[block.name] += 1
